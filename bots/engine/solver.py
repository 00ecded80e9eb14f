"""The exact search for small boards: bitboards, a symmetry-reduced table, threat pruning.

One negamax scores a position from the side to move's view with mate distances relative to
the search's root (:data:`bots.engine.limits.WIN` - p for a win on ply p, minus that for a
loss, 0 a draw), so the same search answers both questions asked of it: the game value
(win / draw / loss: a search in the window (-1, 1), as cheap as a three-valued one) for
``mnk-solve`` and the analysis, and with a window that admits only one class of scores the
distance (the shortest win, the longest loss) for every cell's value and principal variations.

Pruning that keeps it exact: an immediate win ends the node; two opponent win cells lose it;
one must be blocked (the only move); a side with no k-window free of enemy stones can never win,
which bounds the value at 0; all cells lying in no live window are interchangeable, so only one
of them is tried; and positions are stored under the least of their symmetric images (8 on
square boards, 4 else). The table holds bounds keyed by position alone (scores stored relative
to the node), so it serves every window and every root: one solver per board lives on in a
process. It counts k or more in a row as a win, so only freestyle boards (or boards too small
for an overline) are solved.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from bots.engine.geometry import geometry
from bots.engine.limits import EXACT, LOWER, UPPER, WIN, SearchResult
from protocol.rules import Move, Variant, WinRule

#: Boards the exact values are tried on (at most this many cells).
MAX_CELLS = 36
#: Table entries a process's solver keeps between analyses before it starts afresh.
MAX_TABLE = 2_000_000
VALUE_NAMES = {1: "win", 0: "draw", -1: "loss"}


class SolveTimeout(Exception):
    """The solver ran past its time limit."""


@dataclass(frozen=True, slots=True)
class Solution:
    """The game value for the first player, a best first move (x, y) and the effort."""

    width: int
    height: int
    k: int
    value: int
    best_move: tuple[int, int] | None
    nodes: int
    seconds: float


@dataclass(frozen=True, slots=True)
class CellValue:
    """One empty cell's proven value for the side to move, and the plies to the game's end."""

    move: Move
    value: str
    plies: int
    #: The root-relative score: WIN - plies for a win, -(WIN - plies) for a loss, 0 a draw.
    score: int


def _symmetries(width: int, height: int) -> list[list[int]]:
    """Cell permutations of the board's symmetry group."""
    maps = [
        lambda x, y: (x, y),
        lambda x, y: (width - 1 - x, y),
        lambda x, y: (x, height - 1 - y),
        lambda x, y: (width - 1 - x, height - 1 - y),
    ]
    if width == height:
        maps += [
            lambda x, y: (y, x),
            lambda x, y: (height - 1 - y, x),
            lambda x, y: (y, width - 1 - x),
            lambda x, y: (height - 1 - y, width - 1 - x),
        ]
    perms = []
    for f in maps:
        perm = []
        for c in range(width * height):
            nx, ny = f(c % width, c // width)
            perm.append(ny * width + nx)
        perms.append(perm)
    return perms


def _to_tt(score: int, ply: int) -> int:
    """A root-relative mate score as the node's own (its distance from this node)."""
    return score + ply if score > 0 else score - ply if score < 0 else 0


def _from_tt(score: int, ply: int) -> int:
    return score - ply if score > 0 else score + ply if score < 0 else 0


def sign(score: int) -> int:
    """The game value of a score: 1 win, 0 draw, -1 loss."""
    return (score > 0) - (score < 0)


class Solver:
    """Negamax alpha-beta over mate-distance scores with the pruning of the module doc."""

    def __init__(self, width: int, height: int, k: int, time_limit: float | None = None) -> None:
        self.width, self.height, self.k = width, height, k
        self.n = width * height
        geo = geometry(width, height, k)
        self.lines = [sum(1 << c for c in w) for w in geo.windows]
        self.cell_lines = [[self.lines[w] for w in geo.members[c]] for c in range(self.n)]
        self.full = (1 << self.n) - 1
        self.perms = _symmetries(width, height)
        # chunk tables: for each symmetry and row, row bits -> permuted board bits
        self.tables = [
            [
                [
                    sum(1 << perm[r * width + i] for i in range(width) if v >> i & 1)
                    for v in range(1 << width)
                ]
                for r in range(height)
            ]
            for perm in self.perms
        ]
        #: Bounds by position key: (flag, node-relative score, best cell).
        self.tt: dict[int, tuple[int, int, int]] = {}
        #: Positions with at most this many stones are keyed by their least symmetric image.
        self.sym_depth = 12
        self.nodes = 0
        self.deadline = time.perf_counter() + time_limit if time_limit else float("inf")

    def canonical(self, me: int, opp: int) -> int:
        """The least key over the symmetric images of (me, opp)."""
        w, h, n = self.width, self.height, self.n
        mask = (1 << w) - 1
        best = -1
        for table in self.tables:
            a = b = 0
            for r in range(h):
                row = table[r]
                a |= row[me >> (r * w) & mask]
                b |= row[opp >> (r * w) & mask]
            key = a << n | b
            if best < 0 or key < best:
                best = key
        return best

    def _stabilised(self, me: int, opp: int, moves: list[int]) -> list[int]:
        """Drop moves that are symmetric images of earlier ones in a symmetric position."""
        perms = [
            p for p in self.perms[1:] if self._apply(p, me) == me and self._apply(p, opp) == opp
        ]
        if not perms:
            return moves
        seen: set[int] = set()
        out = []
        for m in moves:
            if m in seen:
                continue
            out.append(m)
            seen.update(p[m] for p in perms)
        return out

    @staticmethod
    def _apply(perm: list[int], bits: int) -> int:
        out = 0
        while bits:
            low = bits & -bits
            out |= 1 << perm[low.bit_length() - 1]
            bits ^= low
        return out

    def won(self, stones: int) -> bool:
        """Whether ``stones`` hold a full line (the side that just moved has won)."""
        return any(line & stones == line for line in self.lines)

    def value(self, me: int, opp: int) -> int:
        """The game value for the side owning ``me`` to move: 1 win, 0 draw, -1 loss."""
        return sign(self.negamax(me, opp, -1, 1))

    def negamax(self, me: int, opp: int, alpha: int, beta: int, ply: int = 0) -> int:
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
            return -self.negamax(opp, me | opp_win, -beta, -alpha, ply + 1)
        if not my_live and not opp_live:
            return 0
        if not my_live:
            beta = min(beta, 0)
        if not opp_live:
            alpha = max(alpha, 0)
        if alpha >= beta:
            return alpha
        return self._search(me, opp, alpha, beta, ply)

    def _search(self, me: int, opp: int, alpha: int, beta: int, ply: int) -> int:
        """The table probe and the loop over the moves of a node with no forced reply."""
        occupied = me | opp
        key = (
            self.canonical(me, opp)
            if occupied.bit_count() <= self.sym_depth
            else me << self.n | opp
        )
        entry = self.tt.get(key)
        if entry is not None:
            flag, stored, _ = entry
            score = _from_tt(stored, ply)
            if (
                flag == EXACT
                or (flag == LOWER and score >= beta)
                or (flag == UPPER and score <= alpha)
            ):
                return score
        moves = self._order(me, opp, self.full & ~occupied)
        if occupied.bit_count() <= 4:
            moves = self._stabilised(me, opp, moves)
        alpha0, best, best_cell = alpha, -WIN - 1, moves[0]
        for cell in moves:
            score = -self.negamax(opp, me | 1 << cell, -beta, -alpha, ply + 1)
            if score > best:
                best, best_cell = score, cell
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        flag = UPPER if best <= alpha0 else LOWER if best >= beta else EXACT
        self.tt[key] = (flag, _to_tt(best, ply), best_cell)
        return best

    def order(self, me: int, opp: int) -> list[int]:
        """The empty cells, most promising first, for the side owning ``me``."""
        return self._order(me, opp, self.full & ~(me | opp))

    def _order(self, me: int, opp: int, empty: int) -> list[int]:
        """Empty cells by how many live windows (weighted by stones) they serve; one dead cell."""
        scored = []
        dead = -1
        bits = empty
        while bits:
            low = bits & -bits
            bits ^= low
            c = low.bit_length() - 1
            score = 0
            for line in self.cell_lines[c]:
                if not line & opp:
                    score += 1 + 4 * (line & me).bit_count()
                elif not line & me:
                    score += 1 + 3 * (line & opp).bit_count()
            if score:
                scored.append((score, c))
            elif dead < 0:
                dead = c
        scored.sort(reverse=True)
        moves = [c for _, c in scored]
        if dead >= 0:
            moves.append(dead)
        return moves

    def best_cell(self, me: int, opp: int) -> tuple[int, int]:
        """(value, a cell achieving it) for the side owning ``me`` to move; cell -1 if none.

        The root of a value search: alpha-beta over the moves in the window (-1, 1)."""
        if not self.full & ~(me | opp):
            return 0, -1
        moves = self.order(me, opp)
        if (me | opp).bit_count() <= 4:
            moves = self._stabilised(me, opp, moves)
        alpha, best, cell = -1, -WIN - 1, moves[0]
        for c in moves:
            mine = me | 1 << c
            score = WIN - 1 if self.won(mine) else -self.negamax(opp, mine, -1, -alpha, 1)
            if score > best:
                best, cell = score, c
                if score > alpha:
                    alpha = score
                    if alpha >= 1:
                        break
        return sign(best), cell

    def solve(self) -> Solution:
        """Solve from the empty board; the value is for the first player."""
        start = time.perf_counter()
        value, cell = self.best_cell(0, 0)
        move = None if cell < 0 else (cell % self.width, cell // self.width)
        return Solution(
            self.width,
            self.height,
            self.k,
            value,
            move,
            self.nodes,
            time.perf_counter() - start,
        )


def solve(width: int, height: int, k: int, time_limit: float | None = None) -> Solution:
    """Solve the width x height k-in-a-row game from the empty board (small boards only)."""
    if not (1 <= width <= 8 and 1 <= height <= 8 and 1 <= k <= max(width, height)):
        raise ValueError("the solver handles boards up to 8x8 with 1 <= k <= the longer side")
    return Solver(width, height, k, time_limit).solve()


def solvable(variant: Variant) -> bool:
    """Whether :func:`exact_values` can solve this variant's positions (freestyle, small)."""
    overline = variant.k < max(variant.width, variant.height)
    return variant.cells <= MAX_CELLS and (variant.rule is WinRule.FREESTYLE or not overline)


#: This process's solver per board (its table holds for every position of that board, so the
#: plies of one replay analysed in turn reuse each other's work).
_solvers: dict[tuple[int, int, int], Solver] = {}


def solver_for(variant: Variant, deadline: float) -> Solver:
    """The process's solver for ``variant``'s board, given a new ``deadline``."""
    key = (variant.width, variant.height, variant.k)
    solver = _solvers.get(key)
    if solver is None or len(solver.tt) > MAX_TABLE:
        solver = _solvers[key] = Solver(*key)
    solver.deadline = deadline
    return solver


def _bits(variant: Variant, moves: list[Move]) -> tuple[int, int]:
    """The stones of the side to move and of the other side, as bitboards."""
    sides = [0, 0]
    for i, m in enumerate(moves):
        sides[i & 1] |= 1 << (m.y * variant.width + m.x)
    me = len(moves) & 1
    return sides[me], sides[1 - me]


def exact_values(
    variant: Variant, moves: list[Move], deadline: float, solver: Solver | None = None
) -> list[CellValue]:
    """Every empty cell's value after ``moves``, best first; SolveTimeout past ``deadline``.

    The value of each move from a search in (-1, 1), then a won or lost move's distance from
    a search whose window admits only that class of score (so draws are cut at once). The
    process's solver for the board unless one is given."""
    solver = solver or solver_for(variant, deadline)
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
            value = -solver.value(opp, mine)
            if value > 0:
                score = -solver.negamax(opp, mine, -WIN, -(WIN - span), 1)
            elif value < 0:
                score = -solver.negamax(opp, mine, WIN - span, WIN, 1)
            else:
                score = 0
        plies = WIN - abs(score) if score else empties
        move = Move(cell % variant.width, cell // variant.width)
        found.append(CellValue(move, VALUE_NAMES[value], plies, score))
    return sorted(found, key=lambda v: v.score, reverse=True)


def principal(
    variant: Variant,
    moves: list[Move],
    first: CellValue,
    deadline: float,
    length: int,
    solver: Solver | None = None,
) -> list[Move]:
    """A principal variation from ``first`` on: at each ply a move that keeps the score (the
    shortest win, the longest loss), at most ``length`` moves, cut short at ``deadline``."""
    solver = solver or solver_for(variant, deadline)
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
                    score = -solver.negamax(opp, mine, -target - 1, -target + 1, ply + 1)
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


def exact_search(variant: Variant, moves: list[Move], deadline: float, ties: bool) -> SearchResult:
    """The engine's answer on a small board from the exact values: the best cell (every cell
    tied with it when ``ties``), its mate-distance score and principal variation, solved.
    A solver of its own (searches run in threads at once); SolveTimeout past ``deadline``."""
    start = time.perf_counter()
    solver = Solver(variant.width, variant.height, variant.k)
    solver.deadline = deadline
    values = exact_values(variant, moves, deadline, solver)
    best = values[0]
    tied = [v.move for v in values if v.score == best.score] if ties else [best.move]
    forced = best.value == "win" and best.plies == 1
    return SearchResult(
        move=best.move,
        score=best.score,
        depth=best.plies,
        nodes=solver.nodes,
        pv=principal(variant, moves, best, deadline, best.plies, solver),
        seconds=time.perf_counter() - start,
        best_moves=tied,
        solved=True,
        source="forced" if forced else "search",
    )
