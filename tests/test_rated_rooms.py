"""Rated rooms in the core: who may make and join one, what ``state`` and ``game_over`` show,
and the changes journaled with the game's final header (accounts set directly on players)."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from support.arena import Peer
from support.clock import FakeClock
from support.stores import both_dbs

from server.core.arena import Arena
from server.core.journal.rows import GameRow, RatingChange
from server.core.limits import Limits
from server.storage.factory import open_store

db = both_dbs
BLITZ = {"initial_s": 180, "increment_s": 2}


@pytest.fixture
def clock() -> FakeClock:
    """A fake wall clock."""
    return FakeClock()


def account(peer: Peer, name: str | None = None) -> Peer:
    """Make ``peer``'s player an account (what logging in does)."""
    peer.arena.players[peer.pid].account = name or peer.arena.players[peer.pid].name
    return peer


def rated_game(arena: Arena) -> tuple[Peer, Peer, str]:
    """Alice (seat 0) and Bob in a rated gomoku blitz game, one move each (a game with fewer
    is not rated)."""
    alice, bob = account(Peer(arena, "alice")), account(Peer(arena, "bob"))
    room = alice.do(type="create_room", game="gomoku", seat=0, rated=True, clock=BLITZ)[0]["room"]
    bob.do(type="join_room", room=room)
    alice.do(type="move", room=room, x=14, y=14)
    bob.do(type="move", room=room, x=14, y=13)
    return alice, bob, room


def error(replies: list[dict[str, Any]]) -> str:
    """The code of the error among ``replies``."""
    return next(m["code"] for m in replies if m["type"] == "error")


def test_a_rated_room_needs_an_account_a_clock_a_pool_and_the_empty_board(
    clock: FakeClock,
) -> None:
    arena = Arena(clock=clock, durable=False)
    guest, alice = Peer(arena, "guest"), account(Peer(arena, "alice"))
    ask = {"type": "create_room", "game": "gomoku", "rated": True, "clock": BLITZ}
    assert error(guest.do(**ask)) == "rated_needs_account"
    assert error(alice.do(**{**ask, "clock": None})) == "rated_needs_clock"
    assert error(alice.do(**{**ask, "game": "mnk", "options": {"width": 7, "k": 4}})) == (
        "unrated_game"
    )
    position = {"position": {"black": [[7, 7]]}}
    assert error(alice.do(**{**ask, "options": position})) == "rated_position"
    room = alice.do(**ask)[0]["room"]
    assert error(guest.do(type="join_room", room=room)) == "rated_needs_account"
    watched = guest.do(type="join_room", room=room, spectate=True)
    state = next(m for m in watched if m["type"] == "state")
    assert state["rated"] is True and state["pool"] == "gomoku-blitz"
    assert state["ratings"][state["player_ids"].index(alice.pid)] == {
        "rating": 1500, "rd": 500, "provisional": True
    }  # fmt: skip


def test_a_casual_room_shows_no_ratings(clock: FakeClock) -> None:
    arena = Arena(clock=clock, durable=False)
    alice = account(Peer(arena, "alice"))
    state = alice.do(type="create_room", game="gomoku", clock=BLITZ)[1]
    assert (state["rated"], state["pool"], state["ratings"]) == (False, None, [None, None])


def test_a_rated_game_s_end_carries_both_changes_in_the_final_header_s_batch(
    clock: FakeClock, db: str
) -> None:
    store = open_store(db)
    try:
        arena = Arena(clock=clock, limits=Limits(full_sweep_interval=0.0))
        alice, bob, room = rated_game(arena)
        store.write(arena.drain())
        over = next(m for m in alice.do(type="resign", room=room) if m["type"] == "game_over")
        assert over["winner"] == 1
        assert [(c["seat"], c["pool"], c["before"]) for c in over["ratings"]] == [
            (0, "gomoku-blitz", 1500),
            (1, "gomoku-blitz", 1500),
        ]
        assert over["ratings"][0]["after"] < 1500 < over["ratings"][1]["after"]
        batch = arena.drain()
        kinds = [type(r) for r in batch]
        assert kinds.count(RatingChange) == 2 and GameRow in kinds
        store.write(batch)
        store.write(batch)  # written again (a retried commit): rated once
        again = Arena(clock=clock)
        again.restore(store.load())
        assert again.ratings.of("bob")["gomoku-blitz"]["games"] == 1
        assert again.ratings.of("bob")["gomoku-blitz"]["rating"] == over["ratings"][1]["after"]
        state = bob.do(type="join_room", room=room)[-1]
        assert state["ratings"][1]["rating"] == over["ratings"][1]["after"]
    finally:
        store.close()


def test_every_way_a_rated_game_ends_rates_it_but_an_abort(clock: FakeClock) -> None:
    arena = Arena(clock=clock, durable=False, limits=Limits(full_sweep_interval=0.0))
    alice, bob, room = rated_game(arena)
    for x in range(4):  # alice (seat 0) makes four in a row, bob plays elsewhere
        alice.do(type="move", room=room, x=x, y=0)
        bob.do(type="move", room=room, x=x, y=5)
    over = next(m for m in alice.do(type="move", room=room, x=4, y=0) if m["type"] == "game_over")
    assert over["ratings"][0]["after"] > 1500
    _, bob2, left = rated_game(arena)
    over = next(m for m in bob2.do(type="leave_room", room=left) if m["type"] == "game_over")
    assert over["reason"] == "resign" and len(over["ratings"]) == 2
    _, _, timed = rated_game(arena)
    clock.now += 200
    overs = [o.message for o in arena.sweep() if getattr(o, "message", {}).get("room") == timed]
    assert [len(m["ratings"]) for m in overs if m["type"] == "game_over"] == [2]
    assert arena.ratings.of("alice")["gomoku-blitz"]["games"] == 3  # one account, three games


def test_leaderboard_and_profile_are_checked_then_asked_of_the_store(clock: FakeClock) -> None:
    arena = Arena(clock=clock, durable=False)
    guest = Peer(arena, "guest")
    assert error(guest.do(type="leaderboard", pool="chess-blitz")) == "unknown_pool"
    assert error(guest.do(type="leaderboard", pool="gomoku-blitz", page=10)) == "bad_page"
    assert error(guest.do(type="leaderboard", pool="gomoku-blitz", page=-1)) == "bad_page"
    assert error(guest.do(type="profile", name="x", before=float("inf"))) == "bad_message"
    out = arena.receive(guest.conn, msgpack.packb({"type": "profile", "name": "a"}))
    assert [type(o).__name__ for o in out] == ["Lookup"]


def test_a_bot_is_a_bot_account_and_is_rated_on_its_own_board(clock: FakeClock) -> None:
    arena = Arena(clock=clock, limits=Limits(full_sweep_interval=0.0))
    bot = Peer(arena, "robo", "bot", games=["*"], capacity=4)
    alice = account(Peer(arena, "alice"))
    ask = {"type": "create_room", "game": "gomoku", "seat": 0, "rated": True, "clock": BLITZ}
    room = alice.do(**ask, opponent="bot")[0]["room"]
    assert arena.players[bot.pid].account == "robo"
    alice.do(type="move", room=room, x=7, y=7)
    bot.do(type="move", room=room, x=8, y=8)
    over = next(m for m in alice.do(type="resign", room=room) if m["type"] == "game_over")
    assert over["ratings"][1]["after"] > 1500
    changes = [r for r in arena.drain() if isinstance(r, RatingChange)]
    assert {(c.account, c.bot, c.score) for c in changes} == {
        ("alice", False, 0),
        ("robo", True, 1),
    }


def test_a_director_s_rated_room_needs_bot_accounts_only(clock: FakeClock) -> None:
    arena = Arena(clock=clock, durable=False)
    for name in ("alpha", "beta"):
        Peer(arena, name, "bot", games=["*"], capacity=2)
    director = Peer(arena, "director")  # a guest: it plays none of the games
    ask = {"type": "create_room", "game": "gomoku", "rated": True, "clock": BLITZ}
    replies = director.do(**ask, bots=["alpha", "beta"])
    state = [m for m in replies if m["type"] == "state"][-1]
    assert replies[0]["seat"] is None and state["rated"] is True
    assert [r["rating"] for r in state["ratings"]] == [1500, 1500]
