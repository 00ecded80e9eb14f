"""Renju, start positions and swap openings over the wire, against the real server."""

from __future__ import annotations

from typing import Any

import pytest

# Black threes across and down meet at (7,7); white's stones are far away.
DOUBLE_THREE = [(5, 7), (0, 0), (6, 7), (0, 2), (7, 5), (0, 4), (7, 6), (0, 6)]


async def pair(client_factory: Any, game: str, **create: Any) -> tuple[Any, Any, str]:
    """Alice (seat 0) and Bob (seat 1) in a fresh playing room created with ``create``."""
    alice = await client_factory("alice")
    bob = await client_factory("bob")
    room = (await alice.request(type="create_room", game=game, seat=0, **create))["room"]
    await bob.request(type="join_room", room=room)
    await alice.expect("state", status="playing")
    return alice, bob, room


async def test_renju_refuses_black_double_three_and_lists_it(client_factory: Any) -> None:
    alice, bob, room = await pair(client_factory, "renju")
    players = (alice, bob)
    for i, (x, y) in enumerate(DOUBLE_THREE):
        moved = await players[i % 2].request(type="move", room=room, x=x, y=y)
        assert moved["type"] == "moved"
    assert moved["forbidden"] == [[7, 7]]
    error = await alice.error("forbidden_move", type="move", room=room, x=7, y=7)
    assert "double-three" in error["message"]
    await alice.request(type="join_room", room=room)
    state = await alice.expect("state", room=room)
    assert state["forbidden"] == [[7, 7]] and state["ply"] == 8 and state["to_move"] == 0
    black = await alice.request(type="move", room=room, x=1, y=1)  # black plays again
    assert "forbidden" not in black  # white to move: nothing to list
    white_turn = await bob.request(type="move", room=room, x=7, y=7)  # white may take it
    assert white_turn["type"] == "moved" and white_turn["forbidden"] == []
    await alice.request(type="resign", room=room)
    game_id = state["game_id"]
    record = await alice.request(type="get_game", game_id=game_id, format="psq")
    assert record["game"]["game"]["rule"] == "renju"
    assert record["psq"].rstrip().endswith(",Renju")


async def test_gomoku_lists_no_forbidden_points(client_factory: Any) -> None:
    alice, bob, room = await pair(client_factory, "gomoku")
    for i, (x, y) in enumerate(DOUBLE_THREE):
        moved = await (alice, bob)[i % 2].request(type="move", room=room, x=x, y=y)
        assert "forbidden" not in moved
    assert (await alice.request(type="move", room=room, x=7, y=7))["type"] == "moved"


async def test_position_option(client_factory: Any) -> None:
    alice = await client_factory("alice")
    won = {"black": [[x, 3] for x in range(5)], "white": [], "to_move": 1}
    for bad in (won, {"black": [[1, 1]], "white": [[1, 1]]}, {"black": [[15, 0]]}, [1]):
        await alice.error(
            "bad_options", type="create_room", game="renju", options={"position": bad}
        )
    await alice.error(
        "bad_options", type="create_room", game="renju",
        options={"position": {"black": [[7, 7]]}, "opening_rule": "swap2"},
    )  # fmt: skip
    position = {"black": [[7, 7], [8, 8], [6, 6]], "white": [[7, 8]], "to_move": 1}
    # three black stones to one: no game reaches it, so no bot plays from it
    await alice.error(
        "bad_options", type="create_room", game="renju", opponent="bot",
        options={"position": position},
    )  # fmt: skip
    alice, bob, room = await pair(client_factory, "renju", options={"position": position})
    state = await bob.expect("state", status="playing")
    assert state["options"]["position"] == position and state["ply"] == 0
    assert state["to_move"] == 1  # white (seat 1) moves first from this position
    await alice.error("not_your_turn", type="move", room=room, x=0, y=0)
    await bob.request(type="move", room=room, x=9, y=9)
    moved = await alice.request(type="move", room=room, x=5, y=5)
    assert moved["ply"] == 1


async def test_swap2_opening_over_the_wire(client_factory: Any) -> None:
    clock = {"initial_s": 300, "increment_s": 5}
    options = {"opening_rule": "swap2"}
    alice, bob, room = await pair(client_factory, "renju", options=options, clock=clock)
    state = await bob.expect("state", status="playing")
    assert state["colours"] is None and state["to_move"] == 0
    assert state["opening"]["phase"] == "place" and state["opening"]["left"] == 3
    assert state["clock_running"] == 0
    await bob.error("not_your_turn", type="move", room=room, x=0, y=0)
    await alice.error("wrong_phase", type="choose", room=room, choice="black")
    for x, y in ((7, 7), (8, 7), (7, 8)):
        assert (await alice.request(type="move", room=room, x=x, y=y))["type"] == "moved"
    state = await bob.expect("state", ply=3)
    assert state["opening"]["phase"] == "choose" and state["to_move"] == 1
    assert state["opening"]["choices"] == ["black", "white", "place"]
    # no increment in the opening: at most the initial time (a quick move may be refunded whole
    # as lag on a loaded machine, so exactly 300 is allowed)
    assert state["clock_running"] == 1 and state["clocks"][0] <= 300
    await bob.error("wrong_phase", type="move", room=room, x=0, y=0)
    await alice.error("not_your_turn", type="choose", room=room, choice="black")
    chosen = await bob.request(type="choose", room=room, choice="place")
    assert chosen == {
        "type": "chosen",
        "room": room,
        "seat": 1,
        "choice": "place",
        "id": chosen["id"],
    }
    await bob.request(type="move", room=room, x=6, y=6)
    await bob.request(type="move", room=room, x=9, y=9)
    state = await alice.expect("state", ply=5)
    assert state["opening"]["actor"] == 0 and state["opening"]["choices"] == ["black", "white"]
    await alice.error("wrong_phase", type="choose", room=room, choice="place")
    await alice.request(type="choose", room=room, choice="white")
    state = await alice.expect("state", room=room)
    while state["opening"]["phase"] != "done":
        state = await alice.expect("state", room=room)
    assert state["colours"] == [1, 0] and state["to_move"] == 0 and state["clock_running"] == 0
    assert state["opening"]["made"] == [[1, "place"], [0, "white"]]
    await bob.error("not_your_turn", type="move", room=room, x=0, y=0)
    await alice.request(type="move", room=room, x=8, y=8)  # white's stone
    moved = await bob.request(type="move", room=room, x=0, y=0)  # black's
    assert moved["seat"] == 1
    await bob.request(type="resign", room=room)
    over = await alice.expect("game_over")
    assert over["winner"] == 0
    record = await alice.request(type="get_game", game_id=state["game_id"])
    assert record["game"]["players"] == ["alice", "bob"]
    assert record["game"]["options"] == {
        "opening_rule": "swap2",
        "opening_made": [[1, "place"], [0, "white"]],
    }


async def test_swap1_choice_of_black_keeps_seat_one_black(client_factory: Any) -> None:
    alice, bob, room = await pair(client_factory, "gomoku", options={"opening_rule": "swap1"})
    for x, y in ((7, 7), (8, 7), (7, 8)):
        await alice.request(type="move", room=room, x=x, y=y)
    await bob.error("wrong_phase", type="choose", room=room, choice="place")
    await bob.request(type="choose", room=room, choice="black")
    state = await bob.expect("state", room=room)
    while state["colours"] is None:
        state = await bob.expect("state", room=room)
    assert state["colours"] == [1, 0] and state["to_move"] == 0  # alice now white, to move
    await alice.error("wrong_phase", type="choose", room=room, choice="white")
    lobby = await bob.request(type="list_rooms")
    assert [r.get("opening_rule") for r in lobby["rooms"] if r["room"] == room] == ["swap1"]
    await alice.request(type="resign", room=room)
    await alice.request(type="rematch", room=room)
    await bob.request(type="rematch", room=room)
    state = await bob.expect("state", game_no=2)
    assert state["players"] == ["bob", "alice"] and state["moves"] == []  # bob opens now
    assert state["colours"] is None and state["opening"]["actor"] == 0
    assert state["opening"]["phase"] == "place" and state["seat"] == 0


async def test_choose_without_opening_rule_is_wrong_phase(client_factory: Any) -> None:
    alice, _bob, room = await pair(client_factory, "gomoku")
    await alice.error("wrong_phase", type="choose", room=room, choice="black")
    await alice.error(
        "bad_options", type="create_room", game="tictactoe", options={"opening_rule": "swap2"}
    )
    await alice.error(
        "bad_options", type="create_room", game="gomoku", options={"opening_rule": "swap3"}
    )


@pytest.mark.slow
async def test_swap2_choices_and_positions_survive_a_restart(proc: Any) -> None:
    await proc.start()
    alice, bob = await proc.client("alice"), await proc.client("bob")
    room = (
        await alice.request(
            type="create_room", game="renju", seat=0, options={"opening_rule": "swap2"}
        )
    )["room"]
    await bob.request(type="join_room", room=room)
    for x, y in ((7, 7), (8, 7), (7, 8)):
        await alice.request(type="move", room=room, x=x, y=y)
    await bob.request(type="choose", room=room, choice="place")
    await bob.request(type="move", room=room, x=6, y=6)
    await bob.request(type="move", room=room, x=9, y=9)
    await alice.request(type="choose", room=room, choice="white")
    await alice.request(type="move", room=room, x=8, y=8)  # white; delivered only once durable
    await bob.expect("moved", ply=5)
    position = {"black": [[1, 1], [2, 2]], "white": [[3, 3]], "to_move": 1}
    other = (
        await alice.request(
            type="create_room", game="renju", seat=0, options={"position": position}
        )
    )["room"]
    await bob.request(type="join_room", room=other)
    await bob.request(type="move", room=other, x=10, y=10)
    await alice.expect("moved", room=other, ply=0)
    proc.kill()
    await proc.start()
    alice2 = await proc.client("alice", alice.session)
    states = {}
    while len(states) < 2:
        state = await alice2.expect("state")
        states[state["room"]] = state
    swap = states[room]
    assert swap["colours"] == [1, 0] and swap["to_move"] == 1 and swap["ply"] == 6
    assert swap["opening"]["phase"] == "done"
    assert swap["opening"]["made"] == [[1, "place"], [0, "white"]]
    assert states[other]["to_move"] == 0 and states[other]["moves"] == [[10, 10]]
    await alice2.request(type="move", room=other, x=4, y=4)
    for c in (alice, bob, alice2):
        await c.close()
