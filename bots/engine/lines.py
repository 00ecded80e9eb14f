"""Analysis for the ``analyse`` request: the N best moves with their scores or mate distances,
principal variations and depths (multi-PV), and on small boards every cell's proven value.

Built on the engine's public API only (``search`` and the exact solver), so the core can change
under it: the first line is the root search's move; more lines search the position after each
of the most promising candidates (the root's move among them) and rank them by the negated
score. On boards the exact solver finishes within the budget (:mod:`bots.engine.solver`) the
lines are the proven best moves instead, and ``values`` holds every empty cell's value.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from bots.engine.fast import core_for, load_core
from bots.engine.levels import level_limit
from bots.engine.limits import Limit, SearchResult
from bots.engine.search import SMALL_BOARD, search
from bots.engine.solver import CellValue, SolveTimeout, exact_values, principal, solvable
from protocol.rules import Game, Move, Variant

#: The longest principal variation sent (the protocol's bound for ``pv``).
MAX_PV = 32
#: The share of the budget the exact values may take before the engine's lines are used.
EXACT_SHARE = 0.8
#: The share of the budget the root search takes when more than one line is asked for.
ROOT_SHARE = 0.4


@dataclass(frozen=True, slots=True)
class Line:
    """One analysed move: its score (engine units) or mate distance (signed plies: positive,
    the side to move wins on that ply; negative, it loses), its principal variation from this
    move on, and the depth searched (plies)."""

    move: Move
    score: int | None = None
    mate: int | None = None
    pv: list[Move] = field(default_factory=list)
    depth: int = 0

    def to_wire(self) -> dict[str, Any]:
        """The line as ``analysis`` carries it."""
        out: dict[str, Any] = {"move": [self.move.x, self.move.y]}
        if self.mate is not None:
            out["mate"] = self.mate
        elif self.score is not None:
            out["score"] = self.score
        out["pv"] = [[m.x, m.y] for m in self.pv[:MAX_PV]]
        out["depth"] = self.depth
        return out


@dataclass(frozen=True, slots=True)
class Analysis:
    """What a bot answers to an ``analyse_job``: lines best first, and exact values (or None)."""

    lines: list[Line]
    values: list[CellValue] | None = None

    def to_wire(self) -> dict[str, Any]:
        """``lines`` and ``values`` as ``analysed`` carries them."""
        out: dict[str, Any] = {"lines": [line.to_wire() for line in self.lines]}
        if self.values is not None:
            out["values"] = [
                {"move": [v.move.x, v.move.y], "value": v.value, "plies": v.plies}
                for v in self.values
            ]
        return out


def analyse_position(
    variant: Variant, moves: list[Move], lines: int, time_s: float, level: int = 10
) -> Analysis:
    """The analysis of the position after ``moves`` within ``time_s`` seconds."""
    start = time.perf_counter()
    if solvable(variant):
        try:
            values = exact_values(variant, moves, start + time_s * EXACT_SHARE)
        except SolveTimeout:
            values = None
        if values is not None:
            deadline = start + time_s * 0.95
            empties = variant.cells - len(moves)
            found = [_exact_line(variant, moves, v, deadline, empties) for v in values[:lines]]
            return Analysis(found, values)
    left = max(0.05, time_s - (time.perf_counter() - start))
    return Analysis(engine_lines(variant, moves, lines, left, level))


def _exact_line(
    variant: Variant, moves: list[Move], value: CellValue, deadline: float, empties: int
) -> Line:
    pv = principal(variant, moves, value, deadline, MAX_PV)
    if value.value == "draw":
        return Line(value.move, score=0, pv=pv, depth=empties)
    mate = value.plies if value.value == "win" else -value.plies
    return Line(value.move, mate=mate, pv=pv, depth=empties)


def engine_lines(
    variant: Variant, moves: list[Move], lines: int, time_s: float, level: int = 10
) -> list[Line]:
    """The engine's ``lines`` best moves (multi-PV by searching each candidate's reply)."""
    start = time.perf_counter()
    root_s = time_s if lines == 1 else time_s * ROOT_SHARE
    first = search(variant, moves, _limit(variant, root_s, level))
    if lines == 1:
        return [_root_line(first)]
    candidates = [first.move, *(m for m in _candidates(variant, moves) if m != first.move)]
    candidates = candidates[: lines + 2]
    share = max(0.02, (time_s - (time.perf_counter() - start)) / len(candidates))
    found = [_child_line(variant, moves, m, share, level) for m in candidates]
    found.sort(key=_rank, reverse=True)
    return found[:lines]


def _limit(variant: Variant, time_s: float, level: int) -> Limit:
    """The level's search limit within ``time_s`` (level 10 takes all of it)."""
    return level_limit(variant, level, time_s)


def _root_line(result: SearchResult) -> Line:
    mate = result.mate_in()
    score = None if mate is not None else result.score
    return Line(result.move, score, mate, list(result.pv) or [result.move], result.depth)


def _child_line(variant: Variant, moves: list[Move], move: Move, time_s: float, level: int) -> Line:
    """The line through ``move``: the reply's search, negated and one ply longer."""
    game = Game.from_moves(variant, [*moves, move])
    if game.over:  # the move ends the game: a win now, or a draw on a full board
        if game.outcome is not None and game.outcome.winner is not None:
            return Line(move, mate=1, pv=[move], depth=1)
        return Line(move, score=0, pv=[move], depth=1)
    reply = search(variant, [*moves, move], _limit(variant, time_s, level))
    mate = reply.mate_in()
    pv = [move, *reply.pv]
    if mate is not None:
        return Line(move, mate=-mate + (1 if mate < 0 else -1), pv=pv, depth=reply.depth + 1)
    return Line(move, score=-reply.score, pv=pv, depth=reply.depth + 1)


def _rank(line: Line) -> tuple[int, int]:
    """Best first: wins (the shortest first), then scores, then losses (the longest first)."""
    if line.mate is not None:
        return (2, -line.mate) if line.mate > 0 else (0, -line.mate)
    return 1, line.score or 0


def _candidates(variant: Variant, moves: list[Move]) -> list[Move]:
    """The cells the engine would look at, the most promising first (the core's own ordering:
    its root candidates on big boards, every empty cell by its potential on small ones)."""
    core = core_for(variant, list(moves), load_core())
    cells = list(core.root_moves()) if variant.cells > SMALL_BOARD else []
    if not cells:
        side = core.side()
        cells = [c for c in range(variant.cells) if core.at(c) == 0]
        cells.sort(key=lambda c: -5 * core.potential(side, c) - 4 * core.potential(1 - side, c))
    w = variant.width
    return [Move(c % w, c // w) for c in cells]
