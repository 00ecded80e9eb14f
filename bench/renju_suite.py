"""Run the renju tactics suite (``bench/renju_tactics.json``): solved/total per category.

Run ``python bench/renju_suite.py [--times 0.1,1.0] [--v1]``. Each position is played by the
level-10 bot exactly as in a game (``MinimaxBot.play``: the engine, then the bot's legality
check), with the given time per move; a position is solved when the move is one of its
accepted answers (found by brute force on the rules: ``bench/make_renju_tactics.py``). To
measure another checkout (the baseline before a change), run this file with that checkout
first on ``PYTHONPATH``: it imports ``bots`` and ``protocol`` from wherever Python finds them
and prints which directory that was.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import bots
from bots.engine.limits import Limit
from bots.sdk import Bot, MinimaxBot
from protocol.rules import Move
from protocol.variants import RENJU

SUITE = Path(__file__).with_name("renju_tactics.json")


def load() -> list[dict]:  # type: ignore[type-arg]
    """The suite's entries: name, category, moves [[x, y], ...], accepted [[x, y], ...]."""
    return json.loads(SUITE.read_text())


def run(bot: Bot, entries: list[dict], time_s: float) -> tuple[Counter, Counter, list[str]]:  # type: ignore[type-arg]
    """(solved, total) per category at ``time_s`` per position, and the failed names."""
    solved: Counter[str] = Counter()
    total: Counter[str] = Counter()
    failed = []
    for entry in entries:
        moves = [Move(x, y) for x, y in entry["moves"]]
        accepted = {Move(x, y) for x, y in entry["accepted"]}
        move = bot.play(RENJU, moves, Limit(time_s=time_s))
        total[entry["category"]] += 1
        solved[entry["category"]] += move in accepted
        if move not in accepted:
            failed.append(f"{entry['name']} ({move.x},{move.y})")
    return solved, total, failed


def main() -> None:
    """Print one line per engine and time: solved/total overall and per category."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--times", default="0.1,1.0")
    p.add_argument("--v1", action="store_true", help="also run the frozen v1 engine")
    args = p.parse_args()
    print(f"bots from {Path(bots.__file__).resolve().parent.parent}")
    entries = load()
    players: list[tuple[str, Bot]] = [("level10", MinimaxBot(10, seed=1))]
    if args.v1:
        from bots.specs import make_bot, parse_spec

        players.append(("v1", make_bot(parse_spec("minimax-v1:level=10"), seed=1)))
    for time_s in (float(t) for t in args.times.split(",")):
        for name, bot in players:
            started = time.perf_counter()
            solved, total, failed = run(bot, entries, time_s)
            cats = "  ".join(f"{c} {solved[c]}/{total[c]}" for c in sorted(total))
            print(
                f"{name:<8} {time_s:>4} s/move: {sum(solved.values())}/{sum(total.values())}"
                f"  ({cats})  [{time.perf_counter() - started:.0f} s]"
            )
            for line in failed:
                print(f"    missed: {line}")


if __name__ == "__main__":
    sys.exit(main())
