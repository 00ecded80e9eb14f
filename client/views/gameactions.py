"""The game-action part of a room's side panel: the opponent's offer with Accept / Decline,
the Offer draw / Takeback / Abort (or Claim win) buttons, and the first-move countdown."""

from __future__ import annotations

import pygame

from client import theme
from client.analysis import Analysis, line_words
from client.offers import KIND_WORDS
from client.room import RoomState
from client.widgets import Frame


def action_note(room: RoomState, now: float) -> tuple[str, theme.Color] | None:
    """The line under the buttons: the first-move countdown, or an offer of ours waiting."""
    seat, acts = room.seat, room.acts
    left = acts.first_move_left(now)
    if left is not None and room.to_move is not None:
        who = "Your" if room.to_move == seat else f"{room.name(room.to_move)}'s"
        color = theme.DANGER if left < 10 else theme.WARN
        return f"{who} first move: {left:.0f} s, then the game is aborted", color
    for kind in ("draw", "takeback"):
        if seat is not None and acts.standing(kind, seat):
            return f"You offered {KIND_WORDS[kind]}: waiting for {room.name(1 - seat)}", theme.MUTED
    return None


def draw_game_actions(
    frame: Frame,
    inner: pygame.Rect,
    y: int,
    room: RoomState,
    now: float,
    hint: Analysis | None = None,
    hint_asked: bool = False,
) -> int:
    """Draw the actions of a seated player in a game in play from ``y``; the next free y.
    A training game adds the Hint button and the hint shown (``hint``, for this position)."""
    seat = room.seat
    if seat is None or room.status != "playing":
        return y
    surf, acts, other = frame.surface, room.acts, 1 - seat
    for kind in ("draw", "takeback"):
        if acts.standing(kind, other):
            box = pygame.Rect(inner.x, y, inner.w, 66)
            pygame.draw.rect(surf, theme.PANEL, box, border_radius=8)
            pygame.draw.rect(surf, theme.WARN, box, 2, border_radius=8)
            age = now - acts.offers[(kind, other)]
            text = f"{room.name(other)} offers {KIND_WORDS[kind]} · {age:.0f} s"
            theme.text(surf, text, (box.x + 10, box.y + 6), 14, theme.WARN, bold=True)
            half = (box.w - 28) // 2
            for i, (label, accept) in enumerate((("Accept", True), ("Decline", False))):
                rect = pygame.Rect(box.x + 10 + i * (half + 8), box.y + 28, half, 30)
                kind_ = "primary" if accept else "normal"
                frame.button(rect, label, "answer", (kind, accept), kind=kind_, size=14)
            y += 74
            break
    made = room.ply - acts.start_ply
    mine = made - (1 if room.to_move == seat else 0)  # >= 1: a move of mine to take back
    buttons: list[tuple[str, str, object, bool]] = []  # label, action, argument, enabled
    draw_ok = made >= 2 and room.my_turn and not acts.standing("draw", seat)
    buttons.append(("Offer draw", "offer", "draw", draw_ok))
    back_ok = not room.rated and room.opening is None and mine >= 1
    back_ok = back_ok and not acts.standing("takeback", seat)
    buttons.append(("Takeback", "offer", "takeback", back_ok))
    claim = acts.claim_in(other, room.online[other], now)
    if claim is not None:
        label = "Claim win" if claim <= 0 else f"Claim in {claim:.0f} s"
        buttons.append((label, "claim", None, claim <= 0))
    else:
        buttons.append(("Abort", "abort", None, acts.abort))  # the server's word
    bw = (inner.w - 8 * (len(buttons) - 1)) // len(buttons)
    for i, (label, action, arg, enabled) in enumerate(buttons):
        rect = pygame.Rect(inner.x + i * (bw + 8), y, bw, 30)
        kind = "primary" if action == "claim" else "normal"
        frame.button(rect, label, action, arg, kind=kind, enabled=enabled, size=13)
    y += 38
    note = action_note(room, now)
    if note is not None:
        theme.text(surf, note[0], (inner.x, y), 13, note[1], max_width=inner.w)
        y += 24
    return draw_hint(frame, inner, y, room, hint, hint_asked) if room.hints else y


def draw_hint(
    frame: Frame,
    inner: pygame.Rect,
    y: int,
    room: RoomState,
    hint: Analysis | None,
    asked: bool,
) -> int:
    """The Hint button (H) and, once it came, the best move and its line; the next free y."""
    surf = frame.surface
    ok = room.my_turn and hint is None and not asked
    label = "Thinking…" if asked else "Hint (H)"
    frame.button(
        pygame.Rect(inner.x, y, 96, 30), label, "hint", kind="primary", enabled=ok, size=13
    )
    if hint is None or hint.best is None:
        words = "Training game: ask for a hint on your move." if not asked else ""
        theme.text(surf, words, (inner.x + 106, y + 15), 12, theme.MUTED, anchor="midleft")
        return y + 38
    lines = line_words(hint, room.game.height, limit=6)
    text = lines[-1] if len(lines) > 1 and lines[0].startswith("Proven") else lines[0]
    if lines[0].startswith("Proven"):
        text = f"{text} · {lines[0]}"
    wrapped = theme.wrap(text.removeprefix("Best: "), 12, inner.w - 106)
    for i, t in enumerate(wrapped[:2]):
        theme.text(surf, t, (inner.x + 106, y + 1 + 15 * i), 12, theme.ACCENT)
    return y + 38
