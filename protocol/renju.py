"""Renju's forbidden moves for black, after the RIF rules: overline, double four, double three.

A three counts only if it can become a straight four by a move that is itself not forbidden, so
the double-three test recurses (see docs/RULES.md). Everything works on a flat ``cells`` list
(``y * width + x``; 0 empty, 1 black, 2 white) and imports nothing else of ours.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from enum import StrEnum
from functools import cache

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
    """Whether ``line`` has a straight four (two ways to exactly five) holding the centre and j:
    the black run through the centre is exactly four long, holds j, has both ends empty and no
    black stone just past either end (that end would make an overline: only a four)."""
    lo = R
    while lo > 0 and line[lo - 1] == BLACK:
        lo -= 1
    hi = R
    while hi < 2 * R and line[hi + 1] == BLACK:
        hi += 1
    return (
        hi - lo == 3
        and lo <= j <= hi
        and line[lo - 1] == EMPTY
        and line[hi + 1] == EMPTY
        and line[lo - 2] != BLACK
        and line[hi + 2] != BLACK
    )


def _counts_prefilter(lines: list[list[int]]) -> bool:
    """Whether a foul is possible at all: one line rich in stones, or two lines with two each."""
    counts = [line[R - 4 : R + 5].count(BLACK) for line in lines]
    return max(counts) >= 4 or sum(c >= 2 for c in counts) >= 2


def foul(
    cells: list[int], w: int, h: int, index: int, read: list[int] | None = None
) -> Foul | None:
    """Why black may not play the empty cell ``index``, or None; ``cells`` is restored after.

    Order per RIF: a move making exactly five is never forbidden; then overline, double four,
    double three (a three only counts if its straight-four point is itself not forbidden).
    ``read`` (if given) gets every cell whose four windows were read (this one, and those the
    double-three test recursed into): the result depends on nothing else (see :class:`FoulMap`).
    """
    if read is not None:
        read.append(index)
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
    # a three needs a straight-four point: find each direction's first (no recursion), and look
    # at whether such a point is itself forbidden only once two directions could be threes
    candidates = [
        (dx, dy, points)
        for (dx, dy), line, four in zip(DIRECTIONS, lines, fours, strict=True)
        if not four and (points := _four_points(line))
    ]
    if len(candidates) < 2:
        return None
    threes = 0
    cells[index] = BLACK
    try:
        for n, (dx, dy, points) in enumerate(candidates):
            if threes + len(candidates) - n < 2:
                break  # the directions left cannot make two threes any more
            if any(foul(cells, w, h, (y + d * dy) * w + x + d * dx, read) is None for d in points):
                threes += 1
                if threes >= 2:
                    return Foul.DOUBLE_THREE
    finally:
        cells[index] = EMPTY
    return None


def _four_points(line: list[int]) -> list[int]:
    """The offsets from the centre (black) of the empty cells that would make a straight four
    with it along ``line``: a real three needs one of them not forbidden itself."""
    if line[R - 3 : R + 4].count(BLACK) < 3:
        return []  # a straight four through the centre needs three of its cells black now
    points = []
    for j in range(R - 3, R + 4):
        if line[j] != EMPTY:
            continue
        line[j] = BLACK
        if _straight_four(line, j):
            points.append(j - R)
        line[j] = EMPTY
    return points


def fouls(cells: list[int], w: int, h: int) -> Iterator[tuple[int, Foul]]:
    """Every empty cell black may not play now, with the reason, in index order."""
    work = list(cells)
    for index, cell in enumerate(cells):
        if cell == EMPTY:
            reason = foul(work, w, h, index)
            if reason is not None:
                yield index, reason


@cache
def stars(w: int, h: int) -> tuple[tuple[int, ...], ...]:
    """Every cell's :func:`star` on a ``w`` x ``h`` board (worked out once per board size)."""
    return tuple(tuple(star(w, h, i)) for i in range(w * h))


def star(w: int, h: int, index: int) -> list[int]:
    """The cells of the four windows through ``index`` (itself too): what a look at it reads."""
    x, y = index % w, index // w
    cells = [index]
    for dx, dy in DIRECTIONS:
        for i in (*range(-R, 0), *range(1, R + 1)):
            cx, cy = x + i * dx, y + i * dy
            if 0 <= cx < w and 0 <= cy < h:
                cells.append(cy * w + cx)
    return cells


class FoulMap:
    """Every empty cell's foul, kept up to date as the board changes: a cell is looked at again
    only when a changed cell lies in a window its last look read (its own windows, or those of
    the cells the double-three test recursed into), so a move costs a few dozen looks, not one
    per empty cell. :func:`fouls` is the oracle it must always agree with."""

    def __init__(self, w: int, h: int) -> None:
        self.w, self.h = w, h
        #: The board as last looked at (None: never), and each cell's foul on it.
        self.cells: list[int] | None = None
        self.found: dict[int, Foul] = {}
        #: Per cell, the cells whose windows its last look read; per cell, who read its windows.
        self.read: list[list[int]] = [[] for _ in range(w * h)]
        self.readers: list[set[int]] = [set() for _ in range(w * h)]
        self._stars = stars(w, h)
        self._sorted: list[tuple[int, Foul]] = []
        #: Looks taken (each a call of :func:`foul`, recursion included), for tests and benches.
        self.looks = 0

    def update(self, cells: list[int]) -> list[tuple[int, Foul]]:
        """Every empty cell black may not play on ``cells``, with the reason, in index order."""
        if self.cells == cells:
            return self._sorted
        if self.cells is None:
            todo: set[int] | range = range(len(cells))
        else:
            todo = set()
            for i, (was, now) in enumerate(zip(self.cells, cells, strict=True)):
                if was != now:
                    todo.add(i)
                    for centre in self._stars[i]:
                        todo |= self.readers[centre]
        self.cells = work = list(cells)
        for index in todo:
            self._look(work, index)
        self._sorted = sorted(self.found.items())
        return self._sorted

    def _look(self, work: list[int], index: int) -> None:
        """Work out ``index``'s foul afresh and note what the look read."""
        for centre in self.read[index]:
            self.readers[centre].discard(index)
        self.found.pop(index, None)
        read: list[int] = []
        if work[index] == EMPTY:
            if sum(work[i] == BLACK for i in self._stars[index]) < 4:
                read.append(index)  # no foul without four black stones in the windows
            elif (reason := foul(work, self.w, self.h, index, read)) is not None:
                self.found[index] = reason
            self.looks += len(read)
        self.read[index] = read
        for centre in read:
            self.readers[centre].add(index)
