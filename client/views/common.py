"""Pieces every scene shares: the header bar, the offline banner, toasts and confirm dialogs."""

from __future__ import annotations

import pygame

from client import theme
from client.model import ClientModel
from client.values import Toast
from client.views.board import stone_sprite
from client.widgets import Frame, TextInput, draw_input

HEADER_H = 52


def draw_header(
    frame: Frame,
    model: ClientModel,
    subtitle: str = "",
    name_field: TextInput | None = None,
    menus: bool = True,
) -> None:
    """The top bar: the name of the app, where we are, and who we are connected as. A click on
    a guest's name edits it in ``name_field``, on an account's opens its profile; ``menus``
    adds the leaderboard and log in / log out buttons."""
    surf = frame.surface
    w = surf.get_width()
    pygame.draw.rect(surf, (28, 33, 42), (0, 0, w, HEADER_H))
    pygame.draw.line(surf, theme.BORDER, (0, HEADER_H - 1), (w, HEADER_H - 1))
    surf.blit(stone_sprite(0, 10), (12, HEADER_H // 2 - 10))
    surf.blit(stone_sprite(1, 10), (33, HEADER_H // 2 - 10))
    r = theme.text(surf, "mnk-arena", (62, HEADER_H // 2), 21, bold=True, anchor="midleft")
    left = r.right
    if subtitle:
        left = theme.text(
            surf, subtitle, (r.right + 14, HEADER_H // 2 + 1), 15, theme.MUTED, anchor="midleft"
        ).right
    colors = {"online": theme.OK, "connecting": theme.WARN, "offline": theme.DANGER}
    label = {"online": "online", "connecting": "connecting…", "offline": "offline"}.get(
        model.connection, model.connection
    )
    who = _who(frame, model, name_field, menus)
    lab = theme.text(surf, label, (who.x - 14, HEADER_H // 2), 13, theme.MUTED, anchor="midright")
    pygame.draw.circle(
        surf, colors.get(model.connection, theme.MUTED), (lab.x - 10, HEADER_H // 2), 5
    )
    if menus:
        _menus(frame, model, lab.x - 26, left)


def _who(
    frame: Frame, model: ClientModel, name_field: TextInput | None, menus: bool
) -> pygame.Rect:
    """Our name at the header's right end (marked if a guest), or the box where another is
    typed; where it is drawn."""
    surf = frame.surface
    w = surf.get_width()
    if name_field is not None:  # the player is typing another name
        who = pygame.Rect(w - 236, HEADER_H // 2 - 16, 220, 32)
        draw_input(
            frame, who, name_field, focused=True, placeholder="your name", action="focus_name"
        )
        return who
    right = w - 16
    if not model.account and model.player is not None:  # "alice (guest)"
        mark = theme.text(
            surf, "(guest)", (right, HEADER_H // 2), 13, theme.MUTED, anchor="midright"
        )
        right = mark.x - 6
    who = theme.text(surf, model.name or "", (right, HEADER_H // 2), 16, anchor="midright")
    if right != w - 16:
        who = who.union(mark)
    if menus:  # a guest renames itself; an account's name opens its profile
        action, arg = ("profile", model.name) if model.account else ("focus_name", None)
        frame.add(who.inflate(8, 8), action, arg)
    return who


def _menus(frame: Frame, model: ClientModel, right: int, left: int) -> None:
    """The header's buttons from ``right`` leftwards, as many as fit before ``left``."""
    account = (("Log out", "logout"), ("Password", "change_password"))
    for text, action in (
        *(account if model.account else (("Log in", "show_login"),)),
        ("Leaderboard", "leaderboard"),
        ("Tournaments", "tournaments"),
        ("Analysis board", "study"),
    ):
        bw = theme.font(13).size(text)[0] + 22
        if right - bw < left + 16:
            break  # a narrow window: the title wins
        frame.button(pygame.Rect(right - bw, HEADER_H // 2 - 14, bw, 28), text, action, size=13)
        right -= bw + 8


def draw_offline_banner(frame: Frame, model: ClientModel) -> None:
    """A banner across the top while the connection is down (the net layer is reconnecting)."""
    if model.connection == "online":
        return
    surf = frame.surface
    rect = pygame.Rect(0, HEADER_H, surf.get_width(), 30)
    pygame.draw.rect(surf, (120, 46, 46) if model.connection == "offline" else (112, 86, 30), rect)
    theme.text(surf, offline_text(model), rect.center, 14, anchor="center", max_width=rect.w - 20)


def offline_text(model: ClientModel) -> str:
    """What the banner says: connecting, lost (and reconnecting), or never reached (and why)."""
    if model.refused:
        return (
            f"The server refused this client: {model.connection_detail}. "
            "Type another name at the top right and press Enter."
        )
    if model.connection == "connecting":
        return f"Connecting to {model.connection_detail or 'the server'}…"
    if model.server_stopped:
        return "The server stopped (or is restarting): reconnecting when it is back…"
    if model.ever_online:
        return f"Connection lost — reconnecting… ({model.connection_detail})"
    return (
        f"Cannot connect: {model.connection_detail}. Start one with mnk-server, "
        "or play offline with mnk-client --local."
    )


def draw_toasts(frame: Frame, toasts: list[Toast]) -> None:
    """Recent messages stacked at the bottom centre; errors in red."""
    surf = frame.surface
    y = surf.get_height() - 20
    for toast in reversed(toasts[-4:]):
        lines = theme.wrap(toast.text, 15, 520)
        h = 18 * len(lines) + 18
        w = max(theme.font(15).size(t)[0] for t in lines) + 40
        rect = pygame.Rect(0, 0, w, h)
        rect.midbottom = (surf.get_width() // 2, y)
        fill = (132, 44, 50) if toast.kind == "error" else (40, 72, 110)
        shadow = rect.move(0, 3)
        pygame.draw.rect(surf, (10, 12, 16), shadow, border_radius=10)
        pygame.draw.rect(surf, fill, rect, border_radius=10)
        for i, t in enumerate(lines):
            theme.text(surf, t, (rect.centerx, rect.y + 9 + 18 * i), 15, anchor="midtop")
        y = rect.y - 8


def draw_confirm(frame: Frame, question: str, yes: str, action: str) -> None:
    """A modal question over a dimmed screen, with Yes (Enter/Y) and No (Esc/N) buttons."""
    surf = frame.surface
    dim = pygame.Surface(surf.get_size(), pygame.SRCALPHA)
    dim.fill((0, 0, 0, 150))
    surf.blit(dim, (0, 0))
    frame.hotspots.clear()  # nothing under the dialog is clickable
    rect = pygame.Rect(0, 0, 420, 150)
    rect.center = surf.get_rect().center
    pygame.draw.rect(surf, theme.PANEL, rect, border_radius=12)
    pygame.draw.rect(surf, theme.BORDER, rect, 1, border_radius=12)
    theme.text(
        surf,
        question,
        (rect.centerx, rect.y + 34),
        18,
        bold=True,
        anchor="center",
        max_width=rect.w - 30,
    )
    theme.text(
        surf,
        "Enter = yes · Esc = no",
        (rect.centerx, rect.y + 62),
        13,
        theme.MUTED,
        anchor="center",
    )
    frame.button(pygame.Rect(rect.x + 40, rect.bottom - 56, 160, 38), yes, action, kind="danger")
    frame.button(pygame.Rect(rect.right - 200, rect.bottom - 56, 160, 38), "Cancel", "confirm_no")
