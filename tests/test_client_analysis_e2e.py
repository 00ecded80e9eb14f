"""End to end: the pygame client's replay times, exports, training games, hints, takebacks and
analysis against the real server (a subprocess with a SQLite file and its built-in bot)."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from pathlib import Path

import pygame
import pytest
from support.app import Driver, app_server

from client.export import read_text_record
from client.records import FinishedGame
from protocol.records import read_psq

#: Tic-tac-toe cells in the order this test's player prefers them.
TTT_ORDER = [(1, 1), (0, 0), (2, 2), (2, 0), (0, 2), (1, 0), (0, 1), (2, 1), (1, 2)]

server = app_server

pytestmark = [pytest.mark.timeout(120), pytest.mark.slow]  # a real server process (with its bot)


def play_out(driver: Driver) -> None:
    """Play the room's tic-tac-toe game to its end, clicking the first free preferred cell."""
    while True:
        driver.pump(lambda: driver.room.my_turn or driver.room.status != "playing", 15, "a turn")
        if driver.room.status != "playing":
            return
        ply = driver.room.ply
        cell = next(c for c in TTT_ORDER if c not in driver.room.stones)
        pos = driver.app.cell_pixel(*cell)
        assert pos is not None
        driver.click_at(pos)
        driver.pump(lambda: driver.room.ply > ply, 10, "our move")  # noqa: B023


def test_the_replay_shows_times_and_exports_psq_and_text(
    server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MNK_EXPORT_DIR", str(tmp_path / "out"))
    alice = Driver(server, "alice")
    try:
        app = alice.app
        alice.pump(lambda: app.model.history_supported is not None, what="the history")
        alice.create_vs_bot("tictactoe", 10)
        play_out(alice)
        room = alice.room
        alice.click("replay_current")
        game: FinishedGame = alice.pump(
            lambda: (g := app.replay_game) is not None and g.times_ms and g, 10, "the times"
        )
        assert app.scene == "replay" and game.moves == tuple(room.moves)
        assert len(game.times_ms) == len(game.moves)
        assert all(isinstance(ms, int) and ms >= 0 for ms in game.times_ms)
        alice.save(tmp_path / "replay.png")
        alice.click("export", "txt")
        text = (tmp_path / "out" / f"mnk-{game.game_id}.txt").read_text()
        record = read_text_record(text)
        assert record.moves == game.moves and record.times_ms == game.times_ms
        assert record.header["X"] == "alice" and record.header["O"] == "minimax"
        alice.click("export", "psq")
        path = tmp_path / "out" / f"mnk-{game.game_id}.psq"
        alice.pump(path.exists, 10, "the .psq file")
        psq = read_psq(path.read_text())  # the server's record, as protocol/records.py reads it
        assert [(m.x, m.y) for m in psq.moves] == list(game.moves)
        assert psq.times_ms == game.times_ms and psq.players == ("alice", "minimax")
        assert psq.winner == (room.result.winner if room.result else None)
        alice.keys(pygame.K_ESCAPE)
        assert app.scene == "room"
    finally:
        alice.close()
