"""Precomputed line tables for an m,n,k board: every k-window, its flanks, each cell's windows."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from protocol.rules import DIRECTIONS

#: Neighbourhood radius for gomoku candidate moves (cells within this Chebyshev distance).
NEAR_RADIUS = 2


@dataclass(frozen=True, slots=True)
class Geometry:
    """Line tables shared by every board of one size: built once, read in the hot loops."""

    width: int
    height: int
    k: int
    #: windows[w] is the tuple of k cells of window w (a k-long segment of a line).
    windows: tuple[tuple[int, ...], ...]
    #: members[c] is the tuple of windows containing cell c.
    members: tuple[tuple[int, ...], ...]
    #: flanks[c] is the tuple of windows that cell c directly extends (one cell past either end).
    flanks: tuple[tuple[int, ...], ...]
    #: near[c] is the tuple of other cells within NEAR_RADIUS of c.
    near: tuple[tuple[int, ...], ...]

    @property
    def cells(self) -> int:
        """The number of cells."""
        return self.width * self.height


@lru_cache(maxsize=32)
def geometry(width: int, height: int, k: int) -> Geometry:
    """The (cached) line tables for a width x height board with k-in-a-row."""
    windows: list[tuple[int, ...]] = []
    flank_lists: list[list[int]] = [[] for _ in range(width * height)]

    def inside(x: int, y: int) -> bool:
        return 0 <= x < width and 0 <= y < height

    for dx, dy in DIRECTIONS:
        for y in range(height):
            for x in range(width):
                ex, ey = x + (k - 1) * dx, y + (k - 1) * dy
                if not inside(ex, ey):
                    continue
                w = len(windows)
                windows.append(tuple((y + i * dy) * width + x + i * dx for i in range(k)))
                for fx, fy in ((x - dx, y - dy), (ex + dx, ey + dy)):
                    if inside(fx, fy):
                        flank_lists[fy * width + fx].append(w)
    member_lists: list[list[int]] = [[] for _ in range(width * height)]
    for w, cells in enumerate(windows):
        for c in cells:
            member_lists[c].append(w)
    near = []
    r = NEAR_RADIUS
    for c in range(width * height):
        x, y = c % width, c // width
        near.append(
            tuple(
                yy * width + xx
                for yy in range(max(0, y - r), min(height, y + r + 1))
                for xx in range(max(0, x - r), min(width, x + r + 1))
                if (xx, yy) != (x, y)
            )
        )
    return Geometry(
        width,
        height,
        k,
        tuple(windows),
        tuple(tuple(m) for m in member_lists),
        tuple(tuple(f) for f in flank_lists),
        tuple(near),
    )
