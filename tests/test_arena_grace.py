"""Reconnect grace and room linger on the sans-I/O arena with a fake clock: a dropped seat is
kept exactly as long as the grace, a player back in time keeps the game, a finished room waits
for its players, and one nobody is connected to goes after the linger.

The real server shows the same end to end on real time (one test per behaviour, in
``test_server_lifecycle.py``); here each rule has one exact outcome, however loaded the machine.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.arena import Peer, arena_with
from support.clock import FakeClock

from server.core.arena import Arena
from server.core.game.members import Send

GRACE = 60.0
LINGER = 30.0


@pytest.fixture
def clock() -> FakeClock:
    """A fake wall clock."""
    return FakeClock()


@pytest.fixture
def arena(clock: FakeClock) -> Arena:
    """An arena without a store whose every sweep looks at every room."""
    return arena_with(clock, reconnect_grace=GRACE, room_linger=LINGER)


def sweep(arena: Arena) -> list[dict[str, Any]]:
    """One sweep; the messages it sends."""
    return [o.message for o in arena.sweep() if isinstance(o, Send)]


def overs(sent: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ``game_over`` messages among ``sent``, one per room."""
    return list({m["room"]: m for m in sent if m["type"] == "game_over"}.values())


def seated(arena: Arena, game: str = "tictactoe") -> tuple[Peer, Peer, str]:
    """Alice (seat 0) and bob (seat 1) playing a fresh game; alice has moved."""
    alice, bob = Peer(arena, "alice"), Peer(arena, "bob")
    room = alice.do(type="create_room", game=game, seat=0)[0]["room"]
    bob.do(type="join_room", room=room)
    alice.do(type="move", room=room, x=0, y=0)
    return alice, bob, room


def back(arena: Arena, peer: Peer) -> Peer:
    """``peer``'s player on a new connection, resuming its session."""
    return Peer(arena, "whoever", session=peer.inbox[0]["session"])


def test_a_dropped_seat_is_forfeited_when_its_grace_runs_out_and_not_before(
    arena: Arena, clock: FakeClock
) -> None:
    _alice, bob, room = seated(arena)
    presence = [o.message for o in arena.disconnect(bob.conn) if isinstance(o, Send)]
    assert {"type": "presence", "room": room, "seat": 1, "online": False} in presence
    clock.advance(GRACE - 0.1)
    assert not overs(sweep(arena)), "forfeited before the grace ran out"
    clock.advance(0.1)
    [over] = overs(sweep(arena))
    assert over["room"] == room and over["winner"] == 0 and over["reason"] == "disconnect"
    late = back(arena, bob)  # back after the grace: same player, the lost game shown as it ended
    assert late.pid == bob.pid
    state = arena.rooms.get(room).state_for(late.pid)
    assert state["status"] == "over" and state["result"]["reason"] == "disconnect"
    assert late.do(type="move", room=room, x=1, y=1)[0]["code"] == "game_over"


def test_a_player_back_within_the_grace_keeps_the_game_past_the_first_grace(
    arena: Arena, clock: FakeClock
) -> None:
    _alice, bob, room = seated(arena)
    arena.disconnect(bob.conn)
    clock.advance(GRACE / 2)
    assert not overs(sweep(arena))
    bob2 = back(arena, bob)
    assert bob2.pid == bob.pid
    live = arena.rooms.get(room)
    state = live.state_for(bob2.pid)
    assert state["seat"] == 1 and state["moves"] == [[0, 0]] and state["to_move"] == 1
    assert bob.pid in live.online and not live.offline_since
    clock.advance(GRACE)  # past the grace of the drop: being back in time must have cancelled it
    assert not overs(sweep(arena))
    assert bob2.do(type="move", room=room, x=1, y=1)[0]["type"] == "moved"


def test_both_seats_gone_past_the_grace_abandon_the_game(arena: Arena, clock: FakeClock) -> None:
    alice, bob, room = seated(arena)
    arena.disconnect(alice.conn)
    clock.advance(1.0)
    arena.disconnect(bob.conn)
    clock.advance(GRACE - 1.0)  # alice's grace is out, bob's is not: alice forfeits
    [over] = overs(sweep(arena))
    assert over["winner"] == 1 and over["reason"] == "disconnect"
    alice, bob, room = seated(arena)
    arena.disconnect(alice.conn)
    arena.disconnect(bob.conn)
    clock.advance(GRACE)
    [over] = overs(sweep(arena))
    assert over["room"] == room and over["winner"] is None and over["reason"] == "abandoned"


def test_a_finished_room_keeps_its_seats_past_the_grace_for_a_rematch(
    arena: Arena, clock: FakeClock
) -> None:
    """A rematch needs both players online; the grace running out in a finished game takes
    nothing: the player who comes back can still have the rematch."""
    alice, bob, room = seated(arena)
    alice.do(type="resign", room=room)
    bob.do(type="rematch", room=room)
    presence = [o.message for o in arena.disconnect(bob.conn) if isinstance(o, Send)]
    assert {"type": "presence", "room": room, "seat": 1, "online": False} in presence
    live = arena.rooms.get(room)
    clock.advance(GRACE)  # bob's grace ran out
    sweep(arena)
    assert alice.do(type="rematch", room=room)[0]["code"] == "rematch_unavailable"
    assert live.status == "over"
    back(arena, bob)
    offered = alice.do(type="rematch", room=room)
    assert offered[0]["type"] == "rematch_offered"
    assert any(
        m["type"] == "state" and m["status"] == "playing" and m["game_no"] == 2 for m in offered
    )
    assert live.offline_since == {}  # both seats start the new game online, with a fresh grace


def test_a_finished_room_nobody_is_connected_to_lingers_then_goes(
    arena: Arena, clock: FakeClock
) -> None:
    alice, bob, room = seated(arena)
    alice.do(type="resign", room=room)
    for peer in (alice, bob):
        arena.disconnect(peer.conn)
    sweep(arena)  # the room is empty from now on
    clock.advance(LINGER - 0.1)
    sweep(arena)
    assert arena.rooms.get(room) is not None, "dropped before the linger ran out"
    clock.advance(0.1)
    sweep(arena)
    assert arena.rooms.get(room) is None
