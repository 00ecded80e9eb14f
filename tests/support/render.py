"""Board pictures drawn headless and read back pixel by pixel (pygame with SDL's dummy driver)."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from pathlib import Path

import pygame

from client import theme
from client.values import GameInfo
from client.views.board import BoardPicture, board_geometry, draw_board

GOMOKU_INFO = GameInfo("gomoku", 15, 15, 5)


def dark(c: pygame.Color) -> bool:
    """A black stone's colour."""
    return c.r + c.g + c.b < 240


def light(c: pygame.Color) -> bool:
    """A white stone's colour."""
    return min(c.r, c.g, c.b) > 170


def render(pic: BoardPicture, size: tuple[int, int], path: Path):  # type: ignore[no-untyped-def]
    """Draw ``pic`` into a fresh surface, save it as a PNG and reload it from disk."""
    surface = pygame.Surface(size)
    surface.fill(theme.BG)
    geo = board_geometry(pic.game, pygame.Rect(0, 0, *size))
    draw_board(surface, geo, pic)
    pygame.image.save(surface, str(path))
    return pygame.image.load(str(path)), geo
