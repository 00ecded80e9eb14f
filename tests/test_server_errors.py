"""Every error code provoked against the real server; the connection, room and server carry on."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import msgpack
import pytest
from support.clients import RawClient, seated_pair
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from protocol.errors import all_codes


async def test_frame_level_errors_keep_the_connection(client_factory: Any) -> None:
    c = await client_factory()
    await c.ws.send("hello as text")
    assert (await c.recv())["code"] == "bad_frame"
    await c.ws.send(b"\xc1\xc1 not msgpack")
    assert (await c.recv())["code"] == "bad_frame"
    for value in ([1, 2], 7, {"no": "type"}, {"type": 5}, {"type": "ping", "id": "x"}):
        await c.ws.send(msgpack.packb(value))
        error = await c.recv()
        assert error["type"] == "error" and error["code"] == "bad_message", value
        assert set(error) >= {"code", "message"}
    await c.error("not_hello", type="list_rooms")
    await c.error("bad_message", type="hello", protocol=1, name="x")
    await c.error("bad_message", type="hello", protocol=1, name="x", kind="alien")
    await c.error("bad_message", type="hello", protocol=1, name="   ", kind="human")
    await c.error("unsupported_protocol", type="hello", protocol=2, name="x", kind="human")
    await c.error("bad_session", type="hello", protocol=1, name="x", kind="human", session="nope")
    await c.error("bad_key", type="hello", protocol=1, name="x", kind="bot", games=["*"])
    await c.hello("carol")
    await c.error("bad_message", type="hello", protocol=1, name="again", kind="human")
    await c.error("unknown_type", type="teleport")
    await c.error("bad_message", type="join_room", room=7)
    await c.error("bad_message", type="move", room="r", x=True, y=0)
    await c.alive()


async def test_lobby_errors(client_factory: Any) -> None:
    alice, _bob, room = await seated_pair(client_factory)
    carol = await client_factory("carol")
    await carol.error("no_such_room", type="join_room", room="zzzzzz")
    await carol.error("no_such_room", type="move", room="x" * 500, x=0, y=0)
    await carol.error("room_full", type="join_room", room=room)
    await carol.error("not_in_room", type="leave_room", room=room)
    await carol.error("not_in_room", type="chat", room=room, text="hi")
    await carol.error("bad_options", type="create_room", game="chess")
    await carol.error("bad_options", type="create_room", game="mnk", options={"width": 30, "k": 3})
    await carol.error("bad_options", type="create_room", game="mnk", options={"width": 4, "k": 5})
    await carol.error("bad_options", type="create_room", game="tictactoe", opponent="bot", level=11)
    await carol.error("no_bot_available", type="create_room", game="gomoku", opponent="bot")
    for _ in range(5):
        await carol.request(type="create_room", game="tictactoe")
    await carol.error("too_many_rooms", type="create_room", game="tictactoe")
    await carol.alive()
    await alice.alive()


async def test_play_errors_leave_the_game_intact(client_factory: Any) -> None:
    alice, bob, room = await seated_pair(client_factory)
    carol = await client_factory("carol")
    await carol.request(type="join_room", room=room, spectate=True)
    await carol.error("not_a_player", type="move", room=room, x=0, y=0)
    await carol.error("not_a_player", type="resign", room=room)
    await bob.error("not_your_turn", type="move", room=room, x=0, y=0)
    await alice.error("illegal_move", type="move", room=room, x=3, y=0)
    await alice.error("illegal_move", type="move", room=room, x=-1, y=0)
    await alice.error("stale_ply", type="move", room=room, x=0, y=0, ply=1)
    await alice.error("rematch_unavailable", type="rematch", room=room)
    assert (await alice.request(type="move", room=room, x=0, y=0, ply=0))["type"] == "moved"
    await alice.error("not_your_turn", type="move", room=room, x=1, y=1)
    await bob.error("illegal_move", type="move", room=room, x=0, y=0)
    await bob.error("stale_ply", type="move", room=room, x=1, y=1, ply=0)  # a resent first move
    assert (await bob.request(type="move", room=room, x=1, y=1, ply=1))["seat"] == 1
    await alice.request(type="resign", room=room)
    await alice.error("game_over", type="move", room=room, x=2, y=2)
    await bob.error("game_over", type="resign", room=room)
    state = await carol.request(type="join_room", room=room, spectate=True)
    assert state["type"] == "joined"
    final = await carol.expect("state", status="over")
    assert final["moves"] == [[0, 0], [1, 1]] and final["result"]["reason"] == "resign"


async def test_waiting_room_refuses_moves(client_factory: Any) -> None:
    alice = await client_factory("alice")
    room = (await alice.request(type="create_room", game="tictactoe", seat=0))["room"]
    await alice.error("not_your_turn", type="move", room=room, x=0, y=0)
    await alice.error("not_your_turn", type="resign", room=room)


async def test_rate_limit_drops_requests_but_keeps_the_connection(client_factory: Any) -> None:
    c = await client_factory("spammer")
    for i in range(60):
        await c.send(type="ping", id=1000 + i)
    replies = [await c.recv() for _ in range(60)]
    limited = [r for r in replies if r["type"] == "error"]
    assert limited and all(r["code"] == "rate_limited" for r in limited)
    assert {r["id"] for r in replies} == set(range(1000, 1060))
    await asyncio.sleep(1.0)
    await c.alive()


async def test_oversized_frame_closes_with_1009(client_factory: Any, server: Any) -> None:
    c = await client_factory("big")
    other = await client_factory("other")
    await c.ws.send(msgpack.packb({"type": "chat", "room": "r", "text": "x" * 70_000}))
    with pytest.raises(ConnectionClosed):
        await c.recv()
    assert c.ws.close_code == 1009
    await other.alive()


async def test_internal_error_is_contained(client_factory: Any, server: Any) -> None:
    alice, bob, room = await seated_pair(client_factory)

    def broken(player: Any, msg: Any) -> list[Any]:
        raise RuntimeError("secret internal detail /etc/passwd")

    server.arena._handlers["chat"] = broken
    reply = await alice.error("internal_error", type="chat", room=room, text="hi")
    assert "secret" not in reply["message"] and "passwd" not in reply["message"]
    assert (await alice.request(type="move", room=room, x=0, y=0))["type"] == "moved"
    assert (await bob.expect("moved"))["x"] == 0


async def test_every_error_code_is_provoked_over_the_wire() -> None:
    """The server tests together provoke the whole error tree, so no code goes untested."""
    here = Path(__file__).parent
    files = [*here.glob("test_server_*.py"), here / "test_durability.py"]
    files += here.glob("cluster/test_*.py")  # codes only a cluster has
    source = "".join(f.read_text() for f in files)
    provoked = re.compile(r'(?:error\(\s*|\["code"\] == )"([a-z_]+)"')
    assert set(all_codes()) - set(provoked.findall(source)) == set()


async def test_session_resume_and_takeover(client_factory: Any, server: Any) -> None:
    alice, bob, room = await seated_pair(client_factory)
    await alice.request(type="move", room=room, x=1, y=1)
    again = RawClient(await connect(server.url, compression=None))
    try:
        welcome = await again.hello("alice", session=alice.session)
        assert welcome["player"] == alice.player and welcome["session"] == alice.session
        state = await again.expect("state", room=room)
        assert state["seat"] == 0 and state["moves"] == [[1, 1]] and state["to_move"] == 1
        with pytest.raises(ConnectionClosed):
            await alice.recv()
        assert alice.ws.close_code == 4000
        await bob.request(type="move", room=room, x=0, y=0)
        assert (await again.expect("moved"))["seat"] == 1
    finally:
        await again.close()
