"""A server that says it is shutting down is shown as stopped or restarting, not as a crash."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from client.model import ClientModel
from client.views.common import offline_text

WELCOME = {"type": "welcome", "player": "p_a", "session": "S", "name": "alice"}


def test_a_clean_shutdown_reads_as_a_restart() -> None:
    model = ClientModel(name="alice")
    model.apply({"type": "_net", "status": "online"})
    model.apply(WELCOME)
    model.apply({"type": "server_shutdown", "message": "the server is shutting down"})
    model.apply({"type": "_net", "status": "offline", "detail": "nobody is listening at ws://x"})
    assert offline_text(model).startswith("The server stopped (or is restarting)")
    model.apply({"type": "_net", "status": "online"})
    model.apply({"type": "_net", "status": "offline", "detail": "connection lost (1006)"})
    assert offline_text(model).startswith("Connection lost")  # a crash this time
