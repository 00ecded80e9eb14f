"""Forwarding between nodes (the issue's test 1): players on different nodes play one game in a
room owned by one of them, a spectator on a third node sees every move, and every observer saw
the same contiguous sequence of plies, equal to PostgreSQL's moves table.

Every node is a real ``python -m server`` process on a real PostgreSQL and a real Redis.
"""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
import redis
from support.clients import RawClient
from support.cluster import (
    listed,
    moves_table,
    resume,
    running,
    start_nodes,
)
from support.services import RedisServer
from support.waiting import wait_for

pytestmark = pytest.mark.slow  # real node processes on PostgreSQL (and Redis)

#: Alice (seat 0, first to move) gets five in a row on row 7; bob answers on row 8.
GAME = [(7, 7), (8, 7), (7, 8), (8, 8), (7, 9), (8, 9), (7, 10), (8, 10), (7, 11)]


def bus_counts(url: str) -> tuple[int, int]:
    """Bus entries sent and read so far, summed over the nodes (as they publish them)."""
    with redis.Redis.from_url(url) as r:
        rows = [line.split() for line in r.hvals("mnk:0:bus")]
    return sum(int(row[0]) for row in rows), sum(int(row[1]) for row in rows)


async def quiet_bus(url: str, at_least: int = 0) -> int:
    """Wait until every entry sent (at least ``at_least`` of them) was read; how many there are."""
    await wait_for(lambda: (c := bus_counts(url))[0] == c[1] and c[0] >= at_least)
    return bus_counts(url)[0]


async def two_moves(a: Any, b: Any) -> tuple[RawClient, RawClient, str]:
    """Alice on ``a`` and bob on ``b`` in a room of ``a``, after one move each."""
    alice, bob = await a.client("alice"), await b.client("bob")
    room = (await alice.request(type="create_room", game="gomoku", seat=0))["room"]
    await bob.request(type="join_room", room=room)
    await alice.request(type="move", room=room, x=7, y=7, ply=0)
    await bob.request(type="move", room=room, x=8, y=8, ply=1)
    return alice, bob, room


async def back(node: Any, bob: RawClient, alice: RawClient, room: str) -> RawClient:
    """Bob, seen going offline by alice, resumes on ``node``: the room's state comes to him
    there and alice sees him back."""
    assert (await alice.expect("presence", room=room))["online"] is False
    again = await resume(node, bob)
    state = await again.expect("state", room=room)
    assert state["moves"] == [[7, 7], [8, 8]] and state["seat"] == 1
    assert (await alice.expect("presence", room=room))["online"] is True
    return again


async def play_on(first: RawClient, second: RawClient, room: str, pg_url: str) -> None:
    """Plies 2 and 3 (``first`` at seat 0, ``second`` at seat 1), each seen by the other, and
    all four moves in PostgreSQL."""
    await first.request(type="move", room=room, x=7, y=8, ply=2)
    await second.expect("moved", room=room, ply=2)
    await second.request(type="move", room=room, x=9, y=9, ply=3)
    await first.expect("moved", room=room, ply=3)
    assert moves_table(pg_url, room) == [(7, 7), (8, 8), (7, 8), (9, 9)]


def plies(client: RawClient, room: str) -> list[tuple[int, int, int]]:
    """Every ``moved`` of ``room`` this client received, in order, as (ply, x, y)."""
    seen = [m for m in client.seen if m["type"] == "moved" and m["room"] == room]
    return [(m["ply"], m["x"], m["y"]) for m in seen]


async def test_players_on_two_nodes_play_and_a_spectator_on_a_third_sees_every_move(
    cluster: dict[str, Any], pg_url: str, redis_server: RedisServer
) -> None:
    a, b, c = cluster["a"], cluster["b"], cluster["c"]
    alice, bob, carol = await a.client("alice"), await b.client("bob"), await c.client("carol")
    room = (await alice.request(type="create_room", game="gomoku", seat=0))["room"]
    # not in the lobby yet: b finds the owner in PostgreSQL's rooms table
    joined = await bob.request(type="join_room", room=room)
    assert joined == {"type": "joined", "room": room, "seat": 1, "id": joined["id"]}
    state = await bob.expect("state", room=room)
    assert state["players"] == ["alice", "bob"] and state["seat"] == 1
    lobby = await carol.request(type="list_rooms", subscribe=True)
    await listed(carol, {room}, lobby)  # c learns the owner from the lobby
    await carol.request(type="join_room", room=room, spectate=True)
    assert (await carol.expect("state", room=room))["status"] == "playing"
    # errors come back through the owner with the request's id
    early = await bob.error("not_your_turn", type="move", room=room, x=0, y=0, ply=0)
    assert early["id"] == bob._next_id
    await bob.error("no_such_room", type="move", room="nowhere", x=0, y=0)
    # the players are told a spectator came: an ``audience`` note to bob's node and carol's
    for member in (alice, bob, carol):
        await member.expect("audience", room=room, spectators=1)
    # each forwarded request so far (two joins, one move) cost its entry and the reply's,
    # and the audience note one entry to each of the other two nodes
    before = await quiet_bus(redis_server.url(), 8)
    assert before == 8
    for ply, (x, y) in enumerate(GAME):
        mover = (alice, bob)[ply % 2]
        if ply == 1:  # an illegal move first: the cell is taken
            await bob.error("illegal_move", type="move", room=room, x=7, y=7, ply=ply)
        reply = await mover.request(type="move", room=room, x=x, y=y, ply=ply)
        assert (reply["type"], reply["ply"]) == ("moved", ply)
    for client in (alice, bob, carol):
        over = await client.expect("game_over", room=room)
        assert over["winner"] == 0
    want = [(ply, x, y) for ply, (x, y) in enumerate(GAME)]
    assert plies(alice, room) == plies(bob, room) == plies(carol, room) == want
    assert moves_table(pg_url, room) == GAME
    with psycopg.connect(pg_url) as db:  # its code was reserved by its node (cluster-wide)
        row = db.execute("SELECT node FROM room_codes WHERE code = %s", (room,)).fetchone()
    assert row == ("a",)
    # alice's moves cost an entry to b and one to c; bob's a request, its reply, one to c;
    # the illegal move a request and its error
    cost = 2 * 5 + 3 * 4 + 2
    assert await quiet_bus(redis_server.url(), before + cost) == before + cost


async def test_a_game_among_the_owner_s_players_costs_no_bus_message(
    cluster: dict[str, Any], redis_server: RedisServer
) -> None:
    a, b = cluster["a"], cluster["b"]
    alice, bob, carol = await a.client("alice"), await a.client("bob"), await b.client("carol")
    local = (await alice.request(type="create_room", game="gomoku", seat=0))["room"]
    await bob.request(type="join_room", room=local)
    other = (await alice.request(type="create_room", game="gomoku", seat=0))["room"]
    await carol.request(type="join_room", room=other)  # a room with a forwarded player too
    before = await quiet_bus(redis_server.url(), 2)  # carol's join and its reply
    assert before == 2
    for ply, (x, y) in enumerate(GAME):
        await (alice, bob)[ply % 2].request(type="move", room=local, x=x, y=y, ply=ply)
    await bob.expect("game_over", room=local)
    await alice.request(type="move", room=other, x=7, y=7, ply=0)
    await carol.expect("moved", room=other, ply=0)  # one entry a -> b, after every local move
    assert await quiet_bus(redis_server.url(), before + 1) == before + 1


async def test_a_player_dropping_on_its_node_goes_offline_at_the_owner_and_resumes_there(
    cluster: dict[str, Any], pg_url: str
) -> None:
    b = cluster["b"]
    alice, bob, room = await two_moves(cluster["a"], b)
    await bob.close()
    again = await back(b, bob, alice, room)  # b tells a: the state of a's room comes back
    await play_on(alice, again, room, pg_url)


async def test_a_forwarded_player_s_own_node_adopts_the_room_and_play_goes_on_there(
    pg_url: str, redis_server: RedisServer
) -> None:
    made = dict(zip("ab", start_nodes(pg_url, redis_server.url(), "ab", lease="3"), strict=True))
    async with running(made):
        a, b = made["a"], made["b"]
        alice, bob, room = await two_moves(a, b)
        bob.pending.clear()
        a.kill()
        state = await bob.expect("state", timeout=30, room=room)  # b adopted it: bob is home
        assert state["moves"] == [[7, 7], [8, 8]] and state["online"] == [False, True]
        await play_on(await resume(b, alice), bob, room, pg_url)


async def test_a_session_resumed_on_a_third_node_gets_the_room_s_state_and_plays_through_it(
    cluster: dict[str, Any], pg_url: str
) -> None:
    a, b, c = cluster["a"], cluster["b"], cluster["c"]
    alice, bob, room = await two_moves(a, b)
    c.kill()  # c learns bob (he has a started game) as any node does when it starts
    await c.start()
    await bob.close()
    again = await back(c, bob, alice, room)  # a heard the hello on c: the state came
    await play_on(alice, again, room, pg_url)
    await again.close()  # c tells a, whose outputs for bob it delivered
    assert (await alice.expect("presence", room=room))["online"] is False
