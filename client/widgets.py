"""Immediate-mode widgets: views draw buttons and inputs and record clickable hotspots."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pygame

from client import theme


@dataclass(frozen=True, slots=True)
class Hotspot:
    """A clickable rectangle and the action it triggers (with an optional argument)."""

    rect: pygame.Rect
    action: str
    arg: Any = None


@dataclass
class Frame:
    """One frame being drawn: the target surface, the mouse position and the hotspots so far."""

    surface: pygame.Surface
    mouse: tuple[int, int] = (-1, -1)
    hotspots: list[Hotspot] = field(default_factory=list)

    def hit(self, pos: tuple[int, int]) -> Hotspot | None:
        """The topmost hotspot under ``pos`` (drawn last wins)."""
        for spot in reversed(self.hotspots):
            if spot.rect.collidepoint(pos):
                return spot
        return None

    def add(self, rect: pygame.Rect, action: str, arg: Any = None) -> None:
        """Make ``rect`` clickable."""
        self.hotspots.append(Hotspot(pygame.Rect(rect), action, arg))

    def hovered(self, rect: pygame.Rect) -> bool:
        """Whether the mouse is over ``rect``."""
        return rect.collidepoint(self.mouse)

    def button(
        self,
        rect: pygame.Rect,
        label: str,
        action: str,
        arg: Any = None,
        *,
        kind: str = "normal",
        selected: bool = False,
        enabled: bool = True,
        size: int = 15,
    ) -> pygame.Rect:
        """Draw a rounded button; ``kind`` is normal, primary or danger."""
        rect = pygame.Rect(rect)
        hot = enabled and self.hovered(rect)
        if not enabled:
            fill, fg = theme.PANEL, theme.BORDER
        elif kind == "primary":
            fill, fg = (theme.ACCENT if hot else theme.ACCENT_DARK), theme.TEXT
        elif kind == "danger":
            fill, fg = ((150, 60, 60) if hot else (110, 48, 52)), theme.TEXT
        elif selected:
            fill, fg = theme.ACCENT_DARK, theme.TEXT
        else:
            fill, fg = (theme.BORDER if hot else theme.PANEL_HI), theme.TEXT
        radius = min(8, rect.height // 2)
        pygame.draw.rect(self.surface, fill, rect, border_radius=radius)
        if selected:
            pygame.draw.rect(self.surface, theme.ACCENT, rect, 2, border_radius=radius)
        theme.text(
            self.surface, label, rect.center, size, fg, anchor="center", max_width=rect.w - 8
        )
        if enabled:
            self.add(rect, action, arg)
        return rect


@dataclass
class TextInput:
    """An editable single line of text (room code, chat)."""

    text: str = ""
    max_len: int = 200

    def feed(self, event: pygame.event.Event) -> str | None:
        """Apply a TEXTINPUT or KEYDOWN; returns "submit" on Enter, "cancel" on Esc, else None."""
        if event.type == pygame.TEXTINPUT:
            self.text = (self.text + event.text)[: self.max_len]
        elif event.type == pygame.KEYDOWN:
            if event.key in (pygame.K_RETURN, pygame.K_KP_ENTER):
                return "submit"
            if event.key == pygame.K_ESCAPE:
                return "cancel"
            if event.key == pygame.K_BACKSPACE:
                self.text = self.text[:-1]
        return None


def draw_input(
    frame: Frame,
    rect: pygame.Rect,
    field_: TextInput,
    *,
    focused: bool,
    placeholder: str,
    action: str,
    size: int = 15,
    secret: bool = False,
    arg: Any = None,
) -> None:
    """Draw a text box; clicking it triggers ``action`` with ``arg`` (usually: focus it); a
    ``secret`` one (a password) shows a dot per character."""
    rect = pygame.Rect(rect)
    pygame.draw.rect(frame.surface, (26, 31, 40), rect, border_radius=6)
    pygame.draw.rect(
        frame.surface, theme.ACCENT if focused else theme.BORDER, rect, 2, border_radius=6
    )
    inner = rect.inflate(-16, 0)
    if field_.text:
        f = theme.font(size)
        shown = "\u2022" * len(field_.text) if secret else field_.text
        while shown and f.size(shown)[0] > inner.w - 8:
            shown = shown[1:]
        r = theme.text(frame.surface, shown, (inner.x, rect.centery), size, anchor="midleft")
        caret_x = r.right + 1
    else:
        theme.text(
            frame.surface,
            placeholder,
            (inner.x, rect.centery),
            size,
            theme.MUTED,
            anchor="midleft",
            max_width=inner.w,
        )
        caret_x = inner.x
    if focused and (pygame.time.get_ticks() // 500) % 2 == 0:
        pygame.draw.line(
            frame.surface, theme.TEXT, (caret_x, rect.y + 7), (caret_x, rect.bottom - 8), 2
        )
    frame.add(rect, action, arg)


def panel(surface: pygame.Surface, rect: pygame.Rect, title: str | None = None) -> pygame.Rect:
    """Draw a rounded panel (with an optional title) and return the area inside it."""
    rect = pygame.Rect(rect)
    pygame.draw.rect(surface, theme.PANEL, rect, border_radius=10)
    inner = rect.inflate(-24, -20)
    if title:
        theme.text(surface, title.upper(), (inner.x, inner.y), 13, theme.MUTED, bold=True)
        inner.y += 24
        inner.h -= 24
    return inner
