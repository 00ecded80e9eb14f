"""The opening rule is named and explained in the form, and every choice is told in the room."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from typing import Any

import pygame
from support.fakenet import FakeNet
from support.samples import state_message

from client import theme
from client.app import App
from client.model import ClientModel


def shown_words(app: App) -> list[str]:
    """Every text drawn in one frame."""
    shown: list[str] = []
    real = theme.text

    def spy(surface: Any, text: str, *args: Any, **kw: Any) -> Any:
        shown.append(text)
        return real(surface, text, *args, **kw)

    theme.text = spy  # type: ignore[assignment]
    try:
        app.step([], lazy=False)
    finally:
        theme.text = real  # type: ignore[assignment]
    return shown


def test_the_form_names_the_rule_and_the_seat_it_gives() -> None:
    pygame.font.init()
    net = FakeNet()
    app = App(net, name="alice", size=(1200, 680))
    net.inbox.append({"type": "welcome", "player": "p_a", "session": "S", "name": "alice"})
    app.step()
    assert any(t.startswith("Opening rule: none") for t in shown_words(app))
    app.act("form_opening", "swap2")
    words = shown_words(app)
    assert any(t.startswith("Swap2: ") for t in words)
    assert "Black (first)" not in words and "Opener" in words and "Chooser" in words


def test_each_opening_choice_is_told_in_the_room() -> None:
    model = ClientModel(name="alice")
    model.apply(state_message("gomoku", players=["alice", "minimax"], kinds=["human", "bot"]))
    model.apply({"type": "chosen", "room": "r1", "seat": 1, "choice": "place"})
    model.apply({"type": "chosen", "room": "r1", "seat": 0, "choice": "white"})
    room = model.room
    assert room is not None
    told = [line.text for line in room.chat if line.system]
    assert told == [
        "minimax chose to place 2 more stones and hand the choice back.",
        "You took white.",
    ]
