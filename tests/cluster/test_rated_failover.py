"""Ratings across a failover: the node that adopts a dead node's rooms never rates a game twice,
and rates the game it finishes from the ratings the dead node left (real nodes on PostgreSQL)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import psycopg
import pytest
from support.cluster import LEASE, owners, resume, running, start_nodes
from support.services import RedisServer
from support.waiting import wait_for

pytestmark = pytest.mark.slow  # real node processes on PostgreSQL and Redis

BLITZ = {"initial_s": 180, "increment_s": 2}
#: Alice (seat 0) wins on the top row, bob plays the middle row.
WIN = [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)]


@pytest.fixture
async def nodes(pg_url: str, redis_server: RedisServer) -> AsyncIterator[dict[str, Any]]:
    """Two started nodes a and b with a short lease; both killed after the test."""
    made = dict(zip("ab", start_nodes(pg_url, redis_server.url(), "ab", LEASE), strict=True))
    async with running(made):
        yield made


async def account(node: Any, name: str) -> Any:
    """A client on ``node`` registered as the account ``name`` (its session is the account's)."""
    client = await node.client(f"guest-{name}")
    logged = await client.request(type="register", name=name, password="so not guessable")
    assert logged["type"] == "logged_in", logged
    client.session, client.player = logged["session"], logged["player"]
    return client


async def rated_room(alice: Any, bob: Any, plies: int) -> str:
    """A rated tic-tac-toe room of alice (seat 0) and bob with ``plies`` of WIN played."""
    ask = {"type": "create_room", "game": "tictactoe", "seat": 0, "rated": True, "clock": BLITZ}
    room = (await alice.request(**ask))["room"]
    await bob.request(type="join_room", room=room)
    for ply, (x, y) in enumerate(WIN[:plies]):
        await (alice, bob)[ply % 2].request(type="move", room=room, x=x, y=y, ply=ply)
    return room


def changes(url: str) -> list[tuple[Any, ...]]:
    """Every rating change in PostgreSQL: game, account, before, after, oldest first."""
    with psycopg.connect(url) as db:
        sql = "SELECT game_id, account, before, rating FROM rating_changes ORDER BY at, account"
        return db.execute(sql).fetchall()


async def test_the_adopting_node_never_rates_twice(nodes: dict[str, Any], pg_url: str) -> None:
    a, b = nodes["a"], nodes["b"]
    alice, bob = await account(a, "alice"), await account(a, "bob")
    finished = await rated_room(alice, bob, len(WIN))  # over and committed on a
    first = await bob.expect("game_over", room=finished)
    unfinished = await rated_room(alice, bob, len(WIN) - 1)  # a dies before its last move
    a.kill()
    await wait_for(lambda: {o for o, _ in owners(pg_url).values()} == {"b"})
    alice, bob = await resume(b, alice), await resume(b, bob)
    assert first["ratings"][0]["after"] > 1500
    again = await alice.request(type="resign", room=finished)
    assert again["type"] == "error" and again["code"] == "game_over"  # adopted as it ended
    over = await alice.request(type="move", room=unfinished, x=2, y=0, ply=len(WIN) - 1)
    assert over["type"] == "moved"
    second = await bob.expect("game_over", room=unfinished)
    # b rated the game it finished from where a left the ratings, and nothing twice
    assert [c["before"] for c in second["ratings"]] == [c["after"] for c in first["ratings"]]
    rows = changes(pg_url)
    assert len(rows) == 4 and len({(g, acc) for g, acc, _, _ in rows}) == 4
    with psycopg.connect(pg_url) as db:
        games = dict(db.execute("SELECT account, games FROM ratings").fetchall())
    assert games == {"alice": 2, "bob": 2}
