"""Analysis on screen: the exact values' overlay and the engine's best line on a board, the
evaluation graph, and the analysis scene of a finished game (board, graph, blunders, best
moves, times)."""

from __future__ import annotations

from collections.abc import Sequence

import pygame

from client import theme
from client.analysis import Analysis, Line, Mark, line_words, overlay
from client.analyst import GameWalk
from client.geometry import BoardGeometry
from client.values import Cell, FinishedGame, GameInfo
from client.views.board import BoardPicture, board_geometry, draw_board, draw_mark, stone_sprite
from client.views.panel import seat_icon
from client.views.replay import draw_timed_moves, room_layout
from client.widgets import Frame, panel
from client.words import result_text
from protocol.cells import cell_name

#: How many moves of the best line are numbered on the board.
PV_SHOWN = 6
GRAPH_H = 116


def draw_values(
    surface: pygame.Surface, geo: BoardGeometry, analysis: Analysis | None, taken: set[Cell]
) -> None:
    """Each free cell's proven value: a green (win), grey (draw) or red (loss) square with the
    plies to the end, from the side to move's view."""
    half = geo.cell // 2
    size = max(10, int(geo.cell * 0.34))
    for (x, y), (colour, plies) in overlay(analysis, taken).items():
        cx, cy = geo.center(x, y)
        layer = pygame.Surface((geo.cell, geo.cell), pygame.SRCALPHA)
        inset = max(2, geo.cell // 10)
        rect = layer.get_rect().inflate(-2 * inset, -2 * inset)
        pygame.draw.rect(layer, (*colour, 150), rect, border_radius=max(3, geo.cell // 8))
        pygame.draw.rect(layer, (*colour, 255), rect, 2, border_radius=max(3, geo.cell // 8))
        surface.blit(layer, (cx - half, cy - half))
        theme.text(surface, str(plies), (cx, cy), size, theme.TEXT, bold=True, anchor="center")


def draw_line(
    surface: pygame.Surface,
    geo: BoardGeometry,
    line: Line | None,
    taken: set[Cell],
    shown: int = PV_SHOWN,
    info: GameInfo | None = None,
    first: int = 0,
) -> None:
    """The engine's best move ringed, and its line's first ``shown`` moves as faint stones
    (or marks) numbered 1, 2, 3…, the first of colour ``first`` (none where the exact
    values already fill the cells with numbers)."""
    if line is None:
        return
    radius = max(4, int(geo.cell * 0.47))
    seen: set[Cell] = set()
    for i, cell in enumerate(line.pv[:shown]):
        if cell in taken or cell in seen:
            break  # a stale or broken line: stop at the first move that cannot be
        seen.add(cell)
        colour = (first + i) & 1
        cx, cy = geo.center(*cell)
        if info is not None and info.uses_marks:
            half = geo.cell // 2
            draw_mark(surface, colour, pygame.Rect(cx - half, cy - half, geo.cell, geo.cell), 90)
        else:
            ghost = stone_sprite(colour, radius).copy()
            ghost.fill((255, 255, 255, 150), special_flags=pygame.BLEND_RGBA_MULT)
            surface.blit(ghost, (cx - radius, cy - radius))
        ink = theme.TEXT if colour == 0 else (20, 20, 24)
        size = max(10, int(geo.cell * 0.42))
        theme.text(surface, str(i + 1), (cx, cy), size, ink, bold=True, anchor="center")
    cx, cy = geo.center(*line.move)
    if info is not None and info.uses_marks:  # a ring would read as an O: a frame instead
        frame = pygame.Rect(0, 0, geo.cell - 6, geo.cell - 6)
        frame.center = (cx, cy)
        pygame.draw.rect(surface, theme.ACCENT, frame, max(3, geo.cell // 24), border_radius=12)
    else:
        pygame.draw.circle(surface, theme.ACCENT, (cx, cy), radius + 2, max(2, geo.cell // 12))


def draw_graph(
    frame: Frame,
    rect: pygame.Rect,
    points: Sequence[float | None],
    marks: Sequence[Mark],
    ply: int,
) -> None:
    """The evaluation over the moves (black's view: up is good for black), blunders as red
    dots, the position shown as a line; a click jumps there (``replay_seek``)."""
    surf = frame.surface
    pygame.draw.rect(surf, (26, 31, 40), rect, border_radius=6)
    mid = rect.centery
    pygame.draw.line(surf, theme.BORDER, (rect.x + 4, mid), (rect.right - 4, mid))
    n = max(1, len(points) - 1)

    def at(i: int, value: float) -> tuple[int, int]:
        return rect.x + 6 + (rect.w - 12) * i // n, int(mid - value * (rect.h / 2 - 6))

    theme.text(surf, "black", (rect.x + 6, rect.y + 3), 11, theme.MUTED)
    theme.text(surf, "white", (rect.x + 6, rect.bottom - 3), 11, theme.MUTED, anchor="bottomleft")
    known = [(i, v) for i, v in enumerate(points) if v is not None]
    if len(known) >= 2:
        poly = [at(i, v) for i, v in known]
        area = [(x - rect.x, y - rect.y) for x, y in [(poly[0][0], mid), *poly, (poly[-1][0], mid)]]
        layer = pygame.Surface(rect.size, pygame.SRCALPHA)  # the graph's size, not the window's
        pygame.draw.polygon(layer, (*theme.TEXT, 40), area)
        surf.blit(layer, rect.topleft)
        pygame.draw.lines(surf, theme.TEXT, False, poly, 2)
    for i, v in known:
        pygame.draw.circle(surf, theme.TEXT, at(i, v), 2)
    for mark in marks:
        after = points[mark.ply + 1] if mark.ply + 1 < len(points) else None
        if mark.blunder and after is not None:
            pygame.draw.circle(surf, theme.DANGER, at(mark.ply + 1, after), 5)
    x = at(min(ply, n), 0)[0]
    pygame.draw.line(surf, theme.ACCENT, (x, rect.y + 2), (x, rect.bottom - 2), 2)
    frame.add(rect, "replay_seek", rect)


def draw_analysis(
    frame: Frame, game: FinishedGame, ply: int, walk: GameWalk | None, numbers: bool
) -> BoardGeometry:
    """A finished game's analysis at ``ply``: the board with the best move and exact values,
    the graph, the verdict here, the blunders and the moves with their times."""
    surf = frame.surface
    board_area, side = room_layout(surf.get_size())
    info = game.game
    moves = game.moves[:ply]
    geo = board_geometry(info, board_area)
    line = game.result.line if ply == len(game.moves) else ()
    draw_board(surf, geo, BoardPicture(info, moves, line=line, numbers=numbers))
    here = walk.by_ply.get(ply) if walk is not None else None
    taken = set(moves)
    draw_values(surf, geo, here, taken)
    if here is not None:
        shown = 0 if here.values else PV_SHOWN
        draw_line(surf, geo, here.best, taken, shown, info, here.to_move)

    inner = panel(surf, side)
    y = _analysis_heading(surf, inner, game)
    points = walk.points() if walk is not None else [None] * (len(game.moves) + 1)
    marks = walk.marks() if walk is not None else []
    draw_graph(frame, pygame.Rect(inner.x, y, inner.w, GRAPH_H), points, marks, ply)
    y += GRAPH_H + 6
    progress = analysis_progress(walk, len(game.moves))
    theme.text(surf, progress, (inner.x, y), 12, theme.MUTED, max_width=inner.w)
    y += 20
    y = _step_row(frame, inner, y, ply, game)
    y = _verdict(surf, inner, y, here, ply, game, marks)
    blunders = [m for m in marks if m.blunder]
    y = _blunders(surf, inner, y, game, blunders)
    bottom = inner.bottom - 44
    draw_timed_moves(
        frame,
        pygame.Rect(inner.x, y, inner.w, bottom - y),
        game,
        ply,
        {m.ply for m in blunders},
        walk,
    )
    half = (inner.w - 8) // 2
    frame.button(
        pygame.Rect(inner.x, inner.bottom - 36, half, 36), "Replay (Esc)", "analysis_back", size=14
    )
    frame.button(
        pygame.Rect(inner.x + half + 8, inner.bottom - 36, half, 36),
        "Explore here",
        "study",
        size=14,
    )
    return geo


def _analysis_heading(surf: pygame.Surface, inner: pygame.Rect, game: FinishedGame) -> int:
    """The panel's title, the game, its players and its result; the y below them."""
    info = game.game
    theme.text(surf, "Analysis", inner.topleft, 18, bold=True)
    theme.text(surf, info.title, (inner.right, inner.y + 3), 13, theme.MUTED, anchor="topright")
    y = inner.y + 28
    for seat in (0, 1):
        x = inner.x + seat * (inner.w // 2)
        seat_icon(surf, info, seat, (x + 10, y + 10), 8)
        theme.text(surf, game.players[seat], (x + 24, y + 2), 14, max_width=inner.w // 2 - 30)
    y += 24
    summary = result_text(game.result, game.players, info.k)
    theme.text(surf, summary, (inner.x, y), 13, theme.OK, max_width=inner.w)
    return y + 22


def _blunders(
    surf: pygame.Surface, inner: pygame.Rect, y: int, game: FinishedGame, blunders: list[Mark]
) -> int:
    """The moves the server marks as blunders (the first eight); the y below them."""
    words = ", ".join(
        f"{m.ply + 1}. {cell_name(*game.moves[m.ply], game.game.height)}" for m in blunders[:8]
    )
    head = "Blunders (as the server marks them): "
    for t in theme.wrap(head + (words or "none found yet"), 12, inner.w)[:3]:
        theme.text(surf, t, (inner.x, y), 12, theme.DANGER if blunders else theme.MUTED)
        y += 16
    return y + 4


def analysis_progress(walk: GameWalk | None, total: int) -> str:
    """How far the walk through the game has come."""
    if walk is None:
        return ""
    if walk.stopped is not None:
        return f"Analysis stopped: {walk.stopped}"
    done = walk.done
    if done > total:
        return f"All {total + 1} positions analysed · Esc back to the replay"
    return f"Analysing position {done + 1} of {total + 1}…"


def _step_row(frame: Frame, inner: pygame.Rect, y: int, ply: int, game: FinishedGame) -> int:
    """The step buttons (first, back, forward, last) with the move number between."""
    controls = [("«", "replay_to", 0), ("\u2039", "replay_step", -1)]
    controls += [("\u203a", "replay_step", 1), ("»", "replay_to", -1)]
    bw = 40
    for i, (label, action, arg) in enumerate(controls):
        x = inner.x + i * (bw + 4) if i < 2 else inner.right - (4 - i) * (bw + 4) + 4
        frame.button(pygame.Rect(x, y, bw, 30), label, action, arg, size=18)
    text = f"move {ply} of {len(game.moves)}"
    theme.text(frame.surface, text, (inner.centerx, y + 15), 14, anchor="center")
    return y + 38


def _verdict(
    surf: pygame.Surface,
    inner: pygame.Rect,
    y: int,
    here: Analysis | None,
    ply: int,
    game: FinishedGame,
    marks: Sequence[Mark],
) -> int:
    """What the engine says of the position shown, and of the move played from it."""
    height = game.game.height
    if here is None:
        theme.text(surf, "Not analysed yet.", (inner.x, y), 13, theme.MUTED)
        return y + 22
    words = line_words(here, height, limit=6)
    if ply < len(game.moves):
        played = cell_name(*game.moves[ply], height)
        best = here.best
        mark = next((m for m in marks if m.ply == ply), None)
        verdict = ""
        if best is not None and best.move == game.moves[ply]:
            verdict = "the engine's choice"
        elif here.as_good(game.moves[ply]):
            verdict = "as good as the engine's choice"
        if mark is not None and mark.blunder:
            verdict = "a blunder"
        words.append(f"Played: {played}" + (f", {verdict}" if verdict else ""))
    lines_drawn = 0
    for sentence in words:
        for t in theme.wrap(sentence, 13, inner.w):
            if lines_drawn >= 5:
                return y + 4
            colour = theme.DANGER if "blunder" in t else theme.TEXT
            theme.text(surf, t, (inner.x, y), 13, colour)
            y += 17
            lines_drawn += 1
    return y + 6
