"""The small-board full-width search: alpha-beta over every empty cell on the engine's board.

What plays a small board (at most ``SMALL_BOARD`` cells: tic-tac-toe, 4x4, 5x5, 6x6) when the
exact solver (:mod:`bots.engine.solver`, the one exact search) does not: under a level's depth
bound, under the exact-k rule (which the solver does not know), or when the solver did not
finish in its share of the time (:mod:`bots.engine.search` decides). Iterative deepening, to
the end of the game when time allows, with mate distances on :data:`~bots.engine.limits.WIN`'s
scale: a side with a win cell wins at once; facing one it must block it (the only move, without
using up depth); facing two it has lost. Root moves tied for best are all reported
(``Limit.ties``) so a level can pick among them at random. The board and its tables are the
core's (:mod:`bots.engine.core`, compiled or plain); this module only adds the negamax, its
transposition table (a dict: small boards have few positions) and ordering.
"""

from __future__ import annotations

import time
from typing import Any

from bots.engine.limits import EXACT, LOWER, MATE_BOUND, MAX_DEPTH, UPPER, WIN, Limit, SearchResult
from protocol.rules import Move, Variant

#: Boards up to this many cells search every empty cell and solve exactly.
SMALL_BOARD = 36
#: Entries kept in the transposition table before it is cleared (bounded memory).
TT_MAX = 1_000_000


class _Stop(Exception):
    """The node or time budget ran out mid-iteration."""


def _to_tt(score: int, ply: int) -> int:
    if score >= MATE_BOUND:
        return score + ply
    if score <= -MATE_BOUND:
        return score - ply
    return score


def _from_tt(score: int, ply: int) -> int:
    if score >= MATE_BOUND:
        return score - ply
    if score <= -MATE_BOUND:
        return score + ply
    return score


class SmallSearch:
    """One full-width search over one small-board position on a core."""

    def __init__(self, variant: Variant, core: Any, limit: Limit) -> None:
        if core.over():
            raise ValueError("the game is already over")
        self.variant, self.core, self.limit = variant, core, limit
        self.n = variant.cells
        self.tt: dict[int, tuple[int, int, int, int]] = {}
        self.history = [0] * self.n
        self.killers: list[list[int]] = [[-1, -1] for _ in range(MAX_DEPTH + 64)]
        self.nodes = 0
        self.max_nodes = limit.nodes if limit.nodes is not None else 1 << 62
        self.start = time.perf_counter()
        self.deadline = self.start + limit.time_s if limit.time_s is not None else float("inf")

    def _moves(self, ply: int, tt_move: int) -> list[int]:
        """Every empty cell, best first: TT move, killers, then potential and history."""
        core = self.core
        s = core.side()
        k1, k2 = self.killers[ply]
        keys = {}
        for c in range(self.n):
            if core.at(c):
                continue
            key = 5 * core.potential(s, c) + 4 * core.potential(1 - s, c) + self.history[c]
            if c == tt_move:
                key += 1 << 40
            elif c in (k1, k2):
                key += 1 << 30
            keys[c] = key
        return sorted(keys, key=lambda c: (-keys[c], c))

    def negamax(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        """The score of the position for the side to move, within the window (alpha, beta)."""
        self.nodes += 1
        if self.nodes & 127 == 0 and (
            self.nodes >= self.max_nodes or time.perf_counter() >= self.deadline
        ):
            raise _Stop
        core = self.core
        s = core.side()
        if core.win_cells(s):
            return WIN - ply - 1
        dw = core.win_cells(1 - s)
        if len(dw) >= 2:
            return -(WIN - ply - 2)
        if core.over():
            return 0
        if depth <= 0 and not dw:
            return core.evaluate()
        alpha0, tt_move = alpha, -1
        key = core.zobrist()
        entry = self.tt.get(key)
        if entry is not None:
            e_depth, flag, e_score, tt_move = entry
            if e_depth >= depth:
                score = _from_tt(e_score, ply)
                if (
                    flag == EXACT
                    or (flag == LOWER and score >= beta)
                    or (flag == UPPER and score <= alpha)
                ):
                    return score
        if dw:
            moves, child_depth = dw, depth  # a forced block costs no depth
        else:
            moves, child_depth = self._moves(ply, tt_move), depth - 1
        best, best_move = -WIN - 1, moves[0]
        for m in moves:
            core.play(m)
            try:
                score = -self.negamax(child_depth, -beta, -alpha, ply + 1)
            finally:
                core.undo()
            if score > best:
                best, best_move = score, m
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        if not dw:
                            self.history[m] += depth * depth
                            killers = self.killers[ply]
                            if killers[0] != m:
                                killers[1], killers[0] = killers[0], m
                        break
        flag = UPPER if best <= alpha0 else LOWER if best >= beta else EXACT
        if len(self.tt) >= TT_MAX:
            self.tt.clear()
        self.tt[key] = (depth, flag, _to_tt(best, ply), best_move)
        return best

    def _root(self, depth: int, moves: list[int], ties: bool) -> tuple[int, list[int]]:
        """Search every root move at ``depth``; the best score and the moves achieving it."""
        core = self.core
        best, tied = -WIN - 1, []
        for m in moves:
            alpha = best - 1 if ties else best
            core.play(m)
            try:
                score = -self.negamax(depth - 1, -(WIN + 1), -alpha, 1)
            finally:
                core.undo()
            if score > best:
                best, tied = score, [m]
            elif score == best and ties:
                tied.append(m)
        return best, tied

    def run(self) -> SearchResult:
        """Iterative deepening until solved or a limit is hit; never raises on time."""
        core, limit = self.core, self.limit
        s = core.side()
        wins = core.win_cells(s)
        if wins:
            return self._result(wins[0], WIN - 1, 1, "forced", wins if limit.ties else None)
        root = core.win_cells(1 - s) or self._moves(0, -1)
        result = self._result(root[0], 0, 0, "fallback")
        max_depth = min(limit.depth or MAX_DEPTH, MAX_DEPTH)
        empties = self.n - len(core.moves())
        for depth in range(1, max_depth + 1):
            try:
                score, tied = self._root(depth, root, limit.ties)
            except _Stop:
                break
            root = tied + [m for m in root if m not in tied]
            # a mate is proven once the depth covers its distance (forced blocks extend lines)
            mate_in = WIN - abs(score) if abs(score) >= MATE_BOUND else MAX_DEPTH + 1
            solved = depth >= empties or mate_in <= depth
            result = self._result(tied[0], score, depth, "search", tied, solved)
            if solved or time.perf_counter() >= self.deadline or self.nodes >= self.max_nodes:
                break
        return result

    def _move(self, cell: int) -> Move:
        w = self.variant.width
        return Move(cell % w, cell // w)

    def _pv(self, first: int, length: int) -> list[Move]:
        """The principal variation read back from the transposition table."""
        core = self.core
        line = [first]
        over = core.play(first)
        try:
            while len(line) < length and not over and not core.over():
                entry = self.tt.get(core.zobrist())
                if entry is None or core.at(entry[3]):
                    break
                line.append(entry[3])
                over = core.play(entry[3])
        finally:
            for _ in line:
                core.undo()
        return [self._move(c) for c in line]

    def _result(
        self, cell: int, score: int, depth: int, source: str, tied: list[int] | None = None,
        solved: bool = False,
    ) -> SearchResult:  # fmt: skip
        return SearchResult(
            move=self._move(cell),
            score=score,
            depth=depth,
            nodes=self.nodes,
            pv=self._pv(cell, max(depth, 1)),
            seconds=time.perf_counter() - self.start,
            best_moves=[self._move(c) for c in (tied or [cell])],
            solved=solved or abs(score) >= MATE_BOUND,
            source=source,
        )
