"""The server's CPU per move in the working tree against a named commit, in one interleaved run.

Every issue that touches the server quotes this (issue 49). It exports ``--against`` (a commit,
or a directory holding an older checkout) with ``git archive``, then runs ``bench/load.py``'s
measurement of the durable server (SQLite) at ``--games`` games for the working tree (A) and
the other tree (B) in turn, A B B A A B ..., so a machine that speeds up or slows down during
the run moves both alike, and prints for each pair the ratio A/B of the CPU per move (user +
system over the window, all threads), then the median ratio with its spread (min-max).

``--instructions`` runs each server under ``valgrind --tool=callgrind`` instead, counting only
inside the window (``callgrind_control``): instructions per move, which a busy machine does not
distort (it runs about 50x slower, so use fewer games and a longer window). Moves/s are then
meaningless; the ratio is of instructions per move.

``--core MOVES`` counts instead the sans-I/O core's instructions per move (each tree's own
``bench/arena_micro.py`` durable path, MOVES and 3x MOVES moves, the hash seed fixed): a figure
that repeats, for the part of the move that is the game's (no sockets, no timers).

Both sides run in the same build mode: a tree exported by ``git archive`` has no compiled
modules, so both run from source (``MNK_PURE=1``) unless ``--built`` says the working tree's
and the other's builds are both current (``python setup.py build_ext --inplace`` in each).

Usage: ``python bench/cpu_per_move.py --against 8e26932 [--games 100] [--pairs 3]
[--seconds 6] [--instructions | --core 3000] [--built --tree DIR] [--json FILE]``
(``--tree``: A is another checkout than this one, e.g. a built copy of it).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from load import measure
from loadgen import Config
from loadtarget import raise_fd_limit

ROOT = Path(__file__).resolve().parent.parent


def export(commit: str, into: Path) -> Path:
    """The tree of ``commit`` (``git archive``, never the stash) under ``into``."""
    rev = subprocess.run(
        ["git", "rev-parse", "--verify", f"{commit}^{{commit}}"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    tree = into / rev[:12]
    tree.mkdir(parents=True)
    archive = subprocess.Popen(["git", "archive", rev], cwd=ROOT, stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", str(tree)], stdin=archive.stdout, check=True)
    if archive.wait() != 0:
        raise SystemExit(f"git archive {commit} failed")
    return tree


class Callgrind:
    """Counts the server's instructions inside the window only (valgrind's callgrind)."""

    def __init__(self, out_dir: Path) -> None:
        if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
            raise SystemExit("--instructions needs valgrind (apt-get install valgrind)")
        self.out_dir = out_dir
        self.count = 0

    def wrapper(self) -> tuple[str, ...]:
        """The command prefix of the next server."""
        self.count += 1
        out = self.out_dir / f"callgrind.{self.count}.%p"
        return ("valgrind", "--tool=callgrind", "--instr-atstart=no",
                f"--callgrind-out-file={out}", "--quiet")  # fmt: skip

    def window(self, edge: str, pid: int) -> None:
        """Instrumentation on at the window's start; at its end off, and the counts dumped."""
        self._control("--instr=on" if edge == "start" else "--instr=off", pid)
        if edge == "end":
            self._control("--dump", pid)

    def counted(self) -> int:
        """Instructions the last server ran in its window (its dumps, read once it ended)."""
        files = self.out_dir.glob(f"callgrind.{self.count}.*")
        return sum(self.totals(path) or 0 for path in files)

    @staticmethod
    def _control(option: str, pid: int) -> None:
        subprocess.run(["callgrind_control", option, str(pid)], capture_output=True, check=True)

    @staticmethod
    def totals(path: Path) -> int | None:
        """The ``totals:`` line of a callgrind dump."""
        for line in path.read_text(errors="replace").splitlines():
            if line.startswith("totals:"):
                return int(line.split()[1])
        return None


#: Runs a tree's own ``bench/arena_micro.py`` durable path (decode, rules, room, journal) for
#: ``argv[1]`` moves: what :func:`core_instructions` counts.
CORE = (
    "import sys; sys.path[:0] = [sys.argv[2] + '/bench', sys.argv[2]]; import arena_micro as m;"
    " n = int(sys.argv[1]); m.arena_path(m.frames(n, 100), 100, True)()"
)


def core_instructions(tree: Path, env: dict[str, str], out_dir: Path, small: int) -> float:
    """Instructions per move of ``tree``'s sans-I/O core: callgrind's totals for ``3·small``
    moves less those for ``small``, over ``2·small`` (start-up cancels out). The hash seed is
    fixed, so the figure repeats to a few instructions, however busy the machine."""
    Callgrind(out_dir)  # valgrind is there
    totals = []
    for n in (small, 3 * small):
        out = out_dir / f"core.{tree.name}.{n}"
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--quiet"]
        cmd += [sys.executable, "-c", CORE, str(n), str(tree)]
        run_env = {**os.environ, **env, "PYTHONHASHSEED": "0", "PYTHONPATH": str(tree)}
        subprocess.run(cmd, cwd=tree, env=run_env, check=True, capture_output=True)
        totals.append(Callgrind.totals(out) or 0)
    return (totals[1] - totals[0]) / (2 * small)


def compiled(tree: Path) -> bool:
    """Whether ``tree``'s server runs its compiled core (a current build; protocol/native.py)."""
    probe = "import protocol.native as n; print(n.use_compiled())"
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONWARNINGS": "ignore"}
    env.pop("MNK_PURE", None)
    done = subprocess.run([sys.executable, "-c", probe], cwd=tree, env=env, capture_output=True)
    return done.stdout.strip() == b"True"


def one(tree: Path, cfg: Config, games: int, grind: Callgrind | None) -> dict[str, Any]:
    """One measurement of the durable server in ``tree``: CPU (or instructions) per move."""
    run_cfg = dataclasses.replace(cfg, src=str(tree))
    if grind is not None:
        run_cfg.wrapper = grind.wrapper()
    got = measure("server", games, run_cfg, None if grind is None else grind.window)
    if got["error_count"]:
        raise RuntimeError(f"errors against {tree}: {got['errors'][:3]}")
    if grind is not None:
        moves, counted = got["moves"], grind.counted()
        got["instructions_per_move"] = counted / moves if moves and counted else None
    return got


def spread(values: list[float]) -> str:
    """``median (min-max)`` of ``values``."""
    return f"{statistics.median(values):.3f} ({min(values):.3f}-{max(values):.3f})"


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--against", required=True, help="a commit, or a directory holding a tree")
    p.add_argument(
        "--tree", type=Path, default=ROOT, help="A: this tree (default: the working one)"
    )
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--pairs", type=int, default=3, help="A/B pairs, order alternating")
    p.add_argument("--seconds", type=float, default=6.0, help="measurement window per run")
    p.add_argument("--warmup", type=float, default=2.0)
    p.add_argument("--workers", type=int, default=2, help="load generator processes")
    p.add_argument("--moves-per-game", type=int, default=100)
    p.add_argument("--built", action="store_true", help="both trees' compiled builds are current")
    p.add_argument("--instructions", action="store_true", help="count instructions (callgrind)")
    p.add_argument(
        "--core",
        type=int,
        default=0,
        metavar="MOVES",
        help="instead: the sans-I/O core's instructions per move (callgrind, each tree's own "
        "bench/arena_micro.py, MOVES and 3x MOVES moves: deterministic)",
    )
    p.add_argument("--json", type=Path, default=None, help="where to write every run")
    return p


def core(
    args: argparse.Namespace, tree: Path, other: Path, env: dict[str, str], tmp: Path, mode: str
) -> int:
    """``--core``: both trees' sans-I/O instructions per move and their ratio."""
    a = core_instructions(tree, env, tmp, args.core)
    b = core_instructions(other, env, tmp, args.core)
    print(f"A = {tree}\nB = {args.against} ({other})\n{mode}, the sans-I/O core")
    print(f"core instructions/move: A {a:,.0f}  B {b:,.0f}  A/B {a / b:.3f}")
    if args.json is not None:
        args.json.write_text(json.dumps({"against": args.against, "core": {"A": a, "B": b}}))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Export, run the pairs, print every pair's ratio and the median with its spread."""
    args = build_parser().parse_args(argv)
    raise_fd_limit(4 * args.games + 256)
    with tempfile.TemporaryDirectory(prefix="mnk-cpm-") as tmp:
        other = Path(args.against)
        other = other.resolve() if other.is_dir() else export(args.against, Path(tmp))
        tree = args.tree.resolve()
        stale = [str(t) for t in (tree, other) if args.built and not compiled(t)]
        if stale:
            raise SystemExit(f"--built, but these run from source: {stale} (build them)")
        grind = Callgrind(Path(tmp)) if args.instructions else None
        cfg = Config(
            moves_per_game=args.moves_per_game, seconds=args.seconds, warmup=args.warmup,
            workers=args.workers, server_env=() if args.built else (("MNK_PURE", "1"),),
            ready_timeout=300.0 if grind else 15.0, setup_timeout=600.0 if grind else 60.0,
        )  # fmt: skip
        key = "instructions_per_move" if grind else "cpu_us_per_move"
        unit = "instructions/move" if grind else "CPU µs/move"
        mode = "compiled builds" if args.built else "both from source (MNK_PURE=1)"
        if args.core:
            return core(args, tree, other, dict(cfg.server_env), Path(tmp), mode)
        print(f"A = {args.tree}\nB = {args.against} ({other})\n{mode}, {args.games} games")
        pairs: list[dict[str, Any]] = []
        for i in range(args.pairs):
            order = ("A", "B") if i % 2 == 0 else ("B", "A")
            got = {side: one(tree if side == "A" else other, cfg, args.games, grind)
                   for side in order}  # fmt: skip
            a, b = got["A"][key], got["B"][key]
            ratio = a / b if a and b else None
            pairs.append({"A": got["A"], "B": got["B"], "ratio": ratio})
            print(
                f"pair {i + 1} ({''.join(order)}): A {a:,.1f}  B {b:,.1f} {unit}  A/B "
                f"{'-' if ratio is None else f'{ratio:.3f}'}  moves/s A "
                f"{got['A']['moves_per_s']:.0f} B {got['B']['moves_per_s']:.0f}",
                flush=True,
            )
    ratios = [p["ratio"] for p in pairs if p["ratio"] is not None]
    if ratios:
        a_all = [p["A"][key] for p in pairs]
        b_all = [p["B"][key] for p in pairs]
        print(f"A {unit}: {spread(a_all)}   B: {spread(b_all)}")
        print(f"A/B {unit}: median {spread(ratios)} over {len(ratios)} pairs")
    if args.json is not None:
        args.json.write_text(json.dumps({"against": args.against, "key": key, "pairs": pairs}))
    return 0 if ratios else 1


if __name__ == "__main__":
    sys.exit(main())
