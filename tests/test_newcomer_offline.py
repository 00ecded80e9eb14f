"""While the server is down a click on the board says so and sends nothing, now or later."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")


import pygame
import pytest
from support.fakenet import FakeNet
from support.samples import state_message

from client.app import App
from client.net import NetClient


def click(pos: tuple[int, int]) -> list[pygame.event.Event]:
    return [
        pygame.event.Event(pygame.MOUSEMOTION, pos=pos, rel=(0, 0), buttons=(0, 0, 0)),
        pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1),
    ]


@pytest.fixture
def app() -> tuple[App, FakeNet]:
    pygame.font.init()
    net = FakeNet()
    a = App(net, name="alice", size=(1100, 720))
    net.inbox += [
        {"type": "welcome", "protocol": 1, "player": "p_a", "session": "S", "name": "alice"},
        {"type": "joined", "room": "r1", "seat": 0},
        state_message("gomoku"),
    ]
    a.step()
    assert a.scene == "room"
    return a, net


def test_a_click_while_offline_says_so_and_sends_no_move(app: tuple[App, FakeNet]) -> None:
    a, net = app
    net.inbox += [{"type": "_net", "status": "offline", "detail": "connection refused"}]
    a.step()
    a.step(click(a.cell_pixel(7, 7)))  # type: ignore[arg-type]
    assert [m for m in net.sent if m["type"] == "move"] == []
    assert "Offline" in a.model.toasts[-1].text and a.model.toasts[-1].kind == "error"
    net.inbox += [{"type": "_net", "status": "online"}]
    a.step()
    a.step(click(a.cell_pixel(7, 7)))  # type: ignore[arg-type]
    assert [(m["x"], m["y"]) for m in net.sent if m["type"] == "move"] == [(7, 7)]


def test_moves_not_yet_sent_are_dropped_when_the_link_goes_down() -> None:
    net = NetClient("ws://127.0.0.1:9", "alice")  # never started: everything stays queued
    net.send({"type": "move", "room": "r1", "x": 7, "y": 7, "ply": 0})
    net.send({"type": "chat", "room": "r1", "text": "hi"})
    net.send({"type": "choose", "room": "r1", "choice": "black"})
    net.on_link_status("offline", "connection refused")
    assert [m["type"] for m in net.poll()] == ["_net"]
    net.on_link_status("online", "")
    # What stays queued goes once online: the chat line, not the move nor the choice.
    assert net.queued() == ["chat"]
