# cython: boundscheck=False, wraparound=False, initializedcheck=False, language_level=3
"""The fast search core: flat pattern tables, incremental threat counts, PVS and threat search.

One file, two builds: compiled by Cython 3 (pure-Python mode) at install time, or run as plain
Python when no compiler was there; the plain run is the oracle the compiled one is tested
against. Everything is a flat int array so the compiled code never touches a Python object in
the hot loops.

Per k-window and side the board keeps a *category*: -1 when the window is dead for that side
(an enemy stone in it, or in exact-k mode an own stone just past an end), else its stone count.
Each cell then knows, per side, how many alive windows through it hold k-1 stones (fours: an
empty such cell wins), k-2 (threes: playing there makes a four) and k-3 (twos), and a potential
that orders moves, packed in one integer (its ``tally``). Search: negamax with PVS, late-move
reductions, killers, history and a transposition table kept between searches; VCF/VCT threat
search for both sides.
"""

import time
from array import array
from random import Random

import cython

from bots.engine.limits import EXACT, LOWER, MATE_BOUND, UPPER, WIN

MAX_PLY = 96
TS_PLY = 48
#: Transposition table size as a power of two (24 bytes an entry); INFO max_memory lowers it.
TT_BITS = 20
#: Renju: size (power of two) of the cache of forbidden-point answers, keyed by position + cell.
FOUL_BITS = 14
#: Renju: a line as the forbidden-point test reads it: 2 * RR + 1 cells, the move in the middle.
RR = 5
RL = 2 * RR + 1
#: Renju: an off-board cell in such a line (neither empty nor black).
WALL = -1
#: Moves an unforced node searches, the best by ordering (18 beat 15 and 24, 15 beat 12: BOTS.md).
BEAM = 18
THREE_CANDIDATES = 12
_SEED = 0x6D6E6B
#: Zobrist key of a pass (null move): the same stones with the other side to move.
NULL_KEY = cython.declare(cython.ulonglong, 0x9E3779B97F4A7C15)
NFEAT = 23  # bots.engine.shapes.NFEAT
C_B3, C_THREE = 2, 5  # bots.engine.shapes.C_B3, C_THREE
#: A cell's tally for a side packs its potential (bits 0-31) and its counts of alive windows
#: one, two and three stones short of k (10 bits each from these): one add per cell and window.
FOURS_AT = cython.declare(cython.int, 32)
THREES_AT = cython.declare(cython.int, 42)
TWOS_AT = cython.declare(cython.int, 52)


def _ints(n: int, value: int = 0) -> array:
    return array("i", [value]) * n


@cython.final
@cython.cclass
class Core:
    """A board plus its searches; ``play``/``undo`` keep every table exact incrementally."""

    w: cython.int
    n: cython.int
    k: cython.int
    nw: cython.int
    exact: cython.bint
    renju: cython.bint
    fzob: cython.ulonglong[::1]
    fc_key: cython.ulonglong[::1]
    fc_val: cython.int[::1]
    fc_mask: cython.ulonglong
    foul_looks = cython.declare(cython.longlong, visibility="readonly")
    rline: cython.int[::1]
    rpts: cython.int[::1]
    rmask: cython.int[::1]
    nmoves: cython.int
    winner: cython.int
    score: cython.longlong
    key: cython.ulonglong
    wcells: cython.int[::1]
    mem_off: cython.int[::1]
    mem: cython.int[::1]
    flk_off: cython.int[::1]
    flk: cython.int[::1]
    near_off: cython.int[::1]
    near_list: cython.int[::1]
    cells: cython.int[::1]
    hist: cython.int[::1]
    cnt: cython.int[::1]
    fl: cython.int[::1]
    near: cython.int[::1]
    tally: cython.longlong[::1]
    nfour: cython.int[::1]
    nthree: cython.int[::1]
    eval_w: cython.int[::1]
    pot_w: cython.int[::1]
    zob: cython.ulonglong[::1]
    tt_key: cython.ulonglong[::1]
    tt_data: cython.int[::1]
    tt_mask: cython.ulonglong
    ts_key: cython.ulonglong[::1]
    ts_data: cython.int[::1]
    ts_mask: cython.ulonglong
    killers: cython.int[::1]
    history: cython.int[::1]
    buf: cython.int[::1]
    keys: cython.longlong[::1]
    mark: cython.int[::1]
    nodes = cython.declare(cython.longlong, visibility="readonly")
    seldepth = cython.declare(cython.int, visibility="readonly")
    max_nodes: cython.longlong
    deadline: cython.double
    stopped: cython.bint
    ts_nodes: cython.longlong
    ts_max: cython.longlong
    shaped = cython.declare(cython.bint, visibility="readonly")
    lmr_mode = cython.declare(cython.int, visibility="public")
    null_mode = cython.declare(cython.int, visibility="public")
    passes: cython.int
    reach: cython.int
    ray: cython.int[::1]
    places: cython.int[::1]
    ltab: cython.schar[::1]
    lbase: cython.int[::1]
    ctab: cython.schar[::1]
    ordt: cython.int[::1]
    wme: cython.int[::1]
    wopp: cython.int[::1]
    lidx: cython.int[::1]
    shp: cython.int[::1]
    ckey: cython.int[::1]
    vme: cython.int[::1]
    vopp: cython.int[::1]
    sme: cython.longlong[::1]
    sopp: cython.longlong[::1]

    def __init__(self, width: int, height: int, k: int, exact: bool, geo, tt_bits: int = TT_BITS,
                 renju: bool = False, shape=None):  # fmt: skip
        n = width * height
        self.w, self.n, self.k, self.nw = width, n, k, len(geo.windows)
        self.exact = exact
        self.renju = renju and k == 5  # black: exact five, no overline/4x4/3x3 (protocol.renju)
        self.nmoves, self.winner, self.score, self.key = 0, -1, 0, 0
        self.passes = 0
        self.wcells = array("i", [c for win in geo.windows for c in win])
        self.mem_off, self.mem = _csr(geo.members)
        self.flk_off, self.flk = _csr(geo.flanks)
        self.near_off, self.near_list = _csr(geo.near)
        self.cells, self.hist, self.near = _ints(n), _ints(n + MAX_PLY), _ints(n)
        self.cnt, self.fl = _ints(2 * self.nw), _ints(2 * self.nw)
        self.tally = array("q", [0]) * (2 * n)
        self.nfour, self.nthree = _ints(2), _ints(2)
        ew = {1: 2000, 2: 150, 3: 20, 4: 4}
        pw = {1: 20_000, 2: 500, 3: 50, 4: 8}
        self.eval_w = array("i", [0, 0] + [ew.get(k - j, 1) for j in range(1, k)] + [100_000])
        self.pot_w = array("i", [0, 1] + [pw.get(k - j, 3) for j in range(1, k + 1)])
        rnd = Random(_SEED + n)
        self.zob = array("Q", [rnd.getrandbits(64) for _ in range(2 * n)])
        self.fzob = array("Q", [rnd.getrandbits(64) for _ in range(n)])
        self.fc_key = array("Q", [0]) * (1 << FOUL_BITS)
        self.fc_val = _ints(1 << FOUL_BITS)
        self.fc_mask = (1 << FOUL_BITS) - 1
        self.foul_looks = 0
        self.rline = _ints(n * 4 * RL)  # per recursion level: the four lines around a cell
        self.rpts = _ints(n * 4 * 8)  # per level and direction: straight-four points (count+7)
        self.rmask = _ints(5)  # the stone sets of the fours on one line
        self.tt_key = array("Q", [0]) * (1 << tt_bits)
        self.tt_data = _ints(4 << tt_bits)
        self.tt_mask = (1 << tt_bits) - 1
        self.ts_key = array("Q", [0]) * (1 << 16)
        self.ts_data = _ints(2 << 16)
        self.ts_mask = (1 << 16) - 1
        self.killers = _ints(2 * MAX_PLY, -1)
        self.history = _ints(n)
        self.buf = _ints((MAX_PLY + TS_PLY + 2) * n)
        self.keys = array("q", [0]) * n
        self.mark = _ints(n)
        self.nodes = self.max_nodes = self.ts_nodes = self.ts_max = 0
        self.seldepth = 0
        self.deadline, self.stopped = 0.0, False
        for side in range(2):
            for w in range(self.nw):
                self._recat(side, w, -1, 0)
        self._shape_init(shape, exact)

    def _shape_init(self, shape, exact: bool) -> None:
        """Shape mode (``shape`` from ``bots.engine.shapes.tables``): the line index of every
        cell, side and direction on the empty board (walls block), and the cells' values."""
        n = self.n
        self.shaped = shape is not None
        self.lmr_mode = 1
        self.null_mode = 0  # off until its SPRT passes (docs/BOTS.md, round three)
        self.sme, self.sopp = array("q", [0, 0]), array("q", [0, 0])
        self.vme, self.vopp = _ints(10_000), _ints(10_000)
        if shape is None:
            self.reach = 0
            self.ray = self.places = self.ordt = self.wme = self.wopp = self.lbase = _ints(1)
            self.lidx = self.shp = self.ckey = _ints(1)
            self.ltab = self.ctab = array("b", [0])
            return
        self.ray, self.ltab, self.lbase, self.ctab, self.places, self.ordt, wme, wopp = shape
        self.wme, self.wopp = _ints(NFEAT), _ints(NFEAT)
        pl = self.places  # per side: an own stone 5 away counts only where fives are exact
        self.reach = 5 if pl[0] or pl[10] or pl[11] or pl[21] else 4
        self.lidx, self.shp, self.ckey = _ints(8 * n), _ints(8 * n), _ints(2 * n)
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

    # -- board ---------------------------------------------------------------------------------

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
            if _fours(self.tally[base + c]) and self.cells[c] == 0:
                self.buf[out + m] = c
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
            if _threes(self.tally[base + c]) and self.cells[c] == 0 and not self.mark[c]:
                self.mark[c] = 1
                self.buf[out + m] = c
                m += 1
        return m

    @cython.cfunc
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
    @cython.exceptval(check=False)
    def _is_double(self, side: cython.int, c: cython.int) -> cython.bint:
        """Whether ``side`` playing empty ``c`` gets two win cells at once (open four, 4x4)."""
        if _threes(self.tally[side * self.n + c]) < 2:
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
    def _defences(self, att: cython.int, out: cython.int, m: cython.int) -> cython.int:
        """Append the cells that touch every window feeding an ``att`` double-threat point."""
        if self.nthree[att] < 2:
            return m
        k: cython.int = self.k
        c: cython.int
        i: cython.int
        j: cython.int
        w: cython.int
        x: cython.int
        for c in range(self.n):
            if self.cells[c] != 0 or not self._is_double(att, c) or self._foul_for(att, c):
                continue
            for i in range(self.mem_off[c], self.mem_off[c + 1]):
                w = self.mem[i]
                if not self._live_three(att, w):
                    continue
                for j in range(w * k, w * k + k):
                    x = self.wcells[j]
                    if self.cells[x] == 0 and not self.mark[x]:
                        self.mark[x] = 1
                        self.buf[out + m] = x
                        m += 1
        return m

    @cython.cfunc
    @cython.exceptval(check=False)
    def _unmark(self, out: cython.int, m: cython.int) -> cython.void:
        i: cython.int
        for i in range(out, out + m):
            self.mark[self.buf[i]] = 0

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
            [_pot(self.tally[i]) for i in range(2 * n)],
            [_fours(self.tally[i]) for i in range(2 * n)],
            [_threes(self.tally[i]) for i in range(2 * n)],
            [_twos(self.tally[i]) for i in range(2 * n)],
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
        return _pot(self.tally[side * self.n + c])

    # -- renju -------------------------------------------------------------------------------

    @cython.cfunc
    def _forbidden(self, c: cython.int) -> cython.bint:
        """Renju: whether black may not play empty ``c`` (overline, double four, double three).

        Exact five first (never forbidden: an alive black four-window through ``c``), then the
        rules' own test (:meth:`_foul`, a port of ``protocol.renju.foul``, which is its oracle
        in the tests), cached by position and cell.
        """
        if not self.renju or _fours(self.tally[c]) > 0:
            return False
        if _threes(self.tally[c]) < 2 and _twos(self.tally[c]) < 2:
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
        w: cython.int = self.w
        h: cython.int = self.n // w
        base: cython.int = level * 4 * RL
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
        if not rich and pairs < 2:
            return 0
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

    # -- ordering ------------------------------------------------------------------------------

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

    @cython.cfunc
    @cython.exceptval(check=False)
    def _sort_top(self, out: cython.int, m: cython.int, top: cython.int) -> cython.int:
        """The best ``top`` of ``buf[out:out+m]`` into ``buf[out:]`` in ``_sort``'s order; how
        many. Same first ``top`` as a full sort, but a candidate worse than the kept last costs
        one comparison (most do: the beam keeps 18 of 40-80)."""
        if top <= 0 or m <= top:
            self._sort(out, m)
            return m
        kept: cython.int = 1
        i: cython.int
        j: cython.int
        c: cython.int
        last: cython.int
        kc: cython.longlong
        for i in range(out + 1, out + m):
            c = self.buf[i]
            kc = self.keys[c]
            if kept == top:
                last = self.buf[out + top - 1]
                if self.keys[last] > kc or (self.keys[last] == kc and last < c):
                    continue
                j = out + top - 2  # the last kept one drops out
            else:
                j = out + kept - 1
                kept += 1
            while j >= out and (
                self.keys[self.buf[j]] < kc or (self.keys[self.buf[j]] == kc and self.buf[j] > c)
            ):
                self.buf[j + 1] = self.buf[j]
                j -= 1
            self.buf[j + 1] = c
        return top

    @cython.cfunc
    @cython.exceptval(check=False)
    def _shape_key(self, s: cython.int, c: cython.int) -> cython.int:
        """How promising empty ``c`` is for ``s`` to play: its codes for both sides, its lines."""
        a: cython.int = (s * self.n + c) * 4
        b: cython.int = ((1 - s) * self.n + c) * 4
        j: cython.int
        kv: cython.int = (
            self.ordt[self.ctab[self.ckey[s * self.n + c]]]
            + self.ordt[13 + self.ctab[self.ckey[(1 - s) * self.n + c]]]
        )
        for j in range(4):
            kv += self.ordt[26 + self.shp[a + j]] + self.ordt[26 + self.shp[b + j]]
        return kv

    @cython.cfunc
    @cython.exceptval(check=False)
    def _key_moves(self, out: cython.int, m: cython.int, s: cython.int, tt_move: cython.int,
                   ply: cython.int, top: cython.int) -> cython.int:  # fmt: skip
        """Give each listed move its ordering key; the best ``top`` (0: all) best first, and
        how many."""
        n: cython.int = self.n
        i: cython.int
        c: cython.int
        kv: cython.longlong
        for i in range(out, out + m):
            c = self.buf[i]
            if self.shaped:
                kv = 20 * self._shape_key(s, c) + self.history[c]
            else:
                kv = (
                    5 * _pot(self.tally[s * n + c])
                    + 4 * _pot(self.tally[(1 - s) * n + c])
                    + self.history[c]
                )
            if c == tt_move:
                kv += 1099511627776
            elif c == self.killers[2 * ply] or c == self.killers[2 * ply + 1]:
                kv += 1073741824
            self.keys[c] = kv
        return self._sort_top(out, m, top)

    @cython.cfunc
    @cython.exceptval(check=False)
    def _gen(self, ply: cython.int, tt_move: cython.int, beam: cython.int) -> cython.int:
        """The moves worth searching at ``ply`` into ``buf[ply*n:]``, best first; their count.

        Facing a double-threat point (an open three), only the cells that spoil it and our
        own fours are searched; else the nearby cells by potential, cut to ``beam``.
        """
        s: cython.int = self.nmoves & 1
        out: cython.int = ply * self.n
        m: cython.int = self._defences(1 - s, out, 0)
        c: cython.int
        if m:
            m = self._four_cells(s, out, m)
            self._unmark(out, m)
        else:
            for c in range(self.n):
                if self.cells[c] == 0 and self.near[c]:
                    self.buf[out + m] = c
                    m += 1
            if m == 0:  # an empty board, or every cell near a stone taken: any empty cell
                for c in range(self.n):
                    if self.cells[c] == 0:
                        self.keys[c] = -_centre_distance(c, self.w, self.n // self.w)
                        self.buf[out + m] = c
                        m += 1
                self._sort(out, m)
                return min(m, beam) if beam > 0 else m
        return self._key_moves(out, m, s, tt_move, ply, beam)

    # -- search --------------------------------------------------------------------------------

    @cython.cfunc
    def _tick(self) -> cython.bint:
        self.nodes += 1
        if self.nodes >= self.max_nodes or (
            self.nodes & 63 == 0 and time.perf_counter() >= self.deadline
        ):
            self.stopped = True
        return self.stopped

    @cython.cfunc
    def _leaf(self, ply: cython.int) -> cython.longlong:
        """A quiet position's score: a double threat against no counter-four is a mate."""
        s: cython.int = self.nmoves & 1
        if self.nthree[1 - s] == 0 and self._double_threat(s):
            return WIN - ply - 3
        return self.evaluate()

    @cython.cfunc
    def negamax(self, depth: cython.int, alpha: cython.longlong, beta: cython.longlong,
                ply: cython.int) -> cython.longlong:  # fmt: skip
        """The score for the side to move within (alpha, beta); 0 once stopped."""
        if self._tick():
            return 0
        if ply > self.seldepth:
            self.seldepth = ply
        s: cython.int = self.nmoves & 1
        if self.nfour[s]:
            return WIN - ply - 1
        out: cython.int = ply * self.n
        m: cython.int = self._win_cells(1 - s, out)
        if m >= 2:
            return -(WIN - ply - 2)
        if self.nmoves - self.passes == self.n:
            return 0
        if (depth <= 0 and m == 0) or ply >= MAX_PLY - 1:
            return self._leaf(ply)
        alpha0: cython.longlong = alpha
        slot: cython.ulonglong = self.key & self.tt_mask
        tt_move: cython.int = -1
        e_score: cython.longlong
        flag: cython.int
        if self.tt_key[slot] == self.key:
            tt_move = self.tt_data[4 * slot + 3]
            if self.tt_data[4 * slot] >= depth:
                flag = self.tt_data[4 * slot + 1]
                e_score = _from_tt(self.tt_data[4 * slot + 2], ply)
                if (
                    flag == EXACT
                    or (flag == LOWER and e_score >= beta)
                    or (flag == UPPER and e_score <= alpha)
                ):
                    return e_score
        child: cython.int = depth - 1
        forced: cython.bint = m == 1
        if forced:
            child = depth  # a forced block costs no depth
            if self._legal_only(out, m) == 0:
                return -(WIN - ply - 2)  # renju: the only block is forbidden for black
        else:
            if beta - alpha == 1 and self._null_cut(depth, beta, ply):
                return beta
            m = self._gen(ply, tt_move, BEAM)
        lazy: cython.bint = self.renju and s == 0 and not forced  # black's fouls: see the loop
        tried: cython.bint = False
        best: cython.longlong = -WIN - 1
        best_move: cython.int = self.buf[out]
        i: cython.int
        mv: cython.int
        r: cython.int
        score: cython.longlong
        for i in range(m):
            mv = self.buf[out + i]
            if lazy and self._forbidden(mv):
                continue  # renju: tested only when about to be searched (cut-offs spare most)
            tried = True
            r = 0
            if i >= 3 and depth >= 3 and not forced:
                r = self._reduction(s, mv, i, depth) if self.shaped else 1
            self.play(mv)
            if i == 0:
                score = -self.negamax(child, -beta, -alpha, ply + 1)
            else:
                score = -self.negamax(child - r, -alpha - 1, -alpha, ply + 1)
                if score > alpha and r and not self.stopped:
                    score = -self.negamax(child, -alpha - 1, -alpha, ply + 1)
                if alpha < score < beta and not self.stopped:
                    score = -self.negamax(child, -beta, -alpha, ply + 1)
            self.undo()
            if self.stopped:
                return 0
            if score > best:
                best, best_move = score, mv
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        if not forced:
                            self.history[mv] += depth * depth
                            if self.killers[2 * ply] != mv:
                                self.killers[2 * ply + 1] = self.killers[2 * ply]
                                self.killers[2 * ply] = mv
                        break
        if not tried:
            return self.evaluate()  # renju: every candidate was forbidden for black
        flag = UPPER if best <= alpha0 else LOWER if best >= beta else EXACT
        self.tt_key[slot] = self.key
        self.tt_data[4 * slot] = depth
        self.tt_data[4 * slot + 1] = flag
        self.tt_data[4 * slot + 2] = _to_tt(best, ply)
        self.tt_data[4 * slot + 3] = best_move
        return best

    @cython.cfunc
    def _null_cut(self, depth: cython.int, beta: cython.longlong, ply: cython.int) -> cython.bint:
        """Null-move pruning: whether passing still fails high, so this node may (at a null
        window, depth 3 on, the last move not a pass, the evaluation at or above beta, the
        other side without an open three or four against us)."""
        if self.null_mode == 0 or depth < 3 or self.nmoves == 0 or self.hist[self.nmoves - 1] < 0:
            return False
        s: cython.int = self.nmoves & 1
        if self.evaluate() < beta or beta >= MATE_BOUND or self._double_threat(1 - s):
            return False
        r: cython.int = 2 + depth // 4
        self.hist[self.nmoves] = -1
        self.nmoves += 1
        self.passes += 1
        self.key ^= NULL_KEY
        score: cython.longlong = -self.negamax(depth - 1 - r, -beta, -beta + 1, ply + 1)
        self.key ^= NULL_KEY
        self.passes -= 1
        self.nmoves -= 1
        return score >= beta and not self.stopped

    @cython.cfunc
    @cython.exceptval(check=False)
    def _reduction(self, s: cython.int, mv: cython.int, i: cython.int,
                   depth: cython.int) -> cython.int:  # fmt: skip
        """Plies to take off a late move: none for one that makes or stops an open three or
        a four (its combined code, either side), more the later and deeper a quiet one is."""
        if self.lmr_mode == 0:
            return 1
        own: cython.int = self.ctab[self.ckey[s * self.n + mv]]
        opp: cython.int = self.ctab[self.ckey[(1 - s) * self.n + mv]]
        if own >= C_THREE or opp >= C_THREE:
            return 0
        if i >= 6 and depth >= 5 and own < C_B3 and opp < C_B3:
            return 2
        return 1

    @cython.ccall
    def root(self, depth: cython.int, moves: list, alpha: cython.longlong,
             beta: cython.longlong) -> tuple:  # fmt: skip
        """Search the root ``moves`` at ``depth`` in (alpha, beta): (score, best, stopped)."""
        best: cython.longlong = -WIN - 1
        best_move: cython.int = moves[0]
        score: cython.longlong
        alpha0: cython.longlong = alpha
        i: cython.int
        mv: cython.int
        for i in range(len(moves)):
            mv = moves[i]
            self.play(mv)
            if i == 0:
                score = -self.negamax(depth - 1, -beta, -alpha, 1)
            else:
                score = -self.negamax(depth - 1, -alpha - 1, -alpha, 1)
                if alpha < score < beta and not self.stopped:
                    score = -self.negamax(depth - 1, -beta, -alpha, 1)
            self.undo()
            if self.stopped:
                break
            if score > best:
                best, best_move = score, mv
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        if not self.stopped:
            slot: cython.ulonglong = self.key & self.tt_mask
            self.tt_key[slot] = self.key
            self.tt_data[4 * slot] = depth
            self.tt_data[4 * slot + 1] = (
                UPPER if best <= alpha0 else LOWER if best >= beta else EXACT
            )
            self.tt_data[4 * slot + 2] = _to_tt(best, 0)
            self.tt_data[4 * slot + 3] = best_move
        return best, best_move, self.stopped

    @cython.ccall
    def root_moves(self) -> list:
        """Every candidate at the root, best first (no beam)."""
        s: cython.int = self.nmoves & 1
        m: cython.int = self._legal_only(0, self._win_cells(1 - s, 0))
        if m == 0:
            m = self._legal_only(0, self._gen(0, -1, 0))
        return [self.buf[i] for i in range(m)]

    @cython.ccall
    def candidates(self, beam: cython.int) -> list:
        """The moves an unforced node here searches, best first: the ``beam`` best (0: all)."""
        m: cython.int = self._gen(0, -1, beam)
        return [self.buf[i] for i in range(m)]

    @cython.ccall
    def start(self, max_nodes: cython.longlong, deadline: cython.double) -> cython.void:
        """Arm the node and time budget for the next searches (clears the stop flag)."""
        self.nodes = 0
        self.seldepth = 0
        self.max_nodes = max_nodes
        self.deadline = deadline
        self.stopped = False
        i: cython.int
        for i in range(2 * MAX_PLY):
            self.killers[i] = -1
        for i in range(self.n):
            self.history[i] >>= 2

    @cython.ccall
    def set_deadline(self, deadline: cython.double) -> cython.void:
        """Move the time limit of the searches to come (nodes, killers and history stay)."""
        self.deadline = deadline

    @cython.ccall
    def probe(self) -> cython.int:
        """The transposition table's best move here, or -1."""
        slot: cython.ulonglong = self.key & self.tt_mask
        return self.tt_data[4 * slot + 3] if self.tt_key[slot] == self.key else -1

    # -- threat-space search -------------------------------------------------------------------

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
        probe: cython.ulonglong = self.key ^ (0x1E3779B97F4A7C15 if threes else 0)
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
            self.keys[c] = _pot(self.tally[att * self.n + c])
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
            if _twos(self.tally[att * n + c]) >= 2 and self.cells[c] == 0 and not self.mark[c]:
                self.buf[start + cnt] = c
                self.keys[c] = _pot(self.tally[att * n + c])
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
            m = self._defences(att, out, 0)
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


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
def _pot(tally: cython.longlong) -> cython.int:
    """The potential in a cell's tally."""
    return tally & 0xFFFFFFFF


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
def _fours(tally: cython.longlong) -> cython.int:
    """How many alive windows through the cell lack one stone (the cell wins when empty)."""
    return (tally >> FOURS_AT) & 1023


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
def _threes(tally: cython.longlong) -> cython.int:
    """How many alive windows through the cell lack two stones (playing it makes a four)."""
    return (tally >> THREES_AT) & 1023


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
def _twos(tally: cython.longlong) -> cython.int:
    """How many alive windows through the cell lack three stones."""
    return (tally >> TWOS_AT) & 1023


@cython.cfunc
def _to_tt(score: cython.longlong, ply: cython.int) -> cython.int:
    if score >= MATE_BOUND:
        return score + ply
    if score <= -MATE_BOUND:
        return score - ply
    return score


@cython.cfunc
def _from_tt(score: cython.longlong, ply: cython.int) -> cython.longlong:
    if score >= MATE_BOUND:
        return score - ply
    if score <= -MATE_BOUND:
        return score + ply
    return score


@cython.cfunc
def _centre_distance(c: cython.int, width: cython.int, height: cython.int) -> cython.int:
    """Twice the Manhattan distance of cell ``c`` from the board's centre."""
    return abs(2 * (c % width) - (width - 1)) + abs(2 * (c // width) - (height - 1))


def _csr(rows) -> tuple:
    """Flatten a tuple of tuples into (offsets, values) arrays."""
    off = [0]
    vals: list = []
    for row in rows:
        vals.extend(row)
        off.append(len(vals))
    return array("i", off), array("i", vals)


def compiled() -> bool:
    """Whether this module runs as compiled C."""
    return cython.compiled
