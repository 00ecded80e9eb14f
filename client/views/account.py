"""The start screen: log in, register, or play as a guest (and remember the choice)."""

from __future__ import annotations

import pygame

from client import theme
from client.account_actions import AuthForm
from client.views.common import HEADER_H
from client.widgets import Frame, draw_input

PANEL_W = 440
#: What a new password must be (the server's rules, said before it has to refuse one).
PASSWORD_RULES = "8 to 128 characters, not your name, not a common password."


def auth_rect(size: tuple[int, int]) -> pygame.Rect:
    """Where the form's panel goes in a window of ``size`` (centred below the header)."""
    w, h = size
    rect = pygame.Rect(0, 0, min(PANEL_W, w - 32), 490)
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


def draw_auth(
    frame: Frame, form: AuthForm, focus: str | None, guest_name: str, online: bool
) -> None:
    """The whole start screen: tabs, name and password, errors, remember, guest."""
    surf = frame.surface
    rect = auth_rect(surf.get_size())
    pygame.draw.rect(surf, theme.PANEL, rect, border_radius=12)
    x, w = rect.x + 28, rect.w - 56
    y = rect.y + 22
    theme.text(surf, "Welcome to mnk-arena", (rect.centerx, y), 22, bold=True, anchor="midtop")
    y += 34
    theme.text(
        surf,
        "Log in to play rated games, or play as a guest.",
        (rect.centerx, y),
        14,
        theme.MUTED,
        anchor="midtop",
        max_width=w,
    )
    y += 32
    half = (w - 8) // 2
    register = form.mode == "register"
    frame.button(pygame.Rect(x, y, half, 34), "Log in", "auth_mode", "login", selected=not register)
    frame.button(
        pygame.Rect(x + half + 8, y, half, 34),
        "Register",
        "auth_mode",
        "register",
        selected=register,
    )
    y += 48
    theme.text(surf, "Name", (x, y), 13, theme.MUTED)
    draw_input(
        frame,
        pygame.Rect(x, y + 18, w, 36),
        form.name,
        focused=focus == "auth_name",
        placeholder="your account's name" if not register else "pick a name",
        action="focus_auth_name",
    )
    y += 62
    theme.text(surf, "Password", (x, y), 13, theme.MUTED)
    if register:
        theme.text(
            surf,
            PASSWORD_RULES,
            (x + w, y + 1),
            11,
            theme.MUTED,
            anchor="topright",
            max_width=w - 70,
        )
    draw_input(
        frame,
        pygame.Rect(x, y + 18, w, 36),
        form.password,
        focused=focus == "auth_password",
        placeholder="password",
        action="focus_auth_password",
        secret=True,
    )
    y += 64
    if form.error:
        for line in theme.wrap(form.error, 14, w)[:2]:
            theme.text(surf, line, (x, y), 14, theme.DANGER)
            y += 19
    else:
        y += 8
    y += 4
    _checkbox(frame, x, y, "Remember me on this computer", form.remember, "auth_remember")
    y += 32
    if form.pending is not None:
        label = "Creating the account…" if register else "Logging in…"
    else:
        label = "Create account  (Enter)" if register else "Log in  (Enter)"
    if not online and form.pending is None:  # sent as soon as the server answers
        label = "Connecting… (Enter sends once connected)"
    frame.button(
        pygame.Rect(x, y, w, 42),
        label,
        "auth_submit",
        kind="primary",
        enabled=form.pending is None,
        size=16,
    )
    y += 52
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
