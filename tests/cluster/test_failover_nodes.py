"""The issue's tests 2 and 3 on three real nodes with PostgreSQL and Redis, the game's players
and a spectator spread over them, so that forwarding is in play when the owner dies or stalls.

Every node is a real ``python -m server --node NAME --redis URL`` process.
"""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis
from support.clients import RawClient
from support.cluster import (
    LEASE,
    MOVES,
    listed,
    moves_table,
    owners,
    redis_lobby,
    resume,
    running,
    start_nodes,
)
from support.services import RedisServer
from support.waiting import wait_for
from websockets.exceptions import ConnectionClosed

from protocol import wire

pytestmark = pytest.mark.slow  # real node processes on PostgreSQL (and Redis)

#: After MOVES, bob (seat 1) plays first; alice's (7, 10) then wins.
REST = [(10, 10), (7, 6), (11, 11), (7, 10)]


@pytest.fixture
async def cluster(pg_url: str, redis_server: RedisServer) -> AsyncIterator[dict[str, Any]]:
    """Three started nodes a, b, c with a short lease; all killed after the test."""
    made = dict(zip("abc", start_nodes(pg_url, redis_server.url(), "abc", LEASE), strict=True))
    async with running(made):
        yield made


def view(client: RawClient, room: str) -> list[tuple[int, int]]:
    """The moves as a client following ``room`` sees them: a ``state`` gives them all, and
    each ``moved`` must add exactly the next ply (none lost, none twice)."""
    moves: list[tuple[int, int]] = []
    for m in client.seen:
        if m.get("room") != room:
            continue
        if m["type"] == "state":
            assert [tuple(s) for s in m["moves"]][: len(moves)] == moves  # nothing taken back
            moves = [tuple(s) for s in m["moves"]]  # type: ignore[misc]
        elif m["type"] == "moved":
            assert m["ply"] == len(moves), (m, moves)
            moves.append((m["x"], m["y"]))
    return moves


async def sees(client: RawClient, room: str, plies: int) -> None:
    """Read until ``client``'s view of ``room`` has ``plies`` moves (by a ``moved``, or by a
    ``state`` when it was attached to the room's new owner after the move)."""
    while len(view(client, room)) < plies:
        await client.recv()


async def spread_game(cluster: dict[str, Any]) -> tuple[RawClient, RawClient, RawClient, str]:
    """Alice on a creates a timed game, bob joins from b and carol watches from c; MOVES are
    played and everyone saw them."""
    a, b, c = cluster["a"], cluster["b"], cluster["c"]
    alice, bob, carol = await a.client("alice"), await b.client("bob"), await c.client("carol")
    clock = {"initial_s": 60.0, "increment_s": 0.0}
    room = (await alice.request(type="create_room", game="gomoku", seat=0, clock=clock))["room"]
    await bob.request(type="join_room", room=room)
    await listed(carol, {room}, await carol.request(type="list_rooms", subscribe=True))
    await carol.request(type="join_room", room=room, spectate=True)
    for ply, (x, y) in enumerate(MOVES):
        await (alice, bob)[ply % 2].request(type="move", room=room, x=x, y=y, ply=ply)
    for client in (bob, carol):  # alice's own move came back as her reply
        await client.expect("moved", room=room, ply=len(MOVES) - 1)
    return alice, bob, carol, room


async def test_kill_9_of_the_owner_with_players_and_a_spectator_on_other_nodes(
    cluster: dict[str, Any], pg_url: str
) -> None:
    alice, bob, carol, room = await spread_game(cluster)
    before = next(m for m in reversed(bob.seen) if m["type"] == "moved")["clocks"]
    cluster["a"].kill()
    killed = time.monotonic()
    # alice comes back on c at once, before anyone adopted her room: c welcomes her (the
    # shared players table) and learns from the adopter that she sits in one of its rooms
    alice = await resume(cluster["c"], alice)
    # bob's move goes to the dead owner: sent again to the adopter, answered exactly once
    reply = await bob.request(type="move", room=room, x=10, y=10, ply=len(MOVES))
    down = time.monotonic() - killed
    assert (reply["type"], reply["ply"]) == ("moved", len(MOVES)), reply
    assert down < 10, "the game must continue on a survivor within 10 s"
    # bob's clock ran only until a's last heartbeat (once a second) and again after the
    # adoption, not while nobody held the room (about the lease: at least 2 s)
    charged = before[1] - reply["clocks"][1]
    assert 0 <= charged < 2.0 and charged < down - 1.0
    assert reply["clocks"][0] == pytest.approx(before[0], abs=0.01)
    adopter = owners(pg_url)[room]
    assert adopter[0] in ("b", "c") and adopter[1] == 1  # adopted once
    for client in (alice, carol):  # she sees bob's move unasked, and so does the spectator
        await sees(client, room, len(MOVES) + 1)
    for ply, (x, y) in enumerate(REST[1:], len(MOVES) + 1):
        await (alice, bob)[ply % 2].request(type="move", room=room, x=x, y=y, ply=ply)
    for client in (alice, bob, carol):
        assert (await client.expect("game_over", room=room))["winner"] == 0
    table = moves_table(pg_url, room)
    assert table == MOVES + REST  # every move once, none lost
    assert view(bob, room) == view(carol, room) == view(alice, room) == table
    answers = [m for m in bob.seen if m.get("id") == reply["id"]]
    assert answers == [reply]  # one outcome for the request that crossed the death


async def test_sigstop_past_the_lease_then_sigcont_the_owner_sends_nothing_on_the_bus(
    cluster: dict[str, Any], pg_url: str, redis_server: RedisServer
) -> None:
    a = cluster["a"]
    assert a.proc is not None
    alice, bob, carol, room = await spread_game(cluster)
    for client in (alice, bob, carol):  # what a sent so far is read: what comes is later
        await client.alive()
        client.pending.clear()
    a.proc.send_signal(signal.SIGSTOP)
    await wait_for(lambda: owners(pg_url)[room][0] in ("b", "c"))
    # bob's move: to the stalled a if b's lobby still lists it there, else to the adopter
    await bob.send(type="move", room=room, x=10, y=10, ply=len(MOVES), id=99)
    await alice.send(type="move", room=room, x=0, y=0, ply=len(MOVES))  # waits in a's socket
    woke = int(time.time() * 1000)
    a.proc.send_signal(signal.SIGCONT)
    late: list[dict[str, Any]] = []
    try:
        while True:
            late.append(await alice.recv())
    except ConnectionClosed:
        pass
    assert await asyncio.to_thread(a.proc.wait, 30) != 0  # a stopped itself
    assert [m for m in late if m.get("room") == room] == []  # and sent nothing to its socket
    reply = await bob.expect("moved", room=room, ply=len(MOVES))
    assert reply["id"] == 99  # bob's move was played once, by the adopter
    # carol watches again from the adopter: bob's move reaches her as a ``moved``, or inside
    # the ``state`` she is sent on re-watching when the adopter played it before her ``Watch``
    await sees(carol, room, len(MOVES) + 1)
    await bob.alive()
    assert [m for m in bob.seen if m.get("id") == 99] == [reply]
    assert moves_table(pg_url, room) == [*MOVES, (10, 10)]
    with redis.Redis.from_url(redis_server.url()) as r:  # nor anything to the other nodes
        for name in "bc":
            for _, fields in r.xrange(f"mnk:0:node:{name}:in", min=woke):
                assert wire.decode_entry(fields[b"d"])[0] != "a"
    assert view(bob, room) == view(carol, room) == moves_table(pg_url, room)


async def test_two_survivors_adopt_each_room_once_and_its_forwarded_players_follow(
    cluster: dict[str, Any], pg_url: str, redis_server: RedisServer
) -> None:
    a, b, c = cluster["a"], cluster["b"], cluster["c"]
    rooms: list[str] = []
    for name in ("host1", "host2"):
        host = await a.client(name)
        for _ in range(4):
            rooms.append((await host.request(type="create_room", game="tictactoe"))["room"])
    guests = {"b": await b.client("guest-b"), "c": await c.client("guest-c")}
    theirs: dict[str, set[str]] = {"b": set(), "c": set()}
    for i, room in enumerate(rooms):  # each room has a guest on b or c, forwarded to a
        where = "bc"[i % 2]
        await guests[where].request(type="join_room", room=room, spectate=i % 4 < 2)
        theirs[where].add(room)
    for guest in guests.values():  # what a sent them so far is read: states now come later
        await guest.alive()
        guest.pending.clear()
        guest.seen.clear()
    a.kill()
    await wait_for(lambda: all(o in ("b", "c") for o, _ in owners(pg_url).values()))
    table = owners(pg_url)
    assert set(table) == set(rooms) and {e for _, e in table.values()} == {1}  # each once
    want = {room: owner for room, (owner, _) in table.items()}
    await wait_for(lambda: redis_lobby(redis_server.url()) == want)  # listed by its adopter
    for where, guest in guests.items():  # seated or watching, each guest follows its rooms
        got: set[str] = set()
        while got != theirs[where]:
            message = await guest.recv()
            if message["type"] == "state":
                got.add(message["room"])
        watcher = await cluster[where].client(f"watch-{where}")
        await listed(watcher, set(rooms), await watcher.request(type="list_rooms", subscribe=True))
