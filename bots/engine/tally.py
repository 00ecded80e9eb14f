"""A cell's tally for a side: its potential (bits 0-31) and its counts of alive windows one, two
and three stones short of k (10 bits each from ``FOURS_AT``, ``THREES_AT``, ``TWOS_AT``), so a
window's change is one add per cell. The plain-Python run reads these; the compiled modules
cimport the same functions from ``tally.pxd`` (inlined C; this file is not compiled), and the
compiled-vs-plain identity tests hold the two to the same answers.
"""

FOURS_AT = 32
THREES_AT = 42
TWOS_AT = 52


def pot_of(tally: int) -> int:
    """The potential in a cell's tally (what the cell is worth to the side, for ordering)."""
    return tally & 0xFFFFFFFF


def fours_of(tally: int) -> int:
    """How many alive windows through the cell lack one stone (the cell wins when empty)."""
    return (tally >> FOURS_AT) & 1023


def threes_of(tally: int) -> int:
    """How many alive windows through the cell lack two stones (playing it makes a four)."""
    return (tally >> THREES_AT) & 1023


def twos_of(tally: int) -> int:
    """How many alive windows through the cell lack three stones."""
    return (tally >> TWOS_AT) & 1023
