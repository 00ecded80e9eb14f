"""The tournaments scene: the server's events on the left, the one picked on the right with
its standings and games as the server sent them (Enter / Leave, a live game opens its room)."""

from __future__ import annotations

import pygame

from client import theme
from client.tournaments import EventDetail, TournamentBook, game_window
from client.views.ratings import scene_rect
from client.widgets import Frame, panel

ROW_H = 50
LINE_H = 24
STATUS_COLOURS = {"open": theme.OK, "running": theme.WARN, "finished": theme.MUTED}


def draw_tournaments(
    frame: Frame, book: TournamentBook, me: str | None, now: float, online: bool
) -> None:
    """The list of events (a click picks one) and the picked event's page."""
    surf = frame.surface
    area = scene_rect(surf.get_size())
    left_w = max(260, min(420, area.w * 2 // 5))
    left = pygame.Rect(area.x, area.y, left_w, area.h)
    right = pygame.Rect(left.right + 12, area.y, area.w - left_w - 12, area.h)
    inner = panel(surf, left, "Tournaments")
    frame.button(
        pygame.Rect(inner.right - 84, inner.y - 30, 84, 26), "Refresh", "tournaments_refresh",
        size=13, enabled=online,
    )  # fmt: skip
    draw_listing(frame, inner, book, now)
    detail = panel(surf, right)
    frame.button(pygame.Rect(detail.right - 110, detail.y, 110, 30), "Back (Esc)", "back", size=13)
    shown = book.shown
    if shown is None:
        words = "No tournaments on this server yet." if not book.listing else "Pick an event."
        theme.text(surf, words, (detail.x, detail.y + 6), 16, theme.MUTED)
        return
    draw_event(frame, detail, book, me, now, online)


def draw_listing(frame: Frame, inner: pygame.Rect, book: TournamentBook, now: float) -> None:
    """One row an event: name, what it is, where it stands (scheduled ones marked)."""
    surf = frame.surface
    y = inner.y + 4
    for line in book.listing:
        if y + ROW_H > inner.bottom:
            break
        row = pygame.Rect(inner.x, y, inner.w, ROW_H - 4)
        picked = line.tid == book.selected
        fill = theme.ACCENT_DARK if picked else theme.PANEL_HI if frame.hovered(row) else None
        if fill is not None:
            pygame.draw.rect(surf, fill, row, border_radius=6)
        pygame.draw.circle(
            surf, STATUS_COLOURS.get(line.status, theme.MUTED), (row.x + 10, y + 13), 5
        )
        name = line.name + ("  (scheduled)" if line.schedule else "")
        theme.text(surf, name, (row.x + 22, y + 4), 15, bold=True, max_width=row.w - 90)
        count = f"{line.players}/{line.max_players}"
        theme.text(surf, count, (row.right - 8, y + 5), 13, theme.MUTED, anchor="topright")
        sub = f"{line.kind} — {line.when(now)}"
        theme.text(surf, sub, (row.x + 22, y + 25), 12, theme.MUTED, max_width=row.w - 30)
        frame.add(row, "tournament_pick", line.tid)
        y += ROW_H


def draw_event(
    frame: Frame,
    area: pygame.Rect,
    book: TournamentBook,
    me: str | None,
    now: float,
    online: bool,
) -> None:
    """The event's head (name, what, when, Enter / Leave), standings, then its games."""
    surf = frame.surface
    event = book.shown
    assert event is not None
    line = event.line
    theme.text(surf, line.name, (area.x, area.y), 22, bold=True, max_width=area.w - 250)
    count = f"{line.players} {'entered' if line.status == 'open' else 'playing'}"
    info = f"{line.kind} — {line.when(now)} — {count}"
    theme.text(surf, info, (area.x, area.y + 32), 14, theme.MUTED, max_width=area.w)
    by = "the server's schedule" if line.schedule else (line.creator or "the operator")
    theme.text(surf, f"by {by}", (area.x, area.y + 52), 12, theme.MUTED, max_width=area.w)
    button = pygame.Rect(area.right - 230, area.y, 110, 30)
    if event.entered(me) and line.status != "finished":
        frame.button(button, "Leave", "tournament_leave", line.tid, kind="danger", enabled=online)
    elif line.status != "finished":
        frame.button(button, "Enter", "tournament_join", line.tid, kind="primary", enabled=online)
    half = (area.h - 84) // 2
    table = pygame.Rect(area.x, area.y + 78, area.w, half)
    bottom = draw_standings(surf, table, event, me)
    games = pygame.Rect(area.x, bottom + 16, area.w, area.bottom - bottom - 16)
    draw_games(frame, games, book, me, online)


def draw_standings(
    surf: pygame.Surface, rect: pygame.Rect, event: EventDetail, me: str | None
) -> int:
    """The server's standings, best first: rank, name, points and the format's figures (as
    many as fit in ``rect``); the y below the last line."""
    theme.text(surf, "STANDINGS", (rect.x, rect.y), 12, theme.MUTED, bold=True)
    y = rect.y + 20
    if not event.standings:
        theme.text(surf, "No one has played yet.", (rect.x, y), 14, theme.MUTED)
        y += LINE_H
    for s in event.standings:
        if y + LINE_H > rect.bottom:
            break
        colour = theme.ACCENT if s.player == me else theme.TEXT
        theme.text(surf, f"{s.rank}.", (rect.x + 24, y), 14, theme.MUTED, anchor="topright")
        name = event.name_of(s.player)
        state = event.entrants.get(s.player, ("", "in"))[1]
        if state != "in":
            name += f" ({state})"
        theme.text(surf, name, (rect.x + 34, y), 14, colour, max_width=rect.w // 2 - 40)
        theme.text(
            surf, f"{s.points:g}", (rect.x + rect.w // 2 + 30, y), 14, bold=True, anchor="topright"
        )
        theme.text(
            surf,
            s.detail,
            (rect.x + rect.w // 2 + 50, y),
            13,
            theme.MUTED,
            max_width=rect.w // 2 - 50,
        )
        y += LINE_H
    return y


def draw_games(
    frame: Frame, rect: pygame.Rect, book: TournamentBook, me: str | None, online: bool
) -> None:
    """The event's games, newest first, a screenful at a time ("Newer" / "Older" page through
    them, asking the server for its other pages): key, players, result; a live one's "Watch"
    opens it."""
    surf = frame.surface
    event = book.shown
    assert event is not None
    theme.text(surf, "GAMES", (rect.x, rect.y), 12, theme.MUTED, bold=True)
    fit = max(1, (rect.h - 20) // (LINE_H + 2))
    window = game_window(book, event, fit)
    y = rect.y + 20
    if window is None:
        theme.text(surf, "Loading games…", (rect.x, y), 14, theme.MUTED)
        return
    shown = event.games[window.start : window.start + fit]
    if shown:
        first = window.start + 1
        where = f"{first}-{first + len(shown) - 1} of {len(event.games)}" + (
            f" · page {event.page + 1} of {event.pages}" if event.pages > 1 else ""
        )
        theme.text(surf, where, (rect.x + 60, rect.y), 12, theme.MUTED)
    ways = (("Older", "older", window.older, 0), ("Newer", "newer", window.newer, 78))
    for label, way, target, x in ways:
        spot = pygame.Rect(rect.right - 72 - x, rect.y - 6, 72, 22)
        if window.older or window.newer:
            frame.button(
                spot, label, f"tournament_{way}", target, size=12,
                enabled=online and target is not None,
            )  # fmt: skip
    if not event.games:
        theme.text(surf, "No games yet.", (rect.x, y), 14, theme.MUTED)
    for game in shown:
        if y + LINE_H + 2 > rect.bottom:
            break
        first, second = (event.name_of(p) for p in game.players)
        mine = me in game.players
        theme.text(surf, game.key, (rect.x, y + 3), 13, theme.MUTED)
        vs = f"{first}  vs  {second}"
        colour = theme.ACCENT if mine else theme.TEXT
        theme.text(surf, vs, (rect.x + 60, y + 3), 14, colour, max_width=rect.w - 200)
        if game.result is not None:
            theme.text(surf, game.result, (rect.right - 8, y + 3), 14, bold=True, anchor="topright")
        elif game.room is not None:
            spot = pygame.Rect(rect.right - 80, y, 80, LINE_H - 2)
            action = "tournament_play" if mine else "tournament_game"
            frame.button(spot, "Play" if mine else "Watch", action, game.room, size=12)
        y += LINE_H + 2
