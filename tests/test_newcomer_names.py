"""A name the server refuses (a bot's) is said as such, and the player can pick another."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pygame
import pytest
from support.fakenet import FakeNet
from support.servers import free_port

from client.app import App
from client.net import NetClient
from client.views.common import offline_text

MNK_SERVER = str(Path(sys.executable).parent / "mnk-server")
REFUSAL = {
    "type": "_net",
    "status": "offline",
    "detail": "the name 'minimax' belongs to a bot; choose another",
    "code": "bad_message",
}


def test_a_refused_name_is_said_and_another_one_can_be_typed() -> None:
    pygame.font.init()
    net = FakeNet()
    app = App(net, name="minimax", size=(1100, 720))
    net.inbox.append(REFUSAL)
    app.step()
    text = offline_text(app.model)
    assert "refused" in text and "belongs to a bot" in text and "mnk-server" not in text
    assert app.focus == "name"  # the name box is open at the top right
    app.step([pygame.event.Event(pygame.TEXTINPUT, text="ann")])
    app.step([pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN, mod=0, unicode="")])
    assert net.renamed == ["ann"] and app.model.name == "ann" and app.focus is None


def test_the_name_in_the_header_opens_the_name_box() -> None:
    pygame.font.init()
    net = FakeNet()
    app = App(net, name="alice", size=(1100, 720))
    net.inbox.append({"type": "welcome", "player": "p_a", "session": "S", "name": "alice"})
    app.step()
    spot = app.hotspot("focus_name")
    assert spot is not None
    app.step([pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=spot.rect.center, button=1)])
    assert app.focus == "name" and app.name_field.text == "alice"


@pytest.fixture
def server(tmp_path: Path) -> Any:
    port = free_port()
    keys = tmp_path / "keys"
    keys.write_text("minimax=K\n")
    proc = subprocess.Popen(
        [MNK_SERVER, "--memory", "--no-bots", "--port", str(port), "--keys-file", str(keys)],
        stderr=subprocess.DEVNULL,
    )
    yield f"ws://127.0.0.1:{port}"
    proc.terminate()
    proc.wait(10)


def notes(net: NetClient, key: str, want: str, deadline: float) -> list[dict[str, Any]]:
    """The link notes received until one has ``key`` equal to ``want``."""
    seen: list[dict[str, Any]] = []
    while not any(n.get(key) == want for n in seen):
        assert time.monotonic() < deadline, seen
        seen += [m for m in net.poll() if m.get("type") == "_net"]
        time.sleep(0.05)
    return seen


@pytest.mark.slow
def test_a_real_server_refuses_a_bot_name_and_takes_another(server: str) -> None:
    net = NetClient(server, "minimax", retry_max_s=0.2)
    net.start()
    try:
        # (before the server listens, "offline" notes without a code come and go: it retries)
        refused = notes(net, "code", "bad_message", time.monotonic() + 30)
        assert "belongs to a bot" in refused[-1]["detail"]
        net.rename("minimax fan")
        notes(net, "status", "online", time.monotonic() + 30)
        assert net.state.name == "minimax fan"
    finally:
        net.close()
