"""Exact values with their distances on small boards: every empty cell's game-theoretic value
(win / draw / loss for the side to move) and how many plies the game then lasts with best play
(the shortest win, the longest loss; a draw fills the board), plus principal variations.

It reuses the exact solver's bitboards (:mod:`bots.engine.solver`): the value of each move
comes from :meth:`Solver.negamax` (fast, win/draw/loss only), then a won or lost move's
distance from a mate-distance negamax whose window admits only that class of score, so draws
are cut at once. Scores are relative to the root: a win on ply ``p`` scores ``WIN - p``.
The solver counts k or more in a row as a win, so only freestyle boards (or boards too small
for an overline) are solved here.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from bots.engine.solver import EXACT, LOWER, UPPER, Solver, SolveTimeout
from protocol.rules import Move, Variant, WinRule

#: A win on the board now (ply 0); a win on ply p scores WIN - p.
WIN = 1000
#: Boards the exact values are tried on (at most this many cells; the solver's own bound).
MAX_CELLS = 36
#: Table entries a process's solver keeps between analyses before it starts afresh.
MAX_TABLE = 2_000_000
VALUE_NAMES = {1: "win", 0: "draw", -1: "loss"}


@dataclass(frozen=True, slots=True)
class CellValue:
    """One empty cell's proven value for the side to move, and the plies to the game's end."""

    move: Move
    value: str
    plies: int
    #: The root-relative score: WIN - plies for a win, -(WIN - plies) for a loss, 0 a draw.
    score: int


def solvable(variant: Variant) -> bool:
    """Whether :func:`exact_values` can solve this variant's positions (freestyle, small)."""
    overline = variant.k < max(variant.width, variant.height)
    return variant.cells <= MAX_CELLS and (variant.rule is WinRule.FREESTYLE or not overline)


class DistanceSolver(Solver):
    """The solver's bitboards with mate-distance scores (root-relative, see the module doc)."""

    def __init__(self, width: int, height: int, k: int, deadline: float) -> None:
        super().__init__(width, height, k)
        self.deadline = deadline
        self.dtt: dict[int, tuple[int, int]] = {}

    def order(self, me: int, opp: int) -> list[int]:
        """The empty cells, most promising first, for the side owning ``me``."""
        return self._order(me, opp, self.full & ~(me | opp))

    def won(self, stones: int) -> bool:
        """Whether ``stones`` hold a full line (the side that just moved has won)."""
        return any(line & stones == line for line in self.lines)

    def distance(self, me: int, opp: int, alpha: int, beta: int, ply: int) -> int:
        """The score of the position for the side owning ``me`` on ``ply``, in (alpha, beta)."""
        self.nodes += 1
        if self.nodes & 1023 == 0 and time.perf_counter() > self.deadline:
            raise SolveTimeout
        occupied = me | opp
        empty = self.full & ~occupied
        if not empty:
            return 0
        km1 = self.k - 1
        my_live = opp_live = False
        opp_win = 0
        for line in self.lines:
            if not line & opp:
                my_live = True
                if (line & me).bit_count() == km1:
                    return WIN - ply - 1
            elif not line & me:
                opp_live = True
                if (line & opp).bit_count() == km1:
                    opp_win |= line & empty
        if opp_win:
            if opp_win & (opp_win - 1):
                return -(WIN - ply - 2)
            return -self.distance(opp, me | opp_win, -beta, -alpha, ply + 1)
        if not my_live and not opp_live:
            return 0
        if not my_live:
            beta = min(beta, 0)
        if not opp_live:
            alpha = max(alpha, 0)
        if alpha >= beta:
            return alpha
        key = (
            self.canonical(me, opp)
            if occupied.bit_count() <= self.sym_depth
            else me << self.n | opp
        )
        entry = self.dtt.get(key)
        if entry is not None:
            flag, stored = entry
            value = _from_tt(stored, ply)
            if (
                flag == EXACT
                or (flag == LOWER and value >= beta)
                or (flag == UPPER and value <= alpha)
            ):
                return value
        moves = self._order(me, opp, empty)
        if occupied.bit_count() <= 4:
            moves = self._stabilised(me, opp, moves)
        alpha0, best = alpha, -WIN - 1
        for cell in moves:
            value = -self.distance(opp, me | 1 << cell, -beta, -alpha, ply + 1)
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        flag = UPPER if best <= alpha0 else LOWER if best >= beta else EXACT
        self.dtt[key] = (flag, _to_tt(best, ply))
        return best


#: This process's solver per board (its tables hold for every position of that board, so the
#: plies of one replay analysed in turn reuse each other's work).
_solvers: dict[tuple[int, int, int], DistanceSolver] = {}


def solver_for(variant: Variant, deadline: float) -> DistanceSolver:
    """The process's solver for ``variant``'s board, given a new ``deadline``."""
    key = (variant.width, variant.height, variant.k)
    solver = _solvers.get(key)
    if solver is None or len(solver.tt) + len(solver.dtt) > MAX_TABLE:
        solver = _solvers[key] = DistanceSolver(*key, deadline)
    solver.deadline = deadline
    return solver


def _to_tt(score: int, ply: int) -> int:
    return score + ply if score > 0 else score - ply if score < 0 else 0


def _from_tt(score: int, ply: int) -> int:
    return score - ply if score > 0 else score + ply if score < 0 else 0


def _bits(variant: Variant, moves: list[Move]) -> tuple[int, int]:
    """The stones of the side to move and of the other side, as bitboards."""
    sides = [0, 0]
    for i, m in enumerate(moves):
        sides[i & 1] |= 1 << (m.y * variant.width + m.x)
    me = len(moves) & 1
    return sides[me], sides[1 - me]


def exact_values(variant: Variant, moves: list[Move], deadline: float) -> list[CellValue]:
    """Every empty cell's value after ``moves``, best first; SolveTimeout past ``deadline``."""
    solver = solver_for(variant, deadline)
    me, opp = _bits(variant, moves)
    empties = variant.cells - len(moves)
    span = empties + 1  # the score of a win lies in (WIN - span, WIN)
    found: list[CellValue] = []
    for cell in range(variant.cells):
        if (me | opp) >> cell & 1:
            continue
        mine = me | 1 << cell
        if solver.won(mine):
            value, score = 1, WIN - 1
        else:
            value = -solver.negamax(opp, mine, -1, 1)[0]
            if value > 0:
                score = -solver.distance(opp, mine, -WIN, -(WIN - span), 1)
            elif value < 0:
                score = -solver.distance(opp, mine, WIN - span, WIN, 1)
            else:
                score = 0
        plies = WIN - abs(score) if score else empties
        move = Move(cell % variant.width, cell // variant.width)
        found.append(CellValue(move, VALUE_NAMES[value], plies, score))
    return sorted(found, key=lambda v: v.score, reverse=True)


def principal(
    variant: Variant, moves: list[Move], first: CellValue, deadline: float, length: int
) -> list[Move]:
    """A principal variation from ``first`` on: at each ply a move that keeps the score (the
    shortest win, the longest loss), at most ``length`` moves, cut short at ``deadline``."""
    solver = solver_for(variant, deadline)
    me, opp = _bits(variant, moves)
    line = [first.move]
    me |= 1 << (first.move.y * variant.width + first.move.x)
    target, ply = -first.score, 1  # the score the side to move now keeps with best play
    try:
        while len(line) < length and (me | opp) != solver.full and not solver.won(me):
            me, opp = opp, me
            for cell in solver.order(me, opp):
                mine = me | 1 << cell
                if solver.won(mine):
                    score = WIN - ply - 1
                else:
                    score = -solver.distance(opp, mine, -target - 1, -target + 1, ply + 1)
                if score == target:
                    line.append(Move(cell % variant.width, cell // variant.width))
                    me = mine
                    break
            else:
                break  # nothing keeps the score (cannot happen with an exact search)
            target, ply = -target, ply + 1
    except SolveTimeout:
        pass  # the line so far
    return line
