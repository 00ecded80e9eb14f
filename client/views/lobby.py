"""The lobby: live room list, the "new game" panel, join by code, and finished games to replay."""

from __future__ import annotations

import time
from collections.abc import Sequence

import pygame

from client import theme
from client.forms import (
    OPENING_RULES,
    SWAP_GAMES,
    LobbyForm,
    rated,
    rated_block,
    training,
)
from client.labels import LABELS
from client.model import ClientModel
from client.ratings import pool_label, pool_of
from client.seeks import PairingChoice
from client.values import BotSummary, FinishedGame, HistoryRow, RoomSummary
from client.views.common import HEADER_H
from client.views.pairing import draw_pairing_panel
from client.widgets import Frame, TextInput, draw_input, panel
from client.words import result_text

RIGHT_W = 360
ROW_H = 44
FINISHED_ROW_H = 32
STATUS_COLORS = {"waiting": theme.WARN, "playing": theme.OK, "over": theme.MUTED}


def _opening_option(rule: str | None) -> tuple[str, str, object, bool]:
    """The opening-rule button: it shows the rule chosen (the line under it explains), and a
    click picks the next one."""
    rules = [r for r, _ in OPENING_RULES]
    at = rules.index(rule) if rule in rules else 0
    label = OPENING_RULES[at][1]
    return (label, "form_opening", rules[(at + 1) % len(rules)], rule is not None)


#: Each opening rule in one line, under its buttons (docs/RULES.md has the whole story).
RULE_LINES: dict[str | None, str] = {
    None: "Opening rule: none (black simply moves first).",
    "swap1": "Swap1: 3 stones are placed, then the other picks a colour.",
    "swap2": "Swap2: 3 stones; the other picks a colour or adds 2.",
}

#: The width of the "Hints" toggle beside the bot's level (a training game: hints, takebacks).
HINTS_W = 78
#: The width of the "Full strength" toggle beside "Bot" (the bot uses its whole clock, not a
#: human's pace).
FULL_W = 104
#: Vertical distance between two rows of choice buttons.
ROW_STEP = 38
#: Bots named in the form's one row beside "Any bot" (with more online, one place goes to a
#: "more" button that shows the next ones).
BOTS_PER_ROW = 3


def _room_row(frame: Frame, rect: pygame.Rect, row: RoomSummary, selected: bool) -> None:
    """One room: title and code, players, status chip, spectators, Join/Watch (right to left)."""
    surf = frame.surface
    hot = frame.hovered(rect)
    if selected or hot:
        pygame.draw.rect(surf, theme.PANEL_HI, rect, border_radius=6)
    if selected:
        pygame.draw.rect(surf, theme.ACCENT_DARK, rect, 1, border_radius=6)
    frame.add(rect, "room_click", row.room)
    cy = rect.centery
    x = rect.x + 10
    right = rect.right - 136  # the Join and Watch buttons
    if row.status == "waiting":
        frame.button(
            pygame.Rect(right, cy - 15, 62, 30), "Join", "join", row.room, kind="primary", size=14
        )
    frame.button(pygame.Rect(rect.right - 68, cy - 15, 62, 30), "Watch", "watch", row.room, size=14)
    if row.spectators and rect.w >= 620:
        right -= 84
        theme.text(
            surf, f"{row.spectators} watching", (right, cy), 12, theme.MUTED, anchor="midleft"
        )
    chip = pygame.Rect(0, 0, 74, 22)
    chip.midright = (right - 10, cy)
    color = STATUS_COLORS.get(row.status, theme.MUTED)
    pygame.draw.rect(surf, color, chip, 1, border_radius=11)
    theme.text(surf, row.status, chip.center, 12, color, anchor="center")
    title_w = 176 if rect.w >= 700 else 118
    title = row.title or LABELS.game(row.game)  # the server's title
    if row.opening_rule:
        title += f" · {row.opening_rule}"
    if row.rated:
        title += " · rated"
    theme.text(surf, title, (x, cy - 9), 15, bold=True, anchor="midleft", max_width=title_w)
    theme.text(surf, row.room, (x, cy + 10), 12, theme.MUTED, anchor="midleft")
    a, b = row.shown_name(0), row.shown_name(1)
    vs_x = x + title_w + 12
    theme.text(surf, f"{a} vs {b}", (vs_x, cy), 14, anchor="midleft", max_width=chip.x - vs_x - 8)


def _rooms_panel(frame: Frame, rect: pygame.Rect, model: ClientModel, selected: int) -> None:
    title = f"Open rooms ({len(model.lobby)})  \u00b7  \u2191\u2193 select, J join, W watch"
    _room_rows(frame, panel(frame.surface, rect, title), model, selected)


def _room_rows(frame: Frame, inner: pygame.Rect, model: ClientModel, selected: int) -> None:
    """The open rooms in ``inner`` (scrolled so the selected one shows), or a tip."""
    if not model.lobby:
        theme.text(frame.surface, "No rooms yet.", (inner.x, inner.y + 10), 17, bold=True)
        tip = "Start a game on the right: play a bot right away, or open a room and share its code."
        for i, line in enumerate(theme.wrap(tip, 14, inner.w)):
            theme.text(frame.surface, line, (inner.x, inner.y + 38 + 19 * i), 14, theme.MUTED)
        return
    rows = max(1, inner.h // ROW_H)
    first = max(0, min(selected - rows + 1, len(model.lobby) - rows))
    for i, row in enumerate(model.lobby[first : first + rows]):
        r = pygame.Rect(inner.x - 6, inner.y + i * ROW_H, inner.w + 12, ROW_H - 4)
        _room_row(frame, r, row, first + i == selected)


def when(ended_at: float | None, now: float | None = None) -> str:
    """A short local time for a finished game: ``14:05`` today, else ``12 Mar 14:05``."""
    if ended_at is None:
        return ""
    stamp = time.localtime(ended_at)
    today = time.localtime(time.time() if now is None else now)
    if stamp[:3] == today[:3]:
        return time.strftime("%H:%M", stamp)
    return time.strftime("%d %b %H:%M", stamp).lstrip("0")


def finished_label(row: HistoryRow | FinishedGame) -> str:
    """A finished game's row: game, players, result. No move count: the server's history rows
    carry none, so it showed only on games this client happened to see (and not after a
    reconnect): the replay shows the moves."""
    summary = result_text(row.result, row.players, row.game.k)
    return f"{row.game.title} · {row.players[0]} vs {row.players[1]} · {summary}"


def _finished_panel(
    frame: Frame, rect: pygame.Rect, model: ClientModel, scroll: int, loading: str | None
) -> None:
    """The finished games (the server's history, else those seen here), a row per game."""
    games = model.lobby_games()
    server = model.history_supported is True
    title = "Recent games on this server · replay" if server else "Finished games · replay"
    inner = panel(frame.surface, rect, title)
    if not games:
        tip = (
            "No finished games yet: they appear here for replay."
            if server
            else "Games you play or watch appear here for replay."
        )
        theme.text(frame.surface, tip, inner.topleft, 14, theme.MUTED)
        return
    rows = finished_rows(frame.surface.get_size())
    first = max(0, min(scroll, len(games) - rows))
    shown = games[first : first + rows]
    if first or first + rows < len(games) or model.history_more:
        older = len(games) - first - len(shown)
        more = (
            f"{older}{'+' if model.history_more else ''} older"
            if older or model.history_more
            else ""
        )
        hint = " · ".join(x for x in (f"{first} newer" if first else "", more) if x)
        theme.text(
            frame.surface,
            f"{hint}  (scroll)",
            (inner.right, rect.y + 10),
            12,
            theme.MUTED,
            anchor="topright",
        )
    for i, (row, _moves) in enumerate(shown):
        r = pygame.Rect(inner.x - 6, inner.y + i * FINISHED_ROW_H, inner.w + 12, 28)
        _finished_row(frame, r, row, loading)


def _finished_row(
    frame: Frame, r: pygame.Rect, row: HistoryRow | FinishedGame, loading: str | None
) -> None:
    """One finished game: its label, when it ended, and "Replay" (a click opens it)."""
    if frame.hovered(r):
        pygame.draw.rect(frame.surface, theme.PANEL_HI, r, border_radius=6)
    key = row.game_id
    frame.add(r, "replay", key)
    stamp = when(row.ended_at) if isinstance(row, HistoryRow) else "this session"
    action = "Loading…" if loading == key else "Replay \u203a"
    right = theme.text(
        frame.surface, action, (r.right - 8, r.centery), 14, theme.ACCENT, anchor="midright"
    )
    right_w = max(right.w, theme.font(14).size("Replay \u203a")[0])
    stamp_rect = theme.text(
        frame.surface,
        stamp,
        (r.right - 8 - right_w - 16, r.centery),
        12,
        theme.MUTED,
        anchor="midright",
    )
    theme.text(
        frame.surface,
        finished_label(row),
        (r.x + 8, r.centery),
        14,
        anchor="midleft",
        max_width=stamp_rect.x - r.x - 24,
    )


def _choice_row(
    frame: Frame, x: int, y: int, w: int, options: list[tuple[str, str, object, bool]]
) -> int:
    """Buttons side by side; the font shrinks (13 to 11) until every label fits its button, and
    when even 11 does not fit, the buttons wrap onto a second row. Returns the height added."""
    gap = 6
    per_row = _per_row(options, w)
    bw = (w - gap * (per_row - 1)) // per_row
    size = _label_size(options, bw - 10) or 11
    for i, (label, action, arg, selected) in enumerate(options):
        row, col = divmod(i, per_row)
        rect = pygame.Rect(x + col * (bw + gap), y + row * ROW_STEP, bw, 32)
        frame.button(rect, label, action, arg, selected=selected, size=size)
    return ROW_STEP * ((len(options) - 1) // per_row)


def _per_row(options: list[tuple[str, str, object, bool]], w: int, gap: int = 6) -> int:
    """How many of ``options`` a row ``w`` wide holds: all, or half when the labels do not fit."""
    per_row = len(options)
    fits = _label_size(options, (w - gap * (per_row - 1)) // per_row - 10) is not None
    if not fits and per_row > 2:
        per_row = (per_row + 1) // 2
    return per_row


#: Between the buttons of a fitted row, and around each label.
FIT_GAP, FIT_PAD = 4, 12


def _fitted_size(options: list[tuple[str, str, object, bool]], w: int) -> int | None:
    """The largest font size (13 to 11) at which ``options`` fit one row ``w`` wide with each
    button as wide as its label (many short labels: the server's clocks), or None."""
    for size in (13, 12, 11):
        widths = sum(theme.font(size).size(o[0])[0] + FIT_PAD for o in options)
        if widths + FIT_GAP * (len(options) - 1) <= w:
            return size
    return None


def _fitted_row(
    frame: Frame, x: int, y: int, w: int, options: list[tuple[str, str, object, bool]]
) -> int:
    """Buttons side by side, each as wide as its label and the room left shared out; when
    they do not fit one row, a :func:`_choice_row`. Returns the height added."""
    size = _fitted_size(options, w)
    if size is None:
        return _choice_row(frame, x, y, w, options)
    need = [theme.font(size).size(o[0])[0] + FIT_PAD for o in options]
    spare = (w - sum(need) - FIT_GAP * (len(options) - 1)) // len(options)
    for (label, action, arg, selected), width in zip(options, need, strict=True):
        rect = pygame.Rect(x, y, width + spare, 32)
        frame.button(rect, label, action, arg, selected=selected, size=size)
        x += rect.w + FIT_GAP
    return 0


def _label_size(options: list[tuple[str, str, object, bool]], room: int) -> int | None:
    """The largest font size (13 to 11) at which every label is at most ``room`` wide."""
    return next(
        (s for s in (13, 12, 11) if all(theme.font(s).size(o[0])[0] <= room for o in options)),
        None,
    )


def _stepper(frame: Frame, x: int, y: int, label: str, value: str, field: str) -> None:
    theme.text(frame.surface, label, (x, y + 16), 13, theme.MUTED, anchor="midleft")
    bx = x + 52
    frame.button(pygame.Rect(bx, y + 2, 28, 28), "\u2212", "form_step", (field, -1), size=16)
    theme.text(frame.surface, value, (bx + 52, y + 16), 16, bold=True, anchor="center")
    frame.button(pygame.Rect(bx + 76, y + 2, 28, 28), "+", "form_step", (field, 1), size=16)


def _new_game_panel(
    frame: Frame,
    rect: pygame.Rect,
    form: LobbyForm,
    model: ClientModel,
) -> None:
    """The "new game" form; in a short window the captions go, so every control still fits."""
    surf = frame.surface
    inner = panel(surf, rect, "New game")
    x, w, y = inner.x, inner.w, inner.y
    clocks = [(label, "form_clock", i, form.clock == i) for i, label in enumerate(form.clock_texts)]
    two_rows = _fitted_size(clocks, w) is None and _per_row(clocks, w) < len(clocks)
    compact = inner.h < 400
    extra = 2 * ROW_STEP * (two_rows + (form.game == "mnk"))  # the board's size rows too
    terse = compact or (extra > 0 and inner.h < 400 + extra)  # the captions go for room
    y = _game_rows(frame, x, y, w, form, terse)
    swap = form.game in SWAP_GAMES and form.opening_rule is not None
    y += _caption(surf, "Opponent", (x, y), not terse)
    y = _opponent_rows(frame, x, y, w, form, model)
    seat = "Your seat (colours come from the opening)" if swap else "You play"
    y += _caption(surf, seat, (x, y), not terse)
    y = _seat_row(frame, x, y, w, form, swap)
    y += _caption(surf, f"Clock \u00b7 {_rated_note(form, model)}", (x, y), not compact)
    y += _fitted_row(frame, x, y, w, clocks)  # the server's clocks: two rows if need be
    y += 40 if terse else 46  # a small window: the opening rule's line takes this
    y = _create_row(frame, x, y, w, form, model)
    tips = (
        "In a game: click or use the arrow keys and Enter to play, N shows move numbers, "
        "R resigns, Tab chats, Esc leaves."
    )
    lines = theme.wrap(tips, 13, w)
    if y + 18 * len(lines) <= inner.bottom:  # all of it or nothing: half a tip confuses
        for line in lines:
            theme.text(surf, line, (x, y), 13, theme.MUTED)
            y += 18


def _caption(surf: pygame.Surface, text: str, at: tuple[int, int], shown: bool) -> int:
    """A control's caption (when there is room for it); the height it took."""
    if not shown:
        return 0
    theme.text(surf, text, at, 13, theme.MUTED)
    return 20


def _game_rows(frame: Frame, x: int, y: int, w: int, form: LobbyForm, terse: bool) -> int:
    """The games offered with the opening rule's button and line, then a custom board's size;
    the y below them."""
    surf = frame.surface
    games = [(label, "form_game", name, form.game == name) for name, label in LABELS.offered()]
    if form.game in SWAP_GAMES:  # the opening rule: one button that steps through the rules
        games.append(_opening_option(form.opening_rule))
    y += (38 if terse else 42) + _choice_row(frame, x, y, w, games)
    if form.game in SWAP_GAMES:  # ... and a line that names it and says what it does
        theme.text(surf, RULE_LINES[form.opening_rule], (x, y - 6), 11, theme.MUTED, max_width=w)
        y += 12
    if form.game == "mnk":
        _stepper(frame, x, y, "width", str(form.width), "width")
        _stepper(frame, x + w // 2 + 10, y, "height", str(form.height), "height")
        y += 34 if terse else 36
        _stepper(frame, x, y, "k", str(form.k), "k")
        frame.button(
            pygame.Rect(x + w // 2 + 10, y + 2, w // 2 - 10, 28),
            "exact k" if form.exact else "k or more",
            "form_exact",
            selected=form.exact,
            size=13,
        )
        y += 34 if terse else 40  # a short window: rows closer
    return y


def _opponent_rows(
    frame: Frame, x: int, y: int, w: int, form: LobbyForm, model: ClientModel
) -> int:
    """Bot or human (a bot at full strength or not, and which bot); the y below them."""
    opponents = [("Bot", "bot"), ("Human", "human")]
    row_w = w - FULL_W - 8 if form.opponent == "bot" else w  # beside it: the bot's full strength
    _choice_row(
        frame, x, y, row_w, [(lab, "form_opponent", v, form.opponent == v) for lab, v in opponents]
    )
    if form.opponent == "bot":
        full = pygame.Rect(x + w - FULL_W, y, FULL_W, 32)
        label = "\u2713 Full strength" if form.full_strength else "Full strength"
        frame.button(full, label, "form_full", selected=form.full_strength, size=12)
    y += 40
    if form.opponent == "bot":
        y = _bot_rows(frame, x, y, w, form, model.bots)
    return y


def _seat_row(frame: Frame, x: int, y: int, w: int, form: LobbyForm, swap: bool) -> int:
    """Which seat (colour, or opener and chooser under a swap opening); the y below it."""
    names = ("X (first)", "O (second)") if form.game == "tictactoe" else ("Black (first)", "White")
    if swap:  # the opening decides the colours: the seat says who opens
        names = ("Opener", "Chooser")
    seats = [(names[0], 0), (names[1], 1), ("Random", None)]
    _choice_row(frame, x, y, w, [(lab, "form_seat", s, form.seat == s) for lab, s in seats])
    return y + 40


def _create_row(frame: Frame, x: int, y: int, w: int, form: LobbyForm, model: ClientModel) -> int:
    """Rated (when the account and the pool allow it) and the create button; the y below."""
    label = "Play the bot" if form.opponent == "bot" else "Open a room"
    block = rated_block(form, model.account, model.rating_pools)
    frame.button(
        pygame.Rect(x, y, 96, 42),
        ("\u2713 Rated" if form.rated and block is None else "Rated"),
        "form_rated",
        selected=form.rated and block is None,
        enabled=block is None,
        size=14,
    )
    frame.button(
        pygame.Rect(x + 104, y, w - 104, 42), f"{label}  (Enter)", "create", kind="primary", size=16
    )
    return y + 62


def _rated_note(form: LobbyForm, model: ClientModel) -> str:
    """Rated or casual, and why (under the clock: a rated game needs one), with our rating."""
    if training(form):
        return "training: hints and takebacks, casual"
    block = rated_block(form, model.account, model.rating_pools)
    if block is not None:
        return block.replace(": log in.", " (log in)").rstrip(".").lower()
    pool = pool_of(model.rating_pools, form.game, form.chosen_clock)
    if not rated(form, model.account, model.rating_pools) or not pool:
        return "casual"
    mine = model.ratings.get(pool)
    return f"rated: {pool_label(pool)}" + (f", you {mine.label}" if mine is not None else "")


def _bot_rows(
    frame: Frame, x: int, y: int, w: int, form: LobbyForm, bots: Sequence[BotSummary]
) -> int:
    """Which bot: any bot at a level (stepper and bar), or one picked by name; the next y."""
    surf = frame.surface
    picked = next((b for b in bots if b.name == form.bot), None)
    hints = pygame.Rect(x + w - HINTS_W, y + 2, HINTS_W, 28)
    frame.button(
        hints,
        "\u2713 Hints" if form.hints else "Hints",
        "form_hints",
        selected=form.hints,
        size=13,
    )
    w -= HINTS_W + 12
    if picked is None or picked.level is None:
        _stepper(frame, x, y, "level", str(form.level), "level")
        bar = pygame.Rect(x + 170, y + 12, w - 170, 8)
        pygame.draw.rect(surf, theme.PANEL_HI, bar, border_radius=4)
        pygame.draw.rect(
            surf, theme.ACCENT, (bar.x, bar.y, bar.w * form.level // 10, bar.h), border_radius=4
        )
    else:
        fixed = f"{picked.name} plays level {picked.level}" if picked.level else "no levels"
        theme.text(surf, fixed, (x, y + 16), 13, theme.MUTED, anchor="midleft", max_width=w)
    y += 40
    options: list[tuple[str, str, object, bool]] = [("Any bot", "form_bot", None, picked is None)]
    per_page = BOTS_PER_ROW if len(bots) <= BOTS_PER_ROW else BOTS_PER_ROW - 1
    pages = max(1, -(-len(bots) // per_page))
    page = form.bot_page % pages
    for bot in bots[page * per_page : (page + 1) * per_page]:
        label = f"{bot.name} · {bot.level}" if bot.level else bot.name
        options.append((label, "form_bot", bot.name, bot is picked))
    if pages > 1:  # every bot online can be picked: the last button shows the next few
        options.append((f"more {page + 1}/{pages}", "bot_page", (page + 1) % pages, False))
    _choice_row(frame, x, y, w + HINTS_W + 12, options)
    return y + 40


def _join_panel(
    frame: Frame,
    rect: pygame.Rect,
    code: TextInput,
    server: TextInput,
    focus: str | None,
    url: str = "",
) -> None:
    """Join a room by its code, or connect to another server by its address."""
    inner = panel(frame.surface, rect, "Join by code · server")
    box = pygame.Rect(inner.x, inner.y, inner.w - 148, 34)
    draw_input(
        frame,
        box,
        code,
        focused=focus == "code",
        placeholder="room code",
        action="focus_code",
    )
    frame.button(
        pygame.Rect(box.right + 8, inner.y, 66, 34), "Join", "join_code", kind="primary", size=14
    )
    frame.button(pygame.Rect(box.right + 80, inner.y, 66, 34), "Watch", "watch_code", size=14)
    box = pygame.Rect(inner.x, inner.y + 42, inner.w - 94, 34)
    draw_input(
        frame,
        box,
        server,
        focused=focus == "server",
        placeholder=url or "ws://host:8765",
        action="focus_server",
        size=14,
    )
    frame.button(pygame.Rect(box.right + 8, box.y, 86, 34), "Connect", "connect", size=14)


def lobby_layout(size: tuple[int, int]) -> dict[str, pygame.Rect]:
    """Where each lobby panel goes in a window of ``size``."""
    w, h = size
    top = HEADER_H + 16
    right_w = min(RIGHT_W, max(320, w // 3))
    left_w = w - right_w - 48
    finished_h = max(110, min(220, (h - top) // 3))
    join_h = 136
    return {
        "rooms": pygame.Rect(16, top, left_w, h - top - finished_h - 32),
        "finished": pygame.Rect(16, h - finished_h - 16, left_w, finished_h),
        "new": pygame.Rect(w - right_w - 16, top, right_w, h - top - join_h - 32),
        "join": pygame.Rect(w - right_w - 16, h - join_h - 16, right_w, join_h),
    }


def finished_rows(size: tuple[int, int]) -> int:
    """How many finished games the lobby shows at once in a window of ``size``."""
    inner_h = lobby_layout(size)["finished"].h - 20 - 24  # see widgets.panel
    return max(1, inner_h // FINISHED_ROW_H)


def draw_lobby(
    frame: Frame,
    model: ClientModel,
    form: LobbyForm,
    code: TextInput,
    server: TextInput,
    focus: str | None,
    selected: int,
    history_scroll: int = 0,
    loading: str | None = None,
    url: str = "",
    pairing: PairingChoice | None = None,
    now: float = 0.0,
) -> None:
    """The whole lobby scene (below the header); ``loading`` is a game id being fetched;
    ``pairing`` (the app's) puts the open rooms under a tab beside Quick pairing."""
    layout = lobby_layout(frame.surface.get_size())
    if pairing is None or model.seeks.supported is False:  # a server that does not pair
        _rooms_panel(frame, layout["rooms"], model, selected)
    else:

        def rooms(frame: Frame, inner: pygame.Rect) -> None:
            _room_rows(frame, inner, model, selected)

        draw_pairing_panel(frame, layout["rooms"], model, pairing, now, rooms)
    _finished_panel(frame, layout["finished"], model, history_scroll, loading)
    _new_game_panel(frame, layout["new"], form, model)
    _join_panel(frame, layout["join"], code, server, focus, url)
