"""Cell names as players write them (``H8``): the one Python function the server, the pygame
client and the bots name cells with (``server/web/cells.js`` is the browser's, checked equal on
every cell of every board up to 25x25)."""

from __future__ import annotations

#: Board columns are lettered A.. skipping I, as gomoku and go players write them (25 letters:
#: the widest board's columns).
COLUMN_LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


def column_label(x: int) -> str:
    """The letter of column ``x`` (A, B, … H, J, …), doubled past Z for very wide boards."""
    if x < len(COLUMN_LETTERS):
        return COLUMN_LETTERS[x]
    return COLUMN_LETTERS[x // len(COLUMN_LETTERS) - 1] + COLUMN_LETTERS[x % len(COLUMN_LETTERS)]


def row_label(y: int, height: int) -> str:
    """The number of row ``y`` counted from the bottom (so row 0 of 15 is "15")."""
    return str(height - y)


def cell_name(x: int, y: int, height: int) -> str:
    """A cell as players write it: its column letter and its row from the bottom (``H8`` is the
    centre of a 15x15 board)."""
    return f"{column_label(x)}{row_label(y, height)}"
