"""The lobby's pairing panel: tabs for Quick pairing (the pools as tiles, or the custom seek
form), the open seeks (paged, with Accept) and the open rooms; our seeks waiting at its foot."""

from __future__ import annotations

from collections.abc import Callable

import pygame

from client import theme
from client.labels import LABELS
from client.model import ClientModel
from client.seeks import (
    BOT_AFTER,
    PairingChoice,
    PoolTile,
    Seek,
    SeekBook,
    SeekForm,
    elapsed,
    own_rating,
    seek_games,
)
from client.widgets import Frame

TAB_H = 30
TILE_MAX_W = 150
SEEK_ROW_H = 36
STRIP_H = 40


def draw_pairing_panel(
    frame: Frame,
    rect: pygame.Rect,
    model: ClientModel,
    choice: PairingChoice,
    now: float,
    rooms: Callable[[Frame, pygame.Rect], None],
) -> None:
    """The tabs, the tab's content, and a line per seek of ours waiting (``rooms`` draws the
    open rooms' tab in the area it is given)."""
    surf = frame.surface
    pygame.draw.rect(surf, theme.PANEL, rect, border_radius=10)
    inner = rect.inflate(-24, -20)
    book = model.seeks
    tabs = (
        ("quick", "Quick pairing"),
        ("seeks", f"Open seeks ({len(book.rows)}{'+' if book.next is not None else ''})"),
        ("rooms", f"Open rooms ({len(model.lobby)})"),
    )
    x = inner.x
    for tab, label in tabs:
        w = theme.font(14, True).size(label)[0] + 28
        selected = choice.tab == tab
        frame.button(
            pygame.Rect(x, inner.y, w, TAB_H), label, "lobby_tab", tab, selected=selected, size=14
        )
        x += w + 8
    body = pygame.Rect(inner.x, inner.y + TAB_H + 12, inner.w, inner.h - TAB_H - 12)
    waiting = sorted(book.mine.values(), key=lambda s: s.since)
    if waiting:
        body.h -= STRIP_H * len(waiting) + 4
        for i, own in enumerate(waiting):
            strip = pygame.Rect(inner.x, body.bottom + 4 + i * STRIP_H, inner.w, STRIP_H - 6)
            pygame.draw.rect(surf, theme.PANEL_HI, strip, border_radius=8)
            pygame.draw.rect(surf, theme.ACCENT, strip, 1, border_radius=8)
            theme.text(
                surf,
                f"Seeking {own.seek.terms} \u00b7 {elapsed(now - own.since)}",
                (strip.x + 12, strip.centery),
                15,
                bold=True,
                anchor="midleft",
                max_width=strip.w - 130,
            )
            button = pygame.Rect(strip.right - 96, strip.y + 4, 90, strip.h - 8)
            frame.button(button, "Cancel", "cancel_seek", own.seek.seek, kind="danger", size=14)
    if choice.tab == "rooms":
        rooms(frame, body)
    elif choice.tab == "seeks":
        _open_seeks(frame, body, model)
    elif choice.custom:
        _custom_form(frame, body, model, choice)
    else:
        _tiles(frame, body, model, choice, now)


def _game_row(frame: Frame, x: int, y: int, w: int, game: str, action: str) -> None:
    """One button per game a seek may name."""
    games = seek_games()  # the server's (welcome.labels): none before it said them
    bw = (w - 6 * (len(games) - 1)) // max(1, len(games))
    for i, (name, label) in enumerate(games):
        rect = pygame.Rect(x + i * (bw + 6), y, bw, 30)
        frame.button(rect, label, action, name, selected=game == name, size=13)


def _tiles(
    frame: Frame, body: pygame.Rect, model: ClientModel, choice: PairingChoice, now: float
) -> None:
    """The chosen game's pools as tiles (rated row, casual row) and the custom seek button."""
    surf, book = frame.surface, model.seeks
    custom_w = 150
    _game_row(frame, body.x, body.y, body.w - custom_w - 12, choice.game, "seek_game")
    frame.button(
        pygame.Rect(body.right - custom_w, body.y, custom_w, 30),
        "Custom seek\u2026",
        "custom_open",
        True,
        size=13,
    )
    tiles = book.tiles(choice.game)
    top = body.y + 42
    if not tiles:
        words = "Loading the pools\u2026" if book.supported is None else "No pools for this game."
        theme.text(surf, words, (body.x, top + 6), 15, theme.MUTED)
        return
    rows = [[t for t in tiles if t.rated], [t for t in tiles if not t.rated]]
    rows = [r for r in rows if r]
    cols = max(len(r) for r in rows)
    gap = 10
    tile_w = min(TILE_MAX_W, (body.w - gap * (cols - 1)) // cols)
    tile_h = max(56, min(92, (body.bottom - top - 26) // len(rows) - gap))
    for r, row in enumerate(rows):
        for c, tile in enumerate(row):
            rect = pygame.Rect(
                body.x + c * (tile_w + gap), top + r * (tile_h + gap), tile_w, tile_h
            )
            _tile(frame, rect, tile, book, model.account, now)
    hint = "Click a tile to seek: players of close ratings are paired every 2 s. Again: cancel."
    y = top + len(rows) * (tile_h + gap)
    if y + 16 <= body.bottom:
        theme.text(surf, hint, (body.x, y + 2), 13, theme.MUTED, max_width=body.w)


def _tile(
    frame: Frame, rect: pygame.Rect, tile: PoolTile, book: SeekBook, account: bool, now: float
) -> None:
    """One pool: its clock big, rated or casual, how many wait, and our seek in it."""
    surf = frame.surface
    mine = book.seeking_in(tile.pool)
    usable = account or not tile.rated
    hot = usable and frame.hovered(rect)
    fill = theme.ACCENT_DARK if mine is not None else (theme.BORDER if hot else theme.PANEL_HI)
    pygame.draw.rect(surf, fill if usable else theme.PANEL, rect, border_radius=10)
    if not usable:
        pygame.draw.rect(surf, theme.BORDER, rect, 1, border_radius=10)
    if mine is not None or book.placing(tile.pool):
        pygame.draw.rect(surf, theme.ACCENT, rect, 2, border_radius=10)
    fg = theme.TEXT if usable else theme.MUTED
    cx = rect.centerx
    theme.text(
        surf,
        tile.label,
        (cx, rect.y + 8),
        24 if rect.h >= 76 else 20,
        fg,
        bold=True,
        anchor="midtop",
    )
    mode = "Rated" if tile.rated else "Casual"
    theme.text(surf, mode, (cx, rect.bottom - 30), 13, fg, anchor="midbottom")
    if mine is not None:
        status, color = f"seeking {elapsed(now - mine.since)}", theme.TEXT
    elif book.placing(tile.pool):
        status, color = "placing\u2026", theme.ACCENT
    elif not usable:
        status, color = "log in to play", theme.WARN
    elif tile.waiting:
        status, color = f"{tile.waiting} waiting", theme.OK
    else:
        status, color = "nobody waiting", theme.MUTED
    theme.text(
        surf, status, (cx, rect.bottom - 10), 12, color, anchor="midbottom", max_width=rect.w - 8
    )
    if usable:
        frame.add(rect, "seek_tile", tile.pool)


def _open_seeks(frame: Frame, body: pygame.Rect, model: ClientModel) -> None:
    """The open seeks page: who, rating, game, clock, rated, range; Accept (or Cancel ours)."""
    surf, book = frame.surface, model.seeks
    cols = (("Player", 0), ("Rating", 200), ("Game", 270), ("Clock", 380), ("Mode", 440))
    for label, dx in cols:
        theme.text(surf, label, (body.x + dx, body.y), 12, theme.MUTED, bold=True)
    y = body.y + 20
    pygame.draw.line(surf, theme.BORDER, (body.x, y), (body.right, y))
    y += 6
    pager_y = body.bottom - 32
    if not book.rows:
        words = "No open seeks." if book.page == 0 else "No more seeks on this page."
        theme.text(surf, words, (body.x, y + 8), 16, bold=True)
        tip = "Click a tile in Quick pairing to seek a game: your seek shows here for others."
        theme.text(surf, tip, (body.x, y + 34), 14, theme.MUTED, max_width=body.w)
    row_h = max(28, min(SEEK_ROW_H, (pager_y - y - 4) // max(1, len(book.rows))))
    for seek in book.rows:
        if y + row_h > pager_y:
            break
        _seek_row(frame, body, pygame.Rect(body.x - 6, y, body.w + 12, row_h - 4), seek, model)
        y += row_h
    _seeks_pager(frame, body, pager_y, book)


def _seek_row(
    frame: Frame, body: pygame.Rect, row: pygame.Rect, seek: Seek, model: ClientModel
) -> None:
    """One open seek in the columns, and Accept (Cancel when it is ours)."""
    surf, book = frame.surface, model.seeks
    if frame.hovered(row):
        pygame.draw.rect(surf, theme.PANEL_HI, row, border_radius=6)
    cy = row.centery
    name = seek.name + (" (bot)" if seek.kind == "bot" else "")
    theme.text(surf, name, (body.x, cy), 15, bold=True, anchor="midleft", max_width=190)
    theme.text(surf, seek.rating_label, (body.x + 200, cy), 14, anchor="midleft")
    game = LABELS.button(seek.game)
    theme.text(surf, game, (body.x + 270, cy), 14, anchor="midleft", max_width=104)
    theme.text(surf, seek.clock_text, (body.x + 380, cy), 14, bold=True, anchor="midleft")
    mode = "rated" if seek.rated else "casual"
    if seek.range is not None:
        mode += f" {seek.range[0]}\u2013{seek.range[1]}"
    theme.text(
        surf,
        mode,
        (body.x + 440, cy),
        13,
        theme.MUTED,
        anchor="midleft",
        max_width=row.right - body.x - 550,
    )
    button = pygame.Rect(row.right - 96, row.y + 2, 90, row.h - 4)
    if seek.player == model.player or seek.seek in book.mine:
        frame.button(button, "Cancel", "cancel_seek", seek.seek, size=13)
    else:
        frame.button(button, "Accept", "accept_seek", seek.seek, kind="primary", size=13)


def _seeks_pager(frame: Frame, body: pygame.Rect, pager_y: int, book: SeekBook) -> None:
    """Previous and next page of the open seeks (next while the server says there is one)."""
    surf = frame.surface
    frame.button(
        pygame.Rect(body.x, pager_y, 110, 30),
        "\u2039 Previous",
        "seeks_page",
        -1,
        enabled=book.page > 0,
        size=13,
    )
    theme.text(
        surf,
        f"page {book.page + 1}",
        (body.x + 170, pager_y + 15),
        13,
        theme.MUTED,
        anchor="center",
    )
    frame.button(
        pygame.Rect(body.x + 230, pager_y, 110, 30),
        "Next \u203a",
        "seeks_page",
        1,
        enabled=book.next is not None and book.page_request is None,
        size=13,
    )


def _stepper(frame: Frame, x: int, y: int, label: str, value: str, what: str, width: int) -> None:
    """``label  [-] value [+]``: each button steps the form's ``what``."""
    surf = frame.surface
    theme.text(surf, label, (x, y + 15), 13, theme.MUTED, anchor="midleft")
    bx = x + 70
    frame.button(pygame.Rect(bx, y, 30, 30), "\u2212", "custom_step", (what, -1), size=16)
    theme.text(
        surf,
        value,
        (bx + 30 + (width - 60) // 2, y + 15),
        15,
        bold=True,
        anchor="center",
        max_width=width - 64,
    )
    frame.button(pygame.Rect(bx + width - 30, y, 30, 30), "+", "custom_step", (what, 1), size=16)


def _custom_form(
    frame: Frame, body: pygame.Rect, model: ClientModel, choice: PairingChoice
) -> None:
    """Game, clock, rated, rating range and "play a bot after", then Seek (or Back)."""
    surf, form = frame.surface, choice.form
    x, y, w = body.x, body.y, body.w
    theme.text(surf, "CUSTOM SEEK", (x, y + 6), 13, theme.ACCENT, bold=True)
    _game_row(frame, x + 120, y, w - 120, form.game, "seek_game")
    y += 40
    clock = form.chosen_clock
    step_w = min(240, w - 300)
    _clock_and_rated(frame, body, y, step_w, model, form)
    y += 38
    width = form.width
    if not model.account or not width:
        span = "any rating"
    else:
        mine = own_rating(model.ratings, model.rating_pools, form.game, clock)
        span = f"\u00b1{width} ({max(0, mine - width)}\u2013{min(4000, mine + width)})"
    _stepper(frame, x, y, "Opponent", span, "range", step_w)
    y += 38
    delay = BOT_AFTER[form.bot_after]
    words = f"after {delay} s" if delay else "never"
    _stepper(frame, x, y, "A bot", words, "bot_after", step_w)
    y += 40
    note = (
        "A rating range needs an account (a guest has no rating)."
        if not model.account
        else 'The range keeps opponents near your rating; "a bot" seats one if nobody comes.'
    )
    theme.text(surf, note, (x, y), 13, theme.MUTED, max_width=w)
    y += 22
    frame.button(pygame.Rect(x, y, 110, 38), "Back", "custom_open", False, size=14)
    frame.button(
        pygame.Rect(x + 120, y, w - 120, 38),
        "Seek this game",
        "custom_seek",
        kind="primary",
        size=15,
    )


def _clock_and_rated(
    frame: Frame, body: pygame.Rect, y: int, step_w: int, model: ClientModel, form: SeekForm
) -> None:
    """The clock's stepper, Rated (an account's, with a clock) and what the seek will be."""
    surf, x = frame.surface, body.x
    clock = form.chosen_clock
    clock_words = form.chosen_text if clock is not None else "no clock"
    _stepper(frame, x, y, "Clock", clock_words, "clock", step_w)
    rated_ok = model.account and clock is not None
    rx = x + 70 + step_w + 16
    frame.button(
        pygame.Rect(rx, y, 96, 30),
        "\u2713 Rated" if form.rated and rated_ok else "Rated",
        "custom_rated",
        selected=form.rated and rated_ok,
        enabled=model.account,
        size=13,
    )
    why = (
        "guests: casual"
        if not model.account
        else ("rated" if rated_ok and form.rated else "casual")
    )
    theme.text(
        surf,
        why,
        (rx + 106, y + 15),
        13,
        theme.MUTED,
        anchor="midleft",
        max_width=body.right - rx - 106,
    )
