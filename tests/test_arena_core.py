"""The sans-I/O core on a fake clock: time limits, restarts, quotas and rematch edge cases."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgpack
import pytest
from support.arena import Peer, arena_with, sweep_until
from support.clock import FakeClock
from support.stores import both_dbs

from server.core.arena import Arena
from server.core.journal.rows import Heartbeat
from server.core.limits import Limits
from server.storage.factory import open_store

#: The restart tests here run on SQLite and on PostgreSQL.
db = both_dbs


@pytest.fixture
def clock() -> FakeClock:
    """A fake wall clock."""
    return FakeClock()


def bot_game(arena: Arena, clock: dict[str, Any] | None = None) -> tuple[Peer, Peer, str]:
    """A human (seat 0) against a connected bot; the human has moved once."""
    bot = Peer(arena, "robo", "bot", games=["*"], capacity=4)
    human = Peer(arena, "human")
    extra = {} if clock is None else {"clock": clock}
    room = human.do(type="create_room", game="gomoku", opponent="bot", seat=0, **extra)[0]["room"]
    human.do(type="move", room=room, x=7, y=7)
    return human, bot, room


def test_bot_move_cap_applies_to_untimed_games_only(clock: FakeClock) -> None:
    arena = arena_with(clock, bot_move_timeout=60.0)
    _, _, untimed = bot_game(arena)
    _, _, timed = bot_game(arena, {"initial_s": 3600.0, "increment_s": 0.0})
    sent = sweep_until(arena, clock, 61)
    overs = {m["room"]: m for m in sent if m["type"] == "game_over"}
    assert overs[untimed]["reason"] == "timeout" and overs[untimed]["winner"] == 0
    # a bot with an hour on its clock does not lose after a minute: a first move that never
    # comes aborts the game (no result), as it does any timed game's (core/round/actions.py)
    assert overs[timed]["reason"] == "aborted" and overs[timed]["winner"] is None


def test_restart_does_not_charge_the_downtime_to_a_bot(clock: FakeClock, db: str) -> None:
    store = open_store(db)
    arena = Arena(limits=Limits(bot_move_timeout=60.0, full_sweep_interval=0.0), clock=clock)
    _, _, room = bot_game(arena)
    store.write(arena.drain())
    clock.now += 90.0  # the server is down for a minute and a half
    again = Arena(limits=Limits(bot_move_timeout=60.0, full_sweep_interval=0.0), clock=clock)
    again.restore(store.load())
    assert not [m for m in sweep_until(again, clock, 30) if m["type"] == "game_over"]
    overs = [m for m in sweep_until(again, clock, 31) if m["type"] == "game_over"]
    assert overs and overs[0]["room"] == room and overs[0]["reason"] == "timeout"


def test_opening_stones_cost_no_clock_time_after_a_restart(clock: FakeClock, db: str) -> None:
    """A room with an opening waits 200 s for bob; after a crash only his 5 s are charged."""
    store = open_store(db)
    arena = Arena(limits=Limits(), clock=clock)
    alice, bob = Peer(arena, "alice"), Peer(arena, "bob")
    room = alice.do(
        type="create_room", game="gomoku", seat=0, options={"opening": [[7, 7]]},
        clock={"initial_s": 300.0, "increment_s": 0.0},
    )[0]["room"]  # fmt: skip
    clock.now += 200.0  # nobody comes for a while
    bob.do(type="join_room", room=room)  # bob (seat 1) is to move after the opening stone
    clock.now += 5.0
    store.write([*arena.drain(), Heartbeat(clock.now)])  # alive until here, then killed
    clock.now += 60.0  # downtime
    again = Arena(limits=Limits(), clock=clock)
    again.restore(store.load())
    state = again.rooms.get(room).state_for(bob.pid)
    assert state["clocks"] == [300.0, pytest.approx(295.0, abs=0.01)]
    record = store.get_game(again.rooms.get(room).game_id)["game"]
    assert [m["ms"] for m in record["moves"]] == [0]


def test_adopted_rooms_leave_the_connected_bot_of_a_name_in_charge(
    clock: FakeClock, tmp_path: Path
) -> None:
    """A cluster node adopting a dead node's bot game keeps matching its own connected bot."""
    store = open_store(str(tmp_path / "dead.sqlite3"))
    dead = Arena(limits=Limits(), clock=clock)
    bot_game(dead)  # the dead node's robo, another player of the same name
    store.write(dead.drain())
    arena = Arena(limits=Limits(), clock=clock)
    Peer(arena, "robo", "bot", games=["*"], capacity=4)
    arena.restore(store.load())
    human = Peer(arena, "newcomer")
    room = human.do(type="create_room", game="gomoku", opponent="bot", seat=0)[0]["room"]
    state = arena.rooms.get(room).state_for(human.pid)
    assert state["players"] == ["newcomer", "robo"] and state["status"] == "playing"
    store.close()


def test_history_times_start_at_the_start_of_play(clock: FakeClock, db: str) -> None:
    store = open_store(db)
    arena = Arena(limits=Limits(), clock=clock)
    alice = Peer(arena, "alice")
    room = alice.do(type="create_room", game="tictactoe", seat=0)[0]["room"]
    clock.now += 120.0  # nobody comes for two minutes
    bob = Peer(arena, "bob")
    bob.do(type="join_room", room=room)
    clock.now += 3.0
    alice.do(type="move", room=room, x=0, y=0)
    clock.now += 2.0
    bob.do(type="move", room=room, x=1, y=1)
    store.write(arena.drain())
    record = store.get_game(arena.rooms.get(room).game_id)["game"]
    assert [m["ms"] for m in record["moves"]] == [3000, 2000]


def test_a_spectator_leaving_keeps_the_rematch_offer(clock: FakeClock) -> None:
    arena = arena_with(clock)
    alice, bob, sam = Peer(arena, "alice"), Peer(arena, "bob"), Peer(arena, "sam")
    room = alice.do(type="create_room", game="tictactoe", seat=0)[0]["room"]
    bob.do(type="join_room", room=room)
    sam.do(type="join_room", room=room, spectate=True)
    bob.do(type="resign", room=room)
    alice.do(type="rematch", room=room)
    sam.do(type="leave_room", room=room)
    bob.do(type="rematch", room=room)
    assert arena.rooms.get(room).game_no == 2


def test_timed_rematch_is_watched_closely_again(clock: FakeClock) -> None:
    arena = Arena(limits=Limits(full_sweep_interval=3600.0), clock=clock, durable=False)
    alice, bob = Peer(arena, "alice"), Peer(arena, "bob")
    spec = {"initial_s": 5.0, "increment_s": 0.0}
    room = alice.do(type="create_room", game="tictactoe", seat=0, clock=spec)[0]["room"]
    bob.do(type="join_room", room=room)
    arena.sweep()  # the first, full sweep
    bob.do(type="resign", room=room)
    clock.now += 0.1
    arena.sweep()  # the finished game leaves the fast set
    alice.do(type="rematch", room=room)
    bob.do(type="rematch", room=room)
    clock.now += 5.1  # no full sweep is due for an hour: only the fast set can catch this
    overs = [o.message for o in arena.sweep() if o.message["type"] == "game_over"]
    assert overs and overs[0]["reason"] == "timeout"


def test_quotas_on_waiting_rooms_and_bot_games(clock: FakeClock) -> None:
    arena = arena_with(clock)
    Peer(arena, "robo", "bot", games=["*"], capacity=50)
    hog = Peer(arena, "hog")
    for _ in range(5):
        assert hog.do(type="create_room", game="tictactoe")[0]["type"] == "joined"
    assert hog.do(type="create_room", game="tictactoe")[0]["code"] == "too_many_rooms"
    greedy = Peer(arena, "greedy")
    for _ in range(4):
        reply = greedy.do(type="create_room", game="gomoku", opponent="bot")[0]
        assert reply["type"] == "joined"
    refused = greedy.do(type="create_room", game="gomoku", opponent="bot")[0]
    assert refused["code"] == "too_many_rooms"


def test_junk_inputs_get_clear_errors(clock: FakeClock) -> None:
    arena = arena_with(clock)
    raw = arena.connect()
    early = arena.receive(raw, msgpack.packb({"type": "teleport"}))
    assert early[0].message["code"] == "not_hello"
    alice = Peer(arena, "alice")
    assert alice.do(type="list_games", before=2**63)[0]["code"] == "bad_message"
    echoed = alice.do(type="create_room", game="x" * 60_000)[0]
    assert echoed["code"] == "bad_options" and len(echoed["message"]) < 200
    full = alice.do(type="create_room", game="tictactoe", seat=0)[0]["room"]
    Peer(arena, "bob").do(type="join_room", room=full)
    carol = Peer(arena, "carol")
    assert carol.do(type="join_room", room=full)[0]["code"] == "room_full"
    assert carol.pid not in arena.rooms.get(full).online  # a refused join leaves no trace
