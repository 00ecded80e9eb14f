# The compiled build's view of tally.py: the same fields of a cell's tally, inlined where used.
cdef enum:
    FOURS_AT = 32
    THREES_AT = 42
    TWOS_AT = 52

cdef inline int pot_of(long long tally) noexcept:
    return tally & 0xFFFFFFFFLL  # a C literal (unsuffixed, Cython makes it a Python int)

cdef inline int fours_of(long long tally) noexcept:
    return (tally >> FOURS_AT) & 1023

cdef inline int threes_of(long long tally) noexcept:
    return (tally >> THREES_AT) & 1023

cdef inline int twos_of(long long tally) noexcept:
    return (tally >> TWOS_AT) & 1023
