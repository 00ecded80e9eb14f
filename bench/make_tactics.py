"""Build the gomoku tactics suite (``bench/tactics.json``) from engine self-play games.

Run ``python bench/make_tactics.py [--positions 240] [--seed 1]``. Games start from a few random
central stones and the engine plays them at a small node budget with some random moves mixed
in, so both sides make mistakes. Every position of every game is classified by exhaustive
threat search (VCF is complete: every four of the attacker, the forced block of the defender):

* ``vcf-win``: the side to move has no five yet but a forced win by continuous fours; the
  accepted answers are every move after which the defender is lost to a VCF.
* ``defend-vcf``: the side to move has no win of its own, and all but one to three of its
  candidate moves leave the opponent a VCF; the accepted answers are those few moves.
* ``defend-vct``: the same against the opponent's VCT (threes and fours; checked within the
  threat search's move generation, so "verified by threat search", not by full-width search).

A position whose check ran out of budget is skipped, never guessed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bots.engine.fast import core_for, fast_search, load_core, set_memory
from bots.engine.limits import Limit
from protocol import GOMOKU, Game, Move

SUITE = Path(__file__).with_name("tactics.json")
VCF_PLIES, VCT_PLIES, NODES = 25, 11, 200_000
FOREVER = 1e18
#: A defence puzzle has at most this many moves that hold.
MAX_ANSWERS = 3


def _threat(core: object, threes: bool) -> int:
    """The side to move's threat win (-1 none, -2 unknown) at the suite's full budget."""
    plies = VCT_PLIES if threes else VCF_PLIES
    return core.threat_win(plies, threes, NODES // 4 if threes else NODES, FOREVER)  # type: ignore[attr-defined]


def _winning_starts(core: object) -> list[int] | None:
    """Every first move after which the defender is lost to a VCF (None if unknown)."""
    out = []
    s = core.side()  # type: ignore[attr-defined]
    for cell in core.root_moves():  # type: ignore[attr-defined]
        core.play(cell)  # type: ignore[attr-defined]
        try:
            if not core.win_cells(s):  # type: ignore[attr-defined]
                continue  # not a four: not a VCF move
            lost = core.threat_lost(VCF_PLIES, False, NODES, FOREVER)  # type: ignore[attr-defined]
        finally:
            core.undo()  # type: ignore[attr-defined]
        if lost == -2:
            return None
        if lost:
            out.append(cell)
    return out


def _holding_moves(core: object, threes: bool) -> tuple[list[int], int] | None:
    """(moves after which the opponent has no VCF (or VCT), candidates tried); None if unknown."""
    holds, roots = [], core.root_moves()  # type: ignore[attr-defined]
    for cell in roots:
        core.play(cell)  # type: ignore[attr-defined]
        try:
            found = _threat(core, False)
            if found == -1 and threes:
                found = _threat(core, True)
        finally:
            core.undo()  # type: ignore[attr-defined]
        if found == -2:
            return None
        if found == -1:
            holds.append(cell)
            if len(holds) > MAX_ANSWERS:
                break  # too many good moves: not a puzzle (and no need to look further)
    return holds, len(roots)


def classify(moves: list[Move]) -> tuple[str, list[int]] | None:
    """The puzzle this position is (category, accepted cells), or None when it is none."""
    core = core_for(GOMOKU, moves, load_core(), keep=False)
    s = core.side()
    if core.over() or core.win_cells(s) or core.win_cells(1 - s):
        return None  # a five or a single forced block is too easy to be a puzzle
    vcf = _threat(core, False)
    if vcf == -2:
        return None
    if vcf >= 0:
        starts = _winning_starts(core)
        return ("vcf-win", starts) if starts else None
    if _threat(core, True) != -1:
        return None  # our own VCT (or unknown): not a defence puzzle, and no complete check for it
    for threes, name in ((False, "defend-vcf"), (True, "defend-vct")):
        got = _holding_moves(core, threes)
        if got is None:
            return None
        holds, tried = got
        if 1 <= len(holds) <= MAX_ANSWERS and tried >= 8:
            return name, holds
    return None


def self_play(rng: random.Random) -> list[list[Move]]:
    """One game's positions: a random opening, then the engine with 15% random moves."""
    game = Game(GOMOKU)
    while game.ply < rng.randint(2, 4):
        move = Move(rng.randint(5, 9), rng.randint(5, 9))
        if game.is_legal(move):
            game.push(move)
    positions = []
    while not game.over and game.ply < 120:
        positions.append(list(game.moves))
        if rng.random() < 0.15:
            core = core_for(GOMOKU, game.moves, load_core(), keep=False)
            move = Move(*divmod(rng.choice(core.root_moves()), 15)[::-1])
        else:
            limit = Limit(depth=rng.randint(2, 4), nodes=rng.randint(500, 4000))
            move = fast_search(GOMOKU, game.moves, limit, keep=False).move
        game.push(move)
    return positions


def main() -> None:
    """Generate until ``--positions`` puzzles, write ``bench/tactics.json``."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--positions", type=int, default=240)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    rng = random.Random(args.seed)
    set_memory(3 * (24 << 14))  # small tables: the generator makes a core per position
    suite: list[dict[str, object]] = []
    seen: set[tuple[Move, ...]] = set()
    started = time.perf_counter()
    per_game: dict[str, int] = {}
    while len(suite) < args.positions:
        per_game.clear()
        for moves in self_play(rng):
            key = tuple(moves)
            if key in seen:
                continue
            seen.add(key)
            found = classify(moves)
            if found is None or per_game.get(found[0], 0) >= 3:
                continue  # at most three puzzles of a kind per game: variety
            per_game[found[0]] = per_game.get(found[0], 0) + 1
            category, cells = found
            suite.append(
                {
                    "category": category,
                    "moves": [[m.x, m.y] for m in moves],
                    "accepted": sorted([c % 15, c // 15] for c in cells),
                }
            )
        counts = {c: sum(1 for e in suite if e["category"] == c) for c in
                  ("vcf-win", "defend-vcf", "defend-vct")}  # fmt: skip
        print(f"{len(suite)} puzzles {counts} after {time.perf_counter() - started:.0f} s")
    SUITE.write_text(json.dumps(suite[: args.positions], indent=None) + "\n")
    print(f"wrote {SUITE}")


if __name__ == "__main__":
    main()
