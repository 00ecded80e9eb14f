"""Cluster nodes for tests: ``python -m server --node`` processes on one PostgreSQL (and Redis),
and what PostgreSQL and Redis say about them."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from collections.abc import AsyncIterator
from typing import Any

import psycopg
import redis
from websockets.asyncio.client import connect

from support.clients import RawClient
from support.servers import ServerProcess

#: Seconds of lease: short, so that takeovers are quick; renewed every second by heartbeats.
LEASE = "3"
#: Seconds of lease on a bus: longer than Redis is away in the restart test.
BUS_LEASE = "10"
MOVES = [(7, 7), (8, 8), (7, 8), (9, 9), (7, 9)]


@contextlib.asynccontextmanager
async def running(made: dict[str, ServerProcess]) -> AsyncIterator[dict[str, ServerProcess]]:
    """Start every node; on the way out kill those still running (stopped ones too)."""
    try:
        for node in made.values():
            await node.start()
        yield made
    finally:
        for node in made.values():
            if node.proc is not None and node.proc.poll() is None:
                node.proc.send_signal(signal.SIGCONT)
                node.kill()


def owners(url: str) -> dict[str, tuple[str, int]]:
    """Each live room's owner node and epoch, from PostgreSQL."""
    with psycopg.connect(url) as db:
        rows = db.execute("SELECT room, owner, epoch FROM rooms").fetchall()
    return {room: (owner, epoch) for room, owner, epoch in rows}


def moves_table(url: str, room: str) -> list[tuple[int, int]]:
    """The moves of ``room``'s game, in order, as PostgreSQL has them."""
    with psycopg.connect(url) as db:
        rows = db.execute(
            "SELECT x, y FROM moves JOIN rooms USING (game_id) WHERE room = %s ORDER BY ply",
            (room,),
        ).fetchall()
    return [(x, y) for x, y in rows]


async def resume(node: ServerProcess, client: RawClient, timeout: float = 30.0) -> RawClient:
    """Resume ``client``'s session on ``node``, retrying while the node has not adopted it."""
    deadline = time.monotonic() + timeout
    while True:
        c = RawClient(await connect(node.url, compression=None))
        await c.send(type="hello", protocol=1, name="x", kind="human", session=client.session)
        reply = await c.recv()
        if reply["type"] == "welcome":
            assert reply["player"] == client.player
            c.session, c.player = reply["session"], reply["player"]
            return c
        assert reply["type"] == "error" and reply["code"] == "bad_session", reply
        await c.close()
        assert time.monotonic() < deadline, "the survivor never adopted the session"
        await asyncio.sleep(0.1)


def start_nodes(
    pg_url: str, redis_url: str, names: str, lease: str = BUS_LEASE
) -> list[ServerProcess]:
    """Node processes (not started yet) on one database and one Redis."""
    extra = ("--lease", lease, "--redis", redis_url)
    return [ServerProcess(pg_url, extra=("--node", n, *extra)) for n in names]


def redis_lobby(url: str) -> dict[str, str]:
    """Each room listed in Redis, with the node whose hash lists it."""
    with redis.Redis.from_url(url) as r:
        listed = {}
        for key in r.keys("mnk:0:lobby:*"):
            node = key.decode().rsplit(":", 1)[1]
            listed |= {room.decode(): node for room in r.hkeys(key)}
    return listed


async def listed(client: RawClient, want: set[str], first: dict[str, Any]) -> dict[str, Any]:
    """The first ``rooms`` message (the reply ``first``, then pushes) listing exactly ``want``."""
    message = first
    while {r["room"] for r in message["rooms"]} != want:
        message = await client.expect("rooms", timeout=30)
    return message


def subscribers(url: str) -> int:
    """How many connections listen to the hello channel."""
    with redis.Redis.from_url(url) as r:
        return int(r.pubsub_numsub("mnk:0:hello")[0][1])
