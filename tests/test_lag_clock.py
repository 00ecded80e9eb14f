"""Lag compensation (game/lag.py) on the clock and through the arena, on a fake clock: the quota's
growth, cap and ceiling, refunds never above what was measured or charged, the flag's grace,
monotone clocks, the switch in Limits and a restart."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.arena import Peer, arena_with
from support.clock import FakeClock

from server.core.arena import Arena
from server.core.game import lag
from server.core.game.clock import Clock, ClockSpec
from server.core.game.lag import LagTracker, allowed, gain_for, smoothed
from server.core.limits import Limits
from server.storage.factory import open_store

BLITZ = {"initial_s": 180.0, "increment_s": 2.0}  # 3+2: the gain is at its 1 s most
BULLET = {"initial_s": 60.0, "increment_s": 0.0}  # 1+0: a 0.39 s gain


@pytest.fixture
def clock() -> FakeClock:
    """A fake wall clock."""
    return FakeClock()


def pair(arena: Arena, spec: dict[str, float]) -> tuple[Peer, Peer, str]:
    """Alice (seat 0, to move) and Bob (seat 1) in a playing gomoku room on the clock ``spec``."""
    alice, bob = Peer(arena, "alice"), Peer(arena, "bob")
    room = alice.do(type="create_room", game="gomoku", seat=0, clock=spec)[0]["room"]
    bob.do(type="join_room", room=room)
    return alice, bob, room


def moved(peer: Peer, room: str, x: int, y: int, **extra: Any) -> dict[str, Any]:
    """``peer``'s move, which must be accepted; its ``moved``."""
    reply = peer.do(type="move", room=room, x=x, y=y, **extra)
    assert reply[0]["type"] == "moved", reply
    return reply[0]


def overs(arena: Arena) -> list[dict[str, Any]]:
    """The ``game_over`` messages of one sweep."""
    return [m for o in arena.sweep() if (m := getattr(o, "message", {})).get("type") == "game_over"]


def test_the_gain_shrinks_for_fast_clocks_and_stops_at_a_second() -> None:
    assert gain_for(60.0, 0.0) == pytest.approx(0.39)  # 1+0: 0.15 + 0.4 % of 60 s
    assert gain_for(180.0, 0.0) == pytest.approx(0.87)  # 3+0
    assert gain_for(180.0, 2.0) == 1.0  # 3+2 (260 s estimated): capped
    assert gain_for(1800.0, 0.0) == 1.0  # 30+0, Gomocup's fastgame
    assert gain_for(600.0, 0.0, move_s=1.0) == pytest.approx(0.31)  # a 1 s cap a move: 40 s
    tracker = LagTracker.for_clock(180.0, 2.0)
    assert (tracker.quota, tracker.ceiling, tracker.cap) == ([2.0, 2.0], 5.0, 3.0)  # scalachess's


def test_the_quota_pays_each_refund_regains_the_gain_and_stops_at_its_ceiling() -> None:
    tracker = LagTracker.for_clock(180.0, 2.0)  # start 2 s, gain 1 s, ceiling 5 s, cap 3 s
    assert tracker.refund(0, 2.5, 10.0) == 2.0  # the quota's 2 s, not the lag's 2.5
    assert tracker.quota == [1.0, 2.0]  # 2 - 2 + 1; the other seat's is its own
    assert tracker.refund(0, 2.5, 10.0) == 1.0
    assert tracker.quota[0] == 1.0
    for expected in (2.0, 3.0, 4.0, 5.0, 5.0):  # moves without lag: it refills to the ceiling
        assert tracker.refund(0, 0.0, 10.0) == 0.0
        assert tracker.quota[0] == expected
    assert tracker.refund(0, 4.0, 10.0) == 3.0  # a 4 s lag: the 3 s cap a move
    assert tracker.quota[0] == 3.0  # 5 - 3 + 1


def test_a_refund_is_never_negative_nor_more_than_the_move_was_charged() -> None:
    tracker = LagTracker.for_clock(180.0, 2.0)
    assert tracker.refund(0, 0.5, 0.2) == 0.2  # a move charged 0.2 s gets at most 0.2 s back
    assert tracker.refund(0, 0.5, -1.0) == 0.0  # the wall clock went back: nothing
    assert tracker.refund(1, -3.0, 5.0) == 0.0
    assert tracker.refund(1, math.nan, 5.0) == 0.0
    assert allowed(math.nan, None, 3.0) == 0.0
    assert allowed(0.2, -500, 3.0) == 0.0  # a negative claim is no lag
    assert allowed(10.0, None, 3.0) == 3.0  # Limits.max_lag_refund bounds the measure
    assert allowed(0.2, None, 0.0) == 0.0  # and 0 turns compensation off


def test_a_client_may_claim_less_lag_than_measured_never_more() -> None:
    assert allowed(0.15, 2000, 3.0) == 0.15  # claims 2 s, the server saw 150 ms
    assert allowed(0.15, 40, 3.0) == 0.04  # claims less: taken
    assert allowed(0.0, 500, 3.0) == 0.0  # nothing measured: nothing given


def test_the_lag_estimate_follows_the_round_trips_measured() -> None:
    assert smoothed(0.0, 0.2) == 0.2  # the first measure is taken as it is
    assert smoothed(0.2, 0.1) == pytest.approx(0.2 + lag.MIX * (0.1 - 0.2))
    assert smoothed(0.2, math.nan) == 0.2


def test_a_move_gets_its_lag_back_and_the_clock_never_rises_above_the_turns_start() -> None:
    clock = Clock(ClockSpec(180.0, 2.0))
    clock.start(0, 100.0)
    clock.press(103.0, lag=0.15)  # 3 s charged, 0.15 s of it the network's
    assert clock.remaining[0] == pytest.approx(180.0 - 3.0 + 0.15 + 2.0)
    assert clock.running == 1 and clock.since == 103.0
    clock.press(103.05, lag=1.0)  # claims 1 s but the move took 50 ms: 50 ms back, no more
    assert clock.remaining[1] == pytest.approx(180.0 + 2.0)  # what it showed, plus increment


def test_the_flag_waits_for_the_refund_a_lagged_seats_move_could_get() -> None:
    clock = Clock(ClockSpec(60.0, 0.0))  # 1+0: quota 0.78 s, cap 1.17 s
    clock.start(0, 0.0)
    clock.press(1.0, lag=0.2)  # alice's moves come 200 ms late
    clock.press(1.0, lag=0.0)  # bob answers at once, from next door
    left = clock.remaining[0]
    assert not clock.flagged(1.0 + left + 0.19)  # her move may still be on its way
    assert clock.flagged(1.0 + left + 0.2)
    assert not clock.flagged(1.0 + left + 0.19, lag=0.2)  # it arrives: not flagged, and
    clock.press(1.0 + left + 0.19, lag=0.2)
    assert clock.remaining[0] == pytest.approx(0.01)  # it is charged what it took, lag aside
    clock.press(2.0 + left, lag=0.0)
    assert clock.flagged(2.0 + left + clock.remaining[1])  # bob has no lag: no grace


def test_through_the_arena_a_claim_above_the_measure_gets_the_measure(clock: FakeClock) -> None:
    arena = arena_with(clock)
    alice, bob, room = pair(arena, BLITZ)
    arena.players[alice.pid].lag = 0.1  # what the shell's pings measured
    arena.players[bob.pid].lag = 0.3
    clock.advance(1.0)
    first = moved(alice, room, 7, 7, lag_ms=2000)
    assert first["clocks"] == [pytest.approx(180.0 - 1.0 + 0.1 + 2.0), 180.0]
    clock.advance(2.0)
    second = moved(bob, room, 8, 8, lag_ms=50)  # bob says 50 ms: less than measured, taken
    assert second["clocks"][1] == pytest.approx(180.0 - 2.0 + 0.05 + 2.0)
    clock.advance(0.5)
    third = moved(alice, room, 7, 8)  # no claim: the measure
    assert third["clocks"][0] == pytest.approx(first["clocks"][0] - 0.5 + 0.1 + 2.0)


def test_a_lag_claim_that_is_not_an_integer_is_refused(clock: FakeClock) -> None:
    arena = arena_with(clock)
    alice, _, room = pair(arena, BLITZ)
    for bad in ("150", 1.5, True):
        reply = alice.do(type="move", room=room, x=7, y=7, lag_ms=bad)
        assert reply[0]["type"] == "error" and reply[0]["code"] == "bad_message", reply
    assert arena.rooms.get(room).game.ply == 0


def test_max_lag_refund_zero_turns_compensation_off(clock: FakeClock) -> None:
    arena = arena_with(clock, max_lag_refund=0.0)
    alice, _, room = pair(arena, BLITZ)
    arena.players[alice.pid].lag = 0.4
    clock.advance(1.0)
    assert moved(alice, room, 7, 7)["clocks"][0] == pytest.approx(180.0 - 1.0 + 2.0)


def test_a_lagged_move_arriving_after_the_clock_ran_out_but_within_its_refund_stands(
    clock: FakeClock,
) -> None:
    arena = arena_with(clock)
    alice, bob, room = pair(arena, BULLET)
    arena.players[alice.pid].lag = 0.25
    clock.advance(1.0)
    moved(alice, room, 7, 7)
    left = moved(bob, room, 8, 8)["clocks"][0]
    clock.advance(left + 0.2)  # her display showed 0.05 s as she sent it
    assert not overs(arena)
    late = moved(alice, room, 7, 8)
    assert late["clocks"][0] == pytest.approx(0.05, abs=1e-3)  # still counted down, not up
    clock.advance(60.0)  # bob, with no lag, flags on time
    over = overs(arena)
    assert over and over[0]["reason"] == "timeout" and over[0]["winner"] == 0


def test_an_unlagged_move_after_the_flag_loses(clock: FakeClock) -> None:
    arena = arena_with(clock)
    alice, bob, room = pair(arena, BULLET)
    moved(alice, room, 7, 7)
    moved(bob, room, 8, 8)
    clock.advance(60.0)
    reply = alice.do(type="move", room=room, x=7, y=8)
    assert reply[0]["type"] == "game_over" and reply[0]["reason"] == "timeout", reply
    assert reply[0]["winner"] == 1


def test_after_a_restart_the_clocks_stand_and_the_quota_starts_again(
    clock: FakeClock, db: str
) -> None:
    store = open_store(db)
    arena = Arena(limits=Limits(), clock=clock)
    alice, bob, room = pair(arena, BLITZ)
    arena.players[alice.pid].lag = 2.5
    clock.advance(5.0)
    first = moved(alice, room, 7, 7)  # 2 s back (the quota's start), the quota down to 1 s
    assert first["clocks"][0] == pytest.approx(180.0 - 5.0 + 2.0 + 2.0)
    clock.advance(1.0)
    moved(bob, room, 8, 8)
    assert arena.rooms.get(room).clock.lag.quota[0] == pytest.approx(1.0)
    store.write(arena.drain())
    again = Arena(limits=Limits(), clock=clock)  # killed and restarted at once
    again.restore(store.load())
    restored = again.rooms.get(room)
    assert restored.clock.remaining[0] == pytest.approx(first["clocks"][0])
    assert restored.clock.lag.quota == [2.0, 2.0]  # the quotas are not stored: they start again
    store.close()


def drawn_specs() -> st.SearchStrategy[ClockSpec]:
    """Gomoku's clocks, 1+0 to 30+0 and with increments, some with a cap a move."""
    return st.builds(
        ClockSpec,
        st.floats(1.0, 1800.0),
        st.sampled_from([0.0, 1.0, 2.0, 3.0, 5.0, 30.0]),
        st.one_of(st.none(), st.floats(1.0, 120.0)),
    )


@settings(max_examples=300, deadline=None)
@given(
    spec=drawn_specs(),
    moves=st.lists(st.tuples(st.floats(0.0, 40.0), st.floats(0.0, 6.0)), max_size=60),
)
def test_refunds_stay_within_lag_cap_quota_and_charge_and_clocks_never_rise(
    spec: ClockSpec, moves: list[tuple[float, float]]
) -> None:
    clock = Clock(spec)
    tracker = clock.lag
    now = 0.0
    clock.start(0, now)
    given_back = [0.0, 0.0]
    made = [0, 0]
    for used, lag_s in moves:
        seat = clock.running
        assert seat is not None
        before, quota = clock.remaining[seat], tracker.quota[seat]
        now += used
        if clock.flagged(now, lag_s):
            budget = before if spec.move_s is None else min(before, spec.move_s)
            assert used >= budget + min(lag_s, quota, tracker.cap) - 1e-9  # past its grace
            break
        clock.press(now, lag_s)
        refund = clock.remaining[seat] - spec.increment_s - (before - used)
        assert -1e-9 <= refund <= min(lag_s, quota, tracker.cap, used) + 1e-9
        assert 0.0 <= clock.remaining[seat] <= before + spec.increment_s + 1e-9  # monotone
        assert -1e-9 <= tracker.quota[seat] <= tracker.ceiling + 1e-9
        given_back[seat] += refund
        made[seat] += 1
        start = lag.START * tracker.gain
        assert given_back[seat] <= start + tracker.gain * (made[seat] - 1) + 1e-6
