"""The client starts and closes quietly: no mixer opened (ALSA noise), no traceback offline."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.servers import free_port

ROOT = Path(__file__).resolve().parent.parent
#: Runs the real window loop (dummy video) against ``argv[1]`` and closes it once the client
#: has found the server offline (nobody listens there).
SCRIPT = """
import sys
import client.cli as cli
import pygame
from client.net import NetClient
polled = NetClient.poll
def poll(self):
    notes = polled(self)
    if any(n.get("status") == "offline" for n in notes):
        pygame.event.post(pygame.event.Event(pygame.QUIT))
    return notes
NetClient.poll = poll
sys.exit(cli.main(["--server", sys.argv[1]]))
"""


@pytest.mark.slow
def test_an_offline_client_opens_and_closes_quietly() -> None:
    env = {k: v for k, v in os.environ.items() if k != "SDL_AUDIODRIVER"}  # as a user has it
    env["SDL_VIDEODRIVER"] = "dummy"
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, f"127.0.0.1:{free_port()}"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert "ALSA" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert "CancelledError" not in done.stderr and "never awaited" not in done.stderr


def test_closing_a_client_that_gave_up_raises_nothing_in_its_thread(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import threading
    import time

    from client.net import NetClient

    errors: list[str] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: errors.append(repr(args.exc_type)))
    net = NetClient("ws://host:notaport", "alice")  # a fatal error: it waits for another URL
    net.start()
    notes: list[dict[str, object]] = []
    deadline = time.monotonic() + 30
    while not any(n.get("status") == "offline" for n in notes):
        assert time.monotonic() < deadline, notes
        notes += net.poll()
        time.sleep(0.02)
    net.close()
    assert errors == []
