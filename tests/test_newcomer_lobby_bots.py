"""The lobby's bots: asked for again while the lobby shows, and every one of them reachable."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from typing import Any

import pygame
from support.fakenet import FakeNet

from client.app import BOTS_REFRESH_S, App


def bots(*names: str) -> dict[str, Any]:
    rows = [{"name": n, "player": f"p_{n}", "online": True, "level": None} for n in names]
    return {"type": "bots", "bots": rows, "next": None}


def lobby() -> tuple[App, FakeNet]:
    pygame.font.init()
    net = FakeNet()
    app = App(net, name="alice", size=(1200, 680))
    net.inbox.append({"type": "welcome", "player": "p_a", "session": "S", "name": "alice"})
    app.step(now=100.0)
    return app, net


def test_the_bot_list_is_asked_for_again_while_in_the_lobby() -> None:
    app, net = lobby()
    first = net.asked()
    net.inbox.append(bots("minimax"))
    app.step(now=101.0)
    assert net.asked() == first  # not on every frame
    app.step(now=100.0 + BOTS_REFRESH_S + 0.1)
    assert net.asked() == first + 1
    net.inbox.append(bots("minimax", "greedy"))  # a bot connected
    app.step(now=106.0)
    assert app.hotspot("form_bot", "greedy") is not None


def test_every_bot_online_can_be_picked() -> None:
    app, net = lobby()
    names = [f"bot{i}" for i in range(7)]
    net.inbox.append(bots(*names))
    app.step(now=101.0)
    seen: set[str] = set()
    for _ in range(len(names)):
        seen |= {n for n in names if app.hotspot("form_bot", n) is not None}
        more = app.hotspot("bot_page")
        assert more is not None
        pos = more.rect.center
        app.step([pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1)], now=101.5)
    assert seen == set(names)
