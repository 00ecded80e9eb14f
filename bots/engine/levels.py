"""Playing levels 1-10: how much the engine searches and how often it blunders on purpose.

=====  =========  ==========  =======  =====  ==========================================
level  max depth  time (s)    threats  noise  feel
=====  =========  ==========  =======  =====  ==========================================
1      1          0.05        no       0.98   a beginner: plays near the last stones
2      1          0.10        no       0.80   mostly careless; takes a five it sees
3      2          0.15        no       0.50   sees one reply half the time
4      2          0.25        VCF+VCT  0.15   sometimes careless
5      2          0.40        VCF+VCT  0.00   solid beginner-plus
6      3          0.60        VCF+VCT  0.00   club player
7      4          0.80        VCF+VCT  0.00   strong
8      5          1.20        VCF+VCT  0.00   stronger
9      7          1.60        VCF+VCT  0.00   near-maximal
10     64         2.00        VCF+VCT  0.00   full strength: perfect on small boards
=====  =========  ==========  =======  =====  ==========================================

Given a time budget (a clock, ``timeout_turn``), level 10 spends that budget instead of its row's
2 s; the lower levels keep their row as a cap. The budget is the hard limit; ``soft_s``, when
given, the time a move plans to use (see :mod:`bots.engine.timing`).

"noise" is the chance of a careless move instead of a search: a random one among the 5 free
points nearest the last two stones (:func:`noise_move`), so levels 1-4 can miss a win or a
block. Level 1 is tuned to the ``novice`` bot, which plays only such moves: it must win at least
30% against level 1 (``tests/test_levels.py``; ``bench/ladder.py`` measures the whole ladder).

On small boards (at most ``SMALL_BOARD`` cells) a level whose depth reaches the end of the
game plays from the exact solver (level 10 solves tic-tac-toe in milliseconds: perfect play);
the others search every empty cell to their depth. Ties between equally good moves are broken
at random when an ``rng`` is given.
Bigger boards use the fast core (:mod:`bots.engine.fast`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from bots.engine.limits import Limit, Report, SearchResult
from bots.engine.search import SMALL_BOARD, pick, search
from protocol import renju
from protocol.rules import Game, Move, Variant, WinRule


@dataclass(frozen=True, slots=True)
class Level:
    """One row of the level table."""

    depth: int
    time_s: float
    threats: bool
    noise: float


LEVELS: dict[int, Level] = {
    1: Level(1, 0.05, False, 0.98),
    2: Level(1, 0.10, False, 0.80),
    3: Level(2, 0.15, False, 0.50),
    4: Level(2, 0.25, True, 0.15),
    5: Level(2, 0.40, True, 0.0),
    6: Level(3, 0.60, True, 0.0),
    7: Level(4, 0.80, True, 0.0),
    8: Level(5, 1.20, True, 0.0),
    9: Level(7, 1.60, True, 0.0),
    10: Level(64, 2.00, True, 0.0),
}


def level_limit(
    variant: Variant,
    level: int,
    time_budget_s: float | None = None,
    soft_s: float | None = None,
    report: Report | None = None,
) -> Limit:
    """The search limit for ``level`` (1-10), capped by the caller's time budget if given;
    ``soft_s`` is the time planned (capped likewise), ``report`` sees every iteration."""
    if level not in LEVELS:
        raise ValueError("level must be 1..10")
    row = LEVELS[level]
    small = variant.cells <= SMALL_BOARD
    if time_budget_s is None:
        time_s = row.time_s
    elif level == max(LEVELS):
        time_s = time_budget_s  # full strength uses whatever time it is given
    else:
        time_s = min(row.time_s, time_budget_s)
    soft = None if soft_s is None else min(soft_s, time_s)
    return Limit(
        depth=row.depth, time_s=time_s, soft_s=soft, threats=row.threats, ties=small, report=report
    )


def choose_move(
    variant: Variant,
    moves: list[Move],
    level: int = 10,
    time_budget_s: float | None = None,
    rng: random.Random | None = None,
) -> Move:
    """The move ``level`` plays after ``moves``; ``rng=None`` makes it deterministic."""
    return choose_move_with_search(variant, moves, level, time_budget_s, rng)[0]


def choose_move_with_search(
    variant: Variant,
    moves: list[Move],
    level: int = 10,
    time_budget_s: float | None = None,
    rng: random.Random | None = None,
    soft_s: float | None = None,
    report: Report | None = None,
) -> tuple[Move, SearchResult | None]:
    """The chosen move and the search behind it (None when noise picked a random move).

    ``soft_s`` and ``report``: as in :func:`level_limit`.
    """
    row = LEVELS.get(level)
    if row is None:
        raise ValueError("level must be 1..10")
    if rng is not None and row.noise and rng.random() < row.noise:
        return noise_move(variant, moves, rng), None
    result = search(variant, moves, level_limit(variant, level, time_budget_s, soft_s, report))
    return pick(result, rng), result


#: How many of the free points nearest the last stones a careless move chooses among.
NEAREST = 5


def noise_move(variant: Variant, moves: list[Move], rng: random.Random) -> Move:
    """A careless move, as a beginner plays: a random one among the ``NEAREST`` free points
    nearest the last two stones (any empty cell on small boards, near the centre on an empty
    big board). It may miss a win or a block, which is the point; never a forbidden point."""
    w, h, n = variant.width, variant.height, variant.cells
    taken = {m.y * w + m.x for m in moves}
    cells = [c for c in range(n) if c not in taken]
    if n > SMALL_BOARD:
        anchors = [(m.x, m.y) for m in moves[-2:]] or [((w - 1) / 2, (h - 1) / 2)]

        def distance(c: int) -> tuple[float, float]:
            """Chebyshev distance to the nearest anchor, then the squared Euclidean one."""
            x, y = c % w, c // w
            return min(
                (max(abs(x - ax), abs(y - ay)), (x - ax) ** 2 + (y - ay) ** 2) for ax, ay in anchors
            )

        rng.shuffle(cells)  # equally near points go either way
        cells.sort(key=distance)
    if variant.rule is WinRule.RENJU and len(moves) % 2 == 0:  # black: no forbidden point
        board = Game.from_moves(variant, moves).board
        legal = (c for c in cells if renju.foul(board.cells, w, h, c) is None)
        cells = [c for c, _ in zip(legal, range(NEAREST), strict=False)]
    cells = cells[:NEAREST] if n > SMALL_BOARD else cells
    cell = rng.choice(cells)
    return Move(cell % w, cell // w)


class Engine:
    """A level-bound engine object: ``Engine(7).choose_move(variant, moves)``."""

    def __init__(self, level: int = 10, rng: random.Random | None = None) -> None:
        if level not in LEVELS:
            raise ValueError("level must be 1..10")
        self.level = level
        self.rng = rng

    def choose_move(
        self, variant: Variant, moves: list[Move], time_budget_s: float | None = None
    ) -> Move:
        """The move this engine plays after ``moves``."""
        return choose_move(variant, moves, self.level, time_budget_s, self.rng)
