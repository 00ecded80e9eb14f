# The compiled build's declarations of core.py (Cython pure-Python mode: this file augments it).
from bots.engine.tally cimport pot_of
from bots.engine.threats cimport Threats

cdef unsigned long long NULL_KEY
cdef int SHALLOW, SHALLOW_BEAM, BEAM
# C values of the constants core.py imports or copies (else each use is a module lookup and
# Python arithmetic, at every node):
cdef long long WIN, MATE_BOUND, TT_MOVE_KEY, KILLER_KEY
cdef int EXACT, LOWER, UPPER, MAX_PLY, C_B3, C_THREE

cdef class Core(Threats):
    cdef unsigned long long[::1] tt_key
    cdef int[::1] tt_data
    cdef unsigned long long tt_mask
    cdef int[::1] killers
    cdef int[::1] history
    cdef readonly int seldepth
    cdef long long max_nodes
    cdef public int lmr_mode
    cdef public int null_mode
    cdef public int prune_mode
    cdef public int gen_mode
    cdef public int mate_mode
    cdef int passes

    cdef int _sort_top(self, int out, int m, int top) noexcept
    cdef int _shape_key(self, int s, int c) noexcept
    cdef int _key_moves(self, int out, int m, int s, int tt_move, int ply, int top) noexcept
    cdef int _gen(self, int ply, int tt_move, int beam) noexcept
    cdef bint _tick(self)
    cdef long long _leaf(self, int ply)
    cdef long long negamax(self, int depth, long long alpha, long long beta, int ply)
    cdef long long _search_moves(self, int out, int m, int depth, int child, long long alpha, long long beta, int ply, bint forced)
    cdef void _store(self, int depth, int flag, int score, int move) noexcept
    cdef bint _null_cut(self, int depth, long long beta, int ply)
    cdef int _reduction(self, int s, int mv, int i, int depth) noexcept
    cdef int _beam(self, int depth, bint null_window) noexcept
    cpdef tuple root(self, int depth, list moves, long long alpha, long long beta)
    cpdef list root_moves(self)
    cpdef list candidates(self, int beam)
    cpdef void start(self, long long max_nodes, double deadline)
    cpdef void set_deadline(self, double deadline)
    cpdef int probe(self)
