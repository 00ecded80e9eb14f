"""Real server nodes on one real PostgreSQL, without Redis: takeover after kill -9, two survivors
adopting, SIGTERM handing rooms over.

The issue's tests 2 and 6 without the bus (``--redis`` is optional): every node is a real
``python -m server --node NAME`` process; clients resume on a survivor with their session.
With Redis, and players spread over the nodes, they are in ``test_failover_nodes.py`` (with
test 3, SIGSTOP past the lease).
"""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import AsyncIterator

import pytest
from support.clients import RawClient
from support.cluster import LEASE, MOVES, moves_table, owners, resume, running
from support.servers import ServerProcess
from support.waiting import wait_for

pytestmark = pytest.mark.slow  # real node processes on PostgreSQL (and Redis)


@pytest.fixture
async def nodes(pg_url: str) -> AsyncIterator[dict[str, ServerProcess]]:
    """Three started nodes a, b, c on a fresh database; all stopped after the test."""
    made = {n: ServerProcess(pg_url, extra=("--node", n, "--lease", LEASE)) for n in "abc"}
    async with running(made):
        yield made


async def timed_game(node: ServerProcess) -> tuple[RawClient, RawClient, str, list[float]]:
    """Alice and bob on ``node`` play MOVES in a timed game; bob's view of the clocks."""
    alice, bob = await node.client("alice"), await node.client("bob")
    clock = {"initial_s": 60.0, "increment_s": 0.0}
    room = (await alice.request(type="create_room", game="gomoku", seat=0, clock=clock))["room"]
    await bob.request(type="join_room", room=room)
    for ply, (x, y) in enumerate(MOVES):
        await (alice, bob)[ply % 2].request(type="move", room=room, x=x, y=y, ply=ply)
    seen = await bob.expect("moved", ply=len(MOVES) - 1)
    return alice, bob, room, seen["clocks"]


async def test_kill_9_of_a_timed_game_s_owner_the_game_goes_on_on_a_survivor(
    nodes: dict[str, ServerProcess], pg_url: str
) -> None:
    a = nodes["a"]
    alice, bob, room, before = await timed_game(a)
    killed = time.monotonic()
    a.kill()
    await wait_for(lambda: owners(pg_url)[room][0] in ("b", "c"), timeout=10)
    survivor = nodes[owners(pg_url)[room][0]]
    alice, bob = await resume(survivor, alice), await resume(survivor, bob)
    state = await bob.expect("state", room=room)
    down = time.monotonic() - killed
    assert down < 10, "the game must continue on a survivor within 10 s"
    assert state["moves"] == [list(m) for m in MOVES] and state["status"] == "playing"
    assert state["clocks"][0] == pytest.approx(before[0], abs=0.01)
    # bob is to move: charged up to a's last heartbeat (each second), not for the takeover
    assert down > float(LEASE)
    assert before[1] - 2.0 < state["clocks"][1] <= before[1]
    await bob.error("stale_ply", type="move", room=room, x=9, y=9, ply=3)
    rest = [(10, 10), (7, 6), (11, 11), (7, 10)]
    for ply, (x, y) in enumerate(rest, len(MOVES)):
        await (alice, bob)[ply % 2].request(type="move", room=room, x=x, y=y, ply=ply)
    over = await bob.expect("game_over")
    assert over["winner"] == 0
    assert moves_table(pg_url, room) == MOVES + rest  # every move once, none lost
    assert owners(pg_url)[room][1] == 1  # adopted once
    other = next(n for name, n in nodes.items() if name not in ("a", owners(pg_url)[room][0]))
    reader = await other.client("reader")  # the history is the same from any node
    [game] = (await reader.request(type="list_games", player=bob.player))["games"]
    record = (await reader.request(type="get_game", game_id=game["game_id"]))["game"]
    assert [(m["x"], m["y"]) for m in record["moves"]] == MOVES + rest


async def test_two_survivors_adopt_each_room_of_a_dead_node_exactly_once(
    nodes: dict[str, ServerProcess], pg_url: str
) -> None:
    a = nodes["a"]
    rooms = set()
    for name in ("host1", "host2"):
        host = await a.client(name)
        for _ in range(4):
            rooms.add((await host.request(type="create_room", game="tictactoe", seat=0))["room"])
    assert {r: o for r, (o, _) in owners(pg_url).items()} == dict.fromkeys(rooms, "a")
    a.kill()
    await wait_for(lambda: all(o in ("b", "c") for o, _ in owners(pg_url).values()))
    table = owners(pg_url)
    assert set(table) == rooms and {e for _, e in table.values()} == {1}  # each adopted once
    for name in ("b", "c"):  # and each survivor serves exactly the rooms it adopted
        watcher = await nodes[name].client(f"watch-{name}")
        listed = {r["room"] for r in (await watcher.request(type="list_rooms"))["rooms"]}
        assert listed == {r for r, (o, _) in table.items() if o == name}


async def test_sigterm_hands_the_rooms_over_without_waiting_for_the_lease(pg_url: str) -> None:
    slow = ("--lease", "300")  # only the handover can make a takeover quick
    a, b = (ServerProcess(pg_url, extra=("--node", n, *slow)) for n in "ab")
    try:
        await a.start()
        await b.start()
        alice = await a.client("alice")
        room = (await alice.request(type="create_room", game="tictactoe", seat=0))["room"]
        assert a.proc is not None
        a.proc.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(a.proc.wait, 30) == 0
        await wait_for(lambda: owners(pg_url)[room] == ("b", 1), timeout=20)
        alice = await resume(b, alice)
        assert (await alice.expect("state", room=room))["players"] == ["alice", None]
    finally:
        for node in (a, b):
            if node.proc is not None and node.proc.poll() is None:
                node.kill()
