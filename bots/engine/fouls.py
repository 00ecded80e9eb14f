# cython: boundscheck=False, wraparound=False, initializedcheck=False, language_level=3
"""Renju's fouls on the core's board: whether black may play a cell (overline, double four,
double three), a port of :func:`protocol.renju.foul` (its oracle in the tests) on flat arrays,
with a cache of answers keyed by position and cell.

Second of the core's layers: extends :class:`bots.engine.board.Board` (declared in
``fouls.pxd``).
"""

from array import array

import cython

from bots.engine.board import ints, random_keys

if not cython.compiled:  # compiled: cimported in fouls.pxd
    from bots.engine.board import Board
    from bots.engine.tally import fours_of, threes_of, twos_of

#: Size (power of two) of the cache of forbidden-point answers, keyed by position + cell.
FOUL_BITS = 14
#: A line as the forbidden-point test reads it: 2 * RR + 1 cells, the move in the middle.
RR = 5
RL = 2 * RR + 1
#: An off-board cell in such a line (neither empty nor black).
WALL = -1


@cython.cclass
class Fouls(Board):
    """The board with renju's forbidden-point test (attributes declared in ``fouls.pxd``)."""

    def __init__(self, width: int, height: int, k: int, exact: bool, geo, renju: bool = False,
                 shape=None):  # fmt: skip
        Board.__init__(self, width, height, k, exact, geo, renju, shape)
        n = self.n
        self.fzob = random_keys(n)[1]
        self.fc_key = array("Q", [0]) * (1 << FOUL_BITS)
        self.fc_val = ints(1 << FOUL_BITS)
        self.fc_mask = (1 << FOUL_BITS) - 1
        self.foul_looks = 0
        self.rline = ints(n * 4 * RL)  # per recursion level: the four lines around a cell
        self.rpts = ints(n * 4 * 8)  # per level and direction: straight-four points (count+7)
        self.rmask = ints(5)  # the stone sets of the fours on one line

    @cython.cfunc
    def _forbidden(self, c: cython.int) -> cython.bint:
        """Renju: whether black may not play empty ``c`` (overline, double four, double three).

        Exact five first (never forbidden: an alive black four-window through ``c``), then the
        rules' own test (:meth:`_foul`, a port of ``protocol.renju.foul``, which is its oracle
        in the tests), cached by position and cell.
        """
        if not self.renju or fours_of(self.tally[c]) > 0:
            return False
        if threes_of(self.tally[c]) < 2 and twos_of(self.tally[c]) < 2:
            # every four, and every three, through c has an alive window of black's with three
            # (two) stones through c: with fewer than two of each only an overline is left
            return (
                self._black_run(c, 1, 0) >= 6
                or self._black_run(c, 0, 1) >= 6
                or self._black_run(c, 1, 1) >= 6
                or self._black_run(c, 1, -1) >= 6
            )
        probe: cython.ulonglong = self.key ^ self.fzob[c]
        slot: cython.ulonglong = probe & self.fc_mask
        if self.fc_key[slot] == probe:
            return self.fc_val[slot] == 1
        self.foul_looks += 1
        bad: cython.bint = self._foul(c, 0) != 0
        self.fc_key[slot] = probe
        self.fc_val[slot] = 1 if bad else 0
        return bad

    @cython.cfunc
    def _black_run(self, c: cython.int, dx: cython.int, dy: cython.int) -> cython.int:
        """The black run through empty ``c`` along (dx, dy) were black to play there."""
        w: cython.int = self.w
        h: cython.int = self.n // w
        run: cython.int = 1
        x: cython.int = c % w + dx
        y: cython.int = c // w + dy
        while 0 <= x < w and 0 <= y < h and self.cells[y * w + x] == 1:
            run += 1
            x += dx
            y += dy
        x = c % w - dx
        y = c // w - dy
        while 0 <= x < w and 0 <= y < h and self.cells[y * w + x] == 1:
            run += 1
            x -= dx
            y -= dy
        return run

    @cython.cfunc
    def _foul(self, c: cython.int, level: cython.int) -> cython.int:
        """Why black may not play empty ``c`` on the raw board: 0 allowed, 1 overline, 2 double
        four, 3 double three (a three counts only when one of its straight-four points is itself
        allowed: the test recurses one ``level`` deeper with ``c`` black). Reads ``cells`` only,
        never the incremental tables, and leaves the board as it found it."""
        if level >= self.n:
            return 0
        base: cython.int = level * 4 * RL
        if not self._read_lines(c, base):
            return 0
        d: cython.int
        runs_max: cython.int = 0
        run: cython.int
        for d in range(4):
            self.rline[base + d * RL + RR] = 1
            run = self._line_run(base + d * RL)
            if run == 5:
                return 0
            if run > runs_max:
                runs_max = run
        if runs_max >= 6:
            return 1
        fours: cython.int = 0
        for d in range(4):
            fours += self._line_fours(base + d * RL)
        if fours >= 2:
            return 2
        return self._double_three(c, level, base)

    @cython.cfunc
    def _read_lines(self, c: cython.int, base: cython.int) -> cython.bint:
        """Copy the four lines through ``c`` into ``rline[base:]`` (off-board cells as WALL);
        whether they hold black stones enough for any foul (four on one line, or two on two)."""
        w: cython.int = self.w
        h: cython.int = self.n // w
        d: cython.int
        i: cython.int
        x: cython.int
        y: cython.int
        dx: cython.int
        dy: cython.int
        cnt: cython.int
        rich: cython.int = 0
        pairs: cython.int = 0
        for d in range(4):
            dx = 0 if d == 1 else 1
            dy = 1 if d == 1 or d == 2 else (-1 if d == 3 else 0)
            cnt = 0
            for i in range(RL):
                x = c % w + (i - RR) * dx
                y = c // w + (i - RR) * dy
                if 0 <= x < w and 0 <= y < h:
                    self.rline[base + d * RL + i] = self.cells[y * w + x]
                else:
                    self.rline[base + d * RL + i] = WALL
                if 1 <= i <= 2 * RR - 1 and self.rline[base + d * RL + i] == 1:
                    cnt += 1
            if cnt >= 4:
                rich = 1
            if cnt >= 2:
                pairs += 1
        return rich or pairs >= 2

    @cython.cfunc
    def _double_three(self, c: cython.int, level: cython.int, base: cython.int) -> cython.int:
        """3 when black at ``c`` (lines read at ``rline[base:]``) makes two threes, each with a
        straight-four point that is itself allowed (tested one ``level`` deeper), else 0."""
        w: cython.int = self.w
        d: cython.int
        dx: cython.int
        dy: cython.int
        cands: cython.int = 0
        pb: cython.int = level * 32
        for d in range(4):
            self.rpts[pb + d * 8] = 0
            if self._line_fours(base + d * RL) == 0:
                self._line_four_points(base + d * RL, pb + d * 8)
                if self.rpts[pb + d * 8] > 0:
                    cands += 1
        if cands < 2:
            return 0
        threes: cython.int = 0
        seen: cython.int = 0
        j: cython.int
        off: cython.int
        found: cython.int = 0
        self.cells[c] = 1
        for d in range(4):
            if self.rpts[pb + d * 8] == 0:
                continue
            if threes + cands - seen < 2:
                break
            seen += 1
            dx = 0 if d == 1 else 1
            dy = 1 if d == 1 or d == 2 else (-1 if d == 3 else 0)
            for j in range(self.rpts[pb + d * 8]):
                off = self.rpts[pb + d * 8 + 1 + j]
                if self._foul(c + off * (dy * w + dx), level + 1) == 0:
                    threes += 1
                    break
            if threes >= 2:
                found = 3
                break
        self.cells[c] = 0
        return found

    @cython.cfunc
    def _line_run(self, at: cython.int) -> cython.int:
        """The black run through the middle of the line at ``rline[at:at+RL]``."""
        n: cython.int = 1
        i: cython.int = RR - 1
        while i >= 0 and self.rline[at + i] == 1:
            n += 1
            i -= 1
        i = RR + 1
        while i <= 2 * RR and self.rline[at + i] == 1:
            n += 1
            i += 1
        return n

    @cython.cfunc
    def _line_fours(self, at: cython.int) -> cython.int:
        """Distinct fours through the middle: 5-windows one empty cell short of exactly five
        (two windows on the same four stones are one straight four)."""
        m: cython.int = 0
        s: cython.int
        i: cython.int
        v: cython.int
        blacks: cython.int
        empties: cython.int
        mask: cython.int
        dup: cython.bint
        for s in range(RR - 4, RR + 1):
            blacks = 0
            empties = 0
            mask = 0
            for i in range(s, s + 5):
                v = self.rline[at + i]
                if v == 1:
                    blacks += 1
                    mask |= 1 << i
                elif v == 0:
                    empties += 1
            if blacks != 4 or empties != 1:
                continue
            if self.rline[at + s - 1] == 1 or (s + 5 <= 2 * RR and self.rline[at + s + 5] == 1):
                continue  # filling the gap would make six or more, not five
            dup = False
            for i in range(m):
                if self.rmask[i] == mask:
                    dup = True
            if not dup:
                self.rmask[m] = mask
                m += 1
        return m

    @cython.cfunc
    def _line_four_points(self, at: cython.int, out: cython.int) -> cython.void:
        """Into ``rpts[out]`` the count, after it the offsets from the middle, of the empty
        cells that would make a straight four with the middle (black) along the line."""
        i: cython.int
        j: cython.int
        blacks: cython.int = 0
        for i in range(RR - 3, RR + 4):
            if self.rline[at + i] == 1:
                blacks += 1
        if blacks < 3:
            return
        for j in range(RR - 3, RR + 4):
            if self.rline[at + j] != 0:
                continue
            self.rline[at + j] = 1
            if self._straight_four(at, j):
                self.rpts[out] += 1
                self.rpts[out + self.rpts[out]] = j - RR
            self.rline[at + j] = 0

    @cython.cfunc
    def _straight_four(self, at: cython.int, j: cython.int) -> cython.bint:
        """Whether the black run through the middle is exactly four long, holds ``j``, has both
        ends empty and no black stone just past either end (an open, not overline, four)."""
        lo: cython.int = RR
        hi: cython.int = RR
        while lo > 0 and self.rline[at + lo - 1] == 1:
            lo -= 1
        while hi < 2 * RR and self.rline[at + hi + 1] == 1:
            hi += 1
        return (
            hi - lo == 3
            and lo <= j <= hi
            and self.rline[at + lo - 1] == 0
            and self.rline[at + hi + 1] == 0
            and self.rline[at + lo - 2] != 1
            and self.rline[at + hi + 2] != 1
        )

    @cython.cfunc
    def _foul_for(self, side: cython.int, c: cython.int) -> cython.bint:
        """Whether ``side`` may not play empty ``c`` (only black, only in renju, ever)."""
        return side == 0 and self._forbidden(c)

    @cython.ccall
    def forbidden(self, c: cython.int) -> cython.bint:
        """Whether the side to move may not play empty ``c`` (renju, black only)."""
        return self.nmoves & 1 == 0 and self._forbidden(c)

    @cython.cfunc
    def _legal_only(self, out: cython.int, m: cython.int) -> cython.int:
        """Drop black's forbidden points from ``buf[out:out+m]`` (renju, black to move)."""
        if not self.renju or self.nmoves & 1:
            return m
        i: cython.int
        kept: cython.int = 0
        c: cython.int
        for i in range(out, out + m):
            c = self.buf[i]
            if not self._forbidden(c):
                self.buf[out + kept] = c
                kept += 1
        return kept
