"""CPU cost of listing every forbidden point for black (what ``state`` does on black's turns).

Plays random renju games that stay near the centre (so lines and fouls are dense), and at each
black turn lists the forbidden points. The baseline in the same run is the cheapest whole-board
pass the server already makes per move: the win check (``Board.winning_run``) at every empty
cell. CPU time, so the figures hold on a busy machine.

Usage: ``python bench/bench_renju.py [--games 20] [--plies 60] [--seed 1]``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from protocol.renju import fouls
from protocol.rules import Game, Move
from protocol.variants import RENJU


def positions(games: int, plies: int, seed: int) -> list[Game]:
    """Black-to-move positions from random legal renju games played in the central 9x9."""
    rng = random.Random(seed)
    out: list[Game] = []
    for _ in range(games):
        game = Game(RENJU)
        while not game.over and game.ply < plies:
            move = Move(rng.randint(3, 11), rng.randint(3, 11))
            if not game.is_legal(move):
                continue
            if game.to_move == 0:
                out.append(Game.from_moves(RENJU, game.moves))
            game.push(move)
    return out


def main() -> None:
    """Time both passes over the same positions and print per-position figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--plies", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    games = positions(args.games, args.plies, args.seed)
    t0 = time.process_time()
    found = 0
    worst = 0.0
    for game in games:
        s = time.process_time()
        found += len(list(fouls(game.board.cells, 15, 15)))
        worst = max(worst, time.process_time() - s)
    t1 = time.process_time()
    for game in games:
        board = game.board
        for i in board.legal():
            board.cells[i] = 1
            board.winning_run(i)
            board.cells[i] = 0
    t2 = time.process_time()
    n = len(games)
    print(f"{n} black-to-move positions, {found} forbidden points in all")
    per = (t1 - t0) / n * 1e3
    print(f"list forbidden points: {per:.2f} ms/position, worst {worst * 1e3:.2f} ms")
    print(f"baseline win check at every empty cell: {(t2 - t1) / n * 1e3:.2f} ms/position")
    print(f"ratio: {(t1 - t0) / max(t2 - t1, 1e-9):.1f}x the baseline")


if __name__ == "__main__":
    main()
