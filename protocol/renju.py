"""Renju's forbidden moves for black, after the RIF rules: overline, double four, double three.

A three counts only if it can become a straight four by a move that is itself not forbidden, so
the double-three test recurses (see docs/RULES.md). Everything works on a flat ``cells`` list
(``y * width + x``; 0 empty, 1 black, 2 white) and imports nothing else of ours.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from enum import StrEnum

EMPTY, BLACK = 0, 1
#: A cell off the board, as seen in a line window: neither empty nor black.
WALL = -1
#: The four line directions (dx, dy).
DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))
#: Half the width of the window looked at around a move (offsets -R..R).
R = 5


class Foul(StrEnum):
    """Why a black move is forbidden; the value is what the wire and the docs say."""

    OVERLINE = "overline"
    DOUBLE_FOUR = "double-four"
    DOUBLE_THREE = "double-three"


def _window(cells: Sequence[int], w: int, h: int, x: int, y: int, dx: int, dy: int) -> list[int]:
    """The 2R+1 cells through (x, y) along (dx, dy), WALL off the board; the centre is index R."""
    out = []
    for i in range(-R, R + 1):
        cx, cy = x + i * dx, y + i * dy
        out.append(cells[cy * w + cx] if 0 <= cx < w and 0 <= cy < h else WALL)
    return out


def _run(line: list[int]) -> int:
    """The length of the black run through the centre of ``line``."""
    n = 1
    i = R - 1
    while i >= 0 and line[i] == BLACK:
        n, i = n + 1, i - 1
    i = R + 1
    while i <= 2 * R and line[i] == BLACK:
        n, i = n + 1, i + 1
    return n


def _fours(line: list[int]) -> int:
    """How many distinct fours through the centre: 5-windows one empty cell short of exactly five.

    Two windows holding the same four stones are one (straight) four; different stone sets are
    different fours, so ``X.XXX.X`` around the centre counts two (a four-four on one line).
    """
    seen: set[tuple[int, ...]] = set()
    for s in range(R - 4, R + 1):
        cells = line[s : s + 5]
        if cells.count(BLACK) != 4 or cells.count(EMPTY) != 1:
            continue
        if line[s - 1] == BLACK or (s + 5 <= 2 * R and line[s + 5] == BLACK):
            continue  # filling the gap would make six or more, not five
        seen.add(tuple(s + i for i, c in enumerate(cells) if c == BLACK))
    return len(seen)


def _straight_four(line: list[int], j: int) -> bool:
    """Whether ``line`` has a straight four (two ways to exactly five) holding the centre and j."""
    for a in range(R - 3, R + 1):
        if not (a <= R <= a + 3 and a <= j <= a + 3):
            continue
        if any(line[a + i] != BLACK for i in range(4)):
            continue
        if line[a - 1] != EMPTY or line[a + 4] != EMPTY:
            continue
        if line[a - 2] == BLACK or line[a + 5] == BLACK:
            continue  # one end would make an overline: only a four
        return True
    return False


def _counts_prefilter(lines: list[list[int]]) -> bool:
    """Whether a foul is possible at all: one line rich in stones, or two lines with two each."""
    counts = [line[R - 4 : R + 5].count(BLACK) for line in lines]
    return max(counts) >= 4 or sum(c >= 2 for c in counts) >= 2


def foul(cells: list[int], w: int, h: int, index: int) -> Foul | None:
    """Why black may not play the empty cell ``index``, or None; ``cells`` is restored after.

    Order per RIF: a move making exactly five is never forbidden; then overline, double four,
    double three (a three only counts if its straight-four point is itself not forbidden).
    """
    x, y = index % w, index // w
    lines = [_window(cells, w, h, x, y, dx, dy) for dx, dy in DIRECTIONS]
    if not _counts_prefilter(lines):
        return None
    for line in lines:
        line[R] = BLACK
    runs = [_run(line) for line in lines]
    if 5 in runs:
        return None
    if max(runs) >= 6:
        return Foul.OVERLINE
    fours = [_fours(line) for line in lines]
    if sum(fours) >= 2:
        return Foul.DOUBLE_FOUR
    threes = 0
    cells[index] = BLACK
    try:
        for (dx, dy), line, four in zip(DIRECTIONS, lines, fours, strict=True):
            if not four and _is_three(cells, w, h, x, y, dx, dy, line):
                threes += 1
                if threes >= 2:
                    return Foul.DOUBLE_THREE
    finally:
        cells[index] = EMPTY
    return None


def _is_three(
    cells: list[int], w: int, h: int, x: int, y: int, dx: int, dy: int, line: list[int]
) -> bool:
    """Whether the stone at the centre makes a real three along (dx, dy) (``cells`` holds it)."""
    for j in range(R - 3, R + 4):
        if line[j] != EMPTY:
            continue
        line[j] = BLACK
        straight = _straight_four(line, j)
        line[j] = EMPTY
        if straight and foul(cells, w, h, (y + (j - R) * dy) * w + x + (j - R) * dx) is None:
            return True
    return False


def fouls(cells: list[int], w: int, h: int) -> Iterator[tuple[int, Foul]]:
    """Every empty cell black may not play now, with the reason, in index order."""
    work = list(cells)
    for index, cell in enumerate(cells):
        if cell == EMPTY:
            reason = foul(work, w, h, index)
            if reason is not None:
                yield index, reason
