# cython: boundscheck=False, wraparound=False, initializedcheck=False, language_level=3
"""The fast search core: the board, its fouls and threats (the layers below) plus the search.

Four modules, each a Cython extension class that extends the one before, declared in its
``.pxd`` (Cython 3, pure-Python mode): :mod:`bots.engine.board` (stones, windows, shapes and
the incremental tables), :mod:`bots.engine.fouls` (renju's forbidden points),
:mod:`bots.engine.threats` (threat cells and the VCF/VCT search) and this one, :class:`Core`:
negamax with PVS, late-move reductions, null moves, a narrower beam near the leaves, the
mate-distance bound, killers, history and a transposition table kept between searches, and
the move ordering it needs. Compiled at
install time, or run as plain Python when no compiler was there; the plain run is the oracle
the compiled one is tested against (``bots.engine.fast.load_core``).
"""

import time
from array import array

import cython

from bots.engine.board import MAX_PLY, ints
from bots.engine.limits import EXACT, LOWER, MATE_BOUND, UPPER, WIN

if not cython.compiled:  # compiled: cimported in core.pxd
    from bots.engine.tally import pot_of
    from bots.engine.threats import Threats

#: Transposition table size as a power of two (24 bytes an entry); INFO max_memory lowers it.
TT_BITS = 20
#: Moves an unforced node searches, the best by ordering (18 beat 15 and 24, 15 beat 12: BOTS.md).
BEAM = 18
#: Zobrist key of a pass (null move): the same stones with the other side to move.
NULL_KEY = 0x9E3779B97F4A7C15
C_B3, C_THREE = 2, 5  # bots.engine.shapes.C_B3, C_THREE
#: Late-move pruning as a narrower beam: a null-window node of depth d below SHALLOW
#: searches only its best SHALLOW_BEAM + d * d moves (5, 8, 13) instead of BEAM.
SHALLOW, SHALLOW_BEAM = 4, 4
#: Ordering bonuses above any shape key: the transposition table's move first, then the killers.
TT_MOVE_KEY, KILLER_KEY = 1 << 40, 1 << 30


@cython.final
@cython.cclass
class Core(Threats):
    """A board plus its searches (attributes declared in ``core.pxd``)."""

    def __init__(self, width: int, height: int, k: int, exact: bool, geo, tt_bits: int = TT_BITS,
                 renju: bool = False, shape=None):  # fmt: skip
        Threats.__init__(self, width, height, k, exact, geo, renju, shape)
        n = self.n
        self.tt_key = array("Q", [0]) * (1 << tt_bits)
        self.tt_data = ints(4 << tt_bits)
        self.tt_mask = (1 << tt_bits) - 1
        self.killers = ints(2 * MAX_PLY, -1)
        self.history = ints(n)
        self.max_nodes = 0
        self.seldepth = 0
        self.passes = 0
        self.lmr_mode = 1
        # round three's switches, off here; bots.engine.fast.SWITCHES sets them (on)
        self.null_mode = 0
        self.prune_mode = 0
        self.gen_mode = 0
        self.mate_mode = 0

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
            kv += self.ordt[26 + self.shp[a + j]] + self.ordt[36 + self.shp[b + j]]  # shapes.*_AT
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
                    5 * pot_of(self.tally[s * n + c])
                    + 4 * pot_of(self.tally[(1 - s) * n + c])
                    + self.history[c]
                )
            if c == tt_move:
                kv += TT_MOVE_KEY
            elif c == self.killers[2 * ply] or c == self.killers[2 * ply + 1]:
                kv += KILLER_KEY
            self.keys[c] = kv
        return self._sort_top(out, m, top)

    @cython.cfunc
    @cython.exceptval(check=False)
    def _gen(self, ply: cython.int, tt_move: cython.int, beam: cython.int) -> cython.int:
        """The moves worth searching at ``ply`` into ``buf[ply*n:]``, best first; their count.

        Facing a double-threat point (an open three) or, with ``gen_mode``, a four-three
        point, only the cells that spoil it and our own fours are searched; else the nearby
        cells by potential, cut to ``beam``. Both threat kinds are found in one board scan.
        """
        s: cython.int = self.nmoves & 1
        out: cython.int = ply * self.n
        m: cython.int = self._defences(1 - s, out, 0, self.gen_mode != 0)
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
        if self.mate_mode:  # mate-distance bound: no result beats a win next move here
            if beta > WIN - ply - 1:
                beta = WIN - ply - 1
            if alpha < -(WIN - ply - 2):
                alpha = -(WIN - ply - 2)
            if alpha >= beta:
                return alpha
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
            m = self._gen(ply, tt_move, self._beam(depth, beta - alpha == 1))
        return self._search_moves(out, m, depth, child, alpha, beta, ply, forced)

    @cython.cfunc
    def _search_moves(self, out: cython.int, m: cython.int, depth: cython.int, child: cython.int,
                      alpha: cython.longlong, beta: cython.longlong, ply: cython.int,
                      forced: cython.bint) -> cython.longlong:  # fmt: skip
        """The node's moves ``buf[out:out+m]`` searched in turn (PVS, late-move reductions,
        ``child`` plies each), the cut-off move remembered, the result stored; its score."""
        s: cython.int = self.nmoves & 1
        alpha0: cython.longlong = alpha
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
        flag: cython.int = UPPER if best <= alpha0 else LOWER if best >= beta else EXACT
        self._store(depth, flag, _to_tt(best, ply), best_move)
        return best

    @cython.cfunc
    @cython.exceptval(check=False)
    def _store(self, depth: cython.int, flag: cython.int, score: cython.int,
               move: cython.int) -> cython.void:  # fmt: skip
        """Keep this position's result in the transposition table (always replacing)."""
        slot: cython.ulonglong = self.key & self.tt_mask
        self.tt_key[slot] = self.key
        self.tt_data[4 * slot] = depth
        self.tt_data[4 * slot + 1] = flag
        self.tt_data[4 * slot + 2] = score
        self.tt_data[4 * slot + 3] = move

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

    @cython.cfunc
    @cython.exceptval(check=False)
    def _beam(self, depth: cython.int, null_window: cython.bint) -> cython.int:
        """How many moves an unforced node searches: BEAM, or with ``prune_mode`` fewer at
        a shallow null-window node (late-move pruning: the late ones rarely change a bound)."""
        if self.prune_mode and null_window and depth < SHALLOW:
            return SHALLOW_BEAM + depth * depth
        return BEAM

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
            flag: cython.int = UPPER if best <= alpha0 else LOWER if best >= beta else EXACT
            self._store(depth, flag, _to_tt(best, 0), best_move)
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


def compiled() -> bool:
    """Whether this module runs as compiled C."""
    return cython.compiled
