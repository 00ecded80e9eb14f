"""Headless screenshots of the pygame client: draw a frame, note every text drawn (and whether
it had to be cut to fit), save the PNG, and copy it into docs/ when MNK_SCREENSHOTS is set."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pygame

from client import theme
from client.app import App

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Shot:
    """The texts one frame drew, and those cut short with an ellipsis to fit their width."""

    texts: list[str] = field(default_factory=list)
    clipped: list[str] = field(default_factory=list)

    def shows(self, part: str) -> bool:
        """Whether some text drawn contains ``part``."""
        return any(part in t for t in self.texts)


def shoot(app: App, path: Path, docs_name: str | None = None, now: float = 1000.0) -> Shot:
    """Draw one frame of ``app`` at ``now``, save it to ``path`` (and docs/ when asked)."""
    shot = Shot()
    real = theme.text

    def spy(surface: Any, text: str, *args: Any, **kw: Any) -> Any:
        shot.texts.append(text)
        width = kw.get("max_width")
        size = kw.get("size", args[1] if len(args) > 1 else 16)
        if width is not None and theme.font(size, kw.get("bold", False)).size(text)[0] > width:
            shot.clipped.append(text)
        return real(surface, text, *args, **kw)

    theme.text = spy  # type: ignore[assignment]
    try:
        app.step([], now=now, lazy=False)
    finally:
        theme.text = real  # type: ignore[assignment]
    pygame.image.save(app.surface, str(path))
    if docs_name and os.environ.get("MNK_SCREENSHOTS"):
        shutil.copy(path, ROOT / "docs" / docs_name)
    return shot
