"""A slow or absent PostgreSQL stalls deliveries, never the event loop, and nobody exits.

The last test is the issue's test 5: PostgreSQL stopped with ``-m immediate`` for 5 s under three
nodes on Redis mid-game, the game's second player and a spectator on the other two nodes.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import psycopg
import pytest
from support.cluster import listed, moves_table, owners, redis_lobby
from support.servers import ServerProcess
from support.services import PgCluster, RedisServer
from support.stores import HeldLock, loop_answers_while_a_commit_waits

pytestmark = pytest.mark.slow  # real node processes on PostgreSQL (and Redis)

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
    pg_cluster: PgCluster, pg_url: str, redis_server: RedisServer
) -> None:
    slow = ("--lease", LEASE, "--commit-timeout", "30", "--redis", redis_server.url())
    nodes = [ServerProcess(pg_url, extra=("--node", n, *slow)) for n in "abc"]
    try:
        for node in nodes:
            await node.start()
        a, b, c = nodes
        alice, bob, carol = await a.client("alice"), await b.client("bob"), await c.client("carol")
        room = (await alice.request(type="create_room", game="gomoku", seat=0))["room"]
        await bob.request(type="join_room", room=room)  # a's room, bob through b
        # b and c must know the room's owner from the lobby before PostgreSQL goes: a node that
        # has not seen the room in a lobby round yet asks PostgreSQL (down: no_such_room)
        await listed(bob, {room}, await bob.request(type="list_rooms", subscribe=True))
        await listed(carol, {room}, await carol.request(type="list_rooms", subscribe=True))
        await carol.request(type="join_room", room=room, spectate=True)  # and carol through c
        await alice.request(type="move", room=room, x=7, y=7, ply=0)
        for client in (bob, carol):
            await client.expect("moved", ply=0)
        await asyncio.to_thread(pg_cluster.stop, "immediate")
        down = time.monotonic()
        await bob.send(type="move", room=room, x=8, y=8, ply=1, id=99)  # forwarded to a
        for client in (alice, bob, carol):
            await client.alive()  # every loop answers while the commit waits for PostgreSQL
        for client in (alice, bob, carol):  # and nothing uncommitted leaves, on any node
            with pytest.raises(TimeoutError):
                left = max(0.1, 4.0 - (time.monotonic() - down))
                await client.expect("moved", timeout=left)
        await asyncio.sleep(max(0.0, 5.0 - (time.monotonic() - down)))
        await asyncio.to_thread(pg_cluster.start)
        moved = await bob.expect("moved", ply=1, timeout=30)
        assert (moved["x"], moved["y"], moved["id"]) == (8, 8, 99)
        for client in (alice, carol):
            await client.expect("moved", ply=1, timeout=30)
        await alice.request(type="move", room=room, x=7, y=8, ply=2)
        for client in (bob, carol):
            await client.expect("moved", ply=2)
        assert moves_table(pg_url, room) == [(7, 7), (8, 8), (7, 8)]
        assert [m for m in bob.seen if m.get("id") == 99] == [moved]  # answered once
        assert owners(pg_url)[room] == ("a", 0)  # no takeover
        await asyncio.sleep(2.0)  # a scan or two after the outage: still nobody adopts
        assert owners(pg_url)[room] == ("a", 0) and redis_lobby(redis_server.url()) == {room: "a"}
        assert all(node.proc is not None and node.proc.poll() is None for node in nodes)
    finally:
        for node in nodes:
            if node.proc is not None and node.proc.poll() is None:
                node.kill()
