# cython: boundscheck=False, wraparound=False, initializedcheck=False, language_level=3
"""The board and its shapes: stones, k-windows and the incremental tables the searches read.

Per k-window and side the board keeps a *category*: -1 when the window is dead for that side
(an enemy stone in it, or in exact-k mode an own stone just past an end), else its stone count.
Each cell then knows, per side, how many alive windows through it hold k-1 stones (fours: an
empty such cell wins), k-2 (threes: playing there makes a four) and k-3 (twos), and a potential
that orders moves, packed in one integer (its tally, :mod:`bots.engine.tally`). With the shape
tables of :mod:`bots.engine.shapes` (k = 5) it also keeps each empty cell's line shapes and
their weighted value, the evaluation. ``play``/``undo`` keep every table exact incrementally.

First of the core's four layers (board, :mod:`~bots.engine.fouls`,
:mod:`~bots.engine.threats`, :mod:`~bots.engine.core`'s search), each a Cython extension
class that extends the one before, declared in its ``.pxd`` so the layers above call its C
methods and read its arrays directly. Everything is a flat int array so the compiled code
never touches a Python object in the hot loops; the same source runs as plain Python (the
oracle of the compiled build).
"""

from array import array
from random import Random

import cython

if not cython.compiled:  # compiled: cimported in board.pxd
    from bots.engine.tally import FOURS_AT, THREES_AT, TWOS_AT, fours_of, pot_of, threes_of, twos_of

#: Plies the main search goes (its move lists live in ``buf``, one row a ply).
MAX_PLY = 96
#: Plies the threat search goes (its move lists follow the main search's in ``buf``).
TS_PLY = 48
_SEED = 0x6D6E6B
NFEAT = 23  # bots.engine.shapes.NFEAT


def ints(n: int, value: int = 0) -> array:
    """A flat int array of ``n`` times ``value``."""
    return array("i", [value]) * n


def random_keys(n: int) -> tuple:
    """The Zobrist keys of an ``n``-cell board: per side and cell, then per cell (the renju
    foul cache's); one seeded sequence, so every run of a board has the same keys."""
    rnd = Random(_SEED + n)
    zob = array("Q", [rnd.getrandbits(64) for _ in range(2 * n)])
    return zob, array("Q", [rnd.getrandbits(64) for _ in range(n)])


@cython.cclass
class Board:
    """The stones, windows and tables of one board (attributes declared in ``board.pxd``)."""

    def __init__(self, width: int, height: int, k: int, exact: bool, geo, renju: bool = False,
                 shape=None):  # fmt: skip
        n = width * height
        self.w, self.n, self.k, self.nw = width, n, k, len(geo.windows)
        self.exact = exact
        self.renju = renju and k == 5  # black: exact five, no overline/4x4/3x3 (protocol.renju)
        self.nmoves, self.winner, self.score, self.key = 0, -1, 0, 0
        self.wcells = array("i", [c for win in geo.windows for c in win])
        self.mem_off, self.mem = _csr(geo.members)
        self.flk_off, self.flk = _csr(geo.flanks)
        self.near_off, self.near_list = _csr(geo.near)
        self.cells, self.hist, self.near = ints(n), ints(n + MAX_PLY), ints(n)
        self.cnt, self.fl = ints(2 * self.nw), ints(2 * self.nw)
        self.tally = array("q", [0]) * (2 * n)
        self.nfour, self.nthree = ints(2), ints(2)
        ew = {1: 2000, 2: 150, 3: 20, 4: 4}
        pw = {1: 20_000, 2: 500, 3: 50, 4: 8}
        self.eval_w = array("i", [0, 0] + [ew.get(k - j, 1) for j in range(1, k)] + [100_000])
        self.pot_w = array("i", [0, 1] + [pw.get(k - j, 3) for j in range(1, k + 1)])
        self.zob = random_keys(n)[0]
        self.buf = ints((MAX_PLY + TS_PLY + 2) * n)
        self.keys = array("q", [0]) * n
        self.mark = ints(n)
        for side in range(2):
            for w in range(self.nw):
                self._recat(side, w, -1, 0)
        self._shape_init(shape, exact)

    def _shape_init(self, shape, exact: bool) -> None:
        """Shape mode (``shape`` from ``bots.engine.shapes.tables``): the line index of every
        cell, side and direction on the empty board (walls block), and the cells' values."""
        n = self.n
        self.shaped = shape is not None
        self.sme, self.sopp = array("q", [0, 0]), array("q", [0, 0])
        self.vme, self.vopp = ints(10_000), ints(10_000)
        if shape is None:
            self.reach = 0
            self.ray = self.places = self.ordt = self.wme = self.wopp = self.lbase = ints(1)
            self.lidx = self.shp = self.ckey = ints(1)
            self.ltab = self.ctab = array("b", [0])
            return
        self.ray, self.ltab, self.lbase, self.ctab, self.places, self.ordt, wme, wopp = shape
        self.wme, self.wopp = ints(NFEAT), ints(NFEAT)
        pl = self.places  # per side: an own stone 5 away counts only where fives are exact
        self.reach = 5 if pl[0] or pl[10] or pl[11] or pl[21] else 4
        self.lidx, self.shp, self.ckey = ints(8 * n), ints(8 * n), ints(2 * n)
        for s in range(2):
            for c in range(n):
                key = 0
                for d in range(4):
                    idx = 0
                    for j in range(-4, 5):
                        if j and self.ray[(c * 4 + d) * 11 + j + 5] < 0:
                            idx += 2 * self.places[s * 11 + j + 5]
                    self.lidx[(s * n + c) * 4 + d] = idx
                    self.shp[(s * n + c) * 4 + d] = self.ltab[self.lbase[s] + idx]
                    key = key * 10 + self.ltab[self.lbase[s] + idx]
                self.ckey[s * n + c] = key
        self.set_weights(list(wme), list(wopp))

    @cython.ccall
    def play(self, c: cython.int) -> cython.bint:
        """Put the side to move's stone on empty cell ``c``; True when that completes a win."""
        s: cython.int = self.nmoves & 1
        i: cython.int
        self.cells[c] = s + 1
        self.hist[self.nmoves] = c
        self.nmoves += 1
        self.key ^= self.zob[s * self.n + c]
        for i in range(self.near_off[c], self.near_off[c + 1]):
            self.near[self.near_list[i]] += 1
        self._update(c, s, 1)
        if self.shaped:
            self._cell_value(c, -1)
            self._shape_update(c, s, 1)
        return self.winner >= 0

    @cython.ccall
    def undo(self) -> cython.int:
        """Take back the last stone and return its cell."""
        i: cython.int
        self.nmoves -= 1
        c: cython.int = self.hist[self.nmoves]
        s: cython.int = self.nmoves & 1
        self._update(c, s, -1)
        if self.shaped:
            self._shape_update(c, s, -1)
            self._cell_value(c, 1)
        self.cells[c] = 0
        self.key ^= self.zob[s * self.n + c]
        for i in range(self.near_off[c], self.near_off[c + 1]):
            self.near[self.near_list[i]] -= 1
        self.winner = -1
        return c

    @cython.cfunc
    @cython.exceptval(check=False)
    def _update(self, c: cython.int, s: cython.int, d: cython.int) -> cython.void:
        """Adjust every window through (and, in exact mode, flanked by) ``c`` for seat ``s``."""
        o: cython.int = 1 - s
        nw: cython.int = self.nw
        i: cython.int
        w: cython.int
        ns: cython.int
        no: cython.int
        a_s: cython.int
        a_o: cython.int
        b_s: cython.int
        b_o: cython.int
        for i in range(self.mem_off[c], self.mem_off[c + 1]):
            w = self.mem[i]
            ns = self.cnt[s * nw + w]
            no = self.cnt[o * nw + w]
            a_s = ns if no == 0 and self.fl[s * nw + w] == 0 else -1
            a_o = no if ns == 0 and self.fl[o * nw + w] == 0 else -1
            ns += d
            self.cnt[s * nw + w] = ns
            b_s = ns if no == 0 and self.fl[s * nw + w] == 0 else -1
            b_o = no if ns == 0 and self.fl[o * nw + w] == 0 else -1
            if a_s != b_s:
                self._recat(s, w, a_s, b_s)
            if a_o != b_o:
                self._recat(o, w, a_o, b_o)
        if self.exact or (self.renju and s == 0):  # renju: only black's overlines do not win
            for i in range(self.flk_off[c], self.flk_off[c + 1]):
                w = self.flk[i]
                ns = self.cnt[s * nw + w]
                no = self.cnt[o * nw + w]
                if no:
                    self.fl[s * nw + w] += d
                    continue
                a_s = ns if self.fl[s * nw + w] == 0 else -1
                self.fl[s * nw + w] += d
                b_s = ns if self.fl[s * nw + w] == 0 else -1
                if a_s != b_s:
                    self._recat(s, w, a_s, b_s)

    @cython.cfunc
    @cython.exceptval(check=False)
    def _cell_value(self, c: cython.int, d: cython.int) -> cython.void:
        """Count (``d`` = 1) or uncount (-1) empty cell ``c``'s values, both sides."""
        s: cython.int
        key: cython.int
        for s in range(2):
            key = self.ckey[s * self.n + c]
            self.sme[s] += d * self.vme[key]
            self.sopp[s] += d * self.vopp[key]

    @cython.cfunc
    @cython.exceptval(check=False)
    def _shape_update(self, x: cython.int, t: cython.int, sign: cython.int) -> cython.void:
        """Seat ``t``'s stone came (``sign`` 1) to or left (-1) ``x``: re-index the lines of
        the empty cells within reach of it on its 4 lines, and their values. (Occupied cells
        are skipped both ways: play and undo come in LIFO order, so they see the same ones.)"""
        n: cython.int = self.n
        reach: cython.int = self.reach
        d: cython.int
        j: cython.int
        s: cython.int
        y: cython.int
        pv: cython.int
        delta: cython.int
        ii: cython.int
        ns: cython.int
        ok: cython.int
        nk: cython.int
        step: cython.int
        for d in range(4):
            step = 1000
            if d == 1:
                step = 100
            elif d == 2:
                step = 10
            elif d == 3:
                step = 1
            for j in range(-reach, reach + 1):
                y = self.ray[(x * 4 + d) * 11 + j + 5]
                if y < 0 or j == 0 or self.cells[y] != 0:
                    continue
                for s in range(2):
                    pv = self.places[s * 11 + 5 - j]
                    if s == t:
                        if pv == 0:
                            continue  # 5 away, and this side's fives are not exact
                        delta = pv
                    elif j == 5 or j == -5:
                        continue
                    else:
                        delta = 2 * pv
                    ii = (s * n + y) * 4 + d
                    self.lidx[ii] += sign * delta
                    ns = self.ltab[self.lbase[s] + self.lidx[ii]]
                    if ns == self.shp[ii]:
                        continue
                    ok = self.ckey[s * n + y]
                    nk = ok + (ns - self.shp[ii]) * step
                    self.shp[ii] = ns
                    self.ckey[s * n + y] = nk
                    self.sme[s] += self.vme[nk] - self.vme[ok]
                    self.sopp[s] += self.vopp[nk] - self.vopp[ok]

    @cython.ccall
    def set_weights(self, me: list, opp: list) -> cython.void:
        """Use these feature weights (side to move, other side) from now on: a cell's value
        per key of its four shapes is their weights plus its combined code's."""
        f: cython.int
        key: cython.int
        s: cython.int
        c: cython.int
        vm: cython.int
        vo: cython.int
        for f in range(NFEAT):
            self.wme[f] = me[f]
            self.wopp[f] = opp[f]
        for key in range(10_000):
            vm = self.wme[10 + self.ctab[key]]
            vo = self.wopp[10 + self.ctab[key]]
            for f in (key // 1000, key // 100 % 10, key // 10 % 10, key % 10):
                vm += self.wme[f]
                vo += self.wopp[f]
            self.vme[key] = vm
            self.vopp[key] = vo
        for s in range(2):
            self.sme[s] = 0
            self.sopp[s] = 0
            for c in range(self.n):
                if self.cells[c] == 0:
                    key = self.ckey[s * self.n + c]
                    self.sme[s] += self.vme[key]
                    self.sopp[s] += self.vopp[key]

    @cython.ccall
    def features(self, side: cython.int) -> list:
        """``side``'s feature counts (line shapes, then combined codes) over the empty cells."""
        out: list = [0] * NFEAT
        c: cython.int
        key: cython.int
        for c in range(self.n):
            if self.cells[c] == 0:
                key = self.ckey[side * self.n + c]
                for f in (key // 1000, key // 100 % 10, key // 10 % 10, key % 10):
                    out[f] += 1
                out[10 + self.ctab[key]] += 1
        return out

    @cython.ccall
    def line_shape(self, side: cython.int, c: cython.int, d: cython.int) -> cython.int:
        """The shape ``side`` makes on direction ``d``'s line by playing empty cell ``c``."""
        return self.shp[(side * self.n + c) * 4 + d]

    @cython.ccall
    def cell_code(self, side: cython.int, c: cython.int) -> cython.int:
        """The combined code of empty cell ``c`` for ``side``."""
        return self.ctab[self.ckey[side * self.n + c]]

    @cython.cfunc
    @cython.exceptval(check=False)
    def _recat(self, side: cython.int, w: cython.int, a: cython.int, b: cython.int) -> cython.void:
        """Window ``w`` moved from category ``a`` to ``b`` for ``side`` (-1 = dead for it)."""
        k: cython.int = self.k
        delta: cython.int = self.eval_w[b + 1] - self.eval_w[a + 1]
        self.score += delta if side == 0 else -delta
        pd: cython.int = self.pot_w[b + 1] - self.pot_w[a + 1]
        d4: cython.int = (b == k - 1) - (a == k - 1)
        d3: cython.int = (b == k - 2) - (a == k - 2)
        d2: cython.int = (b == k - 3) - (a == k - 3)
        self.nfour[side] += d4
        self.nthree[side] += d3
        base: cython.int = side * self.n
        i: cython.int
        dt: cython.longlong = pd + (
            (cython.cast(cython.longlong, d4) << FOURS_AT)
            + (cython.cast(cython.longlong, d3) << THREES_AT)
            + (cython.cast(cython.longlong, d2) << TWOS_AT)
        )
        for i in range(w * k, w * k + k):
            self.tally[base + self.wcells[i]] += dt
        if b == k:
            self.winner = side

    @cython.cfunc
    @cython.exceptval(check=False)
    def _win_cells(self, side: cython.int, out: cython.int) -> cython.int:
        """Write ``side``'s win cells into ``buf[out:]``; return how many (0 when none)."""
        if self.nfour[side] == 0:
            return 0
        m: cython.int = 0
        c: cython.int
        base: cython.int = side * self.n
        for c in range(self.n):
            if fours_of(self.tally[base + c]) and self.cells[c] == 0:
                self.buf[out + m] = c
                m += 1
        return m

    @cython.cfunc
    @cython.exceptval(check=False)
    def _unmark(self, out: cython.int, m: cython.int) -> cython.void:
        i: cython.int
        for i in range(out, out + m):
            self.mark[self.buf[i]] = 0

    @cython.ccall
    def evaluate(self) -> cython.longlong:
        """The static score for the side to move."""
        s: cython.int = self.nmoves & 1
        if self.shaped:
            return self.sme[s] + self.sopp[1 - s]
        return self.score if s == 0 else -self.score

    @cython.ccall
    def state(self) -> tuple:
        """A snapshot of every incremental table (for tests: undo must restore it)."""
        n: cython.int = self.n
        return (
            self.score,
            self.key,
            [pot_of(self.tally[i]) for i in range(2 * n)],
            [fours_of(self.tally[i]) for i in range(2 * n)],
            [threes_of(self.tally[i]) for i in range(2 * n)],
            [twos_of(self.tally[i]) for i in range(2 * n)],
            [self.near[i] for i in range(n)],
            (self.nfour[0], self.nfour[1], self.nthree[0], self.nthree[1]),
            [self.lidx[i] for i in range(len(self.lidx)) if self.cells[i // 4 % n] == 0],
            [self.shp[i] for i in range(len(self.shp)) if self.cells[i // 4 % n] == 0],
            [self.ckey[i] for i in range(len(self.ckey)) if self.cells[i % n] == 0],
            (self.sme[0], self.sme[1], self.sopp[0], self.sopp[1]),
        )

    @cython.ccall
    def moves(self) -> list:
        """The cells played so far, in order."""
        return [self.hist[i] for i in range(self.nmoves)]

    @cython.ccall
    def at(self, c: cython.int) -> cython.int:
        """What cell ``c`` holds: 0 empty, 1 first player, 2 second."""
        return self.cells[c]

    @cython.ccall
    def over(self) -> cython.bint:
        """Whether the game has ended (a completed line or a full board)."""
        return self.winner >= 0 or self.nmoves == self.n

    @cython.ccall
    def side(self) -> cython.int:
        """The seat to move (0 or 1)."""
        return self.nmoves & 1

    @cython.ccall
    def win_cells(self, side: cython.int) -> list:
        """The cells where ``side`` completes a winning line now, ascending."""
        m: cython.int = self._win_cells(side, (MAX_PLY + TS_PLY + 1) * self.n)
        base: cython.int = (MAX_PLY + TS_PLY + 1) * self.n
        return [self.buf[base + i] for i in range(m)]

    @cython.ccall
    def zobrist(self) -> cython.ulonglong:
        """The position's Zobrist key (for a search's own transposition table)."""
        return self.key

    @cython.ccall
    def potential(self, side: cython.int, c: cython.int) -> cython.int:
        """How much cell ``c`` is worth to ``side`` (its alive windows' weights): for ordering."""
        return pot_of(self.tally[side * self.n + c])

    @cython.cfunc
    @cython.exceptval(check=False)
    def _sort(self, out: cython.int, m: cython.int) -> cython.void:
        """Insertion-sort ``buf[out:out+m]`` by ``keys`` descending, ties by cell ascending."""
        i: cython.int
        j: cython.int
        c: cython.int
        kc: cython.longlong
        for i in range(out + 1, out + m):
            c = self.buf[i]
            kc = self.keys[c]
            j = i - 1
            while j >= out and (
                self.keys[self.buf[j]] < kc or (self.keys[self.buf[j]] == kc and self.buf[j] > c)
            ):
                self.buf[j + 1] = self.buf[j]
                j -= 1
            self.buf[j + 1] = c


def _csr(rows) -> tuple:
    """Flatten a tuple of tuples into (offsets, values) arrays."""
    off = [0]
    vals: list = []
    for row in rows:
        vals.extend(row)
        off.append(len(vals))
    return array("i", off), array("i", vals)
