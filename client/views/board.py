"""The board view: a wooden gomoku board with shaded stones, or a tic-tac-toe grid of X and O."""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

import pygame

from client import theme
from client.geometry import BoardGeometry, fit_board
from client.values import Cell, GameInfo
from protocol.cells import column_label, row_label

STAR_POINTS: dict[int, tuple[int, ...]] = {9: (2, 6), 13: (3, 9), 15: (3, 11), 19: (3, 9, 15)}


@dataclass(frozen=True, slots=True)
class BoardPicture:
    """What to show on a board: the moves so far plus overlays (hover, cursor, winning line)."""

    game: GameInfo
    moves: Sequence[Cell]
    line: tuple[Cell, ...] = ()
    hover: Cell | None = None
    hover_seat: int | None = None
    cursor: Cell | None = None
    numbers: bool = False
    #: Cells black may not play (renju), marked with a small red x.
    forbidden: frozenset[Cell] = frozenset()
    #: Stones of a set-up position (cell, colour) and the colour of the first move after it.
    setup: tuple[tuple[Cell, int], ...] = ()
    first: int = 0


def board_geometry(game: GameInfo, area: pygame.Rect) -> BoardGeometry:
    """Fit ``game``'s board into ``area`` (labels only on stone boards)."""
    return fit_board(game.width, game.height, tuple(area), labels=not game.uses_marks)


def star_points(width: int, height: int) -> list[Cell]:
    """The hoshi of a square board: 4 corners plus the centre on 9, 13, 15 and 19."""
    if width != height:
        return []
    if width in STAR_POINTS:
        coords = STAR_POINTS[width]
        pts = [(x, y) for x in coords for y in coords]
        if len(coords) == 2:
            pts.append((width // 2, width // 2))
        return pts
    return [(width // 2, height // 2)] if width % 2 and width >= 7 else []


def draw_board(surface: pygame.Surface, geo: BoardGeometry, pic: BoardPicture) -> None:
    """Draw ``pic`` on ``surface`` at the place ``geo`` describes."""
    if pic.game.uses_marks:
        _draw_marks_board(surface, geo, pic)
    else:
        _draw_stone_board(surface, geo, pic)


# -- stones -------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def _wood(width: int, height: int) -> pygame.Surface:
    surf = pygame.Surface((width, height))
    surf.fill(theme.WOOD)
    rng = random.Random(7)
    phase = [rng.uniform(0, math.tau) for _ in range(4)]
    for y in range(height):
        wave = sum(
            math.sin(y / p + ph) for p, ph in zip((9.0, 23.0, 4.3, 61.0), phase, strict=True)
        )
        shade = int(wave * 3.2)
        base = theme.WOOD
        color = tuple(max(0, min(255, c + shade)) for c in base)
        pygame.draw.line(surf, color, (0, y), (width, y))
    for _ in range(width * height // 900):
        x, y = rng.randrange(width), rng.randrange(height)
        length = rng.randrange(20, 90)
        pygame.draw.line(surf, theme.WOOD_DARK, (x, y), (min(width, x + length), y))
    return surf


@functools.lru_cache(maxsize=32)
def stone_sprite(seat: int, radius: int) -> pygame.Surface:
    """A shaded stone with a soft shadow, ``2*radius + shadow`` pixels square (cached)."""
    scale = 4
    r = radius * scale
    pad = max(2, radius // 5) * scale
    size = 2 * r + pad
    big = pygame.Surface((size, size), pygame.SRCALPHA)
    c = r
    for i, alpha in enumerate((40, 30, 20)):
        pygame.draw.circle(big, (0, 0, 0, alpha), (c + pad // 2, c + pad // 2 + i), r + i * scale)
    if seat == 0:
        edge, high = (12, 12, 14), (105, 105, 112)
    else:
        edge, high = (178, 176, 168), (255, 255, 252)
    steps = 28
    for i in range(steps):
        t = i / (steps - 1)
        rad = r * (1 - 0.86 * t)
        off = t * r * 0.34
        k = t**1.6
        col = tuple(int(e + (h - e) * k) for e, h in zip(edge, high, strict=True))
        pygame.draw.circle(big, col, (c - off, c - off), rad)
    return pygame.transform.smoothscale(big, (size // scale, size // scale))


def _blit_stone(
    surface: pygame.Surface, seat: int, center: Cell, radius: int, alpha: int = 255
) -> None:
    sprite = stone_sprite(seat, radius)
    if alpha < 255:
        sprite = sprite.copy()
        sprite.fill((255, 255, 255, alpha), special_flags=pygame.BLEND_RGBA_MULT)
    surface.blit(sprite, (center[0] - radius, center[1] - radius))


def _ordered_line(line: Sequence[Cell]) -> tuple[Cell, Cell] | None:
    if not line:
        return None
    cells = sorted(line)
    return cells[0], cells[-1]


def _draw_stone_board(surface: pygame.Surface, geo: BoardGeometry, pic: BoardPicture) -> None:
    """The wooden board with its grid and coordinates, the stones, and what marks them."""
    _wooden_board(surface, geo)
    if geo.margin >= 10:
        _coordinates(surface, geo)
    radius = max(3, int(geo.cell * 0.47))
    _stones(surface, geo, pic, radius)
    _move_marks(surface, geo, pic, radius)
    _winning_line(surface, geo, pic, radius)
    if pic.cursor is not None:
        _draw_cursor(surface, geo, pic.cursor)


def _wooden_board(surface: pygame.Surface, geo: BoardGeometry) -> None:
    """The board's wood and shadow, its grid lines, frame and star points."""
    left, top, width, height = geo.board_rect
    board = pygame.Rect(left, top, width, height)
    shadow = pygame.Surface((width, height), pygame.SRCALPHA)
    pygame.draw.rect(shadow, (0, 0, 0, 90), shadow.get_rect(), border_radius=6)
    surface.blit(shadow, board.move(5, 7))
    surface.blit(_wood(width, height), board)
    pygame.draw.rect(surface, theme.WOOD_DARK, board, 2, border_radius=2)

    cell, cols, rows = geo.cell, geo.cols, geo.rows
    thin = 1 if cell < 44 else 2
    for x in range(cols):
        pygame.draw.line(surface, theme.GRID, geo.center(x, 0), geo.center(x, rows - 1), thin)
    for y in range(rows):
        pygame.draw.line(surface, theme.GRID, geo.center(0, y), geo.center(cols - 1, y), thin)
    x0, y0 = geo.center(0, 0)
    x1, y1 = geo.center(cols - 1, rows - 1)
    pygame.draw.rect(surface, theme.GRID, (x0 - 1, y0 - 1, x1 - x0 + 3, y1 - y0 + 3), 2)
    dot = max(2, cell // 9)
    for pt in star_points(cols, rows):
        pygame.draw.circle(surface, theme.GRID, geo.center(*pt), dot)


def _coordinates(surface: pygame.Surface, geo: BoardGeometry) -> None:
    """The columns' letters below the board and the rows' numbers to its left."""
    cell, cols, rows = geo.cell, geo.cols, geo.rows
    x0, _ = geo.center(0, 0)
    _, y1 = geo.center(cols - 1, rows - 1)
    size = max(9, min(18, int(cell * 0.38)))
    label_gap = geo.margin // 2 + cell // 2
    for x in range(cols):
        cx, _ = geo.center(x, 0)
        theme.text(
            surface, column_label(x), (cx, y1 + label_gap), size, theme.GRID, anchor="center"
        )
    for y in range(rows):
        _, cy = geo.center(0, y)
        theme.text(
            surface, row_label(y, rows), (x0 - label_gap, cy), size, theme.GRID, anchor="center"
        )


def _stones(surface: pygame.Surface, geo: BoardGeometry, pic: BoardPicture, radius: int) -> None:
    """The setup's and the moves' stones, the forbidden points' red crosses, and the stone
    under the pointer."""
    cell = geo.cell
    for (x, y), colour in pic.setup:
        _blit_stone(surface, colour, geo.center(x, y), radius)
    for i, (x, y) in enumerate(pic.moves):
        _blit_stone(surface, (pic.first + i) & 1, geo.center(x, y), radius)
    taken = set(pic.moves) | {c for c, _ in pic.setup}
    arm = max(3, cell // 4)
    for x, y in pic.forbidden - taken:
        cx, cy = geo.center(x, y)
        width = max(2, cell // 10)
        pygame.draw.line(surface, theme.DANGER, (cx - arm, cy - arm), (cx + arm, cy + arm), width)
        pygame.draw.line(surface, theme.DANGER, (cx - arm, cy + arm), (cx + arm, cy - arm), width)
    hover_ok = pic.hover not in taken and pic.hover not in pic.forbidden
    if pic.hover is not None and pic.hover_seat is not None and hover_ok:
        _blit_stone(surface, pic.hover_seat, geo.center(*pic.hover), radius, alpha=120)


def _move_marks(
    surface: pygame.Surface, geo: BoardGeometry, pic: BoardPicture, radius: int
) -> None:
    """Every move's number (the last one's in its own colour), or a dot on the last move."""
    cell = geo.cell
    if pic.numbers:
        size = max(8, int(cell * (0.42 if len(pic.moves) < 99 else 0.34)))
        for i, (x, y) in enumerate(pic.moves):
            color = theme.TEXT if (pic.first + i) & 1 == 0 else (30, 30, 30)
            if i == len(pic.moves) - 1:
                color = theme.LAST
            theme.text(
                surface, str(i + 1), geo.center(x, y), size, color, bold=True, anchor="center"
            )
    elif pic.moves:
        pygame.draw.circle(surface, theme.LAST, geo.center(*pic.moves[-1]), max(2, radius // 4))


def _winning_line(
    surface: pygame.Surface, geo: BoardGeometry, pic: BoardPicture, radius: int
) -> None:
    """A ring on each stone of the winning line and a stroke through it."""
    cell = geo.cell
    ends = _ordered_line(pic.line)
    if ends is not None:
        ring = max(2, radius // 6)
        for x, y in pic.line:
            pygame.draw.circle(surface, theme.WIN, geo.center(x, y), radius + 1, ring)
        pygame.draw.line(
            surface, theme.WIN, geo.center(*ends[0]), geo.center(*ends[1]), max(3, cell // 9)
        )


# -- tic-tac-toe --------------------------------------------------------------------------------


def draw_mark(surface: pygame.Surface, seat: int, rect: pygame.Rect, alpha: int = 255) -> None:
    layer = pygame.Surface(rect.size, pygame.SRCALPHA)
    w = max(3, rect.w // 9)
    inset = rect.w // 4
    r = layer.get_rect().inflate(-2 * inset, -2 * inset)
    if seat == 0:
        color = (*theme.X_COLOR, alpha)
        pygame.draw.line(layer, color, r.topleft, r.bottomright, w)
        pygame.draw.line(layer, color, r.bottomleft, r.topright, w)
        for p in (r.topleft, r.bottomright, r.bottomleft, r.topright):
            pygame.draw.circle(layer, color, p, w // 2)
    else:
        pygame.draw.circle(
            layer, (*theme.O_COLOR, alpha), layer.get_rect().center, r.w // 2 + w // 3, w
        )
    surface.blit(layer, rect)


def _draw_marks_board(surface: pygame.Surface, geo: BoardGeometry, pic: BoardPicture) -> None:
    left, top, width, height = geo.board_rect
    pygame.draw.rect(surface, theme.TTT_BG, (left, top, width, height), border_radius=14)
    gap = max(3, geo.cell // 22)
    half = geo.cell // 2
    last = pic.moves[-1] if pic.moves else None
    win = set(pic.line)
    for y in range(geo.rows):
        for x in range(geo.cols):
            cx, cy = geo.center(x, y)
            rect = pygame.Rect(
                cx - half + gap, cy - half + gap, geo.cell - 2 * gap, geo.cell - 2 * gap
            )
            fill = theme.TTT_CELL if (x, y) != last else theme.PANEL_HI
            pygame.draw.rect(surface, fill, rect, border_radius=10)
            if (x, y) in win:
                pygame.draw.rect(surface, theme.WIN, rect, max(3, geo.cell // 30), border_radius=10)
    for (x, y), colour in pic.setup:
        cx, cy = geo.center(x, y)
        draw_mark(surface, colour, pygame.Rect(cx - half, cy - half, geo.cell, geo.cell))
    for i, (x, y) in enumerate(pic.moves):
        cx, cy = geo.center(x, y)
        draw_mark(
            surface, (pic.first + i) & 1, pygame.Rect(cx - half, cy - half, geo.cell, geo.cell)
        )
    if pic.hover is not None and pic.hover_seat is not None and pic.hover not in set(pic.moves):
        cx, cy = geo.center(*pic.hover)
        draw_mark(
            surface, pic.hover_seat, pygame.Rect(cx - half, cy - half, geo.cell, geo.cell), 90
        )
    if pic.numbers:
        for i, (x, y) in enumerate(pic.moves):
            cx, cy = geo.center(x, y)
            theme.text(
                surface,
                str(i + 1),
                (cx + half - 10, cy + half - 8),
                14,
                theme.MUTED,
                anchor="bottomright",
            )
    ends = _ordered_line(pic.line)
    if ends is not None:
        pygame.draw.line(
            surface, theme.WIN, geo.center(*ends[0]), geo.center(*ends[1]), max(4, geo.cell // 14)
        )
    if pic.cursor is not None:
        _draw_cursor(surface, geo, pic.cursor)


def _draw_cursor(surface: pygame.Surface, geo: BoardGeometry, cell: Cell) -> None:
    cx, cy = geo.center(*cell)
    half = geo.cell // 2 - 1
    arm = max(4, geo.cell // 4)
    w = 3 if geo.cell >= 30 else 2
    for sx in (-1, 1):
        for sy in (-1, 1):
            corner = (cx + sx * half, cy + sy * half)
            pygame.draw.line(surface, theme.CURSOR, corner, (corner[0] - sx * arm, corner[1]), w)
            pygame.draw.line(surface, theme.CURSOR, corner, (corner[0], corner[1] - sy * arm), w)
