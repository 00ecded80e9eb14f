"""A slow or absent PostgreSQL stalls deliveries, never the event loop, and nobody exits.

The last test is the issue's test 5 without its Redis part: PostgreSQL stopped with
``-m immediate`` for 5 s under three nodes mid-game.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import psycopg
import pytest
from cluster.services import PgCluster
from test_durability import ServerProcess
from test_nodes import moves_table, owners
from test_server_store_bounds import HeldLock, loop_answers_while_a_commit_waits

#: Longer than the outage below, so that no lease lapses while PostgreSQL is away.
LEASE = "15"


@pytest.fixture
def db(pg_url: str) -> str:
    """The in-process test server runs on PostgreSQL here."""
    return pg_url


class TableLock(HeldLock):
    """Another connection holding the ``moves`` table locked against writes."""

    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url

    def _hold(self) -> None:
        with psycopg.connect(self.url) as db, db.transaction():
            db.execute("LOCK TABLE moves IN EXCLUSIVE MODE")
            self.taken.set()
            self.release.wait(30)


async def test_a_locked_table_does_not_freeze_the_loop(server: Any, db: str) -> None:
    await loop_answers_while_a_commit_waits(server.url, TableLock(db))


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
