"""Redis stopped (SIGSTOP) for 10 s under two nodes: the lease lives in PostgreSQL, so no node
is fenced or exits; each node's local game goes on during the stall; a cross-node request is
refused with ``node_unavailable``; after SIGCONT the lobby, the hello channel and forwarding
come back, and every game's moves in PostgreSQL are each played once, none lost.

Every node is a real ``python -m server`` process on a real PostgreSQL and a real Redis.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import psycopg
from support.clients import RawClient
from support.cluster import (
    moves_table,
    owners,
    redis_lobby,
    running,
    start_nodes,
    subscribers,
)
from support.services import RedisServer
from support.waiting import wait_for

#: Seconds Redis is stopped, and each node's lease: the stall is three leases long.
STALL = 10.0
LEASE = "3"
#: Seconds a probe waits for its answer (one sent before the node saw Redis go is never answered).
PROBE_WAIT = 3.0


async def local_game(node: Any, first: str, second: str) -> tuple[RawClient, RawClient, str]:
    """Two players connected to ``node`` in a gomoku room of ``node``, one move each."""
    x, o = await node.client(first), await node.client(second)
    room = (await x.request(type="create_room", game="gomoku", seat=0))["room"]
    await o.request(type="join_room", room=room)
    await play(x, o, room, 0, (0, 0))
    await play(o, x, room, 1, (1, 0))
    return x, o, room


async def play(
    mover: RawClient, other: RawClient, room: str, ply: int, at: tuple[int, int]
) -> None:
    """``mover`` plays ``at`` as ply ``ply``: acknowledged, and seen by ``other``."""
    reply = await mover.request(type="move", room=room, x=at[0], y=at[1], ply=ply)
    assert reply["type"] == "moved" and reply["ply"] == ply, reply
    await other.expect("moved", room=room, ply=ply)


async def refused_while_down(probe: RawClient, room: str) -> None:
    """Wait until ``probe``'s node refuses requests for ``room`` (another node's): it saw the
    bus go down. A probe is a chat from a non-member: harmless should it arrive late."""
    deadline = time.monotonic() + 30
    while True:
        probe._next_id += 1
        rid = probe._next_id
        await probe.send(type="chat", room=room, text="probe", id=rid)
        try:
            reply = await probe.expect("error", timeout=PROBE_WAIT, id=rid)
        except TimeoutError:
            reply = {}
        if reply.get("code") == "node_unavailable":
            return
        assert time.monotonic() < deadline, "the node never saw Redis go"


async def forwarded_move(mover: RawClient, room: str, ply: int, at: tuple[int, int]) -> None:
    """Play ``at`` in another node's room once this node forwards again (bounded)."""
    deadline = time.monotonic() + 30
    while True:
        reply = await mover.request(type="move", room=room, x=at[0], y=at[1], ply=ply)
        if reply["type"] == "moved":
            assert reply["ply"] == ply
            return
        assert reply["code"] == "node_unavailable", reply
        assert time.monotonic() < deadline, "forwarding never resumed"
        await asyncio.sleep(0.2)


def live_leases(url: str) -> list[str]:
    """The nodes whose lease is current, by PostgreSQL's clock."""
    with psycopg.connect(url) as db:
        live = "SELECT node FROM nodes WHERE lease_until > extract(epoch FROM now()) ORDER BY 1"
        return [node for (node,) in db.execute(live).fetchall()]


async def test_redis_stopped_for_10_s_no_node_exits_local_games_go_on_and_all_resumes(
    pg_url: str, redis_server: RedisServer
) -> None:
    made = dict(zip("ab", start_nodes(pg_url, redis_server.url(), "ab", lease=LEASE), strict=True))
    async with running(made) as cluster:
        a, b = cluster["a"], cluster["b"]
        alice, bob, on_a = await local_game(a, "alice", "bob")
        carol, dave, on_b = await local_game(b, "carol", "dave")
        frank, erin = await a.client("frank"), await b.client("erin")  # erin plays through b
        cross = (await frank.request(type="create_room", game="gomoku", seat=0))["room"]
        assert (await erin.request(type="join_room", room=cross))["type"] == "joined"
        await play(frank, erin, cross, 0, (7, 7))
        reply = await erin.request(type="move", room=cross, x=8, y=8, ply=1)
        assert reply["type"] == "moved"
        probe = await b.client("probe")
        table = {r: o for r, (o, _) in owners(pg_url).items()}
        await wait_for(lambda: redis_lobby(redis_server.url()) == table)

        redis_server.pause()
        stopped = time.monotonic()
        try:
            await play(alice, bob, on_a, 2, (0, 1))  # at once: local games never needed Redis
            await play(carol, dave, on_b, 2, (1, 1))
            await refused_while_down(probe, cross)
            reply = await frank.request(type="move", room=cross, x=7, y=8, ply=2)
            assert reply["type"] == "moved"  # frank is local to the room: erin hears later
            await erin.error("node_unavailable", type="move", room=cross, x=8, y=9, ply=3)
            await asyncio.sleep(max(0.0, stopped + STALL / 2 - time.monotonic()))
            await play(bob, alice, on_a, 3, (1, 2))  # past the lease: still nobody fenced
            await play(dave, carol, on_b, 3, (2, 1))
            await asyncio.sleep(max(0.0, stopped + STALL - time.monotonic()))
            assert a.proc.poll() is None and b.proc.poll() is None
            assert live_leases(pg_url) == ["a", "b"]
        finally:
            redis_server.resume()

        state = await erin.expect("state", room=cross)  # what the outage swallowed
        assert state["moves"] == [[7, 7], [8, 8], [7, 8]]
        await forwarded_move(erin, cross, 3, (8, 9))
        await frank.expect("moved", room=cross, ply=3)
        await play(frank, erin, cross, 4, (7, 9))
        await play(alice, bob, on_a, 4, (0, 2))
        await play(carol, dave, on_b, 4, (1, 3))
        await wait_for(lambda: redis_lobby(redis_server.url()) == table)  # written again
        await wait_for(lambda: subscribers(redis_server.url()) == 2)  # listening again

        assert moves_table(pg_url, on_a) == [(0, 0), (1, 0), (0, 1), (1, 2), (0, 2)]
        assert moves_table(pg_url, on_b) == [(0, 0), (1, 0), (1, 1), (2, 1), (1, 3)]
        assert moves_table(pg_url, cross) == [(7, 7), (8, 8), (7, 8), (8, 9), (7, 9)]
        assert {r: o for r, (o, _) in owners(pg_url).items()} == table  # nobody adopted
        assert a.proc.poll() is None and b.proc.poll() is None
