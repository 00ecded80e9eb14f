# The compiled build's declarations of threats.py (Cython pure-Python mode: this file augments it).
from bots.engine.tally cimport pot_of, threes_of, twos_of
from bots.engine.fouls cimport Fouls

cdef int B3, C_FOUR_THREE
# C values of the constants threats.py imports or sets (else each use is a module lookup):
cdef int MAX_PLY, TS_PLY, THREE_CANDIDATES
cdef unsigned long long VCT_SALT

cdef class Threats(Fouls):
    cdef unsigned long long[::1] ts_key
    cdef int[::1] ts_data
    cdef unsigned long long ts_mask
    cdef long long ts_nodes
    cdef long long ts_max
    cdef readonly long long nodes
    cdef double deadline
    cdef bint stopped
    cdef int[::1] ft_pts

    cdef inline int _take(self, int x, int out, int m) noexcept
    cdef int _four_cells(self, int side, int out, int m) noexcept
    cdef inline bint _live_three(self, int side, int w) noexcept
    cdef inline bint _is_double(self, int side, int c) noexcept
    cdef int _double_cells(self, int att, int c, int out, int m) noexcept
    cdef int _four_three_cells(self, int att, int c, int out, int m) noexcept
    cdef int _defences(self, int att, int out, int m, bint four_three) noexcept
    cdef int _counter_blocks(self, int att, int c, int out, int m) noexcept
    cdef bint _double_threat(self, int side) noexcept
    cdef bint _ts_tick(self)
    cdef int _attack(self, int depth, bint threes, int ply)
    cdef int _three_cells(self, int att, int out, int m)
    cdef bint _defend(self, int depth, bint threes, int ply)
    cpdef int threat_win(self, int depth, bint threes, long long max_nodes, double deadline)
    cpdef int threat_lost(self, int depth, bint threes, long long max_nodes, double deadline)
    cpdef void clear_threat_memo(self)
