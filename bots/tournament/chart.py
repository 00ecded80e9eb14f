"""The Elo chart: one horizontal bar per bot with its 95 % error bar, drawn off-screen by pygame."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

ROW_H = 34
LEFT = 180
#: The column right of the plot that holds each bot's "+120 ± 90" (never over a bar).
VALUE_W = 120
RIGHT = 24 + VALUE_W
TOP = 50
WIDTH = 860
BACKGROUND = (250, 250, 247)
INK = (40, 40, 40)
GRID = (215, 215, 210)
POSITIVE = (70, 130, 180)
NEGATIVE = (200, 95, 80)


def draw_elo_chart(rows: list[dict[str, Any]], path: Path, title: str = "Elo") -> None:
    """Save a PNG of ``rows`` (results.json ``standings``) to ``path``."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # no banner in the report
    import pygame

    pygame.font.init()
    font = pygame.font.Font(None, 22)
    big = pygame.font.Font(None, 28)
    height = TOP + ROW_H * max(1, len(rows)) + 40
    surface = pygame.Surface((WIDTH, height))
    surface.fill(BACKGROUND)
    span = max([abs(r["elo"]) + r["elo_error"] for r in rows] + [50.0])
    span = min(span * 1.1, 1500.0)
    plot_w = WIDTH - LEFT - RIGHT

    def x_of(elo: float) -> int:
        elo = max(-span, min(span, elo))
        return round(LEFT + (elo + span) / (2 * span) * plot_w)

    surface.blit(big.render(title, True, INK), (LEFT, 14))
    bottom = TOP + ROW_H * len(rows)
    step = _tick_step(span)
    tick = -int(span // step) * step
    while tick <= span:
        x = x_of(tick)
        pygame.draw.line(surface, GRID, (x, TOP - 6), (x, bottom))
        label = font.render(f"{tick:+g}" if tick else "0", True, INK)
        surface.blit(label, (x - label.get_width() // 2, bottom + 6))
        tick += step
    zero = x_of(0)
    pygame.draw.line(surface, INK, (zero, TOP - 6), (zero, bottom), 2)
    for i, r in enumerate(rows):
        y = TOP + i * ROW_H
        name = font.render(_fit(font, str(r["name"]), LEFT - 16), True, INK)
        surface.blit(name, (LEFT - name.get_width() - 10, y + ROW_H // 2 - name.get_height() // 2))
        x = x_of(r["elo"])
        colour = POSITIVE if r["elo"] >= 0 else NEGATIVE
        pygame.draw.rect(surface, colour, pygame.Rect(min(zero, x), y + 8, abs(x - zero) or 1, 18))
        low, high = r["elo"] - r["elo_error"], r["elo"] + r["elo_error"]
        lo, hi, mid = x_of(low), x_of(high), y + 17
        pygame.draw.line(surface, INK, (lo, mid), (hi, mid), 2)
        for end, past in ((lo, low < -span), (hi, high > span)):
            if past:  # the error bar goes on past the axis: an arrow head, not a cap
                tip = 1 if end == hi else -1
                pygame.draw.polygon(
                    surface,
                    INK,
                    [(end + 4 * tip, mid), (end - 4 * tip, mid - 5), (end - 4 * tip, mid + 5)],
                )
            else:
                pygame.draw.line(surface, INK, (end, mid - 6), (end, mid + 6), 2)
        value = font.render(f"{r['elo']:+.0f} ± {r['elo_error']:.0f}", True, INK)
        surface.blit(value, (WIDTH - VALUE_W, y + ROW_H // 2 - value.get_height() // 2))
    pygame.image.save(surface, str(path))


def _fit(font: Any, text: str, width: int) -> str:
    """``text`` cut (with an ellipsis) to ``width`` pixels in ``font``."""
    if font.size(text)[0] <= width:
        return text
    while text and font.size(text + "…")[0] > width:
        text = text[:-1]
    return text + "…"


def _tick_step(span: float) -> float:
    """A round grid step giving about four ticks each side."""
    for step in (10, 25, 50, 100, 200, 250, 500):
        if span / step <= 5:
            return step
    return 1000
