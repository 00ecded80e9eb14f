"""A few addresses cannot fill the server: an IPv6 /64 is one address, and a full server closes
a connection of its heaviest addresses (whatever it sends: pings and watching keep none) before
it refuses a new one, never a player's seated in a live game."""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from types import SimpleNamespace
from typing import Any

import pytest
from support.clients import RawClient
from support.waiting import until
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, WebSocketException

from server.core.players.presence import KEEP, LOBBY, SEATED, WATCHING
from server.shell.eviction import Fruitless
from server.shell.guard import ConnectionGuard, GuardedConnection, address_key

IDLE = 0.3
CROWD = {
    "human_rate": 10_000.0,
    "human_burst": 10_000.0,
    "max_connections": 40,
    "max_connections_per_address": 8,
    "evict_after": IDLE,
}
#: A full server of 40 whose heaviest addresses ping and watch (issue 45.8).
HOLDERS = {**CROWD, "max_connections_per_address": 12}


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
    # the guard changes a connection through its methods: the real ones, on this stand-in
    refuse = GuardedConnection.refuse
    count_in = GuardedConnection.count_in
    charged_to = GuardedConnection.charged_to
    said_hello = GuardedConnection.said_hello
    count_out = GuardedConnection.count_out


def fake_conn() -> Any:
    """A connection not yet counted."""
    return FakeConn(
        refusal=None,
        address=None,
        pending=False,
        since=0.0,
        quiet=None,
        worth=None,
        client=None,
        page=False,
    )


def test_one_64_shares_one_per_address_quota() -> None:
    guard = ConnectionGuard(100, 3, hello_rate=math.inf)
    hosts = [f"2001:db8:0:1::{i:x}" for i in range(1, 5)]
    admitted = [guard.arrive(fake_conn(), address_key(h)) for h in hosts]
    assert admitted == [True, True, True, False]  # four hosts of one /64: one address
    assert guard.arrive(fake_conn(), address_key("2001:db8:0:2::1"))  # the next /64 is another


async def test_a_full_guard_closes_the_least_worth_of_the_heaviest_never_a_player_in_a_game() -> (
    None
):
    guard = ConnectionGuard(6, 8, hello_rate=math.inf, evict_after=5.0)
    closed: list[tuple[str, int]] = []

    def holder(address: str, kind: str, worth: int, since: float = 0.0) -> Any:
        async def close(code: int, reason: str) -> None:
            closed.append((kind, code))

        conn = fake_conn()
        assert guard.arrive(conn, address)
        conn.worth, conn.since, conn.close = (lambda: worth), since, close
        return conn

    holder("10.0.0.1", "keep", KEEP)
    holder("10.0.0.1", "keep", KEEP)
    holder("10.0.0.1", "seated", SEATED)
    holder("10.0.0.2", "watching", WATCHING)
    holder("10.0.0.3", "young", LOBBY, since=time.monotonic())  # too new to go
    assert guard.arrive(fake_conn(), "10.0.0.3")  # not served yet (no worth): never closed
    assert guard.arrive(fake_conn(), "10.0.0.9")  # the heaviest's least worth made room
    await until(lambda: closed == [("seated", 1013)])
    # .1 holds only players in games now, .2 and .3 no more than a newcomer plus one
    assert not guard.arrive(fake_conn(), "10.0.0.8")
    assert guard.total == 6 and closed == [("seated", 1013)]


async def test_an_address_past_its_own_bounds_closes_nobody_at_a_full_guard() -> None:
    """One refused for its own address's bounds (here its bucket of new sockets) is refused
    before a full guard looks for a connection to close: on the old order a holder was closed
    with 1013 for a knock that was then refused anyway."""
    guard = ConnectionGuard(8, 8, hello_rate=0.001, hello_burst=6, evict_after=5.0)
    closed: list[int] = []

    async def close(code: int, reason: str) -> None:
        closed.append(code)

    knocker = [fake_conn() for _ in range(6)]  # six new sockets at once: its whole burst
    assert all(guard.arrive(conn, "10.0.0.2") for conn in knocker)
    for conn in knocker[2:]:  # it keeps two
        guard.leave(conn)
    for _ in range(6):  # an old, idle address of six: closed for a newcomer if need be
        conn = fake_conn()
        assert guard.arrive(conn, "10.0.0.1")
        conn.worth, conn.since, conn.close = (lambda: LOBBY), 0.0, close
    assert guard.total == 8 and guard.evicted == 0  # full
    knock = fake_conn()
    assert not guard.arrive(knock, "10.0.0.2") and "slow down" in knock.refusal
    assert guard.evicted == 0
    assert guard.arrive(fake_conn(), "10.0.0.5")  # a newcomer makes room
    await asyncio.sleep(0)
    assert guard.evicted == 1 and closed == [1013]  # for the newcomer only


def test_a_fruitless_search_is_remembered_for_as_heavy_an_address_only() -> None:
    """A full guard's search that found nothing is not repeated for a moment for an address
    holding as much or more; a lighter one searches again."""
    fruitless = Fruitless(retry=0.1)
    assert not fruitless.known(0, 10.0)
    fruitless.found_nothing(5, 10.0)
    assert fruitless.known(5, 10.05) and fruitless.known(9, 10.05)
    assert not fruitless.known(4, 10.05)
    fruitless.found_nothing(2, 10.06)  # within the moment: lighter ones found nothing too
    assert fruitless.known(2, 10.09) and not fruitless.known(1, 10.09)
    assert not fruitless.known(9, 10.1)  # the moment is over: search again


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


def open_long_enough(server: Any, at_least: float) -> bool:
    """Every counted connection has been open ``at_least`` seconds (a full server may close it)."""
    now = time.monotonic()
    return all(now - c.since >= at_least for held in server.guard.held.values() for c in held)


async def keep_pinging(clients: list[RawClient], stop: asyncio.Event) -> None:
    """Send a ``ping`` and a WebSocket ping from each client every 50 ms until ``stop``."""
    while not stop.is_set():
        for c in clients:
            with contextlib.suppress(ConnectionClosed):
                await c.send(type="ping")
                await c.ws.ping()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.05)


@pytest.mark.parametrize("limits_override", [HOLDERS])
async def test_sockets_that_ping_or_watch_make_room_for_newcomers_never_seated_players(
    server: Any,
) -> None:
    seated = []  # 12 players in 6 live games from one heavy address: never closed
    rooms = []
    for i in range(0, 12, 2):
        a, b = await from_address(server, "127.0.0.2"), await from_address(server, "127.0.0.2")
        await a.hello(f"seat{i}")
        await b.hello(f"seat{i + 1}")
        room = (await a.request(type="create_room", game="tictactoe", seat=0))["room"]
        assert (await b.request(type="join_room", room=room))["type"] != "error"
        await a.expect("state", room=room, status="playing")
        seated += [a, b]
        rooms.append(room)
    watchers = []  # 12 spectators of those games from another address
    for i in range(12):
        c = await from_address(server, "127.0.0.3")
        await c.hello(f"watch{i}")
        joined = await c.request(type="join_room", room=rooms[i % 6], spectate=True)
        assert joined["type"] != "error", joined
        watchers.append(c)
    pingers = []  # 16 sockets that ping from two more addresses: the server is full
    for a, count in ((4, 12), (5, 4)):
        for i in range(count):
            c = await from_address(server, f"127.0.0.{a}")
            await c.hello(f"ping{a}x{i}")
            pingers.append(c)
    assert server.guard.total == 40
    stop = asyncio.Event()
    pinging = asyncio.create_task(keep_pinging(pingers + watchers, stop))
    try:
        await until(lambda: open_long_enough(server, IDLE))
        newcomers = []
        for n in range(20):  # twenty fresh addresses each get in, in place of a holder
            c = await from_address(server, f"127.0.1.{n + 1}")
            await c.hello(f"new{n}")
            newcomers.append(c)
    finally:
        stop.set()
        await pinging
    assert server.guard.total == 40 and server.guard.evicted == 20
    closed: dict[str, list[int | None]] = {"watchers": [], "pingers": []}
    for kind, clients in (("watchers", watchers), ("pingers", pingers)):
        for c in clients:
            try:
                await c.alive()
            except ConnectionClosed:
                closed[kind].append(c.ws.close_code)
    # those in no room first (all but one of each address), then watchers
    assert len(closed["pingers"]) == 14 and len(closed["watchers"]) == 6, closed
    assert set(closed["pingers"] + closed["watchers"]) == {1013}, closed
    for c in seated + newcomers:  # players in live games were never touched
        await c.alive()
    for c in seated + newcomers + watchers + pingers:
        await c.close()


#: A full server of 80 (5 addresses' worth) whose page bucket lets a knocker knock all it likes.
KNOCKED = {
    **CROWD,
    "max_connections": 80,
    "max_connections_per_address": 16,
    "page_rate": 10_000.0,
    "page_burst": 10_000.0,
}


async def knock(server: Any, host: str, stop: asyncio.Event, knocks: list[int]) -> None:
    """Ask for connections from ``host`` as fast as the server answers until ``stop``; any
    that gets in is closed again (counted in ``knocks[1]``, every try in ``knocks[0]``)."""
    while not stop.is_set():
        knocks[0] += 1
        try:
            ws = await connect(server.url, local_addr=(host, 0), open_timeout=10)
        except (OSError, TimeoutError, WebSocketException):
            await asyncio.sleep(0)  # refused (503) or dropped: knock again at once
            continue
        knocks[1] += 1
        await ws.close()


@pytest.mark.slow
@pytest.mark.parametrize("limits_override", [KNOCKED])
async def test_newcomers_get_in_while_heavy_addresses_knock_at_a_full_server(
    server: Any,
) -> None:
    """Addresses that hold as much as the heaviest (one at its own bound) knock at a full
    server as fast as it answers: they can make room for nobody, so they may not spend what
    makes room for a newcomer (in the hostile bench, 12 of 20 newcomers got in past such
    knocking), nor close anybody's connection for a knock refused anyway."""
    held = []  # three addresses of 16, two knockers of 16 (its bound) and 15, one more: full
    for host, count in (("127.0.2.1", 16), ("127.0.2.2", 16), ("127.0.2.3", 16),
                        ("127.0.3.1", 16), ("127.0.3.2", 15), ("127.0.2.4", 1)):  # fmt: skip
        for i in range(count):
            c = await from_address(server, host)
            await c.hello(f"h{host.rsplit('.', 2)[1]}x{host.rsplit('.', 1)[1]}x{i}")
            held.append(c)
    assert server.guard.total == 80
    await until(lambda: open_long_enough(server, IDLE))
    stop, knocks = asyncio.Event(), [0, 0]
    knockers = [
        asyncio.create_task(knock(server, host, stop, knocks))
        for host in ("127.0.3.1", "127.0.3.2")
    ]
    try:
        await until(lambda: knocks[0] >= 200, timeout=60)  # knocking for a while: no room made
        assert server.guard.evicted == 0 and knocks[1] == 0
        newcomers, refused = [], 0
        for n in range(20):  # twenty fresh addresses each get in at once, in place of a holder
            try:
                c = await from_address(server, f"127.0.1.{n + 1}")
            except (OSError, WebSocketException):
                refused += 1
                continue
            await c.hello(f"new{n}")
            newcomers.append(c)
    finally:
        stop.set()
        await asyncio.gather(*knockers)
    assert len(newcomers) == 20, f"{refused} of 20 newcomers refused"
    assert server.guard.evicted == 20 and knocks[1] == 0
    for c in newcomers:
        await c.alive()
    for c in held + newcomers:
        await c.close()
