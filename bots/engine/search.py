"""Negamax alpha-beta with iterative deepening, a Zobrist transposition table and move ordering.

Ordering: the TT move, then killer moves, then cells by threat potential (own and blocking)
plus the history heuristic. A side with a win cell wins at once; a side facing one must block
it (the only move searched, without using up depth); facing two it has lost. The clock is read
every 128 nodes and the last completed iteration's move is kept, so a search always returns a
legal move inside its budget.
"""

from __future__ import annotations

import random
import time

from bots.engine.board import EvalBoard
from bots.engine.fast import fast_search
from bots.engine.limits import MATE_BOUND, WIN, Limit, SearchResult
from bots.engine.threats import find_threat_win
from protocol.rules import Move, Variant

EXACT, LOWER, UPPER = 0, 1, 2
#: Boards up to this many cells search every empty cell and solve exactly; bigger ones use the
#: neighbourhood candidates, a beam and the threat search.
SMALL_BOARD = 36
#: Moves searched at inner nodes of big boards (root searches all candidates).
BEAM = 12
TT_MAX = 1_000_000
MAX_DEPTH = 64


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


class Searcher:
    """One search over one position; holds the TT, killers, history and counters."""

    def __init__(self, variant: Variant, moves: list[Move], limit: Limit) -> None:
        self.board = EvalBoard(variant, moves)
        if self.board.winner is not None or self.board.full:
            raise ValueError("the game is already over")
        self.limit = limit
        self.small = self.board.geo.cells <= SMALL_BOARD
        self.tt: dict[int, tuple[int, int, int, int]] = {}
        self.history = [0] * self.board.geo.cells
        self.killers: list[list[int]] = [[-1, -1] for _ in range(MAX_DEPTH + 64)]
        self.nodes = 0
        self.max_nodes = limit.nodes if limit.nodes is not None else 1 << 62
        self.start = time.perf_counter()
        self.deadline = self.start + limit.time_s if limit.time_s is not None else float("inf")

    # -- helpers -------------------------------------------------------------------------------

    def _moves(self, ply: int, tt_move: int) -> list[int]:
        """Candidate cells for the side to move, best first (all of them on small boards)."""
        b = self.board
        s = len(b.history) & 1
        cells = b.cells
        cands = [c for c in range(len(cells)) if cells[c] == 0] if self.small else b.candidates()
        own, opp, hist = b.pot[s], b.pot[1 - s], self.history
        k1, k2 = self.killers[ply]
        keys = {}
        for c in cands:
            key = 5 * own[c] + 4 * opp[c] + hist[c]
            if c == tt_move:
                key += 1 << 40
            elif c in (k1, k2):
                key += 1 << 30
            keys[c] = key
        cands.sort(key=keys.__getitem__, reverse=True)
        if not self.small and ply > 0 and len(cands) > BEAM:
            del cands[BEAM:]
        return cands

    def _check(self) -> None:
        if self.nodes >= self.max_nodes or time.perf_counter() >= self.deadline:
            raise _Stop

    # -- the recursive search ----------------------------------------------------------------

    def negamax(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        """The score of the position for the side to move, within the window (alpha, beta)."""
        self.nodes += 1
        if self.nodes & 127 == 0:
            self._check()
        b = self.board
        s = len(b.history) & 1
        if b.fours[s]:
            return WIN - ply - 1
        dw = b.win_cells(1 - s)
        if len(dw) >= 2:
            return -(WIN - ply - 2)
        if b.full:
            return 0
        if depth <= 0 and not dw:
            return b.evaluate(s)
        alpha0 = alpha
        entry = self.tt.get(b.key)
        tt_move = -1
        if entry is not None:
            e_depth, flag, e_score, tt_move = entry
            if e_depth >= depth:
                score = _from_tt(e_score, ply)
                if flag == EXACT:
                    return score
                if flag == LOWER and score >= beta:
                    return score
                if flag == UPPER and score <= alpha:
                    return score
        if dw:
            moves = list(dw)
            child_depth = depth  # a forced block costs no depth
        else:
            moves = self._moves(ply, tt_move)
            child_depth = depth - 1
        best, best_move = -WIN - 1, moves[0]
        for m in moves:
            b.play(m)
            try:
                score = -self.negamax(child_depth, -beta, -alpha, ply + 1)
            finally:
                b.undo()
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
        self.tt[b.key] = (depth, flag, _to_tt(best, ply), best_move)
        return best

    def _root(self, depth: int, moves: list[int], ties: bool) -> tuple[int, list[int]]:
        """Search every root move at ``depth``; the best score and the moves achieving it."""
        b = self.board
        best, tied = -WIN - 1, []
        for m in moves:
            alpha = best - 1 if ties else best
            b.play(m)
            try:
                score = -self.negamax(depth - 1, -(WIN + 1), -alpha, 1)
            finally:
                b.undo()
            if score > best:
                best, tied = score, [m]
            elif score == best and ties:
                tied.append(m)
        return best, tied

    def _pv(self, first: int, length: int) -> list[Move]:
        """The principal variation read back from the transposition table."""
        b = self.board
        line = [first]
        b.play(first)
        try:
            while len(line) < length and b.winner is None and not b.full:
                entry = self.tt.get(b.key)
                if entry is None or b.cells[entry[3]] != 0:
                    break
                line.append(entry[3])
                b.play(entry[3])
        finally:
            for _ in line:
                b.undo()
        return [b.move(c) for c in line]

    # -- entry point ---------------------------------------------------------------------------

    def run(self) -> SearchResult:
        """Threat checks, then iterative deepening until a limit is hit; never raises on time."""
        b = self.board
        s = b.to_move
        limit = self.limit
        if b.fours[s]:
            wins = sorted(b.win_cells(s))
            return self._result(wins[0], WIN - 1, 1, "forced", wins if limit.ties else None)
        dw = sorted(b.win_cells(1 - s))
        if not self.small and not dw and limit.threats:
            found = self._threats()
            if found is not None:
                return found
        root = dw or self._moves(0, -1)
        fallback = self._result(root[0], 0, 0, "fallback")
        if len(root) == 1 and not self.small:
            return self._result(root[0], 0, 0, "forced")
        max_depth = min(limit.depth or MAX_DEPTH, MAX_DEPTH)
        empties = len(b.cells) - len(b.history)
        result = fallback
        ties = limit.ties
        for depth in range(1, max_depth + 1):
            try:
                score, tied = self._root(depth, root, ties)
            except _Stop:
                break
            root = tied + [m for m in root if m not in tied]
            # a mate is proven once the depth covers its distance (forced blocks extend lines)
            mate_in = WIN - abs(score) if abs(score) >= MATE_BOUND else MAX_DEPTH + 1
            solved = depth >= empties or (self.small and mate_in <= depth)
            result = self._result(tied[0], score, depth, "search", tied, solved)
            if solved or time.perf_counter() >= self.deadline or self.nodes >= self.max_nodes:
                break
        return result

    def _threats(self) -> SearchResult | None:
        """VCF then VCT for the side to move, each given a slice of the budget."""
        now = time.perf_counter()
        budget = max(0.0, self.deadline - now)
        for threes, share, plies in ((False, 0.3, 21), (True, 0.25, 11)):
            slice_end = now + budget * share if budget != float("inf") else now + 2.0
            node_cap = max(500, (self.max_nodes - self.nodes) // 5)
            cell, used = find_threat_win(self.board, plies, threes, slice_end, node_cap)
            self.nodes += used
            if cell is not None:
                return self._result(cell, WIN - 3, 0, "vct" if threes else "vcf")
            now = time.perf_counter()
        return None

    def _result(
        self,
        cell: int,
        score: int,
        depth: int,
        source: str,
        tied: list[int] | None = None,
        solved: bool = False,
    ) -> SearchResult:
        b = self.board
        return SearchResult(
            move=b.move(cell),
            score=score,
            depth=depth,
            nodes=self.nodes,
            pv=self._pv(cell, max(depth, 1)),
            seconds=time.perf_counter() - self.start,
            best_moves=[b.move(c) for c in (tied or [cell])],
            solved=solved or source in ("vcf", "vct") or abs(score) >= MATE_BOUND,
            source=source,
        )


def search(variant: Variant, moves: list[Move], limit: Limit) -> SearchResult:
    """Search the position after ``moves`` (from the empty board) for the side to move.

    Small boards get the exact search here; bigger ones the fast core of :mod:`bots.engine.fast`.
    """
    if variant.cells > SMALL_BOARD:
        return fast_search(variant, list(moves), limit)
    return Searcher(variant, list(moves), limit).run()


def search_v1(variant: Variant, moves: list[Move], limit: Limit) -> SearchResult:
    """The first engine (this module's search on every board): kept as a baseline."""
    return Searcher(variant, list(moves), limit).run()


def pick(result: SearchResult, rng: random.Random | None) -> Move:
    """The result's move, or a random one among its exact ties when ``rng`` is given."""
    if rng is None or len(result.best_moves) <= 1:
        return result.move
    return rng.choice(result.best_moves)
