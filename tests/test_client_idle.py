"""An idle client costs next to no CPU: the real window loop, a board on screen, no events."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import threading
import time
from typing import Any

import pygame
from support.samples import state_message

from client.app import App

#: Seconds the idle window is measured for.
IDLE_S = 3.0


class OneGame:
    """A transport that puts the client in a gomoku game once, then stays silent."""

    def __init__(self) -> None:
        welcome = {"type": "welcome", "protocol": 1, "player": "p_a", "session": "S", "name": "a"}
        joined = {"type": "joined", "room": "r1", "seat": 0}
        self.inbox: list[dict[str, Any]] = [welcome, joined, state_message("gomoku")]

    def send(self, message: dict[str, Any]) -> int:
        return 1

    def poll(self) -> list[dict[str, Any]]:
        out, self.inbox = self.inbox, []
        return out


def idle_cpu_share() -> tuple[float, App]:
    """Run the window loop with a board showing for IDLE_S seconds; its share of one core."""
    app = App(OneGame(), name="a")
    timer = threading.Timer(
        IDLE_S + 1.0, lambda: pygame.event.post(pygame.event.Event(pygame.QUIT))
    )
    marks: dict[str, float] = {}

    def mark() -> None:  # the first second settles (fonts, first frames): measure after it
        marks["cpu"], marks["wall"] = time.process_time(), time.monotonic()

    settle = threading.Timer(1.0, mark)
    timer.start()
    settle.start()
    try:
        app.run()
    finally:
        timer.cancel()
        settle.cancel()
        pygame.display.quit()  # not pygame.quit(): fonts cached by client.theme must stay valid
    cpu, wall = time.process_time() - marks["cpu"], time.monotonic() - marks["wall"]
    return cpu / wall, app


@pytest.mark.slow
def test_an_idle_board_uses_under_five_percent_of_a_core() -> None:
    share, app = idle_cpu_share()
    print(f"idle client: {100 * share:.1f} % of a core")
    assert app.scene == "room" and app.model.room is not None  # a board was on screen
    assert share < 0.05
