# cython: boundscheck=False, wraparound=False, initializedcheck=False, language_level=3
"""Threats on the core's board: where a side makes a four or an open three, the cells that
spoil a double threat, and the threat-space search (VCF, and VCT with threes) both ways.

Third of the core's layers: extends :class:`bots.engine.fouls.Fouls` (declared in
``threats.pxd``). It also holds the node and time budget the main search shares.
"""

import time
from array import array

import cython

from bots.engine.board import MAX_PLY, TS_PLY, ints

if not cython.compiled:  # compiled: cimported in threats.pxd
    from bots.engine.fouls import Fouls
    from bots.engine.tally import pot_of, threes_of, twos_of

#: Cells likely to make an open three that a VCT tries, the best by potential.
THREE_CANDIDATES = 12
#: Mixed into the key of a VCT's memo entries, so they never answer for a VCF's.
VCT_SALT = 0x1E3779B97F4A7C15
B3, C_FOUR_THREE = 5, 10  # bots.engine.shapes.B3, C_FOUR_THREE


@cython.cclass
class Threats(Fouls):
    """The board, its fouls and its threats (attributes declared in ``threats.pxd``)."""

    def __init__(self, width: int, height: int, k: int, exact: bool, geo, renju: bool = False,
                 shape=None):  # fmt: skip
        Fouls.__init__(self, width, height, k, exact, geo, renju, shape)
        self.ts_key = array("Q", [0]) * (1 << 16)
        self.ts_data = ints(2 << 16)
        self.ts_mask = (1 << 16) - 1
        self.nodes = self.ts_nodes = self.ts_max = 0
        self.deadline, self.stopped = 0.0, False
        self.ft_pts = ints(self.n)  # _defences' four-three points of one board scan

    @cython.cfunc
    @cython.inline
    @cython.exceptval(check=False)
    def _take(self, x: cython.int, out: cython.int, m: cython.int) -> cython.int:
        """Append cell ``x`` to ``buf[out:out+m]`` if empty and unmarked (marking it); the count.

        Marks keep every defence list free of repeats; ``_unmark`` clears them after.
        """
        if self.cells[x] == 0 and not self.mark[x]:
            self.mark[x] = 1
            self.buf[out + m] = x
            m += 1
        return m

    @cython.cfunc
    @cython.exceptval(check=False)
    def _four_cells(self, side: cython.int, out: cython.int, m: cython.int) -> cython.int:
        """Append the cells where ``side`` makes a four (unmarked ones) to ``buf[out:]``."""
        if self.nthree[side] == 0:
            return m
        c: cython.int
        base: cython.int = side * self.n
        for c in range(self.n):
            if threes_of(self.tally[base + c]):
                m = self._take(c, out, m)
        return m

    @cython.cfunc
    @cython.inline
    @cython.exceptval(check=False)
    def _live_three(self, side: cython.int, w: cython.int) -> cython.bint:
        """Whether window ``w`` is alive for ``side`` and one stone short of a four."""
        nw: cython.int = self.nw
        return (
            self.cnt[side * nw + w] == self.k - 2
            and self.cnt[(1 - side) * nw + w] == 0
            and self.fl[side * nw + w] == 0
        )

    @cython.cfunc
    @cython.inline
    @cython.exceptval(check=False)
    def _is_double(self, side: cython.int, c: cython.int) -> cython.bint:
        """Whether ``side`` playing empty ``c`` gets two win cells at once (open four, 4x4)."""
        if threes_of(self.tally[side * self.n + c]) < 2:
            return False
        k: cython.int = self.k
        first: cython.int = -1
        i: cython.int
        j: cython.int
        w: cython.int
        x: cython.int
        for i in range(self.mem_off[c], self.mem_off[c + 1]):
            w = self.mem[i]
            if not self._live_three(side, w):
                continue
            for j in range(w * k, w * k + k):
                x = self.wcells[j]
                if x != c and self.cells[x] == 0:
                    if first < 0:
                        first = x
                    elif x != first:
                        return True
        return False

    @cython.cfunc
    @cython.exceptval(check=False)
    def _double_cells(self, att: cython.int, c: cython.int, out: cython.int,
                      m: cython.int) -> cython.int:  # fmt: skip
        """Append the empty cells of every live ``att`` three window through double point ``c``."""
        k: cython.int = self.k
        i: cython.int
        j: cython.int
        w: cython.int
        for i in range(self.mem_off[c], self.mem_off[c + 1]):
            w = self.mem[i]
            if not self._live_three(att, w):
                continue
            for j in range(w * k, w * k + k):
                m = self._take(self.wcells[j], out, m)
        return m

    @cython.cfunc
    @cython.exceptval(check=False)
    def _four_three_cells(self, att: cython.int, c: cython.int, out: cython.int,
                          m: cython.int) -> cython.int:  # fmt: skip
        """Append the cells that may spoil ``att``'s four-three point ``c`` unless it is a foul:
        the point itself, the empty cells within five of it on each line where it makes a three
        or a four, and the cells that would let the block of its four make a four of the
        defender's own."""
        if self._foul_for(att, c):
            return m
        d: cython.int
        j: cython.int
        x: cython.int
        for d in range(4):
            if self.shp[(att * self.n + c) * 4 + d] < B3:
                continue
            for j in range(11):
                x = self.ray[(c * 4 + d) * 11 + j]
                if x >= 0:
                    m = self._take(x, out, m)
        return self._counter_blocks(att, c, out, m)

    @cython.cfunc
    @cython.exceptval(check=False)
    def _defences(self, att: cython.int, out: cython.int, m: cython.int,
                  four_three: cython.bint) -> cython.int:  # fmt: skip
        """Append the cells that spoil ``att``'s double-threat points (open three, double
        four); with ``four_three``, when there is none, those that may spoil its four-three
        points: one board scan for both.

        The scan keeps the four-three points it passes (``ft_pts``, board order) while no
        double point has been found, and spoils them after it only if none was.
        """
        double: cython.bint = self.nthree[att] >= 2
        four_three = four_three and self.shaped and self.nthree[att] >= 1
        if not double and not four_three:
            return m
        first: cython.int = m
        base: cython.int = att * self.n
        nft: cython.int = 0
        c: cython.int
        i: cython.int
        for c in range(self.n):
            if self.cells[c] != 0:
                continue
            if double and self._is_double(att, c) and not self._foul_for(att, c):
                m = self._double_cells(att, c, out, m)
            elif four_three and m == first and self.ctab[self.ckey[base + c]] == C_FOUR_THREE:
                self.ft_pts[nft] = c  # a four-three point, kept while no double point is seen
                nft += 1
        if m == first:
            for i in range(nft):
                m = self._four_three_cells(att, self.ft_pts[i], out, m)
        return m

    @cython.cfunc
    @cython.exceptval(check=False)
    def _counter_blocks(self, att: cython.int, c: cython.int, out: cython.int,
                        m: cython.int) -> cython.int:  # fmt: skip
        """Append the cells of the defender's windows through each block of the four ``att``
        makes at ``c`` that are one stone short of making that block a four of its own."""
        k: cython.int = self.k
        nw: cython.int = self.nw
        dfn: cython.int = 1 - att
        i: cython.int
        j: cython.int
        i2: cython.int
        j2: cython.int
        w: cython.int
        w2: cython.int
        b: cython.int
        for i in range(self.mem_off[c], self.mem_off[c + 1]):
            w = self.mem[i]
            if not self._live_three(att, w):
                continue
            for j in range(w * k, w * k + k):
                b = self.wcells[j]
                if b == c or self.cells[b] != 0:
                    continue
                for i2 in range(self.mem_off[b], self.mem_off[b + 1]):
                    w2 = self.mem[i2]
                    if self.cnt[att * nw + w2] or self.fl[dfn * nw + w2]:
                        continue
                    if self.cnt[dfn * nw + w2] < k - 3:
                        continue
                    for j2 in range(w2 * k, w2 * k + k):
                        m = self._take(self.wcells[j2], out, m)
        return m

    @cython.cfunc
    @cython.exceptval(check=False)
    def _double_threat(self, side: cython.int) -> cython.bint:
        """Whether ``side`` has a cell that makes two win cells at once (open four, 4x4)."""
        if self.nthree[side] < 2:
            return False
        c: cython.int
        for c in range(self.n):
            if self.cells[c] == 0 and self._is_double(side, c) and not self._foul_for(side, c):
                return True
        return False

    @cython.cfunc
    def _ts_tick(self) -> cython.bint:
        self.ts_nodes += 1
        if self.ts_nodes >= self.ts_max or (
            self.ts_nodes & 31 == 0 and time.perf_counter() >= self.deadline
        ):
            self.stopped = True
        return self.stopped

    @cython.cfunc
    def _attack(self, depth: cython.int, threes: cython.bint, ply: cython.int) -> cython.int:
        """Attacker to move: a cell that wins by threats within ``depth`` plies, or -1."""
        att: cython.int = self.nmoves & 1
        out: cython.int = (MAX_PLY + 1 + ply) * self.n
        m: cython.int
        if self.nfour[att]:
            self._win_cells(att, out)
            return self.buf[out]
        m = self._win_cells(1 - att, out)
        if m >= 2 or depth <= 0 or ply >= TS_PLY - 1:
            return -1
        probe: cython.ulonglong = self.key ^ (VCT_SALT if threes else 0)
        slot: cython.ulonglong = probe & self.ts_mask
        if self.ts_key[slot] == probe and (
            self.ts_data[2 * slot + 1] >= 0 or self.ts_data[2 * slot] >= depth
        ):
            return self.ts_data[2 * slot + 1]
        if self._ts_tick():
            return -1
        i: cython.int
        c: cython.int
        if m == 0:
            m = self._four_cells(att, out, 0)
            if threes and m < self.n - THREE_CANDIDATES:
                m = self._three_cells(att, out, m)
            self._unmark(out, m)
        for i in range(out, out + m):
            c = self.buf[i]
            self.keys[c] = pot_of(self.tally[att * self.n + c])
        self._sort(out, m)
        found: cython.int = -1
        ok: cython.bint
        for i in range(m):
            c = self.buf[out + i]
            if att == 0 and self._forbidden(c):
                continue  # renju: black attacks (and blocks) on allowed points only
            self.play(c)
            ok = self._defend(depth - 1, threes, ply + 1)
            self.undo()
            if self.stopped:
                return -1
            if ok:
                found = c
                break
        self.ts_key[slot] = probe
        self.ts_data[2 * slot] = depth
        self.ts_data[2 * slot + 1] = found
        return found

    @cython.cfunc
    def _three_cells(self, att: cython.int, out: cython.int, m: cython.int) -> cython.int:
        """Append up to THREE_CANDIDATES cells likely to make an open three, by potential."""
        n: cython.int = self.n
        start: cython.int = out + m
        cnt: cython.int = 0
        c: cython.int
        i: cython.int
        for c in range(n):
            if twos_of(self.tally[att * n + c]) >= 2 and self.cells[c] == 0 and not self.mark[c]:
                self.buf[start + cnt] = c
                self.keys[c] = pot_of(self.tally[att * n + c])
                cnt += 1
        self._sort(start, cnt)
        if cnt > THREE_CANDIDATES:
            cnt = THREE_CANDIDATES
        for i in range(start, start + cnt):
            self.mark[self.buf[i]] = 1
        return m + cnt

    @cython.cfunc
    def _defend(self, depth: cython.int, threes: cython.bint, ply: cython.int) -> cython.bint:
        """Defender to move right after a threat: True if every reply still loses."""
        dfn: cython.int = self.nmoves & 1
        att: cython.int = 1 - dfn
        out: cython.int = (MAX_PLY + 1 + ply) * self.n
        if self.nfour[dfn]:
            return False
        m: cython.int = self._win_cells(att, out)
        if m >= 2:
            return True
        if m == 0:
            if not threes:
                return False
            m = self._defences(att, out, 0, False)
            if m == 0:
                self._unmark(out, m)
                return False
            m = self._four_cells(dfn, out, m)
            self._unmark(out, m)
        if self._ts_tick():
            return False
        i: cython.int
        ok: cython.bint
        for i in range(m):
            if dfn == 0 and self._forbidden(self.buf[out + i]):
                continue  # renju: a forbidden defence is none (all forbidden: black has lost)
            self.play(self.buf[out + i])
            ok = self._attack(depth - 1, threes, ply + 1) >= 0
            self.undo()
            if self.stopped or not ok:
                return False
        return True

    @cython.ccall
    def threat_win(self, depth: cython.int, threes: cython.bint, max_nodes: cython.longlong,
                   deadline: cython.double) -> cython.int:  # fmt: skip
        """A first move of a forced win by fours (or threes too) for the side to move, or -1.

        Deepens 3, 5, 7 ... plies up to ``depth`` so the shortest win found is played; -2 when
        the budget ran out before the search was complete.
        """
        self.ts_nodes = 0
        self.ts_max = max_nodes
        saved_deadline: cython.double = self.deadline
        self.deadline = deadline
        self.stopped = False
        found: cython.int = -1
        plies: cython.int
        for plies in range(3, depth + 1, 2):
            found = self._attack(plies, threes, 0)
            if found >= 0 or self.stopped:
                break
        if found < 0 and self.stopped:
            found = -2
        self.nodes += self.ts_nodes
        self.deadline = saved_deadline
        self.stopped = False
        return found

    @cython.ccall
    def threat_lost(self, depth: cython.int, threes: cython.bint, max_nodes: cython.longlong,
                    deadline: cython.double) -> cython.int:  # fmt: skip
        """After a threat: 1 if every reply of the side to move loses within ``depth`` plies,
        0 if one holds, -2 when the budget ran out first."""
        self.ts_nodes = 0
        self.ts_max = max_nodes
        saved_deadline: cython.double = self.deadline
        self.deadline = deadline
        self.stopped = False
        lost: cython.bint = self._defend(depth, threes, 0)
        out: cython.int = -2 if self.stopped else (1 if lost else 0)
        self.nodes += self.ts_nodes
        self.deadline = saved_deadline
        self.stopped = False
        return out

    @cython.ccall
    def clear_threat_memo(self) -> cython.void:
        """Forget threat-search results (their depth meaning changes with the budget)."""
        i: cython.int
        for i in range(self.ts_mask + 1):
            self.ts_key[i] = 0
