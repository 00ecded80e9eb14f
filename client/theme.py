"""Colours, fonts and text drawing shared by every view."""

from __future__ import annotations

import functools

import pygame

Color = tuple[int, int, int]

BG: Color = (22, 26, 33)
PANEL: Color = (33, 39, 50)
PANEL_HI: Color = (45, 53, 68)
BORDER: Color = (62, 72, 90)
TEXT: Color = (232, 234, 238)
MUTED: Color = (148, 157, 173)
ACCENT: Color = (94, 168, 255)
ACCENT_DARK: Color = (44, 92, 160)
DANGER: Color = (222, 86, 86)
OK: Color = (92, 196, 126)
WARN: Color = (240, 180, 70)

WOOD: Color = (220, 178, 104)
WOOD_LIGHT: Color = (232, 196, 128)
WOOD_DARK: Color = (196, 150, 80)
GRID: Color = (58, 40, 20)
WIN: Color = (255, 56, 88)
LAST: Color = (232, 48, 48)
CURSOR: Color = (40, 120, 255)
BLACK_STONE: Color = (24, 24, 26)
WHITE_STONE: Color = (236, 234, 226)

TTT_BG: Color = (38, 45, 58)
TTT_CELL: Color = (50, 59, 76)
X_COLOR: Color = (255, 122, 99)
O_COLOR: Color = (86, 204, 222)

#: Seat colours in the side panel (black first, white second).
SEAT_NAMES = ("Black", "White")
MARK_NAMES = ("X", "O")


@functools.cache
def _font_path(bold: bool) -> str | None:
    try:
        path = pygame.font.match_font("dejavusans,freesans,arial", bold=bold)
    except Exception:  # fontconfig missing or broken: fall back to pygame's bundled font
        path = None
    return path


@functools.cache
def font(size: int, bold: bool = False) -> pygame.font.Font:
    """A cached font of ``size`` pixels (DejaVu Sans when installed, else pygame's own)."""
    if not pygame.font.get_init():
        pygame.font.init()
    return pygame.font.Font(_font_path(bold), max(6, size))


def text(
    surface: pygame.Surface,
    s: str,
    pos: tuple[int, int],
    size: int = 16,
    color: Color = TEXT,
    *,
    bold: bool = False,
    anchor: str = "topleft",
    max_width: int | None = None,
) -> pygame.Rect:
    """Draw ``s`` anchored at ``pos`` (any pygame.Rect anchor name); long text is ellipsised."""
    f = font(size, bold)
    if max_width is not None and f.size(s)[0] > max_width:
        while s and f.size(s + "…")[0] > max_width:
            s = s[:-1]
        s += "…"
    img = f.render(s, True, color)
    rect = img.get_rect(**{anchor: pos})
    surface.blit(img, rect)
    return rect


def wrap(s: str, size: int, width: int, bold: bool = False) -> list[str]:
    """Split ``s`` into lines no wider than ``width`` pixels at ``size``."""
    f = font(size, bold)
    lines: list[str] = []
    line = ""
    for word in s.split():
        trial = f"{line} {word}".strip()
        if f.size(trial)[0] <= width or not line:
            line = trial
        else:
            lines.append(line)
            line = word
        while f.size(line)[0] > width and len(line) > 1:
            cut = len(line)
            while cut > 1 and f.size(line[:cut])[0] > width:
                cut -= 1
            lines.append(line[:cut])
            line = line[cut:]
    if line:
        lines.append(line)
    return lines or [""]


def fmt_clock(seconds: float) -> str:
    """A clock reading: ``m:ss``, with tenths under ten seconds."""
    if seconds < 10:
        return f"0:{seconds:04.1f}"
    total = int(seconds)
    if total >= 3600:
        return f"{total // 3600}:{total % 3600 // 60:02d}:{total % 60:02d}"
    return f"{total // 60}:{total % 60:02d}"
