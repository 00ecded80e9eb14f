"""The start screen: log in, register, or play as a guest (and remember the choice)."""

from __future__ import annotations

import pygame

from client import theme
from client.account_actions import MODE_FIELDS, AuthForm
from client.views.common import HEADER_H
from client.widgets import Frame, draw_input

PANEL_W = 440
#: What a new password must be (the server's rules, said before it has to refuse one).
PASSWORD_RULES = "8 to 128 characters, not your name or a common one."
#: The panel's height per mode (its boxes and buttons, room for a two-line error).
HEIGHTS = {"login": 510, "register": 534, "reset": 552, "change": 410}
#: The boxes with an action of their own (the rest: ``focus_auth`` with the box's name).
FOCUS = {"auth_name": "focus_auth_name", "auth_password": "focus_auth_password"}


def auth_rect(size: tuple[int, int], mode: str = "login") -> pygame.Rect:
    """Where the form's panel goes in a window of ``size`` (centred below the header), as
    tall as ``mode``'s boxes and buttons."""
    w, h = size
    tall = HEIGHTS.get(mode, HEIGHTS["login"])
    rect = pygame.Rect(0, 0, min(PANEL_W, w - 32), tall)
    rect.center = (w // 2, HEADER_H + (h - HEADER_H) // 2)
    rect.top = max(HEADER_H + 12, rect.top)
    return rect


def _checkbox(frame: Frame, x: int, y: int, label: str, on: bool, action: str) -> None:
    box = pygame.Rect(x, y, 18, 18)
    pygame.draw.rect(frame.surface, theme.PANEL_HI, box, border_radius=4)
    pygame.draw.rect(frame.surface, theme.ACCENT if on else theme.BORDER, box, 2, border_radius=4)
    if on:
        pygame.draw.lines(
            frame.surface,
            theme.ACCENT,
            False,
            [(x + 4, y + 9), (x + 8, y + 13), (x + 14, y + 5)],
            3,
        )
    text = theme.text(frame.surface, label, (x + 28, y + 9), 14, anchor="midleft")
    frame.add(box.union(text).inflate(6, 6), action)


#: Each box: its label, its placeholder, whether it hides what is typed.
BOXES = {
    "auth_name": ("Name", "your account's name", False),
    "auth_old": ("Current password", "the password you have now", True),
    "auth_code": ("Reset code", "the operator's one-time code", False),
    "auth_password": ("Password", "password", True),
    "auth_repeat": ("Repeat password", "the same password again", True),
}
#: Per mode: the title, the line under it, and the submit button's words (idle, waiting).
WORDS = {
    "login": ("Welcome to mnk-arena", "Log in to play rated games, or play as a guest.",
              "Log in  (Enter)", "Logging in…"),
    "register": ("Welcome to mnk-arena", "Log in to play rated games, or play as a guest.",
                 "Create account  (Enter)", "Creating the account…"),
    "reset": ("Forgot your password?",
              "No e-mail here: ask the server's operator for a one-time reset code "
              "(mnk-server accounts reset NAME), then choose a new password.",
              "Set the new password  (Enter)", "Setting it…"),
    "change": ("Change your password", "Your other devices are logged out; this one stays.",
               "Change password  (Enter)", "Changing it…"),
}  # fmt: skip


def draw_auth(
    frame: Frame, form: AuthForm, focus: str | None, guest_name: str, online: bool
) -> None:
    """The whole start screen: tabs, the mode's boxes, errors, remember, guest."""
    surf = frame.surface
    boxes = MODE_FIELDS.get(form.mode, MODE_FIELDS["login"])
    rect = auth_rect(surf.get_size(), form.mode)
    pygame.draw.rect(surf, theme.PANEL, rect, border_radius=12)
    x, w = rect.x + 28, rect.w - 56
    title, line, idle, waiting = WORDS.get(form.mode, WORDS["login"])
    y = rect.y + 22
    theme.text(surf, title, (rect.centerx, y), 22, bold=True, anchor="midtop")
    y += 34
    for text in theme.wrap(line, 14, w)[:3]:
        theme.text(surf, text, (rect.centerx, y), 14, theme.MUTED, anchor="midtop")
        y += 18
    y += 14
    if form.mode in ("login", "register"):
        y = _tabs(frame, x, y, w, form.mode == "register")
    for box in boxes:
        y = _box(frame, form, box, focus, x, y, w)
    if form.error:
        for text in theme.wrap(form.error, 14, w)[:2]:
            theme.text(surf, text, (x, y), 14, theme.DANGER)
            y += 19
    else:
        y += 8
    if form.mode != "change":
        y += 4
        _checkbox(frame, x, y, "Remember me on this computer", form.remember, "auth_remember")
        y += 32
    label = waiting if form.pending is not None else idle
    if not online and form.pending is None:  # sent as soon as the server answers
        label = "Connecting… (Enter sends once connected)"
    submit = pygame.Rect(x, y, w, 42)
    frame.button(
        submit, label, "auth_submit", kind="primary", enabled=form.pending is None, size=16
    )
    y += 52
    _ways_out(frame, form, rect, x, y, w, guest_name)


def _tabs(frame: Frame, x: int, y: int, w: int, register: bool) -> int:
    """The Log in / Register tabs; the y below them."""
    half = (w - 8) // 2
    frame.button(pygame.Rect(x, y, half, 34), "Log in", "auth_mode", "login", selected=not register)
    right = pygame.Rect(x + half + 8, y, half, 34)
    frame.button(right, "Register", "auth_mode", "register", selected=register)
    return y + 48


def _box(frame: Frame, form: AuthForm, box: str, focus: str | None, x: int, y: int, w: int) -> int:
    """One labelled text box of the form; the y below it."""
    label, placeholder, secret = BOXES[box]
    theme.text(frame.surface, label, (x, y), 13, theme.MUTED)
    if box == "auth_password" and form.mode != "login":  # a new password: say the rules
        rules = (x + w, y + 1)
        theme.text(frame.surface, PASSWORD_RULES, rules, 11, theme.MUTED, anchor="topright",
                   max_width=w - 70)  # fmt: skip
    field = form.box(box)
    assert field is not None
    place = placeholder if box != "auth_name" or form.mode == "login" else "pick a name"
    if box == "auth_name" and form.mode == "reset":
        place = "your account's name"
    draw_input(frame, pygame.Rect(x, y + 18, w, 36), field, focused=focus == box,
               placeholder=place, action=FOCUS.get(box, "focus_auth"), arg=box,
               secret=secret)  # fmt: skip
    return y + 62


def _ways_out(
    frame: Frame, form: AuthForm, rect: pygame.Rect, x: int, y: int, w: int, guest_name: str
) -> None:
    """Below the submit button: forgot password, back to log in, or play as a guest."""
    surf = frame.surface
    if form.mode == "login":
        frame.button(pygame.Rect(x, y, w, 30), "Forgot password?", "auth_mode", "reset", size=13)
        y += 38
    elif form.mode == "reset":
        frame.button(pygame.Rect(x, y, w, 30), "Back to log in", "auth_mode", "login", size=13)
        y += 38
    elif form.mode == "change":
        frame.button(pygame.Rect(x, y, w, 30), "Cancel  (Esc)", "auth_cancel", size=13)
    if form.mode not in ("login", "register"):
        return
    mid = y + 10
    pygame.draw.line(surf, theme.BORDER, (x, mid), (rect.centerx - 20, mid))
    pygame.draw.line(surf, theme.BORDER, (rect.centerx + 20, mid), (x + w, mid))
    theme.text(surf, "or", (rect.centerx, mid), 13, theme.MUTED, anchor="center")
    frame.button(
        pygame.Rect(x, y + 24, w, 36),
        f"Play as a guest ({guest_name}, unrated)",
        "play_guest",
        size=14,
    )
