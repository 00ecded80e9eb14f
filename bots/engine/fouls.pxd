# The compiled build's declarations of fouls.py (Cython pure-Python mode: this file augments it).
from bots.engine.tally cimport fours_of, threes_of, twos_of
from bots.engine.board cimport Board

# C values of fouls.py's constants (else each use is a module lookup and Python arithmetic):
cdef int FOUL_BITS, RR, RL, WALL

cdef class Fouls(Board):
    cdef unsigned long long[::1] fzob
    cdef unsigned long long[::1] fc_key
    cdef int[::1] fc_val
    cdef unsigned long long fc_mask
    cdef readonly long long foul_looks
    cdef int[::1] rline
    cdef int[::1] rpts
    cdef int[::1] rmask

    cdef bint _forbidden(self, int c)
    cdef int _black_run(self, int c, int dx, int dy)
    cdef int _foul(self, int c, int level)
    cdef bint _read_lines(self, int c, int base)
    cdef int _double_three(self, int c, int level, int base)
    cdef int _line_run(self, int at)
    cdef int _line_fours(self, int at)
    cdef void _line_four_points(self, int at, int out)
    cdef bint _straight_four(self, int at, int j)
    cdef bint _foul_for(self, int side, int c)
    cpdef bint forbidden(self, int c)
    cdef int _legal_only(self, int out, int m)
