"""Rendering: draw boards and whole scenes headless, save PNGs, check pixels at known cells."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from pathlib import Path

import pygame
import pytest
from support.render import GOMOKU_INFO, dark, light, render

from client import theme
from client.values import GameInfo
from client.views.board import BoardPicture
from protocol.rules import Game, Move
from protocol.variants import GOMOKU, TICTACTOE

TTT_INFO = GameInfo("tictactoe", 3, 3, 3)
#: Black makes five on row 8 (H8..M8); D11 is a black stone off the line, A15/B14 white ones.
WIN_MOVES = [
    (7, 7),
    (7, 8),
    (8, 7),
    (8, 8),
    (9, 7),
    (9, 8),
    (10, 7),
    (0, 0),
    (3, 4),
    (1, 1),
    (11, 7),
]


@pytest.fixture(autouse=True)
def _pygame() -> None:
    pygame.font.init()


def woodish(c: pygame.Color) -> bool:
    """Within the wood grain's range of the board colour."""
    return all(abs(a - b) <= 40 for a, b in zip((c.r, c.g, c.b), theme.WOOD, strict=True))


@pytest.mark.parametrize("size", [(800, 800), (640, 480), (1000, 620)])
def test_finished_gomoku_pixels(tmp_path: Path, size: tuple[int, int]) -> None:
    game = Game.from_moves(GOMOKU, WIN_MOVES)
    assert game.outcome is not None
    line = tuple((m.x, m.y) for m in game.outcome.line)
    pic = BoardPicture(GOMOKU_INFO, WIN_MOVES, line=line)
    img, geo = render(pic, size, tmp_path / "gomoku.png")
    assert dark(img.get_at(geo.center(3, 4)))
    assert light(img.get_at(geo.center(7, 8))) and light(img.get_at(geo.center(1, 1)))
    # An empty intersection: grid lines cross at the centre, wood just beside them.
    cx, cy = geo.center(2, 12)
    off = geo.cell // 4
    assert woodish(img.get_at((cx + off, cy + off)))
    assert not woodish(img.get_at((cx, cy)))
    # The winning line runs through the five stones, e.g. between H8 and J8.
    (ax, ay), (bx, by) = geo.center(8, 7), geo.center(9, 7)
    assert img.get_at(((ax + bx) // 2, (ay + by) // 2))[:3] == theme.WIN


def test_hover_cursor_and_numbers(tmp_path: Path) -> None:
    moves = WIN_MOVES[:4]
    pic = BoardPicture(GOMOKU_INFO, moves, hover=(4, 4), hover_seat=0, cursor=(12, 12))
    img, geo = render(pic, (700, 700), tmp_path / "hover.png")
    assert img.get_at(geo.center(*moves[-1]))[:3] == theme.LAST  # the last-move dot
    hx, hy = geo.center(4, 4)
    hover = img.get_at((hx + 2, hy + 2))
    assert not woodish(hover) and not dark(hover)  # a translucent black stone over the wood
    cx, cy = geo.center(12, 12)
    half = geo.cell // 2 - 1
    assert img.get_at((cx - half, cy - half))[:3] == theme.CURSOR


def test_tictactoe_marks(tmp_path: Path) -> None:
    moves = [(1, 1), (0, 1), (0, 0), (2, 0), (2, 2)]
    game = Game.from_moves(TICTACTOE, [Move(*m) for m in moves])
    assert game.outcome is not None
    line = tuple((m.x, m.y) for m in game.outcome.line)
    img, geo = render(BoardPicture(TTT_INFO, moves, line=line), (600, 600), tmp_path / "ttt.png")
    # X at B2 crosses in the middle; the winning line is drawn through it, so test A3's X arm.
    x0, y0 = geo.center(0, 1)  # O at A2: hollow in the middle, ring around
    assert img.get_at((x0, y0))[:3] == theme.TTT_CELL
    w = max(3, geo.cell // 9)
    ring = geo.cell // 4 + w // 3 - w // 2
    assert img.get_at((x0 + ring, y0))[:3] == theme.O_COLOR
    xx, xy = geo.center(2, 0)  # O at C3
    assert img.get_at((xx, xy))[:3] == theme.TTT_CELL
    ax, ay = geo.center(0, 0)  # X at A3 (on the winning diagonal)
    assert img.get_at((ax, ay))[:3] == theme.WIN
    arm = geo.cell // 4 - 4
    assert img.get_at((ax - arm, ay + arm))[:3] == theme.X_COLOR
    empty = geo.center(1, 0)
    assert img.get_at(empty)[:3] == theme.TTT_CELL


@pytest.mark.parametrize(("w", "h"), [(3, 3), (7, 6), (25, 25), (19, 4)])
def test_any_board_renders(tmp_path: Path, w: int, h: int) -> None:
    info = GameInfo("mnk", w, h, 3)
    moves = [(0, 0), (w - 1, h - 1)]
    img, geo = render(BoardPicture(info, moves, numbers=True), (900, 640), tmp_path / "b.png")
    bl, bt, bw, bh = geo.board_rect
    assert bl >= 0 and bt >= 0 and bl + bw <= 900 and bt + bh <= 640
    assert img.get_at(geo.center(w - 1, h - 1)) != img.get_at((2, 2))
