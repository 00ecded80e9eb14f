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
from support.client_shots import shoot

from bots.engine.solver import Solver
from client.export import read_text_record
from client.values import FinishedGame
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
        try:
            # (the bot's winning move may have ended the game before our click counted)
            driver.pump(lambda p=ply: driver.room.ply > p or driver.room.status != "playing", 30)
        except AssertionError as exc:  # say what the client heard instead
            toasts = [t.text for t in driver.app.model.toasts]
            raise AssertionError(f"{exc}; cell {cell}, ply {ply}, toasts {toasts}") from exc


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
        shot = shoot(app, tmp_path / "replay.png", "img/pygame-replay.png")
        assert shot.shows(f"{game.times_ms[0] / 1000:.3f} s") and not shot.clipped, shot.clipped
        alice.click("export", "txt")
        text = (tmp_path / "out" / f"mnk-{game.game_id}.txt").read_text()
        record = read_text_record(text)
        assert [(m.x, m.y) for m in record.moves] == list(game.moves)
        assert record.times_ms == game.times_ms and record.players == ("alice", "minimax")
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


def solved_values(
    width: int, height: int, k: int, stones: dict[tuple[int, int], int], to_move: int
) -> dict[tuple[int, int], str]:
    """Every empty cell's proven value for the colour ``to_move`` (the exact solver's
    answer: the oracle the server's values must agree with)."""
    solver = Solver(width, height, k)
    me = opp = 0
    for (x, y), colour in stones.items():
        if colour == to_move:
            me |= 1 << (y * width + x)
        else:
            opp |= 1 << (y * width + x)
    out = {}
    for y in range(height):
        for x in range(width):
            if (x, y) in stones:
                continue
            mine = me | 1 << (y * width + x)
            if any(line & mine == line for line in solver.lines):
                out[(x, y)] = "win"
                continue
            value = solver.value(opp, mine)
            out[(x, y)] = {1: "loss", 0: "draw", -1: "win"}[value]
    return out


def test_a_training_game_hint_takeback_and_the_games_analysis(server: str, tmp_path: Path) -> None:
    alice = Driver(server, "alice")
    try:
        app = alice.app
        alice.pump(lambda: app.model.history_supported is not None, what="the history")
        alice.click("form_opponent", "bot")
        alice.click("form_hints")
        assert app.form.hints
        alice.create_vs_bot("gomoku", 6)  # past level 5: the bot grants takebacks in training
        assert alice.room.hints and alice.room.kinds == ["human", "bot"]
        # two moves of ours, the bot's answers between
        for cell in [(7, 7), (7, 9)]:
            alice.pump(lambda: alice.room.my_turn, 30, "our turn")
            ply = alice.room.ply
            if cell in alice.room.stones:
                cell = next((x, 2) for x in range(15) if (x, 2) not in alice.room.stones)
            pos = app.cell_pixel(*cell)
            assert pos is not None
            alice.click_at(pos)
            alice.pump(lambda: alice.room.ply > ply, 10, "our move")  # noqa: B023
        alice.pump(lambda: alice.room.my_turn, 30, "our turn for a hint")
        alice.keys(pygame.K_h)
        hint = alice.pump(app.shown_hint, 30, "the hint")
        assert hint.best is not None and hint.best.move not in alice.room.stones
        assert hint.ply == alice.room.ply and hint.best.pv[0] == hint.best.move
        shot = shoot(app, tmp_path / "hint.png", "img/pygame-hint.png")
        assert shot.shows("Hint (H)") or shot.shows("Thinking")
        # a takeback against the bot: our last move and its answer go
        before = alice.room.ply
        alice.click("offer", "takeback")
        alice.pump(lambda: alice.room.ply == before - 2, 30, "the takeback")
        assert alice.room.my_turn and app.shown_hint() is None  # another position now
        alice.pump(lambda: app.hotspot("resign"), 5, "the resign button")
        alice.click("resign")
        alice.click("resign")
        room = alice.pump(lambda: alice.room.status == "over" and alice.room, 10, "the end")
        moves = list(room.moves)
        # the game's analysis, position by position
        alice.click("replay_current")
        alice.pump(lambda: app.scene == "replay", 5, "the replay")
        alice.keys(pygame.K_a)
        assert app.scene == "analysis"
        walk = alice.pump(lambda: app.walk and app.walk.next_ply(0) is None and app.walk, 90, "all")
        assert walk.stopped is None, walk.stopped
        assert sorted(walk.by_ply) == list(range(len(moves) + 1))  # resigned: the end is a position
        for ply, analysis in walk.by_ply.items():
            assert analysis.ply == ply and analysis.best is not None
            assert analysis.best.move not in moves[:ply]
        sent = [m for m in alice.net.sent if m["type"] == "analyse"]
        assert sent[0] == {"type": "analyse", "room": room.room}  # the hint
        assert {m["ply"] for m in sent[1:]} == set(range(len(moves) + 1))  # then each position
    finally:
        alice.close()


def test_a_tictactoe_games_values_agree_with_the_solver(server: str, tmp_path: Path) -> None:
    alice = Driver(server, "alice")
    try:
        app = alice.app
        alice.pump(lambda: app.model.history_supported is not None, what="the history")
        alice.create_vs_bot("tictactoe", 10)
        play_out(alice)
        moves = list(alice.room.moves)
        alice.click("replay_current")
        alice.click("analyse_game")
        walk = alice.pump(lambda: app.walk and app.walk.next_ply(0) is None and app.walk, 60, "all")
        assert walk.stopped is None, walk.stopped
        for ply in range(len(moves)):  # every position before the end (the end is over)
            analysis = walk.by_ply[ply]
            stones = {cell: i & 1 for i, cell in enumerate(moves[:ply])}
            expected = solved_values(3, 3, 3, stones, ply & 1)
            got = {v.move: v.value for v in analysis.values}
            assert got == expected, (ply, got, expected)
        # O lost or drew against a perfect X? the bot never loses: no blunder of the bot's
        assert all(m.ply % 2 == 0 for m in walk.blunders())  # the bot (O) made none
        # the picture: the position whose cells' values differ the most (a mistake possible)
        app.replay_ply = max(
            range(len(moves)), key=lambda p: (len({v.value for v in walk.by_ply[p].values}), p)
        )
        shot = shoot(app, tmp_path / "analysis.png", "img/pygame-analysis.png")
        assert shot.shows("Proven") and not shot.clipped, shot.clipped
    finally:
        alice.close()


def test_the_analysis_board_on_4x4_agrees_with_the_solver(server: str, tmp_path: Path) -> None:
    alice = Driver(server, "alice")
    try:
        app = alice.app
        alice.pump(lambda: app.model.bots, 60, "the built-in bot online")
        alice.click("study")
        assert app.scene == "study" and app.study.info.width == 4  # 4x4, k=4 to start
        # five stones: the solver finishes well within the bot's share of a second, so the
        # answer carries the proven values however loaded the machine
        setup = {(1, 1): 0, (2, 2): 1, (1, 2): 0, (2, 1): 1, (0, 0): 0}
        for cell, colour in setup.items():
            alice.click("study_paint", colour)
            pos = app.cell_pixel(*cell)
            assert pos is not None
            alice.click_at(pos)
        alice.click("study_side", 1)
        alice.click("study_mode", "play")
        fresh = alice.pump(lambda: app.study.fresh, 30, "the analysis")
        assert {v.move: v.value for v in fresh.values} == solved_values(4, 4, 4, setup, 1)
        assert fresh.best is not None
        alice.keys(pygame.K_b)  # white plays the best move, and the engine looks again
        assert len(app.study.moves) == 1
        fresh = alice.pump(lambda: app.study.fresh, 30, "the next analysis")
        stones = {**setup, app.study.moves[0]: 1}
        assert {v.move: v.value for v in fresh.values} == solved_values(4, 4, 4, stones, 0)
        shoot(app, tmp_path / "board-4x4.png", "img/pygame-board-4x4.png")
        # gomoku with three lines: the engine's opinion, no proof
        alice.click("study_variant", "gomoku")
        alice.click("study_side", 0)
        for colour, cells in enumerate([[(7, 7), (8, 6), (6, 8)], [(8, 8), (9, 7), (6, 6)]]):
            alice.click("study_paint", colour)
            for cell in cells:
                pos = app.cell_pixel(*cell)
                assert pos is not None
                alice.click_at(pos)
        alice.click("study_mode", "play")
        alice.click("study_step", ("lines", 1))
        alice.click("study_step", ("lines", 1))
        three = alice.pump(lambda: (f := app.study.fresh) and len(f.lines) == 3 and f, 30, "3")
        assert three.values == () and len({line.move for line in three.lines}) == 3
        shot = shoot(app, tmp_path / "board-gomoku.png", "img/pygame-board.png")
        assert shot.shows("1. ") and shot.shows("3. ") and not shot.clipped, shot.clipped
    finally:
        alice.close()
