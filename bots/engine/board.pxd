# The compiled build's declarations of board.py (Cython pure-Python mode: this file augments it).
from bots.engine.tally cimport FOURS_AT, THREES_AT, TWOS_AT, fours_of, pot_of, threes_of, twos_of

cdef class Board:
    cdef int w
    cdef int n
    cdef int k
    cdef int nw
    cdef bint exact
    cdef bint renju
    cdef int nmoves
    cdef int winner
    cdef long long score
    cdef unsigned long long key
    cdef int[::1] wcells
    cdef int[::1] mem_off
    cdef int[::1] mem
    cdef int[::1] flk_off
    cdef int[::1] flk
    cdef int[::1] near_off
    cdef int[::1] near_list
    cdef int[::1] cells
    cdef int[::1] hist
    cdef int[::1] cnt
    cdef int[::1] fl
    cdef int[::1] near
    cdef long long[::1] tally
    cdef int[::1] nfour
    cdef int[::1] nthree
    cdef int[::1] eval_w
    cdef int[::1] pot_w
    cdef unsigned long long[::1] zob
    cdef int[::1] buf
    cdef long long[::1] keys
    cdef int[::1] mark
    cdef readonly bint shaped
    cdef int reach
    cdef int[::1] ray
    cdef int[::1] places
    cdef signed char[::1] ltab
    cdef int[::1] lbase
    cdef signed char[::1] ctab
    cdef int[::1] ordt
    cdef int[::1] wme
    cdef int[::1] wopp
    cdef int[::1] lidx
    cdef int[::1] shp
    cdef int[::1] ckey
    cdef int[::1] vme
    cdef int[::1] vopp
    cdef long long[::1] sme
    cdef long long[::1] sopp

    cpdef bint play(self, int c)
    cpdef int undo(self)
    cdef inline void _update(self, int c, int s, int d) noexcept
    cdef inline void _cell_value(self, int c, int d) noexcept
    cdef inline void _shape_update(self, int x, int t, int sign) noexcept
    cpdef void set_weights(self, list me, list opp)
    cpdef list features(self, int side)
    cpdef int line_shape(self, int side, int c, int d)
    cpdef int cell_code(self, int side, int c)
    cdef inline void _recat(self, int side, int w, int a, int b) noexcept
    cdef int _win_cells(self, int side, int out) noexcept
    cdef void _unmark(self, int out, int m) noexcept
    cpdef long long evaluate(self)
    cpdef tuple state(self)
    cpdef list moves(self)
    cpdef int at(self, int c)
    cpdef bint over(self)
    cpdef int side(self)
    cpdef list win_cells(self, int side)
    cpdef unsigned long long zobrist(self)
    cpdef int potential(self, int side, int c)
    cdef void _sort(self, int out, int m) noexcept
