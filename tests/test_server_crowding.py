"""A few addresses cannot fill the server: an IPv6 /64 is one address, and a full server closes
idle connections of its heaviest addresses before it refuses a new one."""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import pytest
from support.clients import RawClient
from support.waiting import until
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from server.shell.guard import ConnectionGuard, address_key

IDLE = 0.3
CROWD = {
    "human_rate": 10_000.0,
    "human_burst": 10_000.0,
    "max_connections": 40,
    "max_connections_per_address": 8,
    "idle_evict_after": IDLE,
}


@pytest.mark.parametrize(
    ("address", "key"),
    [
        ("2001:db8:1:2::1", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"),
        ("2001:db8:1:3::1", "2001:db8:1:3::/64"),
        ("fe80::1%eth0", "fe80::/64"),
        ("::ffff:192.0.2.7", "192.0.2.7"),
        ("192.0.2.7", "192.0.2.7"),
        ("?", "?"),
    ],
)
def test_an_ipv6_address_counts_as_its_64(address: str, key: str) -> None:
    assert address_key(address) == key


class FakeConn(SimpleNamespace):
    """What :meth:`ConnectionGuard.arrive` reads and writes of a connection (hashable)."""

    __hash__ = object.__hash__


def fake_conn() -> Any:
    """A connection not yet counted."""
    return FakeConn(refusal=None, address=None, pending=False, since=0.0, quiet=None)


def test_one_64_shares_one_per_address_quota() -> None:
    guard = ConnectionGuard(100, 3, hello_rate=math.inf)
    hosts = [f"2001:db8:0:1::{i:x}" for i in range(1, 5)]
    admitted = [guard.arrive(fake_conn(), address_key(h)) for h in hosts]
    assert admitted == [True, True, True, False]  # four hosts of one /64: one address
    assert guard.arrive(fake_conn(), address_key("2001:db8:0:2::1"))  # the next /64 is another


async def from_address(server: Any, host: str) -> RawClient:
    """A raw client whose connection comes from ``host`` (another loopback address)."""
    ws = await connect(server.url, compression=None, local_addr=(host, 0), open_timeout=10)
    return RawClient(ws)


def idle_for(server: Any, at_least: float) -> int:
    """Server connections that could be closed for being idle this long."""
    return sum(
        1
        for ws in server.server.connections
        if getattr(ws, "quiet", None) is not None and ws.quiet() >= at_least
    )


@pytest.mark.parametrize("limits_override", [CROWD])
async def test_a_full_server_closes_idle_connections_of_heavy_addresses_for_a_newcomer(
    server: Any,
) -> None:
    players = []  # 8 connections in rooms from one address: never closed
    for i in range(8):
        c = await from_address(server, "127.0.0.2")
        await c.hello(f"player{i}")
        await c.request(type="create_room", game="tictactoe")
        players.append(c)
    idle = []  # 8 idle connections from each of four more addresses: the server is full
    for a in range(3, 7):
        for i in range(8):
            c = await from_address(server, f"127.0.0.{a}")
            await c.hello(f"idle{a}x{i}")
            idle.append(c)
    assert server.guard.total == 40
    await until(lambda: idle_for(server, IDLE) >= 32)
    newcomers = []
    for n in range(10):  # ten fresh addresses each get in, in place of an idle connection
        c = await from_address(server, f"127.0.1.{n + 1}")
        await c.hello(f"new{n}")
        newcomers.append(c)
    assert server.guard.total == 40 and server.guard.evicted >= 10
    closed = []
    for c in idle:
        try:
            await c.alive()
        except ConnectionClosed:
            closed.append(c.ws.close_code)
    assert len(closed) == 10 and set(closed) == {1013}, closed
    for c in players + newcomers:  # the rooms' connections were never touched
        await c.alive()
    for c in players + newcomers + idle:
        await c.close()
