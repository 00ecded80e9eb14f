"""Ping floods: control frames are charged like messages, and unread pongs are cut at the backlog.

A raw socket that sends WebSocket pings and never reads once grew the server by 2 GB in 42 s:
websockets answers every ping with a pong written with no backpressure, and pings never
reached the arena's rate. Each test floods from a plain socket (no websockets reading) while an
honest client keeps asking, and checks the server's memory for the flood stays bounded.
"""

from __future__ import annotations

import asyncio
import base64
import os
import socket
import struct
import time
from typing import Any

import pytest
from support.waiting import until

from server.shell.fanout import MAX_BACKLOG

#: A bounded flood: this many 125-byte pings, for at most this long.
PINGS = 20_000
FLOOD_SECONDS = 8.0
#: How long the server may take to read what the flood left in its socket.
SETTLE_SECONDS = 5.0


def ping_frame() -> bytes:
    """A client's masked ping with a 125-byte payload (the largest a control frame may carry)."""
    mask = os.urandom(4)
    payload = bytes(b ^ mask[i % 4] for i, b in enumerate(b"p" * 125))
    return struct.pack("!BB", 0x89, 0x80 | 125) + mask + payload


def open_raw(port: int) -> socket.socket:
    """A WebSocket handshake on a plain socket that reads as little as the kernel allows after."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(5.0)
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        f"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)  # byte by byte: nothing after the response is read
        assert chunk, "the server closed during the handshake"
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head
    return sock


def flood(sock: socket.socket) -> tuple[int, str]:
    """Send up to ``PINGS`` pings in batches for up to ``FLOOD_SECONDS``; never read."""
    batch = ping_frame() * 100
    sent = 0
    sock.settimeout(0.5)
    deadline = time.monotonic() + FLOOD_SECONDS
    try:
        while sent < PINGS and time.monotonic() < deadline:
            sock.sendall(batch)
            sent += 100
    except TimeoutError:
        return sent, "not read"
    except OSError as exc:
        return sent, f"closed ({type(exc).__name__})"
    return sent, "all sent"


async def watch(server: Any, until_done: asyncio.Future[Any], sizes: list[int]) -> None:
    """Sample every server connection's unsent output until the flood ends, then while the
    server still reads what was sent (at most ``SETTLE_SECONDS`` more)."""
    settle_at = None
    last = -1
    while True:
        assert server.server is not None
        now = time.monotonic()
        size = sum(ws.transport.get_write_buffer_size() for ws in server.server.connections)
        sizes.append(size)
        if until_done.done():
            settle_at = settle_at or now + SETTLE_SECONDS
            if now > settle_at or size == last:
                return
        last = size
        await asyncio.sleep(0.002 if settle_at is None else 0.2)


async def honest_pings(client: Any, stop: asyncio.Future[Any]) -> list[float]:
    """Round trips of an honest client's pings until ``stop``, at least 10 (bounded in count)."""
    times: list[float] = []
    for _ in range(500):
        if stop.done() and len(times) >= 10:
            break
        start = time.perf_counter()
        await client.alive()
        times.append(time.perf_counter() - start)
        await asyncio.sleep(0.02)
    return times


def flooder(server: Any, honest: set[Any]) -> Any:
    """The server side of the flooding connection (the one that is not an honest client's)."""
    assert server.server is not None
    others = [ws for ws in server.server.connections if ws not in honest]
    return others[0] if others else None


async def run_flood(server: Any, client_factory: Any, small_buffer: bool) -> dict[str, Any]:
    """Flood from a raw socket beside an honest client; what was seen."""
    honest = await client_factory("honest")
    await honest.alive()
    known = set(server.server.connections)
    sock = await asyncio.to_thread(open_raw, server.port)
    await until(lambda: flooder(server, known) is not None)
    ws = flooder(server, known)
    if small_buffer:  # the kernel takes little of the backlog: the server's own buffer grows
        ws.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    sizes: list[int] = []
    try:
        done = asyncio.ensure_future(asyncio.to_thread(flood, sock))
        watcher = asyncio.create_task(watch(server, done, sizes))
        times = await honest_pings(honest, watcher)  # while the server reads the flood
        sent, how = await done
        cut = ws.transport.is_closing()  # by the server (before this end closes its socket)
    finally:
        sock.close()
    return {"ws": ws, "sizes": sizes, "times": times, "sent": sent, "how": how, "cut": cut}


async def test_a_ping_flood_is_charged_to_the_rate_and_cut(
    server: Any, client_factory: Any
) -> None:
    seen = await run_flood(server, client_factory, small_buffer=False)
    ws = seen["ws"]
    # past its rate and its refusals the connection is read no more and closed (1008)
    assert getattr(ws, "on_control", "missing") is None
    assert not ws.transport.is_reading() or ws.transport.is_closing()
    assert max(seen["sizes"]) <= MAX_BACKLOG
    assert seen["times"] and max(seen["times"]) < 1.0, seen["times"]
    await until(lambda: ws.close_code is not None or ws.transport.is_closing(), timeout=20)


@pytest.mark.parametrize("limits_override", [{"human_rate": 1e9, "human_burst": 1e9}])
async def test_unread_pongs_past_the_backlog_cut_the_connection(
    server: Any, client_factory: Any
) -> None:
    seen = await run_flood(server, client_factory, small_buffer=True)
    ws = seen["ws"]
    assert max(seen["sizes"]) <= MAX_BACKLOG, max(seen["sizes"])
    assert seen["cut"], seen  # aborted once its backlog passed the limit
    assert ws.transport.is_closing()
    assert seen["times"] and max(seen["times"]) < 1.0, seen["times"]
