"""The side panel of a room: players and clocks, status, actions, move list and chat."""

from __future__ import annotations

from collections.abc import Sequence

import pygame

from client import theme
from client.analysis import Analysis
from client.ratings import pool_label
from client.room import RoomState
from client.values import Cell, ChatLine, GameInfo
from client.views.board import draw_mark, stone_sprite
from client.views.gameactions import draw_game_actions
from client.widgets import Frame, TextInput, draw_input, panel
from protocol.cells import cell_name


def seat_icon(
    surface: pygame.Surface, game: GameInfo, seat: int, center: tuple[int, int], r: int
) -> None:
    """A small stone (or X/O) showing a seat's colour."""
    if game.uses_marks:
        draw_mark(
            surface, seat, pygame.Rect(center[0] - r - 4, center[1] - r - 4, 2 * r + 8, 2 * r + 8)
        )
    else:
        surface.blit(stone_sprite(seat, r), (center[0] - r, center[1] - r))


COLOUR_NAMES = ("black", "white")
#: The opening's choices as button labels.
CHOICE_LABELS = {"black": "Take black", "white": "Take white", "place": "Place 2 more"}


def opening_line(room: RoomState) -> str | None:
    """What the opening phase asks of whom, or None outside an opening."""
    op = room.opening
    if op is None or op.phase == "done" or room.status != "playing" or op.actor is None:
        return None
    mine = room.seat == op.actor
    if op.phase == "place":
        colour = COLOUR_NAMES[room.ply & 1]
        who = "place" if mine else f"{room.name(op.actor)} places"
        return f"{op.rule}: {who} {op.left} more ({colour} next)"
    return f"{op.rule}: choose your colour" if mine else f"{op.rule}: {room.name(op.actor)} chooses"


def status_line(room: RoomState, now: float | None = None) -> tuple[str, theme.Color]:
    """The one sentence that says what is going on in ``room`` and its colour."""
    opening = opening_line(room)
    if opening is not None:
        return opening, theme.OK if room.my_turn else theme.MUTED
    if room.status == "waiting":
        return f"Waiting for an opponent — share code {room.room}", theme.WARN
    if room.status == "over":
        return (
            room.result_text(),
            theme.OK if room.result and room.result.winner == room.seat else theme.TEXT,
        )
    if room.my_turn and room.forbidden:
        return "Your turn (red x: forbidden)", theme.OK
    if room.my_turn:
        return "Your turn", theme.OK
    thinking = room.thinking(now) if now is not None else None
    if room.to_move is not None and thinking is not None:
        dots = "." * (1 + int(thinking * 2) % 3)
        return f"{room.name(room.to_move)} is thinking{dots:<3} {thinking:.0f} s", theme.WARN
    if room.to_move is not None:
        return f"{room.name(room.to_move)} to move", theme.MUTED
    return "", theme.MUTED


def _beside_name(room: RoomState, seat: int) -> tuple[str, theme.Color]:
    """What follows a seat's name: its rating (and, after a rated game, the change), or
    "(guest)" for a player without an account."""
    if not room.players[seat]:
        return "", theme.MUTED
    if room.guest(seat):
        return "(guest)", theme.MUTED
    change = room.change(seat)
    if change is not None:
        return str(change.after) + ("?" if change.provisional else ""), theme.TEXT
    rating = room.ratings[seat] if seat < len(room.ratings) else None
    return (rating.label, theme.MUTED) if rating is not None else ("", theme.MUTED)


def _player_card(
    frame: Frame, rect: pygame.Rect, room: RoomState, seat: int, now: float, live: bool
) -> None:
    """A seat's card: its colour, name and rating, what it is doing, and its clock."""
    surf = frame.surface
    active = room.status == "playing" and room.to_move == seat
    pygame.draw.rect(surf, theme.PANEL_HI, rect, border_radius=8)
    if active:
        pygame.draw.rect(surf, theme.ACCENT, rect, 2, border_radius=8)
    if room.colours is not None:
        seat_icon(surf, room.game, room.colour_of(seat), (rect.x + 22, rect.centery), 12)
    else:  # colours not chosen yet (swap opening)
        theme.text(surf, "?", (rect.x + 22, rect.centery), 18, theme.MUTED, anchor="center")
    _name_line(frame, rect, room, seat, active)
    detail, alarm = _seat_detail(room, seat, now, live)
    theme.text(surf, detail, (rect.x + 44, rect.y + 30), 12, theme.DANGER if alarm else theme.MUTED)
    if room.clocks is not None:
        left = room.clocks.left(seat, now)
        low = left < 10 and active
        theme.text(
            surf,
            theme.fmt_clock(left),
            (rect.right - 12, rect.centery),
            22,
            theme.DANGER if low else (theme.TEXT if active else theme.MUTED),
            bold=True,
            anchor="midright",
        )


def _name_line(frame: Frame, rect: pygame.Rect, room: RoomState, seat: int, active: bool) -> None:
    """The seat's name (a click opens its profile), its rating and a rated result's change."""
    surf = frame.surface
    name = room.name(seat)
    if seat == room.seat:
        name += " (you)"
    color = theme.TEXT if room.players[seat] else theme.MUTED
    clock_w = 86 if room.clocks else 0
    beside, beside_color = _beside_name(room, seat)
    room_for_name = rect.w - 56 - clock_w
    change = room.change(seat)
    delta = f"{change.delta:+d}".replace("-", "\u2212") if change is not None else ""
    if beside:
        room_for_name -= theme.font(13, True).size(f"{beside} {delta}")[0] + 8
    if seat == room.seat and theme.font(16, active).size(name)[0] > room_for_name:
        name = room.name(seat)  # a narrow panel: the rating matters more than "(you)"
    shown = theme.text(
        surf,
        name,
        (rect.x + 44, rect.y + 9),
        16,
        color,
        bold=active,
        max_width=max(40, room_for_name),
    )
    if beside:
        after = theme.text(
            surf,
            beside,
            (shown.right + 8, shown.bottom - 2),
            13,
            beside_color,
            bold=beside_color == theme.TEXT,
            anchor="bottomleft",
        )
        if change is not None:  # a rated game's result: how far the rating moved
            good = theme.OK if change.delta > 0 else theme.DANGER if change.delta else theme.MUTED
            theme.text(
                surf,
                delta,
                (after.right + 5, after.bottom),
                13,
                good,
                bold=True,
                anchor="bottomleft",
            )
    if room.players[seat] and not room.guest(seat) and room.accounts is not None:
        frame.add(shown, "profile", room.players[seat])  # a click on a name: its profile


def _seat_detail(room: RoomState, seat: int, now: float, live: bool) -> tuple[str, bool]:
    """Who sits there and what it is doing; and whether that is alarming (gone mid-game)."""
    detail = "bot" if seat < len(room.kinds) and room.kinds[seat] == "bot" else "human"
    if detail == "bot" and room.level is not None:
        detail += f" · level {room.level}"
    online = room.online[seat] if seat < len(room.online) else True
    over = room.status == "over"
    if room.players[seat] and not online:
        detail += " · left" if over else " · offline"  # after the game, leaving is normal
    if room.rematch[seat] and over:
        detail += " · wants a rematch"
    if live and room.to_move == seat and room.thinking(now) is not None:
        detail += " · thinking…"
    alarm = not online and not over and bool(room.players[seat])
    return detail, alarm


def draw_move_list(
    surface: pygame.Surface,
    rect: pygame.Rect,
    game: GameInfo,
    moves: Sequence[Cell],
    current: int | None = None,
) -> None:
    """Moves in pairs ("12. H8  J9"), scrolled so the latest (or ``current``) ply is visible."""
    line_h = 20
    rows = max(1, rect.h // line_h)
    total = (len(moves) + 1) // 2
    focus = (current if current is not None else len(moves)) - 1
    first = max(0, min(total - rows, focus // 2 - rows + 2)) if total > rows else 0
    col = rect.w // 2
    if not moves:
        theme.text(surface, "No moves yet", rect.topleft, 14, theme.MUTED)
    for row in range(first, min(total, first + rows)):
        y = rect.y + (row - first) * line_h
        theme.text(surface, f"{row + 1}.", (rect.x + 30, y), 14, theme.MUTED, anchor="topright")
        for side in (0, 1):
            ply = 2 * row + side
            if ply >= len(moves):
                break
            x = rect.x + 40 + side * (col - 20)
            label = cell_name(*moves[ply], game.height)
            is_cur = ply == focus
            if is_cur:
                pygame.draw.rect(
                    surface, theme.ACCENT_DARK, (x - 5, y - 1, 52, line_h - 2), border_radius=4
                )
            theme.text(surface, label, (x, y), 14, theme.TEXT if is_cur else (200, 205, 214))


def draw_chat(
    frame: Frame, rect: pygame.Rect, lines: Sequence[ChatLine], box: TextInput, focused: bool
) -> None:
    """The chat log (newest at the bottom) above its input box."""
    input_rect = pygame.Rect(rect.x, rect.bottom - 34, rect.w, 34)
    draw_input(
        frame,
        input_rect,
        box,
        focused=focused,
        placeholder="Say something… (Tab)",
        action="focus_chat",
    )
    log = pygame.Rect(rect.x, rect.y, rect.w, rect.h - 42)
    rendered: list[tuple[str, theme.Color]] = []
    for line in lines[-40:]:
        if line.system:
            rendered += [(t, theme.WARN) for t in theme.wrap(line.text, 13, log.w)]
        else:
            color = (theme.ACCENT, theme.TEXT, theme.MUTED)[line.seat if line.seat in (0, 1) else 2]
            rendered += [(t, color) for t in theme.wrap(f"{line.who}: {line.text}", 13, log.w)]
    y = log.bottom - 18
    for text, color in reversed(rendered):
        if y < log.y:
            break
        theme.text(frame.surface, text, (log.x, y), 13, color)
        y -= 18


def draw_room_panel(
    frame: Frame,
    rect: pygame.Rect,
    room: RoomState,
    now: float,
    chat: TextInput,
    chat_focused: bool,
    live: bool = True,
    hint: Analysis | None = None,
    hint_asked: bool = False,
) -> None:
    """The whole side panel for a room in play or finished (offline, no bot is said to think:
    this client cannot know)."""
    surf = frame.surface
    inner = panel(surf, rect)
    title = room.game.title + (f" · {room.opening.rule}" if room.opening else "")
    theme.text(surf, title, inner.topleft, 18, bold=True, max_width=inner.w - 90)
    theme.text(
        surf, f"room {room.room}", (inner.right, inner.y + 3), 13, theme.MUTED, anchor="topright"
    )
    y = inner.y + 30
    for seat in (0, 1):
        _player_card(frame, pygame.Rect(inner.x, y, inner.w, 50), room, seat, now, live)
        y += 58
    y = _room_status(surf, inner, y, room, now if live else None)
    y = _room_buttons(frame, inner, y, room)
    y = draw_game_actions(frame, inner, y, room, now, hint, hint_asked) if live else y
    _moves_and_chat(frame, inner, y, room, chat, chat_focused)


def _room_status(
    surf: pygame.Surface, inner: pygame.Rect, y: int, room: RoomState, now: float | None
) -> int:
    """What is going on, what the bot saw, and the watchers, move, game and kind of game;
    the y below them."""
    status, color = status_line(room, now)
    for line in theme.wrap(status, 15, inner.w, bold=True)[:2]:
        theme.text(surf, line, (inner.x, y), 15, color, bold=True)
        y += 20
    if room.seen and room.status == "playing":  # what the bot saw (a training game)
        for line in theme.wrap(room.seen, 12, inner.w)[:2]:
            theme.text(surf, line, (inner.x, y), 12, theme.MUTED)
            y += 16
    watchers = f"{room.spectators} watching · " if room.spectators else ""
    kind = (
        f" · rated {pool_label(room.pool)}"
        if room.rated and room.pool
        else (" · rated" if room.rated else " · casual" if room.accounts is not None else "")
    )
    kind = " · training" if room.hints else kind  # casual, with hints and takebacks
    theme.text(
        surf,
        f"{watchers}move {room.ply} · game {room.game_no}{kind}",
        (inner.x, y + 2),
        12,
        theme.MUTED,
        max_width=inner.w,
    )
    return y + 24


def _room_buttons(frame: Frame, inner: pygame.Rect, y: int, room: RoomState) -> int:
    """The opening's choices, then resign, rematch, replay and leave; the y below them."""
    if room.choosing and room.opening is not None:
        choices = room.opening.choices
        cw = (inner.w - 8 * (len(choices) - 1)) // max(1, len(choices))
        for i, choice in enumerate(choices):
            rect_i = pygame.Rect(inner.x + i * (cw + 8), y, cw, 34)
            frame.button(
                rect_i, CHOICE_LABELS.get(choice, choice), "choose", choice, kind="primary", size=14
            )
        y += 46
    buttons: list[tuple[str, str, str, bool]] = []
    if room.seat is not None and room.status == "playing":
        buttons.append(("Resign (R)", "resign", "danger", True))
    if room.seat is not None and room.status == "over" and not room.gone:
        other = 1 - room.seat
        here = bool(room.players[other]) and other < len(room.online) and room.online[other]
        asked = room.rematch[room.seat]
        label = "Rematch asked" if asked else "Rematch" if here else "Opponent left"
        buttons.append((label, "rematch", "primary", here))
    if room.status == "over":
        buttons.append(("Replay", "replay_current", "normal", True))
    buttons.append(("Leave (Esc)", "leave", "normal", True))
    bw = (inner.w - 8 * (len(buttons) - 1)) // len(buttons)
    for i, (label, action, kind, enabled) in enumerate(buttons):
        frame.button(
            pygame.Rect(inner.x + i * (bw + 8), y, bw, 34),
            label,
            action,
            kind=kind,
            enabled=enabled,
            size=14,
        )
    return y + 46


def _moves_and_chat(
    frame: Frame, inner: pygame.Rect, y: int, room: RoomState, chat: TextInput, focused: bool
) -> None:
    """The move list over 40 % of the room left, the chat under it."""
    surf = frame.surface
    rest = inner.bottom - y
    moves_h = max(60, int(rest * 0.4))
    theme.text(surf, "MOVES", (inner.x, y), 12, theme.MUTED, bold=True)
    draw_move_list(surf, pygame.Rect(inner.x, y + 20, inner.w, moves_h - 24), room.game, room.moves)
    y += moves_h + 4
    pygame.draw.line(surf, theme.BORDER, (inner.x, y), (inner.right, y))
    theme.text(surf, "CHAT", (inner.x, y + 8), 12, theme.MUTED, bold=True)
    draw_chat(
        frame,
        pygame.Rect(inner.x, y + 28, inner.w, inner.bottom - y - 28),
        room.chat,
        chat,
        focused,
    )
