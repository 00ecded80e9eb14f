"""The balanced openings: 5-stone 15x15 gomoku openings that our engine scores near even,
shipped as data (``protocol/balanced_openings.txt``, written by ``bench/balanced_openings.py
--count 40``) so that the server offers them without importing the engine.

``create_tournament``'s ``openings: K`` means the first K of this list (``"balanced"``: all of
it), and ``mnk-tournament --openings balanced:K`` plays the same ones. Pure: reads its own
data file once, imports nothing else of ours.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

#: The list's file, one opening a line as absolute ``x,y`` moves (``#`` starts a comment).
BALANCED_FILE = Path(__file__).with_name("balanced_openings.txt")
#: The board the balanced openings are for.
BALANCED_BOARD = (15, 15)

Opening = tuple[tuple[int, int], ...]


def parse_moves(line: str) -> Opening:
    """A line of absolute ``x,y`` moves (its comment cut) as an opening."""
    cells = line.split("#", 1)[0].split()
    return tuple((int(x), int(y)) for x, _, y in (cell.partition(",") for cell in cells))


@cache
def balanced_openings() -> tuple[Opening, ...]:
    """Every balanced opening, in the file's order."""
    lines = BALANCED_FILE.read_text(encoding="utf-8").splitlines()
    return tuple(opening for line in lines if (opening := parse_moves(line)))
