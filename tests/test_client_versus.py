"""The pygame client: "Full strength" in the bot-game form, and "Continue from here against the
bot" on the analysis board and the replay (a ``create_room`` from the position on screen)."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from pathlib import Path
from typing import Any

import pygame
from support.client_shots import shoot
from support.fakenet import FakeNet

from client.anaboard import AnalysisBoard
from client.app import App
from client.values import FinishedGame, GameInfo, Result

GOMOKU = GameInfo("gomoku", 15, 15, 5)


def lobby(size: tuple[int, int] = (1200, 680)) -> tuple[App, FakeNet]:
    pygame.font.init()
    net = FakeNet()
    app = App(net, name="alice", size=size)
    net.inbox.append({"type": "welcome", "player": "p_a", "session": "S", "name": "alice"})
    app.step(now=100.0)
    return app, net


def click(app: App, action: str, now: float, arg: Any = None) -> None:
    """Click the hotspot of ``action`` (and ``arg`` when given) in the last frame."""
    spot = app.hotspot(action) if arg is None else app.hotspot(action, arg)
    assert spot is not None, action
    event = pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=spot.rect.center, button=1)
    app.step([event], now=now)


def test_full_strength_is_picked_in_the_bot_form(tmp_path: Path) -> None:
    for size in ((1200, 680), (1000, 640)):
        app, net = lobby(size)
        click(app, "form_opponent", 101.0, "bot")
        click(app, "form_full", 102.0)
        shot = shoot(app, tmp_path / f"lobby-{size[0]}.png", now=103.0)
        assert shot.shows("\u2713 Full strength")
        assert app.hotspot("form_step", ("level", 1)) is not None  # the level is still there
        click(app, "create", 104.0)
        create = [m for m in net.sent if m["type"] == "create_room"][-1]
        assert create["opponent"] == "bot" and create["options"]["full_strength"] is True


def test_the_analysis_board_asks_for_a_room_from_its_position() -> None:
    board = AnalysisBoard(name="gomoku", width=15, height=15, k=5)
    board.stones = {(7, 7): 0, (8, 8): 1}
    board.mode = "play"
    board.moves = [(6, 6)]  # black's move: white to move
    msg = board.versus_request(4)
    assert msg["type"] == "create_room" and msg["opponent"] == "bot" and msg["level"] == 4
    assert msg["seat"] == 1 and msg["game"] == "gomoku"
    assert msg["options"] == {
        "position": {"black": [[6, 6], [7, 7]], "white": [[8, 8]], "to_move": 1}
    }


def test_continue_from_the_study_and_from_a_replay(tmp_path: Path) -> None:
    app, net = lobby()
    app.study.name, app.study.width, app.study.height, app.study.k = "gomoku", 15, 15, 5
    app.study.stones = {(7, 7): 0, (8, 8): 1}
    app.study.mode = "play"
    app.do_study()
    app.step(now=101.0)
    shoot(app, tmp_path / "study.png", now=101.5)
    click(app, "versus_bot", 102.0)
    create = net.sent[-1]
    assert create["type"] == "create_room" and create["seat"] == 0
    assert create["options"]["position"] == {"black": [[7, 7]], "white": [[8, 8]], "to_move": 0}
    moves = ((7, 7), (8, 8), (7, 8), (9, 9))
    game = FinishedGame("g_1", "r1", GOMOKU, ("alice", "minimax"), moves, Result(1, "resign"))
    app.model.finished[game.game_id] = game
    app.do_replay(game.game_id)
    app.do_replay_to(3)
    app.step(now=103.0)
    shoot(app, tmp_path / "replay.png", now=103.5)
    click(app, "versus_bot", 104.0)
    create = net.sent[-1]
    assert create["type"] == "create_room" and create["seat"] == 1  # white to move after 3
    assert create["options"]["position"] == {
        "black": [[7, 7], [7, 8]], "white": [[8, 8]], "to_move": 1
    }  # fmt: skip


def test_a_training_game_shows_what_the_bot_saw(tmp_path: Path) -> None:
    from support.samples import state_message

    app, net = lobby()
    fields = {
        "players": ["alice", "minimax"],
        "kinds": ["human", "bot"],
        "options": {"hints": True},
    }
    net.inbox += [
        {"type": "joined", "room": "r1", "seat": 0},
        state_message("gomoku", moves=[[7, 7]], ply=1, to_move=1, **fields),
    ]
    app.step(now=101.0)
    info = {"depth": 9, "score": 35, "pv": [[8, 8], [6, 6], [9, 9]]}
    moved = {"type": "moved", "room": "r1", "ply": 1, "seat": 1, "x": 8, "y": 8, "info": info}
    net.inbox.append(moved)
    app.step(now=102.0)
    shot = shoot(app, tmp_path / "training.png", now=102.5)
    seen = " ".join(shot.texts)  # wrapped onto two lines
    assert "minimax saw +35 (engine units), depth 9 \u00b7 its line: J7 G9 K6" in seen, shot.texts
