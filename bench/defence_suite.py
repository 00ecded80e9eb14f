"""Run the white-defence suite (``bench/defence.json``): solved/total and time per move.

Run ``python bench/defence_suite.py [--times 0.1,1.0] [--nodes 40000] [--json] [--baseline DIR]
[--detail]``.
A position is solved when the engine (``bots.engine.search.search`` with
``Limit(time_s=T)``, the level-10 search, as ``bench/tactics_suite.py`` runs it) plays one of
its accepted answers (see ``bench/make_defence.py``); ``--nodes N`` runs ``Limit(nodes=N)`` too,
which no machine load changes. ``--baseline DIR`` runs the same suite on
another checkout's engine in a subprocess (its core built), so before and after are measured in
one run. ``--detail`` lists every miss, and this checkout's line ``filter`` says on how many
positions the engine's own candidate check (a mirror of ``fast.FastSearch._safe`` at its node
budgets, without its time slice) already leaves only accepted answers.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
SUITE = HERE / "bench" / "defence.json"
FOREVER = 1e18


def load(path: Path = SUITE) -> list[dict]:  # type: ignore[type-arg]
    """The suite's entries: category, moves [[x, y], ...], accepted [[x, y], ...], refuted."""
    return json.loads(path.read_text())


def run(entries: list[dict], spec: str) -> list[dict]:  # type: ignore[type-arg]
    """One row per position: the move played, whether it is an answer, how it was found."""
    from bots.engine import fast
    from bots.engine.limits import Limit
    from bots.engine.search import search
    from protocol import GOMOKU, Move

    if hasattr(fast, "prepare"):  # the shape tables, built once a process as a bot does
        fast.prepare(GOMOKU)
    search(GOMOKU, [Move(7, 7)], Limit(nodes=2000))  # and the kept core (its table) made
    by_nodes = spec.startswith("n")
    limit = Limit(nodes=int(spec[1:])) if by_nodes else Limit(time_s=float(spec))
    rows = []
    for entry in entries:
        moves = [Move(x, y) for x, y in entry["moves"]]
        if by_nodes:  # a fresh core (table) each time: the same result on every run
            fast.set_memory(0)
        started = time.perf_counter()
        result = search(GOMOKU, moves, limit)
        seconds = time.perf_counter() - started
        move = [result.move.x, result.move.y]
        rows.append(
            {
                "move": move,
                "solved": move in entry["accepted"],
                "seconds": round(seconds, 3),
                "source": result.source,
                "score": result.score,
                "depth": result.depth,
            }
        )
    return rows


def safe_filter(entry: dict) -> list[list[int]]:  # type: ignore[type-arg]
    """The candidates the engine's own threat check keeps here (node budgets only)."""
    from bots.engine import fast
    from protocol import GOMOKU, Move

    core = fast.core_for(GOMOKU, [Move(x, y) for x, y in entry["moves"]], fast.load_core(), False)
    vcf_plies, vct_plies = fast.DEFENCE_VCF_PLIES, fast.DEFENCE_VCT_PLIES
    safe, lost = [], []
    for cell in core.root_moves():
        if len(safe) >= fast.SAFE_ROOTS:
            break
        core.play(cell)
        try:
            losing = (
                core.threat_win(vcf_plies, False, fast.DEFENCE_NODES, FOREVER) >= 0
                or core.threat_win(vct_plies, True, fast.DEFENCE_NODES // 4, FOREVER) >= 0
            )
        finally:
            core.undo()
        (lost if losing else safe).append([cell % 15, cell // 15])
    return safe or lost


def refutation(entry: dict, move: list[int]) -> str:  # type: ignore[type-arg]
    """How black beats ``move`` here: the shortest VCF, else VCT, found ("vcf 7"), or "none"."""
    from bots.engine import fast
    from protocol import GOMOKU, Move

    moves = [Move(x, y) for x, y in [*entry["moves"], move]]
    core = fast.core_for(GOMOKU, moves, fast.load_core(), False)
    for threes, kind, most in ((False, "vcf", 25), (True, "vct", 15)):
        for plies in range(3, most + 1, 2):
            if core.threat_win(plies, threes, 200_000, FOREVER) >= 0:
                return f"{kind} {plies}"
    return "none"


def worker(path: Path, specs: list[str]) -> dict:  # type: ignore[type-arg]
    """Every time's rows on the engine first on ``sys.path``."""
    from bots.engine.fast import load_core

    entries = load(path)
    return {
        "root": str(HERE),
        "compiled": bool(load_core().compiled()),
        "runs": {spec: run(entries, spec) for spec in specs},
    }


def run_baseline(root: Path, path: Path, specs: list[str]) -> dict:  # type: ignore[type-arg]
    """The worker on another checkout, in its own process."""
    out = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--worker", "--suite", str(path),
         "--specs", ",".join(specs)],
        cwd=root, env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, check=True, timeout=3600,
    )  # fmt: skip
    got = json.loads(out.stdout.strip().splitlines()[-1])
    got["root"] = str(root)
    return got


def summary(entries: list[dict], rows: list[dict]) -> dict:  # type: ignore[type-arg]
    """Solved/total overall and per category, and seconds per move (mean, max)."""
    cats: dict[str, list[int]] = {}
    for entry, row in zip(entries, rows, strict=True):
        got = cats.setdefault(entry["category"], [0, 0])
        got[0] += row["solved"]
        got[1] += 1
    secs = [r["seconds"] for r in rows]
    return {
        "solved": sum(r["solved"] for r in rows),
        "total": len(rows),
        "categories": cats,
        "mean_s": round(sum(secs) / len(secs), 3),
        "max_s": round(max(secs), 3),
    }


def spec_name(spec: str) -> str:
    """``0.1`` as "0.1 s/move", ``n40000`` as "40000 nodes"."""
    return f"{spec[1:]} nodes" if spec.startswith("n") else f"{spec} s/move"


def report(entries: list[dict], label: str, got: dict, detail: bool) -> None:  # type: ignore[type-arg]
    """Print one line per time (and the misses with ``detail``)."""
    for spec, rows in got["runs"].items():
        s = summary(entries, rows)
        cats = "  ".join(f"{c} {v[0]}/{v[1]}" for c, v in sorted(s["categories"].items()))
        print(
            f"{label:<5} {spec_name(spec):>12}: {s['solved']}/{s['total']}  ({cats})"
            f"  mean {s['mean_s']:.3f} s, max {s['max_s']:.3f} s"
        )
        if detail:
            for i, (entry, row) in enumerate(zip(entries, rows, strict=True)):
                if not row["solved"]:
                    print(
                        f"   miss #{i} ({entry['category']}, {len(entry['moves'])} stones): "
                        f"played {row['move']} via {row['source']} score {row['score']} "
                        f"depth {row['depth']}; answers {entry['accepted']}; black's win: "
                        f"{refutation(entry, row['move'])}"
                    )


def main() -> None:
    """Run this checkout (and ``--baseline``) at every ``--times``; print or dump JSON."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--times", default="0.1,1.0", help="seconds a move, comma-separated")
    p.add_argument("--nodes", default="", help="node budgets a move, comma-separated")
    p.add_argument("--specs", help=argparse.SUPPRESS)
    p.add_argument("--suite", default=str(SUITE))
    p.add_argument("--baseline", help="another checkout (its core built)")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.add_argument("--detail", action="store_true", help="list the misses")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    path = Path(args.suite)
    specs = [t for t in args.times.split(",") if t] + [f"n{n}" for n in args.nodes.split(",") if n]
    if args.specs is not None:
        specs = args.specs.split(",")
    if args.worker:
        print(json.dumps(worker(path, specs)))
        return
    entries = load(path)
    out = {"new": worker(path, specs)}
    if args.baseline:
        out["base"] = run_baseline(Path(args.baseline).resolve(), path, specs)
    filtered = [safe_filter(e) for e in entries]
    handled = sum(
        all(m in e["accepted"] for m in f) for e, f in zip(entries, filtered, strict=True)
    )
    out["filter"] = {"handled": handled, "total": len(entries), "kept": filtered}
    if args.json:
        print(json.dumps(out))
        return
    for label in ("new", "base") if args.baseline else ("new",):
        print(f"{label}: {out[label]['root']} (compiled: {out[label]['compiled']})")
        report(entries, label, out[label], args.detail)
    if args.baseline:
        for t in out["new"]["runs"]:
            new, base = out["new"]["runs"][t], out["base"]["runs"][t]
            only_new = sum(a["solved"] and not b["solved"] for a, b in zip(new, base, strict=True))
            only_base = sum(b["solved"] and not a["solved"] for a, b in zip(new, base, strict=True))
            print(f"{spec_name(t)}: solved by new only {only_new}, by base only {only_base}")
    print(f"filter: the engine's candidate check leaves only answers on {handled}/{len(entries)}")


if __name__ == "__main__":
    main()
