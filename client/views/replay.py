"""The replay scene: a finished game shown at any ply, with step controls and the move list."""

from __future__ import annotations

from collections.abc import Collection

import pygame

from client import theme
from client.analyst import GameWalk
from client.export import seconds
from client.values import FinishedGame
from client.views.board import BoardPicture, board_geometry, draw_board
from client.views.common import HEADER_H
from client.views.panel import seat_icon
from client.widgets import Frame, panel
from client.words import result_text
from protocol.cells import cell_name

PANEL_W = 340


def room_layout(size: tuple[int, int]) -> tuple[pygame.Rect, pygame.Rect]:
    """The board area and the side panel area of a room or replay in a window of ``size``."""
    w, h = size
    panel_w = min(PANEL_W, max(260, w // 3))
    board = pygame.Rect(12, HEADER_H + 12, w - panel_w - 36, h - HEADER_H - 24)
    side = pygame.Rect(w - panel_w - 12, HEADER_H + 12, panel_w, h - HEADER_H - 24)
    return board, side


def draw_replay(frame: Frame, game: FinishedGame, ply: int, numbers: bool) -> None:
    """``game`` as it stood after ``ply`` moves, with the controls to move through it."""
    surf = frame.surface
    board_area, side = room_layout(surf.get_size())
    moves = game.moves[:ply]
    line = game.result.line if ply == len(game.moves) else ()
    geo = board_geometry(game.game, board_area)
    draw_board(surf, geo, BoardPicture(game.game, moves, line=line, numbers=numbers))

    inner = panel(surf, side)
    y = _replay_heading(surf, inner, game)
    y = _replay_controls(frame, inner, y, game, ply)
    list_rect = pygame.Rect(inner.x, y, inner.w, inner.bottom - y - 140)
    draw_timed_moves(frame, list_rect, game, ply)
    versus = pygame.Rect(inner.x, inner.bottom - 128, inner.w, 36)
    frame.button(versus, "Continue from here against the bot", "versus_bot", size=13)
    third = (inner.w - 16) // 3
    row = [("Analyse (A)", "analyse_game", None), ("Save .psq", "export", "psq")]
    row.append(("Save .txt", "export", "txt"))
    for i, (label, action, arg) in enumerate(row):
        rect = pygame.Rect(inner.x + i * (third + 8), inner.bottom - 84, third, 36)
        frame.button(rect, label, action, arg, kind="primary" if i == 0 else "normal", size=13)
    frame.button(pygame.Rect(inner.x, inner.bottom - 38, inner.w, 38), "Back (Esc)", "replay_back")


def _replay_heading(surf: pygame.Surface, inner: pygame.Rect, game: FinishedGame) -> int:
    """The panel's title, the game, its players and its result; the y below them."""
    theme.text(surf, "Replay", inner.topleft, 18, bold=True)
    theme.text(
        surf, game.game.title, (inner.right, inner.y + 3), 13, theme.MUTED, anchor="topright"
    )
    y = inner.y + 34
    for seat in (0, 1):
        seat_icon(surf, game.game, seat, (inner.x + 14, y + 12), 10)
        theme.text(surf, game.players[seat], (inner.x + 34, y + 3), 16, max_width=inner.w - 40)
        y += 30
    for t in theme.wrap(result_text(game.result, game.players, game.game.k), 15, inner.w)[:2]:
        theme.text(surf, t, (inner.x, y + 4), 15, theme.OK, bold=True)
        y += 20
    return y + 14


def _replay_controls(frame: Frame, inner: pygame.Rect, y: int, game: FinishedGame, ply: int) -> int:
    """The move shown, the step buttons, the progress bar (a click seeks) and the keys; the y
    below them."""
    surf = frame.surface
    theme.text(surf, f"move {ply} of {len(game.moves)}", (inner.centerx, y), 15, anchor="midtop")
    y += 26
    controls = [
        ("«", "replay_to", 0),
        ("\u2039", "replay_step", -1),
        ("\u203a", "replay_step", 1),
        ("»", "replay_to", -1),
    ]
    bw = (inner.w - 3 * 8) // 4
    for i, (label, action, arg) in enumerate(controls):
        frame.button(pygame.Rect(inner.x + i * (bw + 8), y, bw, 36), label, action, arg, size=20)
    y += 46
    bar = pygame.Rect(inner.x, y, inner.w, 10)
    pygame.draw.rect(surf, theme.PANEL_HI, bar, border_radius=5)
    if game.moves:
        filled = bar.w * ply // len(game.moves)
        pygame.draw.rect(surf, theme.ACCENT, (bar.x, bar.y, filled, bar.h), border_radius=5)
        pygame.draw.circle(surf, theme.TEXT, (bar.x + filled, bar.centery), 8)
    frame.add(bar.inflate(0, 14), "replay_seek", bar)
    y += 26
    theme.text(
        surf,
        "← → step · Home/End · N numbers · Esc back",
        (inner.centerx, y),
        12,
        theme.MUTED,
        anchor="midtop",
    )
    return y + 24


def draw_timed_moves(
    frame: Frame,
    rect: pygame.Rect,
    game: FinishedGame,
    current: int,
    blunders: Collection[int] = (),
    walk: GameWalk | None = None,
) -> None:
    """One move a row: number, cell, the seconds it took, a blunder's "?" and the engine's
    best move where it differs; scrolled so the ``current`` ply shows; a click on a row shows
    the board after that move."""
    surface = frame.surface
    line_h = 18
    rows = max(1, rect.h // line_h)
    total = len(game.moves)
    focus = max(0, current - 1)
    first = max(0, min(total - rows, focus - rows // 2)) if total > rows else 0
    height = game.game.height
    for ply in range(first, min(total, first + rows)):
        y = rect.y + (ply - first) * line_h
        frame.add(pygame.Rect(rect.x - 4, y - 1, rect.w + 8, line_h), "replay_to", ply + 1)
        if ply == current - 1:
            pygame.draw.rect(
                surface, theme.ACCENT_DARK, (rect.x - 4, y - 1, rect.w + 8, line_h), border_radius=4
            )
        theme.text(surface, f"{ply + 1}.", (rect.x + 28, y), 13, theme.MUTED, anchor="topright")
        label = cell_name(*game.moves[ply], height) + ("?" if ply in blunders else "")
        colour = theme.DANGER if ply in blunders else theme.TEXT
        theme.text(surface, label, (rect.x + 36, y), 13, colour, bold=ply in blunders)
        ms = game.times_ms[ply] if ply < len(game.times_ms) else None
        if ms is not None:
            theme.text(
                surface, f"{seconds(ms)} s", (rect.x + 120, y), 13, theme.MUTED, anchor="topright"
            )
        best = walk.by_ply.get(ply) if walk is not None else None
        if best is not None and best.best is not None and not best.as_good(game.moves[ply]):
            theme.text(
                surface,
                f"best {cell_name(*best.best.move, height)}",
                (rect.x + 136, y),
                13,
                theme.MUTED,
            )
