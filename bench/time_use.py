"""How much of each turn a Gomocup brain uses, measured from outside, as a manager sees it.

Plays brains against each other over the Piskvork protocol (``bots.piskvork.PiskvorkBrain``,
one process per brain and game) on freestyle 15x15 from seeded random 3-stone openings, colours
swapped, one game at a time, with ``INFO timeout_turn`` and no match clock. Each move is timed
from the first command line of the turn to the answer line. A move is *forced* when the side to
move has a win in one, must block one, or has a win by fours or threes that our threat search
proves (it should answer at once); the others should use 0.85-0.95 of the turn. An unforced move
answered sooner is told apart by the brain's last ``MESSAGE`` line of the move: a mate score
(a win or loss the search proved), no line at all (no main search: a threat search's win or a
single safe move), or neither (an early stop to look into). Any move over the turn limit is
reported (the hard rule: none).

    python bench/time_use.py --brain new=/path/new-brain --brain old=/path/old-brain \\
        --turn-ms 1000 --openings 2

Bounded: at most 2 x openings games of at most 225 moves, each move at most turn + 1 s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bots.engine.fast import NO_DEADLINE, VCF_PLIES, VCT_PLIES, core_for, load_core
from bots.piskvork import BrainError, PiskvorkBrain
from bots.tournament.openings import random_openings
from protocol import GOMOKU, Game, Move

BAND = (0.85, 0.95)
#: One move as measured: seconds taken, forced or not, the brain's last MESSAGE text.
Row = tuple[float, bool, str | None]
#: Node budget of the threat search that finds a position's proven win (see :func:`forced`).
FORCED_NODES = 100_000


def forced(moves: list[Move]) -> bool:
    """Whether the side to move wins in one or must block a win in one (or the board is empty),
    or has a win by fours or threes that our threat search proves within ``FORCED_NODES``
    nodes (the same on any machine): a move of a proven win should answer at once."""
    if not moves:
        return True
    core = core_for(GOMOKU, moves, load_core(), keep=False)
    side = len(moves) % 2
    if core.win_cells(side) or core.win_cells(1 - side):
        return True
    return any(
        core.threat_win(plies, threes, FORCED_NODES, NO_DEADLINE) >= 0
        for plies, threes in ((VCF_PLIES, False), (VCT_PLIES, True))
    )


async def play(paths: dict[str, str], black: str, white: str, opening: list[Move],
               turn_s: float, times: dict[str, list[Row]]) -> str:  # fmt: skip
    """One game; returns the winner's name, 'draw', or '<name> fault'."""
    game = Game.from_moves(GOMOKU, opening)
    brains = {black: PiskvorkBrain(paths[black], GOMOKU, 0), white: PiskvorkBrain(paths[white],
              GOMOKU, 1)}  # fmt: skip
    try:
        for brain in brains.values():
            await brain.start()
        while game.outcome is None:
            name = black if game.ply % 2 == 0 else white
            moves = list(game.moves)
            start = time.perf_counter()
            try:
                move = await brains[name].choose(moves, turn_s, None)
            except BrainError as exc:
                print(f"  {name}: {exc}", file=sys.stderr)
                return f"{name} fault"
            took = time.perf_counter() - start
            times[name].append((took, forced(moves), brains[name].last_message))
            if not game.is_legal(move):
                return f"{name} fault"
            game.push(move)
    finally:
        for brain in brains.values():
            await brain.close()
    winner = game.outcome.winner
    return "draw" if winner is None else (black, white)[winner]


def early_kind(said: str | None) -> str:
    """Why an unforced move may have come early, from the brain's last MESSAGE of the move."""
    if said is None:
        return "silent"
    return "mate" if re.search(r"\bev -?M\d", said) else "other"


def summary(name: str, rows: list[Row], turn_s: float) -> dict[str, object]:
    """Mean, max, share in the band (of the unforced moves), the early ones by kind, and
    moves over the limit."""
    free = [t for t, f, _ in rows if not f]
    alls = [t for t, _, _ in rows]
    lo, hi = BAND[0] * turn_s, BAND[1] * turn_s
    early = [early_kind(said) for t, f, said in rows if not f and t < lo]
    return {
        "brain": name,
        "moves": len(rows),
        "unforced": len(free),
        "mean_s": round(statistics.fmean(alls), 3) if alls else None,
        "mean_unforced_s": round(statistics.fmean(free), 3) if free else None,
        "max_s": round(max(alls), 3) if alls else None,
        "in_band": round(sum(lo <= t <= hi for t in free) / len(free), 3) if free else None,
        "early": {kind: early.count(kind) for kind in ("mate", "silent", "other")},
        "over_limit": sum(t > turn_s for t in alls),
    }


async def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--brain", action="append", required=True, metavar="NAME=PATH")
    p.add_argument("--turn-ms", type=int, default=1000)
    p.add_argument("--openings", type=int, default=2, help="colour-swapped pairs of games")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", type=Path, default=None)
    args = p.parse_args()
    paths = dict(b.split("=", 1) for b in args.brain)
    if len(paths) != 2:
        p.error("exactly two brains")
    a, b = paths
    turn_s = args.turn_ms / 1000
    times: dict[str, list[Row]] = {a: [], b: []}
    results = []
    for stones in random_openings(GOMOKU, 3, args.openings, args.seed):
        opening = [Move(x, y) for x, y in stones]
        for black, white in ((a, b), (b, a)):
            result = await play(paths, black, white, opening, turn_s, times)
            results.append(result)
            print(f"  {black} (black) vs {white}: {result}", file=sys.stderr)
    report = {
        "turn_ms": args.turn_ms,
        "games": len(results),
        "results": {r: results.count(r) for r in sorted(set(results))},
        "brains": [summary(n, times[n], turn_s) for n in (a, b)],
    }
    print(json.dumps(report, indent=1))
    if args.json:
        args.json.write_text(json.dumps({**report, "times": times}))


if __name__ == "__main__":
    asyncio.run(main())
