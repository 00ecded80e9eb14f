"""Pure pixel <-> cell mapping for an m x n board fitted into any window area (no pygame)."""

from __future__ import annotations

from dataclasses import dataclass

#: The smallest cell we ever draw; below this the board overflows its area instead of vanishing.
MIN_CELL = 6


@dataclass(frozen=True, slots=True)
class BoardGeometry:
    """Where a board sits in pixels: cell (x, y) is centred at origin + cell * (x, y).

    Every cell owns the square of side ``cell`` around its centre, so the mapping is exact integer
    arithmetic and ``cell_at(center(x, y)) == (x, y)`` always holds.
    """

    cols: int
    rows: int
    cell: int
    origin_x: int
    origin_y: int
    margin: int

    @property
    def grid_rect(self) -> tuple[int, int, int, int]:
        """The (left, top, width, height) of the squares owned by the cells."""
        half = self.cell // 2
        return (
            self.origin_x - half,
            self.origin_y - half,
            self.cols * self.cell,
            self.rows * self.cell,
        )

    @property
    def board_rect(self) -> tuple[int, int, int, int]:
        """The (left, top, width, height) of the whole board, coordinate labels included."""
        left, top, width, height = self.grid_rect
        m = self.margin
        return (left - m, top - m, width + 2 * m, height + 2 * m)

    def center(self, x: int, y: int) -> tuple[int, int]:
        """The pixel at the centre of cell (x, y)."""
        return (self.origin_x + x * self.cell, self.origin_y + y * self.cell)

    def cell_at(self, px: float, py: float) -> tuple[int, int] | None:
        """The cell whose square holds pixel (px, py), or None off the board."""
        left, top, _, _ = self.grid_rect
        x = int((px - left) // self.cell)
        y = int((py - top) // self.cell)
        if 0 <= x < self.cols and 0 <= y < self.rows:
            return (x, y)
        return None


def fit_board(
    cols: int, rows: int, area: tuple[int, int, int, int], *, labels: bool = True
) -> BoardGeometry:
    """The largest board of ``cols`` x ``rows`` cells centred in ``area`` (left, top, w, h).

    With ``labels`` a margin of about one cell is kept around the grid for coordinates.
    """
    if cols < 1 or rows < 1:
        raise ValueError("a board needs at least one column and one row")
    left, top, width, height = area
    pad = 1.6 if labels else 0.3
    cell = int(min(width / (cols + pad), height / (rows + pad)))
    cell = max(cell, MIN_CELL)
    margin = int(cell * pad / 2)
    grid_w, grid_h = cols * cell, rows * cell
    grid_left = left + (width - grid_w) // 2
    grid_top = top + (height - grid_h) // 2
    half = cell // 2
    return BoardGeometry(cols, rows, cell, grid_left + half, grid_top + half, margin)
