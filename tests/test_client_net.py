"""The net thread and the app against a small fake server speaking docs/PROTOCOL.md."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import pygame
import pytest
from websockets.asyncio.server import ServerConnection, serve

from client.app import App
from client.net import NetClient
from client.views.common import offline_text
from protocol.rules import Game, Move
from protocol.variants import TICTACTOE
from protocol.wire import decode, encode


class FakeServer:
    """One tic-tac-toe room; the first player gets seat 0, a scripted bot answers every move."""

    def __init__(self) -> None:
        self.hellos: list[dict[str, Any]] = []
        self.conns: list[ServerConnection] = []
        self.game: Game | None = None
        self.port = 0

    def state(self) -> dict[str, Any]:
        game = self.game
        assert game is not None
        outcome = game.outcome
        result = None
        if outcome is not None:
            line = [[m.x, m.y] for m in outcome.line]
            result = {"winner": outcome.winner, "reason": str(outcome.termination), "line": line}
        return {
            "type": "state",
            "room": "r1",
            "game": TICTACTOE.describe(),
            "players": ["alice", "bot"],
            "player_ids": ["p_a", "p_b"],
            "kinds": ["human", "bot"],
            "online": [True, True],
            "seat": 0,
            "moves": [[m.x, m.y] for m in game.moves],
            "ply": game.ply,
            "to_move": game.to_move,
            "status": "over" if outcome else "playing",
            "result": result,
            "rematch": [False, False],
            "spectators": 0,
            "game_no": 1,
            "game_id": "g_1",
        }

    async def handler(self, ws: ServerConnection) -> None:
        self.conns.append(ws)
        async for frame in ws:
            msg = decode(frame)
            for i, reply in enumerate(self.answer(msg)):
                if "id" in msg and i == 0:  # the direct reply echoes the id, broadcasts do not
                    reply["id"] = msg["id"]
                await ws.send(encode(reply))

    def answer(self, msg: dict[str, Any]) -> list[dict[str, Any]]:
        kind = msg["type"]
        if kind == "hello":
            self.hellos.append(msg)
            welcome = {
                "type": "welcome",
                "protocol": 1,
                "player": "p_a",
                "session": "S1",
                "name": msg["name"],
            }
            resumed = msg.get("session") == "S1" and self.game is not None
            return [welcome] + ([self.state()] if resumed else [])
        if kind == "list_rooms":
            return [{"type": "rooms", "rooms": []}]
        if kind == "create_room":
            self.game = Game(TICTACTOE)
            return [{"type": "joined", "room": "r1", "seat": 0}, self.state()]
        if kind == "move":
            assert self.game is not None
            move = Move(msg["x"], msg["y"])
            if not self.game.is_legal(move):
                return [{"type": "error", "code": "illegal_move", "message": "no"}]
            out = [self.moved(move)]
            if self.game.outcome is None:
                reply = self.game.legal_moves()[0]
                out.append({**self.moved(reply), "type": "moved"})
            if self.game.outcome is not None:
                o = self.game.outcome
                out.append(
                    {
                        "type": "game_over",
                        "room": "r1",
                        "game_id": "g_1",
                        "winner": o.winner,
                        "reason": str(o.termination),
                        "line": [[m.x, m.y] for m in o.line],
                    }
                )
            return out
        return [{"type": "error", "code": "unknown_type", "message": kind}]

    def moved(self, move: Move) -> dict[str, Any]:
        assert self.game is not None
        ply = self.game.ply
        self.game.push(move)
        return {
            "type": "moved",
            "room": "r1",
            "ply": ply,
            "seat": ply & 1,
            "x": move.x,
            "y": move.y,
        }


@pytest.fixture
async def server() -> AsyncIterator[FakeServer]:
    fake = FakeServer()
    async with serve(fake.handler, "127.0.0.1", 0, compression=None) as srv:
        fake.port = srv.sockets[0].getsockname()[1]
        yield fake


async def until(
    app: App, cond: Callable[[], bool], timeout: float = 30.0, events: Any = ()
) -> None:
    """Step the app (and let the server run) until ``cond`` holds."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    app.step(events)
    while not cond():
        assert loop.time() < end, "timed out"
        await asyncio.sleep(0.01)
        app.step()


def press(k: int) -> pygame.event.Event:
    return pygame.event.Event(pygame.KEYDOWN, key=k, mod=0, unicode="", scancode=0)


async def test_play_a_game_drop_the_link_and_resume(server: FakeServer) -> None:
    pygame.font.init()
    net = NetClient(f"ws://127.0.0.1:{server.port}", "alice")
    app = App(net, name="alice", size=(1000, 700))
    net.start()
    try:
        await until(app, lambda: app.model.connection == "online" and net.session == "S1")
        assert app.model.session == "S1" and "session" not in server.hellos[0]
        app.form.game, app.form.opponent = "tictactoe", "bot"
        await until(
            app,
            lambda: app.scene == "room" and app.model.room is not None,
            events=[press(pygame.K_RETURN)],
        )
        room = app.model.room
        assert room is not None and room.my_turn
        # The bot always answers in the first free cell: X on the diagonal wins.
        for cell in [(0, 0), (1, 1), (2, 2)]:
            if room.status != "playing":
                break
            ply = room.ply
            pos = app.cell_pixel(*cell)
            assert pos is not None
            clicks = [pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1)]
            await until(app, lambda p=ply: room.ply > p + 1 or room.status == "over", events=clicks)
        assert room.status == "over"
        assert room.result is not None and room.result.winner == 0
        assert room.moves[0] == (0, 0) and room.result.line == ((0, 0), (1, 1), (2, 2))
        # The link drops: the banner shows, the client says hello with its session again,
        # and redraws the room from the state the server sends.
        moves_before = list(room.moves)
        await server.conns[-1].close()
        await until(app, lambda: len(server.hellos) == 2 and app.model.connection == "online")
        assert any(t.text == "Reconnected." for t in app.model.toasts)
        assert server.hellos[1]["session"] == "S1"
        await until(app, lambda: app.model.room is not room and app.model.room is not None)
        assert app.model.room is not None and app.model.room.moves == moves_before
        assert not app.model.toasts or all(t.kind != "error" for t in app.model.toasts)
    finally:
        await asyncio.to_thread(net.close)
    assert net._thread is not None and not net._thread.is_alive()


async def test_errors_reach_the_model_and_unknown_requests_are_survived(server: FakeServer) -> None:
    net = NetClient(f"ws://127.0.0.1:{server.port}", "bob")
    net.start()
    got: list[dict[str, Any]] = []
    try:
        rid = net.send({"type": "frobnicate"})
        loop = asyncio.get_running_loop()
        end = loop.time() + 30
        while not any(m.get("type") == "error" for m in got):
            assert loop.time() < end
            await asyncio.sleep(0.01)
            got += net.poll()
        err = next(m for m in got if m["type"] == "error")
        assert err["code"] == "unknown_type" and err["id"] == rid
        assert [m["type"] for m in got][:3] == ["_net", "welcome", "_net"]
    finally:
        await asyncio.to_thread(net.close)


async def test_unreachable_server_reports_offline() -> None:
    net = NetClient("ws://127.0.0.1:9", "carol", retry_max_s=0.2)
    net.start()
    try:
        got: list[dict[str, Any]] = []
        loop = asyncio.get_running_loop()
        end = loop.time() + 30
        while not any(m.get("status") == "offline" for m in got):
            assert loop.time() < end
            await asyncio.sleep(0.02)
            got += net.poll()
    finally:
        await asyncio.to_thread(net.close)


@pytest.fixture
async def stranded() -> AsyncIterator[tuple[NetClient, App]]:
    """A client started against a port where nobody listens, once it has given up once."""
    pygame.font.init()
    net = NetClient("ws://127.0.0.1:9", "dave", retry_max_s=0.2)
    app = App(net, name="dave", size=(1000, 700))
    net.start()
    try:
        await until(app, lambda: app.model.connection == "offline")
        yield net, app
    finally:
        await asyncio.to_thread(net.close)
    assert net._thread is not None and not net._thread.is_alive()


async def test_a_client_that_never_connected_says_where_and_what_to_do(
    stranded: tuple[NetClient, App],
) -> None:
    _, app = stranded
    text = offline_text(app.model)
    assert text.startswith("Cannot connect: nobody is listening at ws://127.0.0.1:9")
    assert "mnk-server" in text and "--local" in text
    await until(app, lambda: True, events=[press(pygame.K_RETURN)])  # "Play" in the lobby
    assert any("Not connected yet" in t.text for t in app.model.toasts)
    assert app.model.connection == "offline"  # retries do not flip the banner to "connecting"


async def test_typing_another_server_moves_the_client_there(
    server: FakeServer, stranded: tuple[NetClient, App]
) -> None:
    net, app = stranded
    app.focus = "server"
    typed = [pygame.event.Event(pygame.TEXTINPUT, text=f"127.0.0.1:{server.port}")]
    await until(
        app,
        lambda: app.model.connection == "online" and app.model.player == "p_a",
        events=[*typed, press(pygame.K_RETURN)],
    )
    assert net.url == f"ws://127.0.0.1:{server.port}" and server.hellos[0]["name"] == "dave"
