"""The analysis features of the app over a fake transport: the training game's Hint, the
analysis of a finished game walked one request at a time, the analysis board, and exports."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from pathlib import Path
from typing import Any

import pygame
import pytest
from support.client_shots import shoot
from support.fakenet import FakeNet
from support.headless import click, click_action, welcomed_app
from support.samples import state_message

from client import theme
from client.app import App
from client.export import read_text_record
from protocol.records import read_psq
from protocol.rules import Move
from protocol.variants import FIXED
from server.core.analysis.marks import marks
from server.core.analysis.position import GameLine

Ev = pygame.event.Event
#: A finished tic-tac-toe game as ``get_game`` sends it (X wins on the diagonal).
GAME = {
    "game_id": "g_1",
    "room": "r1",
    "game": {"name": "tictactoe", "width": 3, "height": 3, "k": 3},
    "players": ["alice", "minimax"],
    "winner": 0,
    "reason": "line",
    "line": [[0, 0], [1, 1], [2, 2]],
    "moves": [
        {"x": 1, "y": 1, "ms": 1200},
        {"x": 1, "y": 0, "ms": 300},
        {"x": 0, "y": 0, "ms": 2500},
        {"x": 2, "y": 2, "ms": 100},
        {"x": 2, "y": 0, "ms": 900},
        {"x": 0, "y": 2, "ms": 50},
        {"x": 1, "y": 2, "ms": 400},
    ],
}


def key(k: int) -> Ev:
    return Ev(pygame.KEYDOWN, key=k, mod=0, unicode="", scancode=0)


@pytest.fixture
def app() -> tuple[App, FakeNet]:
    return welcomed_app()


def analyses(net: FakeNet) -> list[dict[str, Any]]:
    return [m for m in net.sent if m["type"] == "analyse"]


def line(move: list[int], score: int = 50, pv: list[list[int]] | None = None) -> dict[str, Any]:
    return {"move": move, "score": score, "pv": pv or [move], "depth": 7}


def test_the_form_makes_a_training_game_and_rated_undoes_it(app: tuple[App, FakeNet]) -> None:
    a, net = app
    click_action(a, "form_opponent", "bot")
    click_action(a, "form_hints")
    click_action(a, "create")
    sent = net.sent[-1]
    assert sent["type"] == "create_room" and sent["options"] == {"hints": True}
    a.model.account = True  # a rated game is asked for: never a training one
    a.step()
    click_action(a, "form_rated")
    assert not a.form.hints
    click_action(a, "form_clock", 2)
    click_action(a, "create")
    assert net.sent[-1]["rated"] is True and "options" not in net.sent[-1]


def test_a_hint_in_a_training_game(app: tuple[App, FakeNet], tmp_path: Path) -> None:
    a, net = app
    options = {"opponent": "bot", "level": 3, "hints": True}
    training = state_message(
        "gomoku", kinds=["human", "bot"], options=options, moves=[[7, 7], [8, 8]], ply=2
    )
    net.inbox += [{"type": "joined", "room": "r1", "seat": 0}, training]
    a.step()
    assert a.scene == "room" and a.model.room is not None and a.model.room.hints
    assert a.hotspot("offer", "takeback") is not None  # a takeback against the bot
    net.inbox.append(dict(training, to_move=1))  # the bot's move: no hint for it
    a.step([key(pygame.K_h)])
    assert analyses(net) == [] and a.hotspot("hint") is None
    net.inbox.append(training)
    a.step()
    a.step([key(pygame.K_h)])
    a.step([key(pygame.K_h)])  # asked once: the second press waits for the answer
    (asked,) = analyses(net)
    assert asked == {"type": "analyse", "room": "r1", "id": asked["id"]}
    assert a.hotspot("hint") is None  # "Thinking…" while it is on its way
    answer = {"type": "analysis", "id": asked["id"], "ply": 2, "to_move": 0}
    answer["lines"] = [line([6, 6], 230, [[6, 6], [9, 9], [5, 5]])]
    net.inbox.append(answer)
    shot = shoot(a, tmp_path / "hint.png")
    assert shot.shows("G9 +230 (depth 7): G9 K6 F10"), shot.texts
    img = pygame.image.load(str(tmp_path / "hint.png"))
    geo = a.geo
    assert geo is not None
    cx, cy = geo.center(6, 6)
    ring = max(4, int(geo.cell * 0.47)) + 2  # the best move's ring (client/views/analysis.py)
    assert any(img.get_at((cx + ring - d, cy))[:3] == theme.ACCENT for d in range(1, 4))
    assert img.get_at((cx + ring + 3, cy))[:3] != theme.ACCENT
    a.step([key(pygame.K_h)])
    assert len(analyses(net)) == 1  # the hint for this position is on screen
    net.inbox.append({"type": "moved", "room": "r1", "ply": 2, "seat": 0, "x": 0, "y": 0})
    a.step()
    assert a.shown_hint() is None  # about another position now
    # a room without hints has no Hint button and H does nothing
    net.inbox.append(dict(training, options={"opponent": "bot"}, moves=[], ply=0))
    a.step([key(pygame.K_h)])
    assert a.hotspot("hint") is None and len(analyses(net)) == 1


def open_game(a: App, net: FakeNet) -> None:
    net.inbox.append({"type": "game", "game": GAME})
    a.step()
    a.do_replay("g_1")
    a.step()
    assert a.scene == "replay"


def test_a_finished_game_is_analysed_one_position_at_a_time(
    app: tuple[App, FakeNet], tmp_path: Path
) -> None:
    a, net = app
    open_game(a, net)
    a.replay_ply = 3
    a.step([key(pygame.K_a)])
    assert a.scene == "analysis"
    first = analyses(net)
    assert [(m["game_id"], m["ply"]) for m in first] == [("g_1", 3)]  # the one on screen first
    for _ in range(3):
        a.step()
    assert len(analyses(net)) == 1  # one in flight: nothing more until it is answered
    # exact answers: position p's value for the side to move (a known tic-tac-toe game)
    exact = {0: "draw", 1: "draw", 2: "win", 3: "loss", 4: "win", 5: "loss", 6: "win"}
    played = [Move(m["x"], m["y"]) for m in GAME["moves"]]
    game_line = GameLine.of(FIXED["tictactoe"], [], played, GAME["reason"])
    kept: dict[bytes, dict[str, Any]] = {}  # the server's cache: it marks with its own rule
    flip = {"win": "loss", "loss": "win", "draw": "draw"}
    answered: list[int] = []
    while True:
        asked = analyses(net)[-1]
        ply = asked["ply"]
        if ply in answered:
            break
        answered.append(ply)
        if ply == 7:  # the final position is won already: the server refuses it
            net.inbox.append({"type": "error", "id": asked["id"], "code": "bad_position"})
        else:
            taken = [(m["x"], m["y"]) for m in GAME["moves"][:ply]]
            free = [[x, y] for y in range(3) for x in range(3) if (x, y) not in taken]
            move = [played[ply].x, played[ply].y]
            result = flip[exact[ply + 1]] if ply + 1 in exact else "win"  # ply 6 makes the line
            values = [
                {"move": c, "value": result if c == move else exact[ply], "plies": 9 - ply}
                for c in free
            ]
            best = list(GAME["moves"][ply].values())[:2]
            body = {"lines": [line(best)], "values": values}
            kept[game_line.key(ply)] = body
            said = marks(game_line, ply, body, kept.get)
            net.inbox.append(
                {"type": "analysis", "id": asked["id"], "ply": ply, "to_move": ply & 1}
                | body
                | {"marks": said}
            )
        a.step()
        if a.walk is not None and a.walk.next_ply(a.replay_ply) is None:
            break
    assert answered == [3, 0, 1, 2, 4, 5, 6, 7]
    assert not any(m["type"] == "error" for m in a.model.toasts)  # bad_position is quiet
    walk = a.walk
    assert walk is not None and [m.ply for m in walk.blunders()] == [1]  # O's edge move
    assert walk.points()[-1] == 1.0  # X's line ends the graph
    shot = shoot(a, tmp_path / "analysis.png")
    assert shot.shows("B3?") and shot.shows("Proven: loss in 6 plies")
    assert shot.shows("All 8 positions analysed")
    assert not shot.clipped, shot.clipped
    img = pygame.image.load(str(tmp_path / "analysis.png"))
    geo = a.geo
    assert geo is not None
    x, y = geo.center(0, 2)  # free at ply 3, O to move and lost: a red cell
    corner = img.get_at((x - geo.cell // 3, y - geo.cell // 3))
    assert corner.r > corner.g + 40, corner
    click_action(a, "replay_to", 2)  # a click on the blunder's row: the board after it
    assert a.replay_ply == 2 and a.scene == "analysis"
    a.step([key(pygame.K_ESCAPE)])
    assert a.scene == "replay"
    a.step([key(pygame.K_ESCAPE)])
    assert a.scene == "lobby"


def test_leaving_the_analysis_pauses_its_walk(app: tuple[App, FakeNet]) -> None:
    a, net = app
    open_game(a, net)
    click_action(a, "analyse_game")
    (asked,) = analyses(net)
    a.step([key(pygame.K_ESCAPE)])  # back to the replay: the walk waits
    net.inbox.append({"type": "analysis", "id": asked["id"], "ply": 7, "lines": []})
    for _ in range(3):
        a.step()
    assert len(analyses(net)) == 1
    a.step([key(pygame.K_a)])
    assert len(analyses(net)) == 2  # on screen again: it goes on


def test_a_busy_server_is_asked_again_after_a_pause(app: tuple[App, FakeNet]) -> None:
    a, net = app
    open_game(a, net)
    click_action(a, "analyse_game")
    (asked,) = analyses(net)
    net.inbox.append({"type": "error", "id": asked["id"], "code": "rate_limited"})
    a.step(now=100.0)
    a.step(now=100.5)
    assert len(analyses(net)) == 1 and not a.model.toasts
    a.step(now=102.5)
    again = analyses(net)[-1]
    assert len(analyses(net)) == 2 and again["ply"] == asked["ply"]
    net.inbox.append({"type": "error", "id": again["id"], "code": "analysis_refused"})
    a.step(now=103.0)
    assert a.walk is not None and a.walk.stopped is not None
    a.step(now=104.0)
    assert len(analyses(net)) == 2  # stopped: nothing more is asked


def test_exports_write_the_servers_psq_and_our_text_record(
    app: tuple[App, FakeNet], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MNK_EXPORT_DIR", str(tmp_path))
    a, net = app
    open_game(a, net)
    click_action(a, "export", "txt")
    record = read_text_record((tmp_path / "mnk-g_1.txt").read_text())
    assert [(m.x, m.y) for m in record.moves] == [(m["x"], m["y"]) for m in GAME["moves"]]
    assert record.times_ms == tuple(m["ms"] for m in GAME["moves"])
    click_action(a, "export", "psq")
    asked = net.sent[-1]
    assert asked["type"] == "get_game" and asked["format"] == "psq"
    psq = "Piskvorky 3x3, 11:11, 0\n2,2,1200\n2,1,300\n-1\nalice\nminimax\n1,Freestyle\n"
    net.inbox.append({"type": "game", "id": asked["id"], "game": GAME, "psq": psq})
    a.step()
    assert (tmp_path / "mnk-g_1.psq").read_text() == psq
    assert any("mnk-g_1.psq" in t.text for t in a.model.toasts)
    # a server without history: the record is written from the moves seen here
    click_action(a, "export", "psq")
    asked = net.sent[-1]
    net.inbox.append({"type": "error", "id": asked["id"], "code": "no_history"})
    a.step()
    back = read_psq((tmp_path / "mnk-g_1.psq").read_text())
    assert [(m.x, m.y) for m in back.moves] == [(m["x"], m["y"]) for m in GAME["moves"]]
    assert back.players == ("alice", "minimax") and back.winner == 0


def test_the_analysis_board_sets_up_plays_and_asks(app: tuple[App, FakeNet]) -> None:
    a, net = app
    click_action(a, "study")
    assert a.scene == "study" and a.study.info.width == 4
    click_action(a, "study_variant", "tictactoe")
    a.step(click(a.cell_pixel(1, 1) or (0, 0)))  # a black (X) stone set up
    click_action(a, "study_paint", 1)
    a.step(click(a.cell_pixel(0, 0) or (0, 0)))
    assert a.study.stones == {(1, 1): 0, (0, 0): 1}
    click_action(a, "study_mode", "play")
    (asked,) = analyses(net)
    position = {"black": [[1, 1]], "white": [[0, 0]], "to_move": 0}
    assert asked["game"] == "tictactoe" and asked["options"] == {"position": position}
    a.step(click(a.cell_pixel(2, 2) or (0, 0)))  # X plays while the answer is on its way
    assert a.study.moves == [(2, 2)] and len(analyses(net)) == 1  # one in flight
    net.inbox.append({"type": "analysis", "id": asked["id"], "ply": 0, "lines": [line([2, 0])]})
    a.step()
    (_, latest) = analyses(net)  # then the position on screen, not the stale one again
    assert latest["moves"] == [[2, 2]]
    net.inbox.append(
        {
            "type": "analysis",
            "id": latest["id"],
            "ply": 1,
            "to_move": 1,
            "lines": [line([2, 0], -1_000_000)],
            "values": [{"move": [2, 0], "value": "loss", "plies": 4}],
        }
    )
    a.step()
    assert a.study.fresh is not None and a.study.fresh.exact() == ("loss", 4)
    a.step([key(pygame.K_b)])  # O plays the engine's best
    assert a.study.moves == [(2, 2), (2, 0)]
    a.step([key(pygame.K_BACKSPACE)])
    assert a.study.moves == [(2, 2)] and a.study.fresh is not None  # the answer is kept
    a.step([key(pygame.K_ESCAPE)])
    assert a.scene == "lobby"


def test_the_analysis_board_goes_back_where_it_was_opened(app: tuple[App, FakeNet]) -> None:
    a, net = app
    net.inbox += [{"type": "joined", "room": "r1", "seat": 0}, state_message("gomoku")]
    a.step()
    click_action(a, "study")  # from a game in play: its board is left alone
    assert a.scene == "study" and a.study.info.width == 4
    a.step([key(pygame.K_ESCAPE)])
    assert a.scene == "room"
    open_game(a, net)
    a.replay_ply = 2
    click_action(a, "study")  # from a replay: the position shown, to play on from
    assert a.study.mode == "play" and a.study.moves == [(1, 1), (1, 0)]
    assert a.study.info.name == "tictactoe"
    a.step([key(pygame.K_ESCAPE)])
    assert a.scene == "replay"
