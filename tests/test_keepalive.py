"""The server's one keepalive: pings every connection from one timer, closes the silent ones.

websockets' own keepalive is a task per connection; the server's pings all its connections in
turn instead (``server/shell/keepalive.py``). These run a real server with a short interval:
an honest client stays open and its lag is measured at each ping, a socket that never answers
is closed with 1011, and no connection keeps a task of its own for it.
"""

from __future__ import annotations

import asyncio
import socket
import struct
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from support.waiting import until
from test_server_pings import open_raw
from websockets.asyncio.client import connect
from websockets.protocol import OPEN

from protocol import wire
from server.core.arena import Arena
from server.core.limits import Limits
from server.shell.keepalive import Keepalive, can_ping
from server.shell.server import ArenaServer, ServerConfig
from server.storage.memory import MEMORY

INTERVAL = 0.3


@pytest.fixture
async def pinging() -> AsyncIterator[ArenaServer]:
    """A real server on loopback that pings every connection each ``INTERVAL``."""
    config = ServerConfig(port=0, ping_interval=INTERVAL, ping_timeout=INTERVAL)
    srv = ArenaServer(Arena(limits=Limits()), config, MEMORY)
    await srv.start()
    try:
        yield srv
    finally:
        await srv.stop()


def _served(srv: ArenaServer) -> list[Any]:
    """The server's side of each open connection."""
    assert srv.server is not None
    return list(srv.server.connections)


async def test_an_answering_client_stays_and_its_lag_is_measured_at_each_ping(
    pinging: ArenaServer,
) -> None:
    url = f"ws://127.0.0.1:{pinging.port}"
    async with connect(url, ping_interval=None, compression=None) as ws:
        hello = {"type": "hello", "protocol": 1, "name": "ann", "kind": "human"}
        await ws.send(wire.encode(hello))
        assert wire.decode(await ws.recv())["type"] == "welcome"
        await until(lambda: len(_served(pinging)) == 1)
        [served] = _served(pinging)
        assert served.keepalive_task is None  # no task of its own: the server's one timer
        assert len(pinging.keepalive) == 1
        measures: list[float] = []
        served.on_latency = measures.append
        await until(lambda: len(measures) >= 3, timeout=30.0)  # three pings, three pongs
        assert all(0.0 <= rtt < 5.0 for rtt in measures)
        assert ws.protocol.state is OPEN
    await until(lambda: len(pinging.keepalive) == 0)  # gone: pinged no more
    assert pinging.keepalive.timed_out == 0


def _close_code(sock: socket.socket, deadline: float) -> int | None:
    """Read frames (pings) until a close frame; its code, or None if the socket just ended."""
    sock.settimeout(1.0)
    data = b""
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(4096)
        except TimeoutError:
            continue
        if not chunk:
            return None
        data += chunk
        while len(data) >= 2:
            opcode, size = data[0] & 0x0F, data[1] & 0x7F
            if len(data) < 2 + size:
                break
            payload, data = data[2 : 2 + size], data[2 + size :]
            if opcode == 0x8:
                return struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
    raise AssertionError("no close frame in time")


async def test_a_socket_that_never_answers_a_ping_is_closed_with_1011(
    pinging: ArenaServer,
) -> None:
    sock = await asyncio.to_thread(open_raw, pinging.port)
    try:  # it reads every ping but answers none (and never says hello: that is 10 s away)
        started = time.monotonic()
        code = await asyncio.to_thread(_close_code, sock, started + 8.0)
        assert code == 1011
        assert time.monotonic() - started < 8.0
    finally:
        sock.close()
    assert pinging.keepalive.timed_out == 1


class _FakeProtocol:
    state = OPEN

    def __init__(self, sent: list[bytes]) -> None:
        self.sent = sent

    def send_ping(self, data: bytes) -> None:
        self.sent.append(data)


class _FakeTransport:
    def is_closing(self) -> bool:
        return False


class _FakeConnection:
    """What the keepalive touches of a websockets connection."""

    def __init__(self, sent: list[bytes]) -> None:
        self.pending_pings: dict[bytes, tuple[asyncio.Future[float], float]] = {}
        self.protocol = _FakeProtocol(sent)
        self.transport = _FakeTransport()
        self.loop = asyncio.get_running_loop()

    def send_data(self) -> None:
        """Nothing to write: the protocol kept the ping."""


async def test_a_crowd_due_at_once_is_pinged_a_bounded_number_per_turn() -> None:
    keepalive = Keepalive(interval=0.05, timeout=10.0, per_turn=50)
    sent: list[bytes] = []
    crowd: list[Any] = [_FakeConnection(sent) for _ in range(175)]
    for ws in crowd:
        keepalive.join(ws)
    assert can_ping(crowd[0])
    per_turn: list[int] = []
    last = 0
    while len(sent) < 175:
        await asyncio.sleep(0)  # one turn of the loop
        if len(sent) > last:
            per_turn.append(len(sent) - last)
            last = len(sent)
    assert max(per_turn) == 50 and len(per_turn) >= 4  # 175 due together: four turns at least
    assert len(set(sent)) == 175 and all(len(ws.pending_pings) == 1 for ws in crowd)
    keepalive.leave(crowd[0])
    assert len(keepalive) == 174
    keepalive.close()
    assert len(keepalive) == 0


def test_without_the_internals_a_connection_keeps_websockets_own_keepalive() -> None:
    bare: Any = object()
    assert not can_ping(bare)
