"""Game actions over the wire on the real server: every refusal is an ``error`` with its code
and changes nothing; a standing offer and a takeback survive ``kill -9`` and a restart."""

from __future__ import annotations

import time
from typing import Any

import pytest
from support.clients import seated_pair
from support.servers import ServerProcess
from support.stores import both_dbs
from support.waiting import until


async def test_action_refusals_are_errors_and_change_nothing(client_factory: Any) -> None:
    alice, bob, room = await seated_pair(client_factory, game="gomoku")
    carol = await client_factory("carol")
    await carol.error("not_a_player", type="draw_offer", room=room)
    await alice.error("too_early", type="draw_offer", room=room)
    await alice.error("too_early", type="takeback_offer", room=room)
    await bob.error("no_offer", type="draw_answer", room=room, accept=True)
    await alice.error("cannot_claim", type="claim_victory", room=room)
    await alice.request(type="move", room=room, x=7, y=7)
    await bob.request(type="move", room=room, x=8, y=8)
    await bob.error("not_your_turn", type="draw_offer", room=room)  # alice's turn: out of turn
    await alice.error("too_late", type="abort", room=room)
    offer = await alice.request(type="draw_offer", room=room)
    assert offer == {"type": "offer", "room": room, "kind": "draw", "by": 0, "id": offer["id"]}
    assert (await bob.expect("offer"))["kind"] == "draw"
    declined = await bob.request(type="draw_answer", room=room, accept=False)
    assert declined["type"] == "offer_declined" and declined["by"] == 0
    await alice.request(type="move", room=room, x=7, y=8)
    await bob.request(type="move", room=room, x=9, y=9)
    await alice.error("offer_too_soon", type="draw_offer", room=room)  # 20 plies between
    await bob.error("no_offer", type="takeback_answer", room=room, accept=True)
    asked = await bob.request(type="takeback_offer", room=room)
    assert asked["type"] == "offer" and asked["kind"] == "takeback" and asked["by"] == 1
    taken = await alice.request(type="takeback_answer", room=room, accept=True)
    assert taken["type"] == "taken_back" and taken["ply"] == 3 and taken["by"] == 1
    state = await bob.expect("state", ply=3)
    assert state["moves"] == [[7, 7], [8, 8], [7, 8]] and state["to_move"] == 1
    over = await alice.request(type="resign", room=room)
    assert over["type"] == "game_over"
    await bob.error("game_over", type="takeback_offer", room=room)
    await alice.alive()


async def test_a_takeback_is_refused_in_a_rated_game(client_factory: Any, server: Any) -> None:
    alice, bob, room = await seated_pair(client_factory, game="gomoku")
    await alice.request(type="move", room=room, x=7, y=7)
    server.arena.rooms.get(room).options["rated"] = True  # as a rated room's options say
    await alice.error("rated_game", type="takeback_offer", room=room)
    await bob.request(type="move", room=room, x=8, y=8)  # nothing changed: play goes on


async def test_the_server_says_when_a_game_may_be_aborted(client_factory: Any) -> None:
    """``state.actions.abort`` and each ``moved``'s ``abort``: the clients show Abort by them."""
    alice = await client_factory("alice")
    bob = await client_factory("bob")
    room = (await alice.request(type="create_room", game="gomoku", seat=0))["room"]
    await bob.request(type="join_room", room=room)
    assert (await alice.expect("state", status="playing"))["actions"]["abort"] is True
    assert (await alice.request(type="move", room=room, x=7, y=7))["abort"] is True
    assert (await bob.request(type="move", room=room, x=8, y=8))["abort"] is False
    carol = await client_factory("carol")
    await carol.request(type="join_room", room=room, spectate=True)
    assert (await carol.expect("state"))["actions"]["abort"] is False


async def test_abort_before_both_moved(client_factory: Any) -> None:
    alice, bob, room = await seated_pair(client_factory, game="gomoku")
    await alice.request(type="move", room=room, x=7, y=7)
    over = await bob.request(type="abort", room=room)
    assert over["type"] == "game_over" and over["reason"] == "aborted" and over["winner"] is None
    assert (await alice.expect("game_over"))["reason"] == "aborted"


@pytest.fixture
def limits_override() -> dict[str, float]:
    """A short grace: half of it is what a claim waits for."""
    return {"reconnect_grace": 1.0}


async def test_claim_victory_once_the_opponent_is_gone_half_the_grace(
    client_factory: Any, server: Any
) -> None:
    alice, bob, room = await seated_pair(client_factory, game="gomoku")
    await alice.request(type="move", room=room, x=7, y=7)
    await bob.request(type="move", room=room, x=8, y=8)
    await bob.close()
    await alice.expect("presence", online=False)
    await alice.error("cannot_claim", type="claim_victory", room=room)
    gone = server.arena.rooms.get(room).offline_since[bob.player]
    await until(lambda: time.time() - gone >= 0.5)  # half the grace
    reply = await alice.request(type="claim_victory", room=room)
    assert reply["type"] == "game_over", reply
    assert reply["reason"] == "opponent_gone" and reply["winner"] == 0


#: The kill -9 test runs on SQLite and on PostgreSQL.
db = both_dbs


@pytest.mark.slow
async def test_sigkill_mid_offer_and_after_a_takeback_keeps_both(proc: ServerProcess) -> None:
    await proc.start()
    alice, bob = await proc.client("alice"), await proc.client("bob")
    clock = {"initial_s": 120.0, "increment_s": 1.0}
    room = (await alice.request(type="create_room", game="gomoku", seat=0, clock=clock))["room"]
    await bob.request(type="join_room", room=room)
    for ply, (x, y) in enumerate([(7, 7), (8, 8), (7, 8), (9, 9)]):
        await (alice, bob)[ply % 2].request(type="move", room=room, x=x, y=y, ply=ply)
    await bob.request(type="takeback_offer", room=room)  # his turn is over: (9, 9) goes
    taken = await alice.request(type="takeback_answer", room=room, accept=True)
    assert taken["type"] == "taken_back" and taken["ply"] == 3
    await bob.request(type="move", room=room, x=6, y=6, ply=3)
    offer = await alice.request(type="draw_offer", room=room)  # acknowledged: on disk
    assert offer["type"] == "offer"
    proc.kill()
    await proc.start()

    alice2 = await proc.client("alice", alice.session)
    bob2 = await proc.client("bob", bob.session)
    state = await bob2.expect("state", room=room)
    assert state["moves"] == [[7, 7], [8, 8], [7, 8], [6, 6]] and state["to_move"] == 0
    assert state["actions"]["offers"] == [{"kind": "draw", "by": 0}]
    over = await bob2.request(type="draw_answer", room=room, accept=True)
    assert over["type"] == "game_over" and over["reason"] == "draw_agreed"
    assert (await alice2.expect("game_over"))["reason"] == "draw_agreed"
    record = await alice2.request(type="get_game", game_id=state["game_id"])
    assert [(m["x"], m["y"]) for m in record["game"]["moves"]] == [(7, 7), (8, 8), (7, 8), (6, 6)]
