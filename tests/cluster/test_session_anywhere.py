"""A session resumes on any node: a node that never loaded a player finds its session in the
shared players table, and the player goes on playing in its room on another node through it.

Two real ``python -m server --node`` processes on one throwaway PostgreSQL and Redis.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.clients import RawClient, closed_with
from support.cluster import moves_table, running, start_nodes
from support.services import RedisServer
from websockets.asyncio.client import connect

pytestmark = pytest.mark.slow  # real node processes on PostgreSQL (and Redis)


async def hello(node: Any, session: str | None) -> tuple[RawClient, dict[str, Any]]:
    """A fresh connection to ``node`` saying hello with ``session``, and the first answer."""
    client = RawClient(await connect(node.url, compression=None))
    await client.send(type="hello", protocol=1, name="bob", kind="human", session=session, id=1)
    return client, await client.recv(timeout=30)


async def test_a_player_seated_on_node_a_resumes_on_node_b_and_moves_there(
    pg_url: str, redis_server: RedisServer
) -> None:
    a, b = start_nodes(pg_url, redis_server.url(), "ab")
    async with running({"a": a, "b": b}):
        alice, bob = await a.client("alice"), await a.client("bob")
        room = (await alice.request(type="create_room", game="gomoku", seat=0))["room"]
        await bob.request(type="join_room", room=room)
        await alice.request(type="move", room=room, x=7, y=7, ply=0)
        await bob.expect("moved", room=room, ply=0)

        again, welcome = await hello(b, bob.session)  # b never loaded bob
        assert welcome["type"] == "welcome", welcome
        assert (welcome["player"], welcome["session"]) == (bob.player, bob.session)
        assert welcome["id"] == 1
        assert await closed_with(bob) == 4000  # his socket on a: resumed elsewhere
        state = await again.expect("state", room=room, timeout=30)
        assert state["moves"] == [[7, 7]] and state["seat"] == 1

        moved = await again.request(type="move", room=room, x=8, y=8, ply=1)  # through b
        assert moved["type"] == "moved" and moved["ply"] == 1
        await alice.expect("moved", room=room, ply=1)
        assert moves_table(pg_url, room) == [(7, 7), (8, 8)]

        stranger, refused = await hello(b, "a-made-up-session-token")
        assert refused["type"] == "error" and refused["code"] == "bad_session", refused
        assert refused["id"] == 1
        await stranger.ws.close()


async def test_an_account_registered_on_node_a_logs_in_and_resumes_on_node_b(
    pg_url: str, redis_server: RedisServer
) -> None:
    a, b = start_nodes(pg_url, redis_server.url(), "ab")
    async with running({"a": a, "b": b}):
        carol = await a.client("carol-guest")
        made = await carol.request(type="register", name="carol", password="her long secret!")
        assert made["type"] == "logged_in", made
        room = (await carol.request(type="create_room", game="gomoku", seat=0))["room"]
        elsewhere, welcome = await hello(b, made["session"])  # b never saw carol
        assert welcome["type"] == "welcome" and welcome["account"] is True, welcome
        assert (welcome["player"], welcome["name"]) == (made["player"], "carol")
        state = await elsewhere.expect("state", room=room, timeout=30)
        assert state["seat"] == 0
        other = await b.client("dave-guest")
        again = await other.request(type="login", name="Carol", password="her long secret!")
        assert again["type"] == "logged_in" and again["player"] == made["player"]
        taken = await other.request(type="register", name="CAROL", password="another secret!")
        assert taken["code"] == "name_taken"
        await elsewhere.ws.close()
