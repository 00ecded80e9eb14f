"""Playing levels 1-10: how much the engine searches and how often it blunders on purpose.

=====  =========  ==========  =======  =====  ==========================================
level  max depth  time (s)    threats  noise  feel
=====  =========  ==========  =======  =====  ==========================================
1      1          0.05        no       0.60   random move 60% of the time; beatable
2      1          0.10        no       0.35   often careless
3      2          0.15        no       0.20   sees one reply; still blunders
4      2          0.25        VCF+VCT  0.10   rarely careless
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

"noise" is the chance of playing a random candidate instead of searching (levels 1-4 can
therefore also miss a win or a block). On small boards (at most ``SMALL_BOARD`` cells) the
search covers every empty cell and stops once it reaches the end of the game, so level 10 solves
tic-tac-toe in milliseconds (perfect play), and ties between equally good moves are broken at
random when an ``rng`` is given. Bigger boards use the fast core (:mod:`bots.engine.fast`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from bots.engine.board import EvalBoard
from bots.engine.limits import Limit, Report, SearchResult
from bots.engine.search import SMALL_BOARD, pick, search, search_v1
from protocol.rules import Move, Variant


@dataclass(frozen=True, slots=True)
class Level:
    """One row of the level table."""

    depth: int
    time_s: float
    threats: bool
    noise: float


LEVELS: dict[int, Level] = {
    1: Level(1, 0.05, False, 0.60),
    2: Level(1, 0.10, False, 0.35),
    3: Level(2, 0.15, False, 0.20),
    4: Level(2, 0.25, True, 0.10),
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
    v1: bool = False,
) -> Move:
    """The move ``level`` plays after ``moves``; ``rng=None`` makes it deterministic."""
    return analyse(variant, moves, level, time_budget_s, rng, v1)[0]


def analyse(
    variant: Variant,
    moves: list[Move],
    level: int = 10,
    time_budget_s: float | None = None,
    rng: random.Random | None = None,
    v1: bool = False,
    soft_s: float | None = None,
    report: Report | None = None,
) -> tuple[Move, SearchResult | None]:
    """The chosen move and the search behind it (None when noise picked a random move).

    ``v1`` plays the engine before the fast core, with its old level rows (time capped at 2 s).
    ``soft_s`` and ``report``: as in :func:`level_limit`.
    """
    row = LEVELS.get(level)
    if row is None:
        raise ValueError("level must be 1..10")
    if rng is not None and row.noise and rng.random() < row.noise:
        board = EvalBoard(variant, list(moves))
        cells = board.candidates() if variant.cells > SMALL_BOARD else None
        if cells is None or not cells:
            cells = [c for c, v in enumerate(board.cells) if v == 0]
        return board.move(rng.choice(cells)), None
    if v1:
        limit = level_limit(variant, level, min(row.time_s, time_budget_s or row.time_s))
        result = search_v1(variant, moves, limit)
    else:
        result = search(variant, moves, level_limit(variant, level, time_budget_s, soft_s, report))
    return pick(result, rng), result


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
