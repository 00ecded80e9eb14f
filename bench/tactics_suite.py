"""Run the tactics suite (``bench/tactics.json``): solved/total per category and time per move.

Run ``python bench/tactics_suite.py [--times 0.1,1.0] [--v1]`` (about 5 minutes for the two
default times on the fast engine; ``--v1`` adds the engine before the fast core). A puzzle is
solved when the engine's move is one of its accepted answers (see ``bench/make_tactics.py``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from v1_engine import search_v1

from bots.engine.limits import Limit
from bots.engine.search import search
from protocol import GOMOKU, Move

SUITE = Path(__file__).with_name("tactics.json")


def load() -> list[dict]:  # type: ignore[type-arg]
    """The suite's entries: category, moves [[x, y], ...], accepted [[x, y], ...]."""
    return json.loads(SUITE.read_text())


def run(entries: list[dict], time_s: float, v1: bool) -> tuple[Counter, Counter]:  # type: ignore[type-arg]
    """(solved, total) per category at ``time_s`` per position."""
    solved: Counter[str] = Counter()
    total: Counter[str] = Counter()
    engine = search_v1 if v1 else search
    for entry in entries:
        moves = [Move(x, y) for x, y in entry["moves"]]
        accepted = {Move(x, y) for x, y in entry["accepted"]}
        result = engine(GOMOKU, moves, Limit(time_s=time_s))
        total[entry["category"]] += 1
        solved[entry["category"]] += result.move in accepted
    return solved, total


def main() -> None:
    """Print one line per engine and time: solved/total overall and per category."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--times", default="0.1,1.0")
    p.add_argument("--v1", action="store_true", help="also run the v1 engine")
    args = p.parse_args()
    entries = load()
    engines = [("fast", False), ("v1", True)] if args.v1 else [("fast", False)]
    for time_s in (float(t) for t in args.times.split(",")):
        for name, v1 in engines:
            started = time.perf_counter()
            solved, total = run(entries, time_s, v1)
            cats = "  ".join(f"{c} {solved[c]}/{total[c]}" for c in sorted(total))
            print(
                f"{name:<5} {time_s:>4} s/move: {sum(solved.values())}/{sum(total.values())}"
                f"  ({cats})  [{time.perf_counter() - started:.0f} s]"
            )


if __name__ == "__main__":
    main()
