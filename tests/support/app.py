"""The real pygame client App, driven headless against a real ``python -m server`` process."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import contextlib
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pygame
import pytest

from client.app import ANY, App
from client.net import NetClient
from client.room import RoomState
from client.words import ERROR_WORDS
from support.servers import free_port

ROOT = Path(__file__).resolve().parents[2]
SIZE = (1100, 720)
Ev = pygame.event.Event


@contextlib.contextmanager
def running_server(tmp_path: Path, *options: str) -> Iterator[str]:
    """The real server on a free port; SIGTERM and wait for a clean exit at the end."""
    port = free_port()
    log_path = tmp_path / "server.log"
    command = [sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", str(port)]
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [*command, *options], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT
        )
        try:
            deadline = time.monotonic() + 60
            while True:
                assert proc.poll() is None, log_path.read_text()
                try:
                    socket.create_connection(("127.0.0.1", port), 0.2).close()
                    break
                except OSError:
                    assert time.monotonic() < deadline, "the server did not start listening"
                    time.sleep(0.05)
            yield f"ws://127.0.0.1:{port}"
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                assert proc.wait(10) == 0, log_path.read_text()[-3000:]
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()


@pytest.fixture
def app_server(tmp_path: Path) -> Iterator[str]:
    """The server with a fresh SQLite database (so: history) and its built-in minimax bot."""
    with running_server(tmp_path, "--db", str(tmp_path / "a.sqlite3")) as url:
        yield url


class RecordingNet(NetClient):
    """The real net client, remembering every request the app sent."""

    def __init__(self, url: str, name: str) -> None:
        super().__init__(url, name)
        self.sent: list[dict[str, Any]] = []

    def send(self, message: dict[str, Any]) -> int:
        """Send as the real client does, keeping a copy."""
        self.sent.append(dict(message))
        return super().send(message)

    def types(self) -> list[str]:
        """The type of every request sent so far, in order."""
        return [str(m.get("type")) for m in self.sent]


class Driver:
    """The App on a real NetClient, stepped like the window loop would step it."""

    def __init__(self, url: str, name: str) -> None:
        pygame.font.init()
        self.net = RecordingNet(url, name)
        self.app = App(self.net, name=name, size=SIZE)
        self.net.start()

    def close(self) -> None:
        """Close the net client (its connection and thread)."""
        self.net.close()

    @property
    def room(self) -> RoomState:
        """The room on screen (a fresh ``state`` replaces the object, so always look it up)."""
        room = self.app.model.room
        assert room is not None, "not in a room"
        return room

    def pump(self, until: Callable[[], Any], timeout: float = 30.0, what: str = "") -> Any:
        """Step frames (no events) until ``until()`` is truthy."""
        deadline = time.monotonic() + timeout
        while True:
            self.app.step()
            result = until()
            if result:
                return result
            assert time.monotonic() < deadline, f"timed out waiting for {what or until}"
            time.sleep(0.01)

    def events(self, *events: Ev) -> None:
        """Step one frame with ``events``."""
        self.app.step(list(events))

    def keys(self, *keys: int) -> None:
        """Press ``keys``, one frame each."""
        for k in keys:
            self.events(Ev(pygame.KEYDOWN, key=k, mod=0, unicode="", scancode=0))

    def click_at(self, pos: tuple[int, int]) -> None:
        """Move the mouse to ``pos`` and click there, in one frame."""
        self.events(
            Ev(pygame.MOUSEMOTION, pos=pos, rel=(0, 0), buttons=(0, 0, 0)),
            Ev(pygame.MOUSEBUTTONDOWN, pos=pos, button=1),
        )

    def click(self, action: str, arg: Any = ANY) -> None:
        """Click the hotspot of ``action`` (``arg``) as drawn in the last frame."""
        spot = self.app.hotspot(action, arg)
        assert spot is not None, f"no hotspot {action} {arg!r} in scene {self.app.scene}"
        self.click_at(spot.rect.center)

    def save(self, path: Path) -> pygame.Surface:
        """Write the last frame to ``path`` and read it back from the PNG."""
        pygame.image.save(self.app.surface, str(path))
        return pygame.image.load(str(path))

    def create_vs_bot(self, game: str, level: int, timeout: float = 60.0) -> None:
        """Fill the lobby form and create a room against the bot, retrying while none is free."""
        app = self.app
        self.click("form_game", game)
        self.click("form_opponent", "bot")
        while app.form.level != level:
            self.click("form_step", ("level", 1 if app.form.level < level else -1))
        self.click("form_seat", 0)
        self.click("form_clock", 0)
        deadline = time.monotonic() + timeout
        no_bot = ERROR_WORDS["no_bot_available"]
        while True:
            last = app.model.toasts[-1] if app.model.toasts else None
            self.click("create")
            self.pump(
                lambda: app.scene == "room" or (app.model.toasts or [last])[-1] is not last,  # noqa: B023
                5,
                "the answer to create_room",
            )
            if app.scene == "room":
                break
            assert app.model.toasts[-1].text == no_bot, app.model.toasts[-1].text
            assert time.monotonic() < deadline, "no bot became available"
            time.sleep(0.2)
        self.pump(lambda: app.model.room and app.model.room.status == "playing", 10, "the start")
