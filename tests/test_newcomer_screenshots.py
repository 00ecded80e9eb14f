"""The README's lobby and gomoku pictures, drawn from sample messages (MNK_SCREENSHOTS=1 copies
them into docs/); each is checked for what it must show."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import shutil
from pathlib import Path
from typing import Any

import pygame
from support.fakenet import FakeNet
from support.samples import state_message

from client import theme
from client.app import App

ROOT = Path(__file__).resolve().parent.parent
NOW = 1000.0
WELCOME = {"type": "welcome", "player": "p_a", "session": "S", "name": "alice"}
GOMOKU = {"name": "gomoku", "width": 15, "height": 15, "k": 5, "rule": "freestyle"}


def shoot(app: App, path: Path, name: str) -> list[str]:
    """Draw one frame, save it (and into docs/ when asked); the texts drawn."""
    shown: list[str] = []
    real = theme.text

    def spy(surface: Any, text: str, *args: Any, **kw: Any) -> Any:
        shown.append(text)
        return real(surface, text, *args, **kw)

    theme.text = spy  # type: ignore[assignment]
    try:
        app.step([], now=NOW, lazy=False)
    finally:
        theme.text = real  # type: ignore[assignment]
    pygame.image.save(app.surface, str(path))
    if os.environ.get("MNK_SCREENSHOTS"):
        shutil.copy(path, ROOT / "docs" / name)
    return shown


def room_row(code: str, game: str, status: str, players: list[Any], watching: int = 0) -> dict:
    return {
        "room": code,
        "game": game,
        "status": status,
        "players": players,
        "spectators": watching,
    }


def history_row(gid: str, players: list[str], winner: int | None, reason: str, ago: float) -> dict:
    return {
        "game_id": gid,
        "room": gid[-6:],
        "game": GOMOKU,
        "players": players,
        "winner": winner,
        "reason": reason,
        "ended_at": 1_795_000_000.0 - ago,
    }


def test_the_lobby_picture(tmp_path: Path) -> None:
    pygame.font.init()
    bots = [("minimax", None), ("seven", 7), ("greedy", 0), ("renju-master", None)]
    inbox = [
        WELCOME,
        {
            "type": "rooms",
            "rooms": [
                room_row("k7m2qx", "gomoku", "waiting", ["bob", None]),
                room_row("p3wz9d", "renju", "playing", ["carol", "minimax"], 2),
                room_row("h8tq4e", "tictactoe", "playing", ["dave", "erin"]),
            ],
        },
        {
            "type": "bots",
            "bots": [
                {"name": n, "player": f"p_{n}", "online": True, "level": lv} for n, lv in bots
            ],
        },
        {
            "type": "games",
            "more": False,
            "games": [
                history_row("g_1k7m2qx", ["alice", "minimax"], 0, "line", 300),
                history_row("g_2p3wz9d", ["bob", "carol"], 1, "resign", 4000),
                history_row("g_3h8tq4e", ["minimax", "seven"], None, "draw", 90000),
            ],
        },
    ]
    app = App(FakeNet(inbox), name="alice", size=(1200, 680))
    app.step(now=NOW)
    app.do_lobby_tab("rooms")  # the open rooms' tab (Quick pairing has its own picture)
    shown = shoot(app, tmp_path / "lobby.png", "screenshot-lobby.png")
    assert "k7m2qx" in shown and "more 1/2" in shown
    assert any(t.startswith("Opening rule: none") for t in shown)


def test_the_gomoku_picture(tmp_path: Path) -> None:
    pygame.font.init()
    moves = [[6, 8], [5, 8], [7, 7], [7, 8], [8, 6], [8, 8], [9, 5], [9, 8], [10, 4]]
    state = state_message(
        "gomoku",
        room="k7m2qx",
        players=["alice", "minimax"],
        kinds=["human", "bot"],
        options={"opponent": "bot", "level": 5},
        moves=moves,
        ply=len(moves),
        to_move=None,
        status="over",
        result={"winner": 0, "reason": "line", "line": [[6, 8], [7, 7], [8, 6], [9, 5], [10, 4]]},
        spectators=1,
        clock={"initial_s": 180.0, "increment_s": 2.0, "move_s": None},
        clocks=[171.2, 201.5],
        chat=[
            {"from": "minimax", "seat": 1, "text": "Good luck, have fun!"},
            {"from": "alice", "seat": 0, "text": "you too"},
            {"from": "zoe", "seat": None, "text": "nice diagonal"},
        ],
    )
    inbox = [WELCOME, {"type": "joined", "room": "k7m2qx", "seat": 0}, state]
    app = App(FakeNet(inbox), name="alice", size=(1200, 680))
    app.step(now=NOW)
    shown = shoot(app, tmp_path / "gomoku.png", "screenshot-gomoku.png")
    assert "alice wins with 5 in a row" in shown and "room k7m2qx" in shown
    assert any("nice diagonal" in t for t in shown)
