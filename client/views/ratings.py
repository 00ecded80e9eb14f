"""The leaderboard and profile scenes (a click on a name opens its profile)."""

from __future__ import annotations

from collections.abc import Sequence

import pygame

from client import theme
from client.account_actions import MAX_PAGES, BoardChoice
from client.labels import LABELS
from client.ratings import Leaderboard, Profile, pool_label
from client.views.common import HEADER_H
from client.views.lobby import finished_label, when
from client.widgets import Frame, panel

ROW_H = 26
#: A leaderboard page's rows (the server's page size).
PAGE_ROWS = 50


def scene_rect(size: tuple[int, int]) -> pygame.Rect:
    """The panel of a leaderboard or profile: the window below the header, with a margin."""
    w, h = size
    return pygame.Rect(16, HEADER_H + 16, w - 32, h - HEADER_H - 32)


def _back(frame: Frame, inner: pygame.Rect) -> None:
    frame.button(
        pygame.Rect(inner.right - 110, inner.y - 30, 110, 30), "Back (Esc)", "back", size=13
    )


def leaderboard_rows(size: tuple[int, int]) -> int:
    """How many rows of a page fit on screen (the rest scroll)."""
    inner = scene_rect(size).inflate(-24, -20)
    return max(1, (inner.h - 24 - 96 - 30 - 44) // ROW_H)


#: The leaderboard's columns: heading, x offset and anchor.
COLUMNS = (
    ("#", 40, "topright"),
    ("Name", 60, "topleft"),
    ("Rating", 380, "topright"),
    ("RD", 460, "topright"),
    ("Games", 560, "topright"),
)


def draw_leaderboard(
    frame: Frame, board: BoardChoice, page: Leaderboard | None, scroll: int
) -> None:
    """Pool choice (game, speed, players or bots), the ranked rows, and the page buttons."""
    surf = frame.surface
    inner = panel(surf, scene_rect(surf.get_size()), "Leaderboard")
    _back(frame, inner)
    y = _pool_choice(frame, inner, board)
    current = page is not None and (page.pool, page.bots, page.page) == (
        board.pool,
        board.bots,
        board.page,
    )
    shown = page if current else None
    _ranked_rows(frame, inner, y, board, shown, scroll)
    _page_buttons(frame, inner, board, shown is not None and len(shown.players) >= PAGE_ROWS)


def _pool_choice(frame: Frame, inner: pygame.Rect, board: BoardChoice) -> int:
    """The pool's game, players or bots, and speed buttons; the y below them."""
    surf = frame.surface
    x, y, w = inner.x, inner.y + 4, inner.w
    bw = (w - 3 * 8 - 200) // 4  # the server's pool games and speeds (welcome.labels)
    for i, (game, label) in enumerate(LABELS.pool_games.items()):
        frame.button(
            pygame.Rect(x + i * (bw + 8), y, bw, 32),
            label,
            "board_game",
            game,
            selected=board.game == game,
            size=14,
        )
    for i, (label, bots) in enumerate((("Players", False), ("Bots", True))):
        frame.button(
            pygame.Rect(inner.right - 196 + i * 100, y, 96, 32),
            label,
            "board_bots",
            bots,
            selected=board.bots == bots,
            size=14,
        )
    y += 40
    for i, speed in enumerate(LABELS.speeds):
        frame.button(
            pygame.Rect(x + i * (bw + 8), y, bw, 32),
            speed.capitalize(),
            "board_speed",
            speed,
            selected=board.speed == speed,
            size=14,
        )
    theme.text(
        surf,
        "RD \u2264 75, played in 30 days",
        (inner.right, y + 16),
        12,
        theme.MUTED,
        anchor="midright",
        max_width=196,
    )
    return y + 52


def _ranked_rows(
    frame: Frame,
    inner: pygame.Rect,
    y: int,
    board: BoardChoice,
    page: Leaderboard | None,
    scroll: int,
) -> None:
    """The column heads, then the page's rows from ``scroll`` on (None: still loading)."""
    surf = frame.surface
    x, w = inner.x, inner.w
    for label, cx, anchor in COLUMNS:
        theme.text(surf, label, (x + cx, y), 12, theme.MUTED, bold=True, anchor=anchor)
    y += 22
    pygame.draw.line(surf, theme.BORDER, (x, y - 4), (inner.right, y - 4))
    title = pool_label(board.pool) + (" bots" if board.bots else "")
    if page is None:
        theme.text(surf, f"Loading the {title} leaderboard…", (x, y + 8), 15, theme.MUTED)
        return
    if not page.players:
        what = "bots" if board.bots else "players"
        theme.text(surf, f"No ranked {what} in {title} yet.", (x, y + 8), 15, theme.MUTED)
        return
    rows = leaderboard_rows(surf.get_size())
    for i, row in enumerate(page.players[scroll : scroll + rows]):
        r = pygame.Rect(x - 6, y + i * ROW_H, min(w + 12, 600), ROW_H - 2)
        if frame.hovered(r):
            pygame.draw.rect(surf, theme.PANEL_HI, r, border_radius=5)
        frame.add(r, "profile", row.name)
        cy = r.y + 4
        rank, mark = ("?", "?") if row.provisional else (str(row.rank), "")
        theme.text(surf, rank, (x + 40, cy), 14, theme.MUTED, anchor="topright")
        theme.text(surf, row.name, (x + 60, cy), 14, theme.ACCENT, max_width=260)
        theme.text(surf, f"{row.rating}{mark}", (x + 380, cy), 14, bold=True, anchor="topright")
        theme.text(surf, str(row.rd), (x + 460, cy), 14, theme.MUTED, anchor="topright")
        theme.text(surf, str(row.games), (x + 560, cy), 14, theme.MUTED, anchor="topright")
    if len(page.players) > rows:
        shown = f"{scroll + 1}\u2013{min(len(page.players), scroll + rows)}"
        hint = f"rows {shown} of {len(page.players)} (scroll)"
        theme.text(surf, hint, (x + 360, inner.bottom - 18), 12, theme.MUTED, anchor="midleft")


def _page_buttons(frame: Frame, inner: pygame.Rect, board: BoardChoice, full: bool) -> None:
    """Previous and next page (a next one only after a full page, up to the server's last)."""
    x, by = inner.x, inner.bottom - 34
    frame.button(
        pygame.Rect(x, by, 110, 32),
        "\u2039 Previous",
        "board_page",
        board.page - 1,
        enabled=board.page > 0,
        size=13,
    )
    at = (x + 170, by + 16)
    theme.text(frame.surface, f"page {board.page + 1}", at, 13, theme.MUTED, anchor="center")
    frame.button(
        pygame.Rect(x + 230, by, 110, 32),
        "Next \u203a",
        "board_page",
        board.page + 1,
        enabled=full and board.page + 1 < MAX_PAGES,
        size=13,
    )


def draw_chart(
    surface: pygame.Surface, rect: pygame.Rect, points: Sequence[tuple[str, int]]
) -> None:
    """A rating history: one point per day, the rating axis labelled with its extremes."""
    pygame.draw.rect(surface, (26, 31, 40), rect, border_radius=8)
    if not points:
        theme.text(surface, "No rated games yet.", rect.center, 14, theme.MUTED, anchor="center")
        return
    values = [v for _d, v in points]
    lo, hi = min(values) - 20, max(values) + 20
    plot = rect.inflate(-70, -44).move(22, -4)
    for v in (lo + 20, hi - 20) if hi - lo > 40 else (lo + 20,):
        yy = plot.bottom - (v - lo) * plot.h // (hi - lo)
        pygame.draw.line(surface, theme.BORDER, (plot.x, yy), (plot.right, yy))
        theme.text(surface, str(v), (plot.x - 6, yy), 12, theme.MUTED, anchor="midright")
    n = len(points)
    xy = [
        (
            plot.x + (plot.w * i // (n - 1) if n > 1 else plot.w // 2),
            plot.bottom - (v - lo) * plot.h // (hi - lo),
        )
        for i, (_d, v) in enumerate(points)
    ]
    if len(xy) > 1:
        pygame.draw.lines(surface, theme.ACCENT, False, xy, 2)
    for p in xy:
        pygame.draw.circle(surface, theme.ACCENT, p, 3)
    theme.text(
        surface, points[0][0], (plot.x, rect.bottom - 8), 12, theme.MUTED, anchor="bottomleft"
    )
    if n > 1:
        theme.text(
            surface,
            points[-1][0],
            (plot.right, rect.bottom - 8),
            12,
            theme.MUTED,
            anchor="bottomright",
        )


def chart_pool(profile: Profile, chosen: str | None) -> str | None:
    """The pool charted: the one chosen, else the one with most games."""
    if chosen in profile.ratings or chosen in profile.history:
        return chosen
    if not profile.ratings:
        return next(iter(profile.history), None)
    return max(profile.ratings, key=lambda p: profile.ratings[p].games)


def draw_profile(
    frame: Frame,
    profile: Profile | None,
    wanted: str,
    chosen: str | None,
    loading: str | None,
    paged: bool = False,
) -> None:
    """A player's (or bot's) ratings, record, rating history and recent games."""
    surf = frame.surface
    inner = panel(surf, scene_rect(surf.get_size()), "Profile")
    _back(frame, inner)
    x, y, w = inner.x, inner.y + 2, inner.w
    if profile is None:
        theme.text(surf, f"Loading {wanted}'s profile…", (x, y + 8), 16, theme.MUTED)
        return
    r = theme.text(surf, profile.name or wanted, (x, y), 26, bold=True)
    tag = "bot" if profile.bot else "player"
    theme.text(surf, tag, (r.right + 12, r.bottom - 6), 14, theme.MUTED, anchor="bottomleft")
    y = r.bottom + 6
    rec = profile.record
    if profile.empty:
        theme.text(surf, "No rated games and no games on record.", (x, y + 6), 15, theme.MUTED)
        return
    dot = " \u00b7 "
    games = "1 game" if rec.played == 1 else f"{rec.played} games"
    line = f"{games}{dot}{rec.won} won{dot}{rec.drawn} drawn{dot}{rec.lost} lost"
    theme.text(surf, line, (x, y), 15)
    y += 34
    left_w = min(360, w // 2 - 10)
    pool = chart_pool(profile, chosen)
    ty = _pool_ratings(frame, (x, y), left_w, profile, pool)
    chart = pygame.Rect(x + left_w + 20, y, w - left_w - 20, 200)
    title = f"RATING HISTORY \u00b7 {pool_label(pool).upper()}" if pool else "RATING HISTORY"
    theme.text(surf, title, (chart.x, y), 12, theme.MUTED, bold=True)
    draw_chart(surf, chart.move(0, 22).inflate(0, -22), profile.history.get(pool or "", ()))
    y = max(ty, chart.bottom + 10) + 10
    _recent_games(frame, inner, y, profile, loading, paged)


def _pool_ratings(
    frame: Frame, at: tuple[int, int], left_w: int, profile: Profile, pool: str | None
) -> int:
    """The ratings, most games first, each a button charting its pool; the y below them."""
    surf = frame.surface
    x, y = at
    theme.text(surf, "RATINGS", (x, y), 12, theme.MUTED, bold=True)
    ty = y + 22
    if not profile.ratings:
        theme.text(surf, "Not rated yet.", (x, ty), 14, theme.MUTED)
    for name, rating in sorted(profile.ratings.items(), key=lambda kv: -kv[1].games)[:8]:
        row = pygame.Rect(x - 6, ty, left_w + 6, 24)
        if name == pool or frame.hovered(row):
            pygame.draw.rect(surf, theme.PANEL_HI, row, border_radius=5)
        frame.add(row, "profile_pool", name)
        theme.text(surf, pool_label(name), (x, ty + 4), 14, max_width=left_w - 170)
        theme.text(surf, rating.label, (x + left_w - 110, ty + 3), 15, bold=True, anchor="topright")
        theme.text(
            surf,
            f"RD {rating.rd} \u00b7 {rating.games} g",
            (x + left_w - 4, ty + 5),
            12,
            theme.MUTED,
            anchor="topright",
        )
        ty += 26
    return ty


def _recent_games(
    frame: Frame,
    inner: pygame.Rect,
    y: int,
    profile: Profile,
    loading: str | None,
    paged: bool,
) -> None:
    """The recent games as replay rows (those that fit), with newer/older page buttons."""
    surf = frame.surface
    x, w = inner.x, inner.w
    theme.text(surf, "RECENT GAMES \u00b7 REPLAY", (x, y), 12, theme.MUTED, bold=True)
    if paged or profile.more:  # the games come a page at a time
        frame.button(
            pygame.Rect(inner.right - 196, y - 6, 94, 24),
            "\u2039 Newer",
            "profile_newer",
            enabled=paged,
            size=12,
        )
        frame.button(
            pygame.Rect(inner.right - 94, y - 6, 94, 24),
            "Older \u203a",
            "profile_older",
            enabled=profile.more,
            size=12,
        )
    y += 24
    for game in profile.games:
        if y + 28 > inner.bottom:
            break
        row = pygame.Rect(x - 6, y, w + 12, 28)
        if frame.hovered(row):
            pygame.draw.rect(surf, theme.PANEL_HI, row, border_radius=6)
        frame.add(row, "replay", game.game_id)
        action = "Loading…" if loading == game.game_id else "Replay \u203a"
        right = theme.text(
            surf, action, (row.right - 8, row.centery), 14, theme.ACCENT, anchor="midright"
        )
        stamp = theme.text(
            surf,
            when(game.ended_at),
            (right.x - 16, row.centery),
            12,
            theme.MUTED,
            anchor="midright",
        )
        theme.text(
            surf,
            finished_label(game),
            (x + 2, row.centery),
            14,
            anchor="midleft",
            max_width=stamp.x - x - 20,
        )
        y += 30
    if not profile.games:
        theme.text(surf, "No finished games on record.", (x, y), 14, theme.MUTED)
