"""A slow or absent PostgreSQL stalls deliveries, never the event loop, and nobody exits.

The last test is the issue's test 5 without its Redis part: PostgreSQL stopped with
``-m immediate`` for 5 s under three nodes mid-game.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg
import pytest
from cluster.services import PgCluster
from test_durability import ServerProcess
from test_nodes import moves_table, owners

#: Longer than the outage below, so that no lease lapses while PostgreSQL is away.
LEASE = "15"


@pytest.fixture
def db(pg_url: str) -> str:
    """The in-process test server runs on PostgreSQL here."""
    return pg_url


class TableLock:
    """Another connection (in a thread of its own) holding ``moves`` locked against writes."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.taken, self.release = threading.Event(), threading.Event()
        self.thread = threading.Thread(target=self._hold, daemon=True)

    def _hold(self) -> None:
        with psycopg.connect(self.url) as db, db.transaction():
            db.execute("LOCK TABLE moves IN EXCLUSIVE MODE")
            self.taken.set()
            self.release.wait(30)

    async def __aenter__(self) -> TableLock:
        self.thread.start()
        await asyncio.to_thread(self.taken.wait, 10)
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.release.set()
        await asyncio.to_thread(self.thread.join, 10)


async def test_a_locked_table_does_not_freeze_the_loop(
    client_factory: Callable[..., Any], db: str
) -> None:
    alice, bob = await client_factory("alice"), await client_factory("bob")
    pinger = await client_factory("pinger")
    room = (await alice.request(type="create_room", game="gomoku", seat=0))["room"]
    await bob.request(type="join_room", room=room)
    async with TableLock(db):
        await alice.send(type="move", room=room, x=7, y=7)
        worst = 0.0
        for _ in range(10):
            started = time.monotonic()
            await pinger.alive()
            worst = max(worst, time.monotonic() - started)
            await asyncio.sleep(0.1)
        with pytest.raises(TimeoutError):  # nothing uncommitted leaves
            await bob.expect("moved", timeout=0.3)
    assert worst < 1.0
    assert (await bob.expect("moved", timeout=10))["x"] == 7


async def test_postgresql_down_for_5_s_mid_game_nobody_exits_nothing_leaks(
    pg_cluster: PgCluster, pg_url: str
) -> None:
    slow = ("--lease", LEASE, "--commit-timeout", "30")
    nodes = [ServerProcess(pg_url, extra=("--node", n, *slow)) for n in "abc"]
    try:
        for node in nodes:
            await node.start()
        a = nodes[0]
        alice, bob = await a.client("alice"), await a.client("bob")
        room = (await alice.request(type="create_room", game="gomoku", seat=0))["room"]
        await bob.request(type="join_room", room=room)
        await alice.request(type="move", room=room, x=7, y=7, ply=0)
        await bob.expect("moved", ply=0)
        await asyncio.to_thread(pg_cluster.stop, "immediate")
        down = time.monotonic()
        await bob.send(type="move", room=room, x=8, y=8, ply=1)
        await alice.alive()  # the loop answers while the commit waits for PostgreSQL
        with pytest.raises(TimeoutError):  # and nothing uncommitted leaves
            await alice.expect("moved", timeout=max(0.1, 4.0 - (time.monotonic() - down)))
        await asyncio.sleep(max(0.0, 5.0 - (time.monotonic() - down)))
        await asyncio.to_thread(pg_cluster.start)
        moved = await alice.expect("moved", ply=1, timeout=30)
        assert (moved["x"], moved["y"]) == (8, 8)
        await alice.request(type="move", room=room, x=7, y=8, ply=2)
        assert moves_table(pg_url, room) == [(7, 7), (8, 8), (7, 8)]
        assert owners(pg_url)[room] == ("a", 0)  # no takeover
        await asyncio.sleep(2.0)  # a scan or two after the outage: still nobody adopts
        assert owners(pg_url)[room] == ("a", 0)
        assert all(node.proc is not None and node.proc.poll() is None for node in nodes)
    finally:
        for node in nodes:
            if node.proc is not None and node.proc.poll() is None:
                node.kill()
