"""Engine speed, this checkout against a baseline checkout in the same run: freestyle and renju.

Run ``python bench/engine_speed.py --baseline DIR [--seconds 1.0] [--rounds 3]`` where DIR is
another checkout with its core built (``cythonize -i -3 bots/engine/{board,fouls,threats,core}.py``
there; a checkout from before the split: ``bots/engine/core.py``). Each
round runs every position once per checkout, each in its own fresh process (so neither warms
the other's caches), alternating which goes first. A search is the level-10 core search
without the threat search (``Limit(time_s=S, threats=False)``); the figures are nodes per
CPU second (CPU time, so the load of a shared machine counts less) and the depth reached, the
median over the rounds. Renju positions are the freestyle ones under renju rules (black to
move and white to move) plus the renju tactics suite's.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]

#: Middle games as stone lists (15x15); the same stones are searched as freestyle and renju.
MIDDLE_GAMES = {
    "opening 7": [(7, 7), (8, 8), (8, 7), (6, 7), (7, 8), (9, 6), (6, 9)],
    "middle 16": [(7, 7), (8, 8), (8, 7), (6, 7), (7, 8), (9, 6), (6, 9), (7, 6),
                  (9, 8), (6, 8), (8, 6), (5, 9), (9, 7), (10, 7), (6, 5), (7, 10)],
    "middle 22": [(10, 4), (8, 3), (4, 7), (11, 4), (8, 9), (6, 4), (4, 6), (6, 3),
                  (11, 10), (6, 5), (10, 7), (7, 6), (8, 10), (9, 9), (10, 8), (11, 7),
                  (9, 7), (7, 7), (5, 5), (7, 3), (11, 8), (8, 6)],
}  # fmt: skip


def positions() -> list[tuple[str, str, list[tuple[int, int]]]]:
    """(name, variant name, stones) of every position measured."""
    out = []
    for name, stones in MIDDLE_GAMES.items():
        out.append((f"{name}", "gomoku", stones))
        out.append((f"{name}", "renju", stones))
    suite = json.loads((HERE / "bench" / "renju_tactics.json").read_text())
    for entry in suite:
        if entry["category"] == "forbidden-defence":  # the others end in the threat search
            out.append((entry["name"][:24], "renju", [tuple(m) for m in entry["moves"]]))
    return out


def worker(seconds: float) -> None:
    """Search every position once with the checkout first on ``sys.path``; print JSON."""
    from bots.engine.fast import fast_search, load_core
    from bots.engine.limits import Limit
    from protocol.rules import Move
    from protocol.variants import GOMOKU, RENJU

    module = load_core()
    rows = []
    for name, variant_name, stones in positions():
        variant = GOMOKU if variant_name == "gomoku" else RENJU
        moves = [Move(x, y) for x, y in stones]
        cpu = time.process_time()
        result = fast_search(variant, moves, Limit(time_s=seconds, threats=False), module, False)
        cpu = time.process_time() - cpu
        rows.append([name, variant_name, result.nodes / max(cpu, 1e-9), result.depth])
    print(json.dumps({"compiled": module.compiled(), "rows": rows}))


def run(root: Path, seconds: float) -> dict:  # type: ignore[type-arg]
    """One worker process on the checkout ``root``."""
    out = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--worker", "--seconds", str(seconds)],
        cwd=root, env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, check=True, timeout=600,
    )  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    """Alternate the two checkouts for ``--rounds`` rounds and print the medians."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--baseline", help="the other checkout (its core built)")
    p.add_argument("--seconds", type=float, default=1.0)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        worker(args.seconds)
        return
    roots = {"new": HERE, "base": Path(args.baseline).resolve()}
    got: dict[str, list[dict]] = {"new": [], "base": []}  # type: ignore[type-arg]
    for r in range(args.rounds):
        for label in ("new", "base") if r % 2 == 0 else ("base", "new"):
            got[label].append(run(roots[label], args.seconds))
    for label in roots:
        print(f"{label}: {roots[label]} (compiled: {got[label][0]['compiled']})")
    print(f"{'position':<26}{'rules':<8}{'new kn/s':>10}{'base kn/s':>10}{'ratio':>7}"
          f"{'new d':>6}{'base d':>7}")  # fmt: skip
    ratios: dict[str, list[float]] = {"gomoku": [], "renju": []}
    for i, (name, rules, _) in enumerate(positions()):
        new = statistics.median(g["rows"][i][2] for g in got["new"])
        base = statistics.median(g["rows"][i][2] for g in got["base"])
        dn = statistics.median(g["rows"][i][3] for g in got["new"])
        db = statistics.median(g["rows"][i][3] for g in got["base"])
        if base > 0 and new > 0:  # (a search that ends before it starts counts no nodes)
            ratios[rules].append(new / base)
        print(f"{name:<26}{rules:<8}{new / 1e3:>10.1f}{base / 1e3:>10.1f}"
              f"{new / base if base else float('nan'):>7.2f}"
              f"{dn:>6.0f}{db:>7.0f}")  # fmt: skip
    for rules, rs in ratios.items():
        print(f"geometric mean new/base, {rules}: {statistics.geometric_mean(rs):.3f}")


if __name__ == "__main__":
    main()
