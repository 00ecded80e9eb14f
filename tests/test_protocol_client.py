"""The one protocol client: the sans-I/O session byte by byte, the connection on a real server."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest
from support.servers import free_port
from support.waiting import until

from protocol.connection import Connection, LinkClosed, Replaced, ServerError, split_urls
from protocol.session import MAX_PENDING, HelloRefused, Session, handler_of
from protocol.vocab import DECLARED_FAULTS, CloseCode, Fault, Kind, Status
from protocol.wire import encode, validate


def test_hello_carries_what_the_session_knows() -> None:
    human = Session("alice")
    assert human.hello() == {"type": "hello", "protocol": 1, "name": "alice", "kind": "human"}
    bot = Session("b", Kind.BOT, key="K", session="S", games=["gomoku"], capacity=3)
    hello = bot.hello()
    assert hello["key"] == "K" and hello["session"] == "S"
    assert hello["games"] == ["gomoku"] and hello["capacity"] == 3 and hello["kind"] == "bot"
    assert validate(hello) is hello  # the server's own check accepts it


def test_welcome_is_kept_and_a_forgotten_session_restarts() -> None:
    s = Session("alice", session="OLD")
    s.hello()
    err = s.receive(encode({"type": "error", "code": "bad_session", "message": "?"}))
    assert err is not None and s.restart and s.session is None
    s.hello()
    assert not s.restart
    s.receive(encode({"type": "welcome", "protocol": 1, "player": "p1", "session": "NEW"}))
    assert s.welcomed and s.session == "NEW" and s.player == "p1"
    # after welcome an error is an ordinary reply, never a refusal
    assert s.receive(encode({"type": "error", "code": "bad_key", "message": "x"})) is not None


def test_a_refused_hello_raises_and_garbage_is_skipped() -> None:
    s = Session("bot", Kind.BOT)
    s.hello()
    assert s.receive(b"\xc1") is None and s.receive("text") is None
    with pytest.raises(HelloRefused) as refused:
        s.receive(encode({"type": "error", "code": "bad_key", "message": "no such key"}))
    assert refused.value.code == "bad_key"


def test_request_ids_are_fresh_and_pending_is_bounded() -> None:
    s = Session("alice")
    ids = [s.request({"type": "ping"})["id"] for _ in range(MAX_PENDING + 5)]
    assert len(set(ids)) == len(ids) and len(s.pending) == MAX_PENDING
    assert s.request({"type": "ping", "id": 99_999})["id"] == 99_999
    s.receive(encode({"type": "pong", "id": ids[-1]}))
    assert ids[-1] not in s.pending
    s.hello()  # a new connection: replies to the old one never come
    assert s.pending == {}


def test_vocabulary_matches_the_wire() -> None:
    assert CloseCode.REPLACED == 4000 and Status.OVER == "over" and Kind.BOT == "bot"
    assert {"crash", "hang", "illegal_move", "error"} == set(DECLARED_FAULTS) < set(Fault)
    assert encode({"type": "x", "kind": Kind.BOT}) == encode({"type": "x", "kind": "bot"})


def test_dispatch_goes_to_the_method_named_after_the_type() -> None:
    class Target:
        def on_moved(self, msg: dict[str, Any]) -> str:
            return "moved"

    assert handler_of(Target(), {"type": "moved"})({}) == "moved"  # type: ignore[misc]
    assert handler_of(Target(), {"type": "chat"}) is None


async def test_connection_requests_resumes_after_a_drop_and_stops_when_replaced(
    server: Any,
) -> None:
    seen: list[str] = []
    statuses: list[str] = []
    session = Session("alice")
    conn = Connection(server.url, session, on_status=lambda s, d: statuses.append(s))
    running = asyncio.create_task(conn.run(lambda msg: seen.append(msg["type"])))
    await asyncio.wait_for(conn.online.wait(), 30)
    assert (await conn.request({"type": "ping"}))["type"] == "pong"
    with pytest.raises(ServerError) as err:
        await conn.request({"type": "join_room", "room": "nope"})
    assert err.value.code == "no_such_room"
    first = session.session
    player = session.player
    assert conn.ws is not None
    ws = server.fanout.socket(player)
    assert ws is not None
    ws.transport.abort()  # the network fails
    while not (conn.online.is_set() and seen.count("welcome") == 2):
        await asyncio.sleep(0.01)
    assert session.session == first and session.player == player  # resumed, same identity
    assert statuses[:2] == ["connecting", "online"] and "offline" in statuses
    # the same session says hello elsewhere: this connection is replaced and stops
    other = Connection(server.url, Session("alice", session=first))
    taker = asyncio.create_task(other.run(lambda msg: None))
    with pytest.raises(Replaced):
        await asyncio.wait_for(running, 30)
    with pytest.raises(LinkClosed):
        await conn.send({"type": "ping"})
    await other.close()
    await taker


async def test_a_server_that_closes_before_welcome_is_not_hammered() -> None:
    """Reconnects after a close before ``welcome`` back off; after a welcomed link, at once."""
    from websockets.asyncio.server import ServerConnection, serve

    opened: list[float] = []

    async def slam(ws: ServerConnection) -> None:
        opened.append(asyncio.get_running_loop().time())
        await ws.close()

    async with serve(slam, "127.0.0.1", 0, compression=None) as srv:
        port = srv.sockets[0].getsockname()[1]
        conn = Connection(f"ws://127.0.0.1:{port}", Session("x"), retry_first_s=0.2)
        running = asyncio.create_task(conn.run(lambda msg: None))
        while len(opened) < 4:
            await asyncio.sleep(0.01)
        await conn.close()
        await running
    gaps = [b - a for a, b in itertools.pairwise(opened)]
    assert gaps[0] >= 0.2 and gaps[1] >= 0.4 and gaps[2] >= 0.8  # doubling, not a busy loop


async def test_a_dead_first_url_fails_over_to_the_next(server: Any) -> None:
    """Nobody listens at the first URL: the session goes to the second at once, and a drop
    there comes back to the same server first."""
    dead = f"ws://127.0.0.1:{free_port()}"
    statuses: list[tuple[str, str]] = []
    session = Session("alice")
    conn = Connection([dead, server.url], session, on_status=lambda s, d: statuses.append((s, d)))
    running = asyncio.create_task(conn.run(lambda msg: None))
    await asyncio.wait_for(conn.online.wait(), 30)
    assert conn.url == server.url and conn.urls == [dead, server.url]
    assert statuses[:3] == [
        ("connecting", dead),
        ("offline", f"nobody is listening at {dead}"),
        ("connecting", server.url),
    ]
    player = session.player
    assert player is not None
    server.fanout.socket(player).transport.abort()
    await until(lambda: statuses.count(("online", server.url)) == 2, timeout=30)
    assert session.player == player and conn.url == server.url  # resumed where it was
    assert ("connecting", dead) not in statuses[3:]  # the live server was tried first
    await conn.close()
    await running


async def test_a_server_closing_before_welcome_is_left_for_the_next_url(server: Any) -> None:
    from websockets.asyncio.server import ServerConnection, serve

    slammed: list[int] = []

    async def slam(ws: ServerConnection) -> None:
        slammed.append(1)
        await ws.close()

    async with serve(slam, "127.0.0.1", 0, compression=None) as srv:
        unwilling = f"ws://127.0.0.1:{srv.sockets[0].getsockname()[1]}"
        conn = Connection([unwilling, server.url], Session("bob"), retry_first_s=0.05)
        running = asyncio.create_task(conn.run(lambda msg: None))
        await asyncio.wait_for(conn.online.wait(), 30)
        assert slammed, "the first URL was never tried"
        assert conn.url == server.url
        await conn.close()
        await running


async def test_every_url_failing_backs_off_between_rounds() -> None:
    """Two dead URLs: each round tries both at once, then waits longer than the last time."""
    dead = [f"ws://127.0.0.1:{free_port()}" for _ in range(2)]
    tried: list[tuple[float, str]] = []
    loop = asyncio.get_running_loop()

    def note(status: str, detail: str) -> None:
        if status == "connecting":
            tried.append((loop.time(), detail))

    conn = Connection(dead, Session("carol"), on_status=note, retry_first_s=0.2)
    running = asyncio.create_task(conn.run(lambda msg: None))
    await until(lambda: len(tried) >= 6)
    await conn.close()
    await running
    assert [url for _, url in tried[:6]] == dead * 3
    times = [t for t, _ in tried]
    assert times[1] - times[0] < 0.2  # the second URL at once
    assert times[2] - times[1] >= 0.2 and times[4] - times[3] >= 0.4  # then backoff, doubling


def test_split_urls() -> None:
    assert split_urls("ws://a:1, ws://b:2,") == ["ws://a:1", "ws://b:2"]
    with pytest.raises(ValueError):
        split_urls(" , ")
    with pytest.raises(ValueError):
        Connection([], Session("x"))
