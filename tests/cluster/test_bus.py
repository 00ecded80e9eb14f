"""Nodes with a Redis bus: one lobby of every node's rooms, rebuilt when Redis comes back
empty (the issue's test 4); a hello on another node closes the old socket with 4000; a node
that cannot reach Redis does not start, and one that loses it keeps its lease (PostgreSQL's).

Every node is a real ``python -m server`` process on a real PostgreSQL and a real Redis.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from typing import Any

import psycopg
import pytest
from support.cluster import (
    listed,
    moves_table,
    owners,
    redis_lobby,
    resume,
    running,
    start_nodes,
    subscribers,
)
from support.services import RedisServer
from support.waiting import wait_for

pytestmark = pytest.mark.slow  # real node processes on PostgreSQL (and Redis)


async def test_every_node_lists_every_node_s_rooms_and_their_adopter_keeps_them_listed(
    pg_url: str, redis_server: RedisServer
) -> None:
    short = start_nodes(pg_url, redis_server.url(), "abc", lease="3")  # a quick takeover
    async with running(dict(zip("abc", short, strict=True))) as cluster:
        await lobby_across_nodes_and_a_takeover(cluster, pg_url, redis_server)


async def lobby_across_nodes_and_a_takeover(
    cluster: dict[str, Any], pg_url: str, redis_server: RedisServer
) -> None:
    """Rooms of a and b listed on c, paged across nodes; a's room listed again after kill -9."""
    rooms = {}
    for name in "ab":
        host = await cluster[name].client(f"host-{name}")
        rooms[name] = (await host.request(type="create_room", game="tictactoe", seat=0))["room"]
    watcher = await cluster["c"].client("watcher")
    first = await watcher.request(type="list_rooms", subscribe=True)
    lobby = await listed(watcher, set(rooms.values()), first)
    lines = {r["room"]: r for r in lobby["rooms"]}
    assert lines[rooms["a"]]["players"] == ["host-a", None]
    assert lines[rooms["b"]]["status"] == "waiting"
    joined = await watcher.request(type="join_room", room=rooms["a"], spectate=True)
    assert joined["type"] == "joined"  # forwarded to a (tests/cluster/test_forward.py)
    page = await watcher.request(type="list_rooms", limit=1)  # pages span the nodes
    rest = await watcher.request(type="list_rooms", limit=1, cursor=page["next"])
    assert {page["rooms"][0]["room"], rest["rooms"][0]["room"]} == set(rooms.values())
    assert rest["next"] is None
    here = await watcher.request(type="create_room", game="gomoku", seat=0)
    watcher.pending.clear()
    cluster["a"].kill()  # a's room comes back under its adopter, listed once
    await wait_for(lambda: owners(pg_url)[rooms["a"]][0] in ("b", "c"))
    want = {*rooms.values(), here["room"]}
    await wait_for(lambda: redis_lobby(redis_server.url()) == {
        r: o for r, (o, _) in owners(pg_url).items()})  # fmt: skip
    fresh = await listed(watcher, want, await watcher.request(type="list_rooms"))  # c reads it
    assert len(fresh["rooms"]) == len(want)  # each listed once


async def test_redis_killed_and_restarted_empty_games_go_on_and_the_lobby_is_rebuilt(
    cluster: dict[str, Any], pg_url: str, redis_server: RedisServer
) -> None:
    a, b, c = cluster["a"], cluster["b"], cluster["c"]
    alice, bob = await a.client("alice"), await a.client("bob")
    room = (await alice.request(type="create_room", game="gomoku", seat=0))["room"]
    await bob.request(type="join_room", room=room)
    await alice.request(type="move", room=room, x=7, y=7, ply=0)
    carol = await b.client("carol")
    await carol.request(type="create_room", game="tictactoe", seat=0)
    table = {r: o for r, (o, _) in owners(pg_url).items()}
    await wait_for(lambda: redis_lobby(redis_server.url()) == table)
    redis_server.kill()
    await bob.request(type="move", room=room, x=8, y=8, ply=1)  # games go on without Redis
    await alice.expect("moved", ply=1)
    await asyncio.to_thread(redis_server.start)  # the same port, nothing in it
    await alice.request(type="move", room=room, x=7, y=8, ply=2)
    await carol.request(type="create_room", game="gomoku", seat=0)  # made while Redis was new
    table = {r: o for r, (o, _) in owners(pg_url).items()}
    assert len(table) == 3
    await wait_for(lambda: redis_lobby(redis_server.url()) == table)
    watcher = await c.client("watcher")
    first = await watcher.request(type="list_rooms", subscribe=True)
    await listed(watcher, set(table), first)
    await bob.request(type="move", room=room, x=9, y=9, ply=3)
    await alice.expect("moved", ply=3)
    assert moves_table(pg_url, room) == [(7, 7), (8, 8), (7, 8), (9, 9)]
    assert all(node.proc.poll() is None for node in cluster.values())  # nobody was fenced
    assert {o for o, _ in owners(pg_url).values()} == {"a", "b"}  # nor adopted


async def test_a_session_resumed_on_another_node_closes_the_old_socket_with_4000(
    cluster: dict[str, Any], redis_server: RedisServer
) -> None:
    a, b = cluster["a"], cluster["b"]
    alice, bob = await a.client("alice"), await a.client("bob")
    room = (await alice.request(type="create_room", game="tictactoe", seat=0))["room"]
    await bob.request(type="join_room", room=room)
    for ply, (x, y) in enumerate([(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)]):
        await (alice, bob)[ply % 2].request(type="move", room=room, x=x, y=y, ply=ply)
    await bob.expect("game_over")  # alice has a game in the history: any node may know her
    b.kill()  # b learns such players when it starts: restart it
    await b.start()
    redis_server.kill()  # each node subscribes to the hello channel again once Redis is back
    await asyncio.to_thread(redis_server.start)
    await wait_for(lambda: subscribers(redis_server.url()) == len(cluster))
    again = await resume(b, alice)
    await asyncio.wait_for(alice.ws.wait_closed(), 30)
    assert alice.ws.close_code == 4000
    await again.alive()
    await bob.alive()  # nobody else's socket is touched


async def test_a_node_without_redis_does_not_start_but_one_that_loses_it_keeps_its_lease(
    pg_url: str, redis_server: RedisServer
) -> None:
    [a] = start_nodes(pg_url, redis_server.url(), "a", lease="3")
    async with running({"a": a}):
        alice, bob = await a.client("alice"), await a.client("bob")
        room = (await alice.request(type="create_room", game="gomoku", seat=0))["room"]
        await bob.request(type="join_room", room=room)
        redis_server.kill()
        killed = time.time()

        def renewed_past_its_lease() -> bool:
            with psycopg.connect(pg_url) as db:
                row = db.execute("SELECT lease_until FROM nodes WHERE node = 'a'").fetchone()
            return row is not None and row[0] > killed + 3.5  # renewed, by PostgreSQL alone

        await wait_for(renewed_past_its_lease)
        await alice.request(type="move", room=room, x=7, y=7, ply=0)
        await bob.expect("moved", ply=0)
        assert a.proc.poll() is None
        with psycopg.connect(pg_url) as db:
            live = "SELECT node FROM nodes WHERE lease_until > extract(epoch FROM now())"
            assert db.execute(live).fetchall() == [("a",)]
    args = [sys.executable, "-m", "server", "--port", "0", "--db", pg_url, "--no-bots"]
    args += ["--node", "b", "--redis", redis_server.url()]
    done = await asyncio.to_thread(subprocess.run, args, capture_output=True, timeout=60)
    assert done.returncode != 0 and b"cannot reach Redis" in done.stderr
