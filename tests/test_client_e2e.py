"""End to end: the real client App against the real server and its built-in minimax bot.

The server runs as a subprocess (``python -m server`` with a SQLite file in ``tmp_path``, so it
keeps history and starts its bot process). The App gets a real :class:`client.net.NetClient`
and is driven only by synthetic pygame events: clicks on hotspots and board cells, key presses.
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from pathlib import Path

import pygame
import pytest
from support.app import SIZE, Driver, Ev, app_server, running_server

from client import theme
from client.values import FinishedGame
from client.views.board import board_geometry
from client.views.replay import room_layout

#: Tic-tac-toe cells in the order this test's player prefers them.
TTT_ORDER = [(1, 1), (0, 0), (2, 2), (2, 0), (0, 2), (1, 0), (0, 1), (2, 1), (1, 2)]

#: The server process with history and its built-in bot, not conftest's in-process one.
server = app_server

pytestmark = [pytest.mark.timeout(90), pytest.mark.slow]  # a real server process (with its bot)


def test_tictactoe_and_gomoku_against_the_real_bot(server: str, tmp_path: Path) -> None:
    alice = Driver(server, "alice")
    try:
        app = alice.app
        alice.pump(lambda: app.model.history_supported is not None, what="the history")
        assert app.model.history_supported and app.model.history == []
        alice.save(tmp_path / "lobby-empty.png")

        # -- tic-tac-toe against the bot at level 10, played by clicking cells ---------------
        alice.create_vs_bot("tictactoe", 10)
        assert alice.room.seat == 0 and alice.room.kinds == ["human", "bot"]
        while True:
            alice.pump(lambda: alice.room.my_turn or alice.room.status != "playing", 10, "a turn")
            if alice.room.status != "playing":
                break
            ply = alice.room.ply
            cell = next(c for c in TTT_ORDER if c not in alice.room.stones)
            pos = app.cell_pixel(*cell)
            assert pos is not None
            alice.click_at(pos)
            # (the bot's winning move may have ended the game before our click counted)
            alice.pump(lambda p=ply: alice.room.ply > p or alice.room.status != "playing", 10)
            if alice.room.ply > ply:
                assert alice.room.moves[ply] == cell
        room = room_ttt = alice.pump(lambda: alice.room.result and alice.room, 5, "the result")
        assert room.status == "over" and room.result is not None
        assert room.result.winner in (1, None)  # the perfect bot never loses
        assert room.result.reason in ("line", "draw") and room.result_text()
        moves = list(room.moves)
        assert 5 <= len(moves) <= 9
        assert room.game_id.startswith("g_") and room.game_no == 1
        assert app.model.finished[room.game_id].moves == tuple(moves)
        img = alice.save(tmp_path / "ttt-over.png")
        geo = app.geo
        assert geo is not None
        arm = geo.cell // 4 - 4
        for x, y in moves[0::2]:  # the Xs: two arms at least are not under the winning line
            cx, cy = geo.center(x, y)
            tips = [(cx - arm, cy - arm), (cx + arm, cy - arm), (cx - arm, cy + arm)]
            tips.append((cx + arm, cy + arm))
            assert sum(img.get_at(t)[:3] == theme.X_COLOR for t in tips) >= 2, (x, y)
        empty = [(x, y) for x in range(3) for y in range(3) if (x, y) not in moves]
        for x, y in empty:
            assert img.get_at(geo.center(x, y))[:3] == theme.TTT_CELL

        # -- its replay, stepped with the keyboard --------------------------------------------
        alice.click("replay_current")
        assert app.scene == "replay" and app.replay_ply == len(moves)
        alice.keys(pygame.K_LEFT, pygame.K_LEFT)
        assert app.replay_ply == len(moves) - 2
        alice.keys(pygame.K_HOME)
        assert app.replay_ply == 0
        alice.keys(pygame.K_RIGHT, pygame.K_RIGHT, pygame.K_RIGHT)
        assert app.replay_ply == 3
        alice.keys(pygame.K_END)
        assert app.replay_ply == len(moves)
        alice.keys(pygame.K_RIGHT)
        assert app.replay_ply == len(moves)
        alice.save(tmp_path / "ttt-replay.png")
        alice.keys(pygame.K_ESCAPE)
        assert app.scene == "room"

        # -- back in the lobby: the game is in the server's history ----------------------------
        alice.click("leave")
        assert app.scene == "lobby"
        alice.pump(lambda: app.model.history, 5, "the history row")
        (row,) = app.model.history
        assert row.players == ("alice", "minimax") and row.game.name == "tictactoe"
        assert (row.result.winner, row.result.reason) == (room.result.winner, room.result.reason)
        ((listed, local),) = app.model.lobby_games()
        assert listed is row and local is not None and list(local.moves) == moves
        assert row.game_id == local.game_id == room.game_id  # linked by the server's id
        alice.pump(lambda: app.hotspot("replay", row.game_id), 2, "the history hotspot")
        alice.pump(
            lambda: all(r.status == "over" for r in app.model.lobby if r.room == room.room),
            3,
            "the room list to show the game over",
        )
        assert not app.model.toasts  # the no-bot retries' toasts went when the game began
        alice.save(tmp_path / "lobby-history.png")

        # -- gomoku against a level-1 bot: a few moves by keyboard, then resign ---------------
        alice.create_vs_bot("gomoku", 1)
        assert alice.room.game.name == "gomoku" and alice.room.seat == 0
        alice.keys(pygame.K_DOWN)  # the first arrow shows the cursor in the middle
        assert app.cursor == (7, 7) and app.cursor_visible
        mine: list[tuple[int, int]] = []
        for target in [(7, 7), (5, 9), (9, 5)]:
            alice.pump(lambda: alice.room.my_turn, 10, "our gomoku turn")
            ply = alice.room.ply
            if target in alice.room.stones:
                target = next((x, 3) for x in range(15) if (x, 3) not in alice.room.stones)
            cx, cy = app.cursor or (7, 7)
            tx, ty = target
            steps = [pygame.K_RIGHT if tx > cx else pygame.K_LEFT] * abs(tx - cx)
            steps += [pygame.K_DOWN if ty > cy else pygame.K_UP] * abs(ty - cy)
            alice.keys(*steps)
            assert app.cursor == target
            alice.keys(pygame.K_RETURN)
            alice.pump(lambda: alice.room.ply > ply, 10, "the gomoku move")  # noqa: B023
            assert alice.room.moves[ply] == target
            mine.append(target)
        alice.pump(lambda: alice.room.my_turn, 10, "our turn to resign")
        alice.click("resign")
        assert app.confirm == "resign"
        alice.save(tmp_path / "gomoku-confirm.png")
        alice.click("resign")  # the dialog's button
        room = alice.pump(lambda: alice.room.status == "over" and alice.room, 5, "the resignation")
        assert room.result is not None
        assert (room.result.winner, room.result.reason) == (1, "resign")
        assert room.result_text() == "alice resigned, minimax wins"
        img = alice.save(tmp_path / "gomoku-resigned.png")
        geo = app.geo
        assert geo is not None
        for cell in mine:
            c = img.get_at(geo.center(*cell))
            assert c.r + c.g + c.b < 240, cell  # a black stone
        c = img.get_at(geo.center(*room.moves[1]))
        assert min(c.r, c.g, c.b) > 170, room.moves[1]  # a white stone

        alice.keys(pygame.K_ESCAPE)
        assert app.scene == "lobby"
        alice.pump(lambda: len(app.model.history) == 2, 5, "both games in the history")
        assert [h.game.name for h in app.model.history] == ["gomoku", "tictactoe"]
        # her games' moves were here already: the only get_game is the quiet one the replay
        # sent for the moves' times (the server keeps them; a game seen live has none)
        fetched = [m for m in alice.net.sent if m["type"] == "get_game"]
        assert [m["game_id"] for m in fetched] == [room_ttt.game_id]
        assert all("format" not in m for m in fetched) and not app.model.toasts
    finally:
        alice.close()

    # -- a later session replays the tic-tac-toe game from the server's history --------------
    bob = Driver(server, "bob")
    try:
        app = bob.app
        bob.pump(lambda: len(app.model.history) == 2, 5, "bob's history")
        bob.pump(lambda: app.hotspot("replay", row.game_id), 2, "the row")
        bob.click("replay", row.game_id)
        game: FinishedGame = bob.pump(lambda: app.replay_game, 5, "the get_game answer")
        assert app.scene == "replay" and app.replay_key == row.game_id
        assert list(game.moves) == moves and game.players == ("alice", "minimax")
        assert bob.net.types().count("get_game") == 1
        assert app.replay_ply == len(moves)
        bob.keys(pygame.K_HOME, pygame.K_RIGHT)
        assert app.replay_ply == 1
        img = bob.save(tmp_path / "bob-replay.png")
        geo = board_geometry(game.game, room_layout(SIZE)[0])
        (x0, y0), (x1, y1) = moves[0], moves[1]
        cx, cy = geo.center(x0, y0)
        arm = geo.cell // 4 - 4
        assert img.get_at((cx - arm, cy - arm))[:3] == theme.X_COLOR  # the first X is shown
        assert img.get_at(geo.center(x1, y1))[:3] == theme.TTT_CELL  # the second move is not
        bob.keys(pygame.K_ESCAPE)
        assert app.scene == "lobby"
    finally:
        bob.close()


def test_a_server_without_history(tmp_path: Path) -> None:
    """``--memory`` answers ``list_games`` with ``no_history``: the client keeps its own list."""
    with running_server(tmp_path, "--memory", "--no-bots") as url:
        alice, bob = Driver(url, "alice"), Driver(url, "bob")
        try:
            a, b = alice.app, bob.app
            alice.pump(lambda: a.model.history_supported is False, what="no_history")
            assert not a.model.toasts  # the probe's error is not shown
            alice.click("form_game", "tictactoe")
            alice.click("form_opponent", "human")
            alice.click("form_seat", 0)
            alice.click("create")
            code = alice.pump(lambda: a.model.room and a.model.room.room, what="the new room")
            bob.pump(lambda: b.model.connection == "online", what="bob online")
            bob.click("focus_code")
            bob.events(Ev(pygame.TEXTINPUT, text=code))
            bob.keys(pygame.K_RETURN)
            bob.pump(lambda: b.model.room and b.model.room.status == "playing", what="the start")
            turns = [(alice, (0, 0)), (bob, (1, 0)), (alice, (0, 1)), (bob, (1, 1))]
            turns.append((alice, (0, 2)))
            for who, cell in turns:
                who.pump(lambda: who.room.my_turn, what="a turn")  # noqa: B023
                pos = who.app.cell_pixel(*cell)
                assert pos is not None
                who.click_at(pos)
            room = alice.pump(lambda: alice.room.result and alice.room, what="the result")
            assert room.result_text() == "alice wins with 3 in a row"
            alice.keys(pygame.K_ESCAPE)
            alice.pump(lambda: a.hotspot("replay", room.game_id), 2, "the game seen here")
            assert a.model.history_supported is False and not a.model.toasts
            assert alice.net.types().count("list_games") == 1  # asked once, at the welcome
            alice.save(tmp_path / "lobby-no-history.png")
            alice.click("replay", room.game_id)
            assert a.scene == "replay" and a.replay_ply == 5
        finally:
            alice.close()
            bob.close()
