"""The lobby lane: moves never wait behind lobby work; lobby requests keep their connection's
order, all get answered, and one sent just before its connection closes is still handled first.

The rule tests time the lane on a fake clock (a job "takes" what it advances the clock by), so
they hold however loaded the machine is. The server tests take the lane's budget away: every
lobby request then waits for a later turn of the loop and one runs per turn, the most a burst of
games ending together can make them wait.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

import msgpack
import pytest
from support.clock import FakeClock

from server.shell.lane import LobbyLane, is_play


def test_moves_and_pings_are_told_from_lobby_requests_without_decoding() -> None:
    def frame(**message: Any) -> bytes:
        return msgpack.packb(message)

    assert is_play(frame(type="move", room="r", x=1, y=2, ply=0))
    assert is_play(frame(type="ping", id=3))
    assert not is_play(frame(type="create_room", game="gomoku"))
    assert not is_play(frame(type="leave_room", room="move"))
    assert not is_play(frame(room="r", type="move", x=1, y=2))  # a late ``type``: the lane
    assert not is_play(frame(type="moves"))
    assert not is_play("move")  # text frames: the arena's error, in the lane
    assert not is_play(b"")


def costing(clock: FakeClock, seconds: float, ran: list[int], n: int) -> Callable[[], None]:
    """A lobby job ``n`` that takes ``seconds`` of the lane's (fake) clock and says it ran."""

    def run() -> None:
        ran.append(n)
        clock.advance(seconds)

    return run


async def test_jobs_run_within_the_turns_budget_then_wait_their_turn_in_order() -> None:
    clock = FakeClock(1000.0)
    lane = LobbyLane(budget=0.001, share=0.0, clock=clock)
    ran: list[int] = []
    assert lane.has_room()
    lane.run(costing(clock, 0.002, ran, 1))  # over the budget by itself: it ran, budget spent
    assert ran == [1] and not lane.has_room()
    for n in (2, 3, 4):
        lane.defer(costing(clock, 0.0, ran, n))
    assert ran == [1] and len(lane) == 3 and lane.deferred == 3
    await asyncio.sleep(0)  # the loop turns: the budget starts over, what waits runs in order
    assert ran == [1, 2, 3, 4] and len(lane) == 0
    await asyncio.sleep(0)
    assert lane.has_room() and lane.spent == 0.0


async def test_a_turn_runs_waiting_jobs_until_its_budget_is_spent() -> None:
    clock = FakeClock(1000.0)
    lane = LobbyLane(budget=0.001, share=0.0, clock=clock)
    ran: list[int] = []
    for n in range(5):
        lane.defer(costing(clock, 0.0004, ran, n))
    await asyncio.sleep(0)  # 0.4 + 0.4 ms leave budget for a third job; 1.2 ms leave none
    assert ran == [0, 1, 2] and len(lane) == 2 and not lane.has_room()
    await asyncio.sleep(0)
    assert ran == [0, 1, 2, 3, 4] and len(lane) == 0


async def test_each_turn_runs_at_least_one_waiting_job_even_with_no_budget() -> None:
    lane = LobbyLane(budget=0.0, share=0.0, clock=FakeClock(1000.0))
    ran: list[int] = []
    assert not lane.has_room()
    for n in range(3):
        lane.defer(lambda n=n: ran.append(n))
    for turn in range(1, 4):
        await asyncio.sleep(0)
        assert ran == list(range(turn))


async def test_a_long_turn_allows_its_share_of_lobby_work() -> None:
    """At 1,000 games a turn of the loop handles hundreds of moves: lobby requests then get a
    share of the turn's length, not a fixed millisecond (or they would wait for seconds)."""
    clock = FakeClock(1000.0)
    lane = LobbyLane(budget=0.001, share=0.25, clock=clock)
    ran: list[int] = []
    lane.defer(costing(clock, 0.0001, ran, 1))
    await asyncio.sleep(0)  # this turn's lobby work took time: the lane counts the next turn
    assert lane.allowed == 0.001
    lane.run(costing(clock, 0.0001, ran, 2))
    clock.advance(0.040)  # a long turn: 40 ms of other work (moves)
    await asyncio.sleep(0)
    assert 0.010 <= lane.allowed < 0.040
    assert lane.allowed == pytest.approx(0.25 * 0.0402)  # the whole turn, lobby work included


async def test_a_turn_after_an_idle_spell_gets_the_budget_not_a_share_of_the_spell() -> None:
    clock = FakeClock(1000.0)
    lane = LobbyLane(budget=0.001, share=0.25, clock=clock)
    ran: list[int] = []
    lane.run(costing(clock, 0.0001, ran, 1))
    await asyncio.sleep(0)
    await asyncio.sleep(0)  # a turn with no lobby work: the lane goes idle
    clock.advance(0.050)  # 50 ms of nothing for the lane
    lane.run(costing(clock, 0.0001, ran, 2))
    await asyncio.sleep(0)
    assert lane.allowed == 0.001


async def test_the_lane_times_jobs_with_the_real_clock_by_default() -> None:
    """Without a clock given, the lane keeps the time a job really took."""
    lane = LobbyLane(budget=1.0)
    assert lane.clock is time.perf_counter
    began = time.perf_counter()
    lane.run(lambda: time.sleep(0.002))
    assert 0.002 <= lane.spent <= time.perf_counter() - began


async def test_a_failing_job_is_logged_and_the_others_still_run(
    caplog: pytest.LogCaptureFixture,
) -> None:
    lane = LobbyLane(budget=1.0)
    ran: list[str] = []

    def broken() -> None:
        raise RuntimeError("boom")

    lane.defer(broken)
    lane.defer(lambda: ran.append("after"))
    with caplog.at_level(logging.ERROR, logger="mnk.server"):
        await asyncio.sleep(0)
    assert ran == ["after"]
    assert "a lobby request failed" in caplog.text


@pytest.fixture
def limits_override() -> dict[str, float]:
    """Requests as fast as the tests send them (the rate limit is not what is tested here)."""
    return {"human_rate": 1e6, "human_burst": 1e6}


def no_budget(lane: LobbyLane) -> None:
    """Every lobby request waits for a later turn, and one runs per turn."""
    lane.budget = lane.allowed = lane.share = 0.0


async def seated_pair(client_factory: Any) -> tuple[Any, Any, str]:
    """Two players in a gomoku room, the game started."""
    alice = await client_factory("alice")
    bob = await client_factory("bob")
    room = (await alice.request(type="create_room", game="gomoku", seat=0))["room"]
    joined = await bob.request(type="join_room", room=room)
    assert joined["type"] == "joined" and joined["seat"] == 1
    return alice, bob, room


async def test_a_move_passes_a_backlog_of_lobby_requests(server: Any, client_factory: Any) -> None:
    alice, bob, room = await seated_pair(client_factory)
    flood = await client_factory("flood")
    no_budget(server.lane)
    count = 300
    for rid in range(1, count + 1):  # sent at once: one of them gets its turn per turn
        await flood.send(type="list_rooms", id=rid)
    before = server.lane.deferred
    await alice.send(type="move", room=room, x=7, y=7, ply=0)
    moved = await bob.expect("moved", room=room)
    assert moved["ply"] == 0
    assert server.lane.deferred - before < count, "the move waited for the whole backlog"
    replies = [await flood.expect("rooms") for _ in range(count)]
    assert [r["id"] for r in replies] == list(range(1, count + 1))
    assert server.lane.deferred - before >= count  # each one did wait for a turn


async def test_a_held_connections_frames_keep_their_order(server: Any, client_factory: Any) -> None:
    alice, _bob, room = await seated_pair(client_factory)
    no_budget(server.lane)
    await alice.send(type="list_rooms", id=1)  # waits for a turn; what follows waits behind it
    await alice.send(type="move", room=room, x=7, y=7, ply=0)
    await alice.send(type="list_rooms", id=2)
    await alice.send(type="chat", room=room, text="good luck", id=3)
    order = []
    while len(order) < 4:
        message = await alice.recv()
        if message["type"] in ("rooms", "moved", "chat") and message.get("seat", 0) == 0:
            order.append((message["type"], message.get("id")))
    assert order == [("rooms", 1), ("moved", None), ("rooms", 2), ("chat", 3)]
    await alice.alive()


async def test_a_request_sent_just_before_closing_is_handled_before_the_disconnect(
    server: Any, client_factory: Any
) -> None:
    """Leaving then closing at once resigns the game at once (the leave is handled first); had
    the disconnect come first, the opponent would have been told the seat went offline."""
    alice, bob, room = await seated_pair(client_factory)
    no_budget(server.lane)
    for _ in range(500):  # a backlog: the leave's turn comes long after the close is read
        server.lane.defer(lambda: None)
    before = server.lane.deferred
    await alice.send(type="leave_room", room=room, id=9)
    await alice.ws.close()
    seen = []
    while not seen or seen[-1]["type"] != "game_over":
        seen.append(await bob.recv())
    assert seen[-1]["winner"] == 1 and seen[-1]["reason"] == "resign"
    assert not [m for m in seen if m["type"] == "presence"], "the disconnect came first"
    assert server.lane.deferred > before  # the leave did wait in the lane
