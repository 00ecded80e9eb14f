"""The search board: play/undo with incremental window counts, patterns, threats and a Zobrist key.

Every k-window (a k-long segment of a line) keeps how many stones each side has in it. A window
is *alive* for a side when the other side has no stone in it and, in exact-k mode, no own stone
sits just past either end (that would turn a completed window into an overline, which does not
win). An alive window's count gives the classic pattern classes: k-1 is a *four* (its empty cell
wins), k-2 a *three* (its two empty cells each make a four), and so on; an open four is two win
cells at once, an open three is a cell that would create one. Everything is updated incrementally
on play and undo, so the hot loop never rescans the board.
"""

from __future__ import annotations

import random

from bots.engine.geometry import geometry
from protocol.rules import Move, Variant, WinRule

_ZOBRIST_SEED = 0x6D6E6B


def _by_missing(k: int, table: dict[int, int], default: int, empty: int) -> list[int]:
    """Weights indexed by category + 1 (category -1 = dead window, else the stone count)."""
    return [0, empty] + [table.get(k - j, default) for j in range(1, k + 1)]


class EvalBoard:
    """A mutable m,n,k board for search; seats are 0 and 1, cells hold 0 (empty), 1 or 2."""

    __slots__ = (
        "_eval_w",
        "_pot_w",
        "_zobrist",
        "cells",
        "cnt",
        "exact",
        "flank",
        "fours",
        "geo",
        "history",
        "k",
        "key",
        "near",
        "pot",
        "score",
        "threes",
        "variant",
        "winner",
    )

    def __init__(self, variant: Variant, moves: list[Move] | None = None) -> None:
        self.variant = variant
        self.k = variant.k
        self.exact = variant.rule is WinRule.EXACT
        self.geo = geo = geometry(variant.width, variant.height, variant.k)
        n, nw = geo.cells, len(geo.windows)
        self.cells: list[int] = [0] * n
        self.history: list[int] = []
        self.cnt: tuple[list[int], list[int]] = ([0] * nw, [0] * nw)
        self.flank: tuple[list[int], list[int]] = ([0] * nw, [0] * nw)
        self.near: list[int] = [0] * n
        k = variant.k
        self._eval_w = _by_missing(k, {1: 2000, 2: 150, 3: 20, 4: 4}, 1, 0)
        self._eval_w[k + 1] = 100_000
        self._pot_w = _by_missing(k, {1: 20_000, 2: 500, 3: 50, 4: 8}, 3, 1)
        base = self._pot_w[1]
        self.pot: tuple[list[int], list[int]] = (
            [base * len(m) for m in geo.members],
            [base * len(m) for m in geo.members],
        )
        self.score = 0
        self.fours: tuple[set[int], set[int]] = (set(), set())
        self.threes: tuple[set[int], set[int]] = (set(), set())
        self.winner: int | None = None
        rnd = random.Random(_ZOBRIST_SEED + n)
        self._zobrist = (
            [rnd.getrandbits(64) for _ in range(n)],
            [rnd.getrandbits(64) for _ in range(n)],
        )
        self.key = 0
        for m in moves or ():
            self.play(m.y * variant.width + m.x)

    @property
    def to_move(self) -> int:
        """The seat to move next."""
        return len(self.history) & 1

    @property
    def full(self) -> bool:
        """Whether no empty cell remains."""
        return len(self.history) == len(self.cells)

    def play(self, c: int) -> bool:
        """Put the side to move's stone on empty cell ``c``; True when that completes a win."""
        s = len(self.history) & 1
        self.cells[c] = s + 1
        self.history.append(c)
        self.key ^= self._zobrist[s][c]
        near = self.near
        for d in self.geo.near[c]:
            near[d] += 1
        self._update(c, s, 1)
        return self.winner is not None

    def undo(self) -> int:
        """Take back the last stone and return its cell."""
        c = self.history.pop()
        s = len(self.history) & 1
        self._update(c, s, -1)
        self.cells[c] = 0
        self.key ^= self._zobrist[s][c]
        near = self.near
        for d in self.geo.near[c]:
            near[d] -= 1
        self.winner = None
        return c

    def _update(self, c: int, s: int, d: int) -> None:
        """Adjust every window through (and, in exact mode, flanked by) ``c`` for seat ``s``."""
        cnt_s, cnt_o = self.cnt[s], self.cnt[1 - s]
        fl_s, fl_o = self.flank[s], self.flank[1 - s]
        recat = self._recat
        for w in self.geo.members[c]:
            ns, no = cnt_s[w], cnt_o[w]
            a_s = ns if no == 0 and fl_s[w] == 0 else -1
            a_o = no if ns == 0 and fl_o[w] == 0 else -1
            ns += d
            cnt_s[w] = ns
            b_s = ns if no == 0 and fl_s[w] == 0 else -1
            b_o = no if ns == 0 and fl_o[w] == 0 else -1
            if a_s != b_s:
                recat(s, w, a_s, b_s)
            if a_o != b_o:
                recat(1 - s, w, a_o, b_o)
        if self.exact:
            for w in self.geo.flanks[c]:
                ns, no = cnt_s[w], cnt_o[w]
                if no:
                    fl_s[w] += d
                    continue
                a_s = ns if fl_s[w] == 0 else -1
                fl_s[w] += d
                b_s = ns if fl_s[w] == 0 else -1
                if a_s != b_s:
                    recat(s, w, a_s, b_s)

    def _recat(self, side: int, w: int, a: int, b: int) -> None:
        """Window ``w`` moved from category ``a`` to ``b`` for ``side`` (-1 = dead for it)."""
        ew = self._eval_w
        delta = ew[b + 1] - ew[a + 1]
        self.score += delta if side == 0 else -delta
        pw = self._pot_w
        pd = pw[b + 1] - pw[a + 1]
        pot = self.pot[side]
        for cell in self.geo.windows[w]:
            pot[cell] += pd
        k = self.k
        if a == k - 1:
            self.fours[side].discard(w)
        elif a == k - 2:
            self.threes[side].discard(w)
        if b == k - 1:
            self.fours[side].add(w)
        elif b == k - 2:
            self.threes[side].add(w)
        elif b == k:
            self.winner = side

    def evaluate(self, side: int) -> int:
        """The static pattern score from ``side``'s point of view."""
        return self.score if side == 0 else -self.score

    def empties(self, w: int) -> list[int]:
        """The empty cells of window ``w``."""
        cells = self.cells
        return [c for c in self.geo.windows[w] if cells[c] == 0]

    def win_cells(self, side: int) -> set[int]:
        """Cells where ``side`` would complete a winning line right now."""
        cells, windows = self.cells, self.geo.windows
        return {c for w in self.fours[side] for c in windows[w] if cells[c] == 0}

    def four_cells(self, side: int) -> set[int]:
        """Cells where ``side`` would make a four (a new win threat)."""
        cells, windows = self.cells, self.geo.windows
        return {c for w in self.threes[side] for c in windows[w] if cells[c] == 0}

    def double_threat_cells(self, side: int) -> set[int]:
        """Cells where ``side`` would get two or more win cells at once (open four, four-four)."""
        cells, windows = self.cells, self.geo.windows
        wins = self.win_cells(side)
        gains: dict[int, set[int]] = {}
        for w in self.threes[side]:
            a, b = (c for c in windows[w] if cells[c] == 0)
            gains.setdefault(a, set()).add(b)
            gains.setdefault(b, set()).add(a)
        return {c for c, g in gains.items() if len(g | wins - {c}) >= 2}

    def candidates(self) -> list[int]:
        """Empty cells near a stone (every empty cell on an empty board's centre area if none)."""
        cells, near = self.cells, self.near
        if not self.history:
            n = len(cells)
            g = self.geo
            cx, cy = (g.width - 1) / 2, (g.height - 1) / 2
            best = min(abs(c % g.width - cx) + abs(c // g.width - cy) for c in range(n))
            return [c for c in range(n) if abs(c % g.width - cx) + abs(c // g.width - cy) == best]
        return [c for c in range(len(cells)) if cells[c] == 0 and near[c]]

    def move(self, c: int) -> Move:
        """The protocol move for cell ``c``."""
        w = self.geo.width
        return Move(c % w, c // w)
