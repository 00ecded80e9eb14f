"""An untimed bot thinks the documented 2 s, and the client says it is thinking, with the time."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pytest
from support.samples import state_message

from bots.seats import Seat
from client.model import ClientModel
from client.views.panel import status_line
from protocol.variants import FIXED


def test_an_untimed_bot_move_thinks_two_seconds() -> None:
    seat = Seat(room="r1", seat=1, variant=FIXED["gomoku"])
    assert seat.budget() == 2.0


def bot_room(**over: object) -> ClientModel:
    model = ClientModel(name="alice")
    fields: dict[str, object] = {"players": ["alice", "minimax"], "kinds": ["human", "bot"]}
    msg = state_message("gomoku", **{"to_move": 1, **fields, **over})
    model.apply(msg, now=100.0)
    return model


def test_the_status_says_the_bot_is_thinking_and_for_how_long() -> None:
    room = bot_room(moves=[[7, 7]], ply=1).room
    assert room is not None
    assert room.thinking(103.4) == pytest.approx(3.4)
    text, _ = status_line(room, 103.4)
    assert text.startswith("minimax is thinking") and text.endswith(" 3 s"), text


def test_the_clock_restarts_with_each_bot_turn() -> None:
    model = bot_room(to_move=0)
    room = model.room
    assert room is not None and room.thinking(150.0) is None  # our turn: nobody thinks
    model.apply({"type": "moved", "room": "r1", "ply": 0, "seat": 0, "x": 7, "y": 7}, now=160.0)
    assert room.thinking(161.0) == 1.0
    assert status_line(room, 161.0)[0].endswith(" 1 s")


def test_a_human_opponent_is_just_to_move() -> None:
    model = ClientModel(name="alice")
    model.apply(state_message("gomoku", to_move=1, moves=[[7, 7]], ply=1), now=1.0)
    assert model.room is not None and model.room.thinking(5.0) is None
    assert status_line(model.room, 5.0)[0] == "bob to move"


def test_offline_no_bot_is_said_to_think() -> None:
    import pygame

    from client.app import App

    class Net:
        def __init__(self) -> None:
            self.inbox: list[dict[str, object]] = []

        def send(self, message: dict[str, object]) -> int:
            return 1

        def poll(self) -> list[dict[str, object]]:
            out, self.inbox = self.inbox, []
            return out

    pygame.font.init()
    net = Net()
    app = App(net, name="alice", size=(1100, 700))
    fields = {"players": ["alice", "minimax"], "kinds": ["human", "bot"], "to_move": 1}
    net.inbox += [
        {"type": "welcome", "player": "p_a", "session": "S", "name": "alice"},
        {"type": "joined", "room": "r1", "seat": 0},
        state_message("gomoku", moves=[[7, 7]], ply=1, **fields),
        {"type": "_net", "status": "offline", "detail": "connection lost (1006)"},
    ]
    from client import theme

    shown: list[str] = []
    real = theme.text

    def spy(surface: object, text: str, *args: object, **kw: object) -> object:
        shown.append(text)
        return real(surface, text, *args, **kw)  # type: ignore[arg-type]

    theme.text = spy  # type: ignore[assignment]
    try:
        app.step(now=10.0, lazy=False)
    finally:
        theme.text = real  # type: ignore[assignment]
    assert "minimax to move" in shown
    assert not any("thinking" in t for t in shown), shown
