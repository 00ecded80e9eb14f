"""The send path: one prebuilt WebSocket frame per broadcast, as websockets would write it."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Iterable

import msgpack
import pytest
from support.waiting import TIMEOUT
from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve
from websockets.frames import Frame, Opcode

from protocol import wire
from server.core.arena import Arena
from server.core.game.members import Send
from server.core.outputs import Out
from server.shell.conn import ArenaConnection
from server.shell.fanout import send_frame, ws_frame
from server.shell.server import ArenaServer


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65535, 65536, 70000])
def test_prebuilt_frame_is_websockets_own(size: int) -> None:
    payload = bytes(i & 0xFF for i in range(size))
    assert ws_frame(payload) == Frame(Opcode.BINARY, payload).serialize(mask=False)


@pytest.fixture
async def pair() -> AsyncIterator[tuple[list[ServerConnection], list[object]]]:
    """Two client connections to a bare websockets server; the server side of each."""
    sides: list[ServerConnection] = []
    done = asyncio.Event()

    async def handler(ws: ServerConnection) -> None:
        sides.append(ws)
        await done.wait()

    async with serve(handler, "127.0.0.1", 0, compression=None) as server:
        port = server.sockets[0].getsockname()[1]
        url = f"ws://127.0.0.1:{port}"
        clients = [await connect(url, compression=None) for _ in range(2)]
        async with asyncio.timeout(TIMEOUT):
            while len(sides) < 2:
                await asyncio.sleep(0.01)
        yield sides, clients
        done.set()
        for client in clients:
            await client.close()


async def test_a_broadcast_reaches_everyone_in_order_with_ordinary_sends(pair) -> None:
    sides, clients = pair
    for i in range(50):
        send_frame(sides, b"b%d" % i)
        if i % 10 == 0:
            await sides[0].send(b"own%d" % i)  # websockets' own path interleaves correctly
    expected = []
    for i in range(50):
        expected.append(b"b%d" % i)
        if i % 10 == 0:
            expected.append(b"own%d" % i)
    async with asyncio.timeout(TIMEOUT):
        first = [await clients[0].recv() for _ in expected]
        second = [await clients[1].recv() for _ in range(50)]
    assert first == expected
    assert second == [b"b%d" % i for i in range(50)]


async def test_a_closing_connection_is_skipped_and_the_others_still_served(pair) -> None:
    sides, clients = pair
    closing = asyncio.ensure_future(sides[0].close())
    async with asyncio.timeout(TIMEOUT):
        while sides[0].protocol.state.name == "OPEN":
            await asyncio.sleep(0)
    send_frame(sides, b"after")  # no error, nothing written into a closing handshake
    assert await asyncio.wait_for(clients[1].recv(), TIMEOUT) == b"after"
    await asyncio.wait_for(closing, TIMEOUT)


@pytest.mark.slow
async def test_a_peer_that_does_not_read_is_cut_off(pair, monkeypatch) -> None:
    sides, clients = pair
    monkeypatch.setattr("server.shell.fanout.MAX_BACKLOG", 1 << 16)
    clients[0].transport.pause_reading()  # the peer stops reading: its socket fills up
    big = bytes(60_000)
    async with asyncio.timeout(TIMEOUT):
        while not sides[0].transport.is_closing():
            send_frame(sides[:1], big)
            await asyncio.sleep(0)
    assert sides[1].transport.is_closing() is False


async def test_queued_and_direct_messages_are_answered_in_order(client_factory) -> None:
    """Text and fragmented messages take websockets' queue, binary ones the direct path: a
    burst mixing them in one write is still answered in the order it was sent."""
    c = await client_factory("mixer")
    pings = [msgpack.packb({"type": "ping", "id": i}) for i in range(1, 7)]
    await c.ws.send(pings[0])
    await c.ws.send("text is a bad frame")
    await c.ws.send(pings[1])
    await c.ws.send([pings[2][:3], pings[2][3:]])  # one message in two fragments
    await c.ws.send(pings[3])
    await c.ws.send("again")
    await c.ws.send(pings[4])
    await c.ws.send(pings[5])
    got = [await c.recv() for _ in range(8)]
    assert [(m["type"], m.get("id")) for m in got] == [
        ("pong", 1),
        ("error", None),
        ("pong", 2),
        ("pong", 3),
        ("pong", 4),
        ("error", None),
        ("pong", 5),
        ("pong", 6),
    ]
    assert got[1]["code"] == "bad_frame"


async def test_the_server_uses_the_direct_path_and_keeps_no_handshake_headers(
    server, client_factory
) -> None:
    c = await client_factory("direct")
    await c.alive()
    (ws,) = server._connections()
    assert isinstance(ws, ArenaConnection)
    assert len(ws.request.headers) == 0 and len(ws.response.headers) == 0  # 2 KB a connection


class Recorder:
    """A fan-out that keeps what it was asked to send."""

    def __init__(self) -> None:
        self.sent: list[tuple[tuple[str, ...], bytes]] = []

    def deliver(self, pids: Iterable[str], frame: bytes) -> None:
        """Keep the addressees and the frame."""
        self.sent.append((tuple(pids), frame))


def test_a_parked_broadcast_waits_as_its_frame_and_leaves_through_the_current_fanout() -> None:
    shell = ArenaServer(Arena())
    moved = {"type": "moved", "room": "r1", "ply": 3, "seat": 1, "x": 4, "y": 5}
    out: list[Out] = [Send(("p1", "p2"), moved, reply=True)]
    parked = shell._parked(None, out)
    assert isinstance(parked, functools.partial)
    assert not any(isinstance(a, dict | list | Send) for a in parked.args)  # bytes, not objects
    shell.fanout = later = Recorder()  # replaced after parking (a cluster does so at start)
    parked()
    shell.fanout = direct = Recorder()
    shell._deliver(None, out)  # what the generic path sends
    assert later.sent == direct.sent == [(("p1", "p2"), wire.encode(moved))]
    two: list[Out] = [*out, Send(("p3",), {"type": "chat"})]  # anything else goes as it came
    assert shell._parked(None, two).args == (None, two)
    shell.lookups.close()
