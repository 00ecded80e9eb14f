"""Threat-space search: VCF (victory by continuous fours) and VCT (by threes and fours).

The attacker only plays threats, so the defender's replies are few: against a four the single
win cell, against a three the cells that spoil every open-four (double-threat) point plus any
counter-four. That narrow tree reaches forced wins far deeper than a full-width alpha-beta.
"""

from __future__ import annotations

import time

from bots.engine.board import EvalBoard


class _OutOfBudget(Exception):
    """Raised inside the recursion when the node or time budget is spent."""


class ThreatSearch:
    """A bounded VCF/VCT prover on one board; the board is restored on every exit path."""

    def __init__(self, board: EvalBoard, deadline: float, max_nodes: int = 50_000) -> None:
        self.board = board
        self.deadline = deadline
        self.max_nodes = max_nodes
        self.nodes = 0
        self._memo: dict[tuple[int, bool], tuple[int, int]] = {}

    def find(self, depth: int, threes: bool) -> int | None:
        """The first cell of a forced win for the side to move within ``depth`` plies, or None."""
        b = self.board
        mark = len(b.history)
        try:
            return self._attack(depth, threes)
        except _OutOfBudget:
            while len(b.history) > mark:
                b.undo()
            return None

    def _tick(self) -> None:
        self.nodes += 1
        if self.nodes >= self.max_nodes or (
            self.nodes & 63 == 0 and time.perf_counter() >= self.deadline
        ):
            raise _OutOfBudget

    def _attack(self, depth: int, threes: bool) -> int | None:
        """Attacker to move: a cell that wins by threats, or None."""
        b = self.board
        att = len(b.history) & 1
        if b.fours[att]:
            return min(b.win_cells(att))
        dw = b.win_cells(1 - att)
        if len(dw) >= 2 or depth <= 0:
            return None
        memo_key = (b.key, threes)
        seen = self._memo.get(memo_key)
        if seen is not None and (seen[1] >= 0 or seen[0] >= depth):
            return seen[1] if seen[1] >= 0 else None
        self._tick()
        if dw:
            moves = list(dw)
        else:
            moves = list(b.four_cells(att))
            if threes:
                moves.extend(self._three_candidates(att, set(moves)))
        pot = b.pot[att]
        moves.sort(key=pot.__getitem__, reverse=True)
        found = -1
        for m in moves:
            b.play(m)
            try:
                ok = self._defend(depth - 1, threes)
            finally:
                b.undo()
            if ok:
                found = m
                break
        self._memo[memo_key] = (depth, found)
        return found if found >= 0 else None

    def _defend(self, depth: int, threes: bool) -> bool:
        """Defender to move right after an attacker threat: True if every reply still loses."""
        b = self.board
        dfn = len(b.history) & 1
        att = 1 - dfn
        if b.fours[dfn]:
            return False
        wins = b.win_cells(att)
        if len(wins) >= 2:
            return True
        if wins:
            replies = list(wins)
        elif threes:
            replies = self._defences(att)
            if not replies:
                return False
            replies.extend(b.four_cells(dfn) - set(replies))
        else:
            return False
        self._tick()
        for r in replies:
            b.play(r)
            try:
                ok = self._attack(depth - 1, threes) is not None
            finally:
                b.undo()
            if not ok:
                return False
        return True

    def _defences(self, att: int) -> list[int]:
        """Cells that touch every window feeding an attacker double-threat point (empty if none)."""
        b = self.board
        cells, windows = b.cells, b.geo.windows
        gains: dict[int, list[int]] = {}
        for w in b.threes[att]:
            for c in windows[w]:
                if cells[c] == 0:
                    gains.setdefault(c, []).append(w)
        out: set[int] = set()
        for c, ws in gains.items():
            if len(ws) < 2:
                continue
            others = {o for w in ws for o in windows[w] if cells[o] == 0 and o != c}
            if len(others) >= 2:
                out.add(c)
                out.update(others)
        return sorted(out)

    def _three_candidates(self, att: int, skip: set[int], limit: int = 12) -> list[int]:
        """Cells likely to make a three for ``att``: strongest attacking potential near stones."""
        b = self.board
        pot = b.pot[att]
        threshold = 2 * b._pot_w[b.k - 2]  # at least two windows one stone short of a three
        cands = [c for c in b.candidates() if c not in skip and pot[c] >= threshold]
        cands.sort(key=pot.__getitem__, reverse=True)
        return cands[:limit]


def find_threat_win(
    board: EvalBoard, depth: int, threes: bool, deadline: float, max_nodes: int
) -> tuple[int | None, int]:
    """A forced-win first move by VCF (``threes=False``) or VCT, and the nodes searched.

    Deepens 3, 5, 7... plies up to ``depth`` so the shortest forced win found is played.
    """
    ts = ThreatSearch(board, deadline, max_nodes)
    for plies in range(3, depth + 1, 2):
        cell = ts.find(plies, threes)
        if cell is not None:
            return cell, ts.nodes
        if ts.nodes >= max_nodes or time.perf_counter() >= deadline:
            break
    return None, ts.nodes
