"""An exact m,n,k solver for small boards: bitboards, symmetry-reduced TT, threat pruning.

Values are from the side to move's view: 1 win, 0 draw, -1 loss. Pruning that keeps it exact:
an immediate win ends the node; two opponent win cells lose it; one must be blocked (the only
move); a side with no k-window free of enemy stones can never win, which bounds the value at 0;
all cells lying in no live window are interchangeable, so only one of them is tried; and
positions are stored under the least of their symmetric images (8 on square boards, 4 else).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from bots.engine.geometry import geometry
from bots.engine.limits import EXACT, LOWER, UPPER


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


class Solver:
    """Negamax alpha-beta over win/draw/loss with the pruning described in the module doc."""

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

    def negamax(self, me: int, opp: int, alpha: int, beta: int) -> tuple[int, int]:
        """(value, best cell) of the position for the side owning ``me``; cell -1 if none."""
        self.nodes += 1
        if self.nodes & 1023 == 0 and time.perf_counter() > self.deadline:
            raise SolveTimeout
        occupied = me | opp
        empty = self.full & ~occupied
        if not empty:
            return 0, -1
        km1 = self.k - 1
        my_live = opp_live = False
        opp_win = 0
        for line in self.lines:
            if not line & opp:
                my_live = True
                if (line & me).bit_count() == km1:
                    return 1, (line & empty).bit_length() - 1
            elif not line & me:
                opp_live = True
                if (line & opp).bit_count() == km1:
                    opp_win |= line & empty
        if opp_win:
            if opp_win & (opp_win - 1):
                return -1, (opp_win & -opp_win).bit_length() - 1
            cell = opp_win.bit_length() - 1
            value, _ = self._child(me, opp, cell, alpha, beta)
            return value, cell
        if not my_live and not opp_live:
            return 0, (empty & -empty).bit_length() - 1
        if not my_live:
            beta = min(beta, 0)
        if not opp_live:
            alpha = max(alpha, 0)
        if alpha >= beta:
            return alpha, (empty & -empty).bit_length() - 1
        key = (
            self.canonical(me, opp)
            if occupied.bit_count() <= self.sym_depth
            else me << self.n | opp
        )
        entry = self.tt.get(key)
        if entry is not None:
            flag, value, _ = entry
            if (
                flag == EXACT
                or (flag == LOWER and value >= beta)
                or (flag == UPPER and value <= alpha)
            ):
                return value, -1 if flag != EXACT else entry[2]
        moves = self._order(me, opp, empty)
        if occupied.bit_count() <= 4:
            moves = self._stabilised(me, opp, moves)
        alpha0 = alpha
        best, best_cell = -2, moves[0]
        for cell in moves:
            value, _ = self._child(me, opp, cell, alpha, beta)
            if value > best:
                best, best_cell = value, cell
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        flag = UPPER if best <= alpha0 else LOWER if best >= beta else EXACT
        self.tt[key] = (flag, best, best_cell)
        return best, best_cell

    def _child(self, me: int, opp: int, cell: int, alpha: int, beta: int) -> tuple[int, int]:
        value, _ = self.negamax(opp, me | 1 << cell, -beta, -alpha)
        return -value, cell

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

    def solve(self) -> Solution:
        """Solve from the empty board; the value is for the first player."""
        start = time.perf_counter()
        value, cell = self.negamax(0, 0, -1, 1)
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
