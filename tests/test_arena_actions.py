"""Game actions in the sans-I/O core on a fake clock: draw offers, takebacks, aborts, claims and
the first-move deadline; their state kept through a restart on SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.arena import Peer, arena_with, sweep_until
from support.clock import FakeClock
from support.stores import both_dbs

from protocol.renju import fouls
from server.core.arena import Arena
from server.core.game.clock import ClockSpec
from server.core.limits import Limits
from server.core.round.actions import first_move_s
from server.storage.factory import open_store

db = both_dbs
CLOCK = {"initial_s": 300.0, "increment_s": 2.0}


@pytest.fixture
def clock() -> FakeClock:
    """A fake wall clock."""
    return FakeClock()


def pair(arena: Arena, game: str = "gomoku", **create: Any) -> tuple[Peer, Peer, str]:
    """Alice (seat 0, black) and Bob (seat 1) in a playing room."""
    alice, bob = Peer(arena, "alice"), Peer(arena, "bob")
    room = alice.do(type="create_room", game=game, seat=0, **create)[0]["room"]
    bob.do(type="join_room", room=room)
    return alice, bob, room


def play(peers: tuple[Peer, Peer], room: str, moves: list[tuple[int, int]], first: int = 0) -> None:
    """Play ``moves`` in turn from seat ``first``'s player, each accepted."""
    for i, (x, y) in enumerate(moves):
        reply = peers[(first + i) % 2].do(type="move", room=room, x=x, y=y)
        assert reply[0]["type"] == "moved", reply


def code(replies: list[dict[str, Any]]) -> str | None:
    """The error code of a request's replies (None: no error)."""
    return next((r["code"] for r in replies if r["type"] == "error"), None)


def state(peer: Peer, room: str) -> dict[str, Any]:
    """A fresh ``state`` of ``room`` as ``peer`` sees it."""
    return next(m for m in peer.do(type="join_room", room=room) if m["type"] == "state")


def test_a_draw_offer_stands_through_the_offerers_move_and_lapses_on_the_opponents(
    clock: FakeClock,
) -> None:
    arena = arena_with(clock)
    alice, bob, room = pair(arena)
    assert code(alice.do(type="draw_offer", room=room)) == "too_early"
    play((alice, bob), room, [(7, 7), (8, 8)])
    assert code(bob.do(type="draw_offer", room=room)) == "not_your_turn"
    offer = alice.do(type="draw_offer", room=room, id=3)
    assert offer == [{"type": "offer", "room": room, "kind": "draw", "by": 0, "id": 3}]
    assert state(bob, room)["actions"]["offers"] == [{"kind": "draw", "by": 0}]
    assert code(alice.do(type="draw_answer", room=room, accept=True)) == "no_offer"  # her own
    play((alice, bob), room, [(7, 8)])  # the offerer moves: it still stands
    assert state(bob, room)["actions"]["offers"] == [{"kind": "draw", "by": 0}]
    play((alice, bob), room, [(9, 9)], first=1)  # the opponent moves instead of answering
    assert state(bob, room)["actions"]["offers"] == []
    assert code(bob.do(type="draw_answer", room=room, accept=True)) == "no_offer"
    assert code(alice.do(type="draw_offer", room=room)) == "offer_too_soon"  # 20 plies


def test_a_declined_draw_is_said_and_an_accepted_one_ends_the_game(clock: FakeClock) -> None:
    arena = arena_with(clock)
    alice, bob, room = pair(arena)
    play((alice, bob), room, [(7, 7), (8, 8)])
    alice.do(type="draw_offer", room=room)
    declined = bob.do(type="draw_answer", room=room, accept=False)
    assert declined == [{"type": "offer_declined", "room": room, "kind": "draw", "by": 0}]
    play((alice, bob), room, [(7, 8)])
    bob.do(type="draw_offer", room=room)  # bob's own offer, on his turn
    over = alice.do(type="draw_offer", room=room, id=9)  # hers while his stands: accepted
    assert over[0]["type"] == "game_over" and over[0]["reason"] == "draw_agreed"
    assert over[0]["winner"] is None and over[0]["id"] == 9
    assert code(bob.do(type="draw_offer", room=room)) == "game_over"


def test_a_takeback_undoes_one_or_two_plies_and_gives_back_the_clocks(clock: FakeClock) -> None:
    arena = arena_with(clock)
    alice, bob, room = pair(arena, clock=CLOCK)
    assert code(alice.do(type="takeback_offer", room=room)) == "too_early"
    play((alice, bob), room, [(7, 7)])
    clock.advance(10)
    play((alice, bob), room, [(8, 8)], first=1)
    stood = state(alice, room)["clocks"]  # after bob's move: alice to move
    clock.advance(20)
    play((alice, bob), room, [(9, 9)])  # alice blunders
    clock.advance(5)
    alice.do(type="takeback_offer", room=room)
    assert state(bob, room)["actions"]["offers"] == [{"kind": "takeback", "by": 0}]
    taken = bob.do(type="takeback_answer", room=room, accept=True, id=4)
    assert taken[0]["type"] == "taken_back" and taken[0]["ply"] == 2 and taken[0]["by"] == 0
    after = state(alice, room)
    assert after["moves"] == [[7, 7], [8, 8]] and after["to_move"] == 0
    assert after["clocks"] == stood, "the clocks stand where they stood after bob's move"
    play((alice, bob), room, [(6, 6), (5, 5)])
    clock.advance(3)
    bob.do(type="takeback_offer", room=room)  # bob's turn is over, alice to move: one ply
    alice.do(type="takeback_answer", room=room, accept=True)
    assert state(bob, room)["moves"] == [[7, 7], [8, 8], [6, 6]]
    alice.do(type="takeback_offer", room=room)  # bob to move: alice's (6, 6) would go
    assert code(alice.do(type="takeback_offer", room=room)) == "offer_too_soon"
    assert bob.do(type="takeback_answer", room=room, accept=False)[0]["type"] == "offer_declined"
    assert code(bob.do(type="takeback_answer", room=room, accept=True)) == "no_offer"
    bob.do(type="move", room=room, x=4, y=4)
    alice_again = alice.do(type="takeback_offer", room=room)  # a move later: asked again
    assert alice_again[0]["type"] == "offer"
    bob.do(type="takeback_answer", room=room, accept=True)  # her turn: two plies go
    assert state(bob, room)["moves"] == [[7, 7], [8, 8]]


def test_a_takeback_accepted_after_a_flag_fell_ends_the_game_on_time(clock: FakeClock) -> None:
    arena = arena_with(clock)
    alice, bob, room = pair(arena, clock=CLOCK)
    play((alice, bob), room, [(7, 7), (8, 8), (9, 9)])
    alice.do(type="takeback_offer", room=room)
    clock.advance(400)  # bob's clock ran out before he answered (no sweep in between)
    over = bob.do(type="takeback_answer", room=room, accept=True)
    assert over[0]["type"] == "game_over" and over[0]["reason"] == "timeout"
    assert over[0]["winner"] == 0 and state(alice, room)["ply"] == 3


def test_takebacks_are_refused_in_rated_games(clock: FakeClock) -> None:
    arena = arena_with(clock)
    alice, bob, room = pair(arena)
    play((alice, bob), room, [(7, 7), (8, 8)])
    arena.rooms.get(room).options["rated"] = True  # what a rated room's options say
    assert code(alice.do(type="takeback_offer", room=room)) == "rated_game"
    assert state(alice, room)["moves"] == [[7, 7], [8, 8]]


def test_abort_only_before_both_moved(clock: FakeClock) -> None:
    arena = arena_with(clock)
    alice, bob, room = pair(arena)
    play((alice, bob), room, [(7, 7)])
    over = bob.do(type="abort", room=room)
    assert over[0]["type"] == "game_over" and over[0]["reason"] == "aborted"
    assert over[0]["winner"] is None
    alice, bob, room = pair(arena)
    play((alice, bob), room, [(7, 7), (8, 8)])
    assert code(alice.do(type="abort", room=room)) == "too_late"
    carol = Peer(arena, "carol")
    assert code(carol.do(type="abort", room=room)) == "not_a_player"


def test_a_win_is_claimed_past_half_the_grace(clock: FakeClock) -> None:
    arena = arena_with(clock, reconnect_grace=60.0)
    alice, bob, room = pair(arena)
    play((alice, bob), room, [(7, 7), (8, 8)])
    assert code(alice.do(type="claim_victory", room=room)) == "cannot_claim"
    arena.disconnect(bob.conn)
    clock.advance(29)
    assert code(alice.do(type="claim_victory", room=room)) == "cannot_claim"
    assert state(alice, room)["actions"]["claim_s"] == 30.0
    clock.advance(1)
    over = alice.do(type="claim_victory", room=room)
    assert over[0]["reason"] == "opponent_gone" and over[0]["winner"] == 0


def test_a_timed_game_whose_first_move_never_comes_is_aborted_by_speed(clock: FakeClock) -> None:
    limits = Limits()
    assert first_move_s(ClockSpec(60.0, 0.0), limits) == 20.0  # bullet
    assert first_move_s(ClockSpec(180.0, 2.0), limits) == 25.0  # blitz: 3+2
    assert first_move_s(ClockSpec(600.0, 5.0), limits) == 30.0  # rapid
    assert first_move_s(ClockSpec(1800.0, 0.0), limits) == 35.0  # classical
    assert first_move_s(ClockSpec(20.0, 0.0), limits) == 15.0  # ultrabullet
    assert first_move_s(ClockSpec(1800.0, 0.0, 5.0), limits) == 25.0  # a 5 s cap per move
    arena = arena_with(clock)
    alice, bob, room = pair(arena, clock={"initial_s": 180.0, "increment_s": 2.0})
    assert state(alice, room)["actions"]["first_move_left"] == 25.0
    play((alice, bob), room, [(7, 7)])
    clock.advance(24)
    assert state(bob, room)["actions"]["first_move_left"] == 1.0
    sent = sweep_until(arena, clock, 2)
    over = [m for m in sent if m["type"] == "game_over"]
    assert over and over[0]["reason"] == "aborted" and over[0]["winner"] is None


def test_renju_forbidden_cells_are_right_after_a_takeback(clock: FakeClock) -> None:
    arena = arena_with(clock)
    alice, bob, room = pair(arena, game="renju")
    # black builds toward a double three at (7, 7): (5,7),(6,7) and (7,5),(7,6)
    play((alice, bob), room, [(5, 7), (0, 0), (6, 7), (0, 2), (7, 5), (0, 4), (7, 6)])
    forbidden = state(bob, room)["forbidden"]
    assert forbidden == []  # white to move: black's cells are not shown
    play((alice, bob), room, [(0, 6)], first=1)
    assert [7, 7] in state(alice, room)["forbidden"]  # a double three for black
    alice.do(type="takeback_offer", room=room)  # her turn: bob's (0, 6) and her (7, 6) go
    bob.do(type="takeback_answer", room=room, accept=True)
    game = arena.rooms.get(room).game

    def fresh() -> list[list[int]]:
        return [[i % 15, i // 15] for i, _ in fouls(game.board.cells, 15, 15)]

    assert state(alice, room)["forbidden"] == fresh() and [7, 7] not in fresh()
    play((alice, bob), room, [(12, 12), (0, 6)])
    assert state(alice, room)["forbidden"] == fresh() and [7, 7] not in fresh()
    bob.do(type="takeback_offer", room=room)  # black to move: bob's (0, 6) goes alone
    alice.do(type="takeback_answer", room=room, accept=True)
    play((alice, bob), room, [(1, 1)], first=1)
    assert state(alice, room)["forbidden"] == fresh()


def test_offers_and_takebacks_survive_a_restart(clock: FakeClock, db: str, tmp_path: Path) -> None:
    store = open_store(db)
    arena = Arena(limits=Limits(full_sweep_interval=0.0), clock=clock)
    alice, bob, room = pair(arena, clock=CLOCK)
    play((alice, bob), room, [(7, 7), (8, 8), (9, 9), (6, 6)])
    store.write(arena.drain())
    clock.advance(7)
    alice.do(type="move", room=room, x=10, y=10)
    clock.advance(3)
    alice.do(type="takeback_offer", room=room)
    bob.do(type="takeback_answer", room=room, accept=True)
    store.write(arena.drain())
    play((alice, bob), room, [(5, 5)])
    stood = state(alice, room)["clocks"]  # alice's, after her move, stays put from here
    play((alice, bob), room, [(4, 4), (2, 2)], first=1)
    bob.do(type="takeback_offer", room=room)  # his turn: (2, 2) and his (4, 4) go
    taken = alice.do(type="takeback_answer", room=room, accept=True)[0]
    assert taken["clocks"] == state(alice, room)["clocks"]  # as they stood after (5, 5)
    clock.advance(30)
    bob.do(type="move", room=room, x=3, y=3)
    assert alice.do(type="draw_offer", room=room)[0]["type"] == "offer"
    store.write(arena.drain())
    store.close()

    clock.advance(100)  # downtime: charged to nobody
    store = open_store(db)
    again = Arena(limits=Limits(full_sweep_interval=0.0), clock=clock)
    again.restore(store.load())
    restored = again.rooms.get(room)
    kept = [(7, 7), (8, 8), (9, 9), (6, 6), (5, 5), (3, 3)]
    assert [(m.x, m.y) for m in restored.game.moves] == kept
    assert restored.offers is not None and restored.offers.draw_by(restored.game.ply) == 0
    assert restored.offers.undone == ((5, 4, 4), (6, 2, 2))
    assert restored.clocks[-1] is not None and restored.clock is not None
    assert restored.clock.remaining == [stood[0], taken["clocks"][1] - 30 + 2]
    record = store.get_game(restored.game_id)["game"]
    assert [(m["x"], m["y"]) for m in record["moves"]] == kept  # no tombstone in the history
    store.close()
