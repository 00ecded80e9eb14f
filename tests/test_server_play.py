"""Whole games over the real server between raw clients (websockets + msgpack, no project code)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from support.clients import RawClient


@pytest.fixture
def limits_override() -> dict[str, float]:
    """Games here are played at machine speed, far past a human's rate limit."""
    return {"human_rate": 10_000.0, "human_burst": 10_000.0}


async def table(client_factory: Any, game: str, **create: Any) -> tuple[RawClient, ...]:
    """Alice creates a room as seat 0, Bob joins as seat 1, Sam spectates; all see `playing`."""
    alice = await client_factory("alice")
    bob = await client_factory("bob")
    sam = await client_factory("sam")
    joined = await alice.request(type="create_room", game=game, seat=0, **create)
    assert joined == {"type": "joined", "room": joined["room"], "seat": 0, "id": joined["id"]}
    room = joined["room"]
    state = await alice.expect("state")
    assert state["status"] == "waiting" and state["players"] == ["alice", None]
    assert (await bob.request(type="join_room", room=room))["seat"] == 1
    assert (await sam.request(type="join_room", room=room, spectate=True))["seat"] is None
    for who, seat in ((alice, 0), (bob, 1), (sam, None)):
        # a new spectator's state goes to it alone: the players' last state predates it
        state = await who.expect("state", spectators=0 if seat is not None else 1)
        assert state["status"] == "playing" and state["to_move"] == 0
        assert state["seat"] == seat and state["players"] == ["alice", "bob"]
    return alice, bob, sam, room


async def play(
    players: tuple[RawClient, RawClient], sam: RawClient, room: str, moves: list
) -> None:
    """Play the moves alternately; every side, the spectator too, sees every `moved` in order."""
    for ply, (x, y) in enumerate(moves):
        mover = players[ply % 2]
        reply = await mover.request(type="move", room=room, x=x, y=y, ply=ply)
        want = {"type": "moved", "room": room, "ply": ply, "seat": ply % 2, "x": x, "y": y}
        assert reply.pop("abort", ply == 0) is (ply == 0)  # the game goes on: may it be aborted
        assert reply == {**want, "id": reply["id"]}
        for other in (players[1 - ply % 2], sam):
            seen = await other.expect("moved")
            assert seen.pop("abort", ply == 0) is (ply == 0) and seen == want


async def test_tictactoe_win_seen_by_everyone(client_factory: Any) -> None:
    alice, bob, sam, room = await table(client_factory, "tictactoe")
    await play((alice, bob), sam, room, [(0, 0), (1, 0), (1, 1), (2, 0), (2, 2)])
    for who in (alice, bob, sam):
        over = await who.expect("game_over")
        assert over["winner"] == 0 and over["reason"] == "line"
        assert over["line"] == [[0, 0], [1, 1], [2, 2]]
    await bob.error("game_over", type="move", room=room, x=2, y=1)
    rooms = await sam.request(type="list_rooms")
    assert {"room": room, "status": "over", "players": ["alice", "bob"]}.items() <= next(
        r for r in rooms["rooms"] if r["room"] == room
    ).items()


async def test_tictactoe_draw(client_factory: Any) -> None:
    alice, bob, sam, room = await table(client_factory, "tictactoe")
    # X O X / X O O / O X X: a full board with no line
    moves = [(0, 0), (1, 0), (2, 0), (1, 1), (0, 1), (2, 1), (1, 2), (0, 2), (2, 2)]
    await play((alice, bob), sam, room, moves)
    for who in (alice, bob, sam):
        over = await who.expect("game_over")
        assert over == {"type": "game_over", "room": room, "winner": None, "reason": "draw",
                        "line": [], "game_id": over["game_id"]}  # fmt: skip
        assert over["game_id"].startswith("g_")


async def test_gomoku_five_wins_for_white(client_factory: Any) -> None:
    alice, bob, sam, room = await table(client_factory, "gomoku")
    moves = []
    for i in range(5):
        moves += [(2 * i, 14), (3 + i, 7)]  # black scatters along the bottom, white builds a five
    await play((alice, bob), sam, room, moves)
    over = await sam.expect("game_over")
    assert over["winner"] == 1 and over["line"] == [[x, 7] for x in range(3, 8)]


def gomoku_draw_moves() -> list[tuple[int, int]]:
    """A full 15x15 board with no five: colour by (x//2 + y) parity, runs are at most two long."""
    black = [(x, y) for y in range(15) for x in range(15) if (x // 2 + y) % 2 == 0]
    white = [(x, y) for y in range(15) for x in range(15) if (x // 2 + y) % 2 == 1]
    assert (len(black), len(white)) == (113, 112)
    moves = []
    for i in range(112):
        moves += [black[i], white[i]]
    return [*moves, black[112]]


async def test_gomoku_draw_on_a_full_board(client_factory: Any) -> None:
    alice, bob, sam, room = await table(client_factory, "gomoku")
    await play((alice, bob), sam, room, gomoku_draw_moves())
    over = await alice.expect("game_over")
    assert over["winner"] is None and over["reason"] == "draw"
    state = await sam.request(type="join_room", room=room, spectate=True)
    assert state["seat"] is None
    final = await sam.expect("state")
    assert final["ply"] == 225 and final["status"] == "over"


async def test_gomoku_standard_overline_is_not_a_win(client_factory: Any) -> None:
    alice, bob, sam, room = await table(client_factory, "gomoku-standard")
    # black: 0..3 and 5 on row 0, then 4 fills the gap: six in a row, no win in exact-five
    moves = [(0, 0), (0, 5), (1, 0), (1, 5), (2, 0), (2, 5), (3, 0), (3, 6), (5, 0), (4, 6)]
    moves += [(4, 0)]
    await play((alice, bob), sam, room, moves)
    state = await alice.request(type="join_room", room=room)
    assert state["seat"] == 0
    now = await alice.expect("state")
    assert now["status"] == "playing" and now["to_move"] == 1


async def test_resign_rematch_swaps_colours(client_factory: Any) -> None:
    alice, bob, sam, room = await table(client_factory, "tictactoe")
    await bob.request(type="resign", room=room)
    over = await alice.expect("game_over")
    assert over["winner"] == 0 and over["reason"] == "resign"
    await alice.request(type="rematch", room=room)
    offered = await bob.expect("rematch_offered")
    assert offered["seat"] == 0
    await bob.request(type="rematch", room=room)
    state = await alice.expect("state", game_no=2)
    assert state["seat"] == 1 and state["players"] == ["bob", "alice"] and state["moves"] == []
    assert (await bob.expect("state", game_no=2))["seat"] == 0
    await bob.request(type="move", room=room, x=1, y=1)
    assert (await sam.expect("moved"))["seat"] == 0


async def test_chat_reaches_players_and_spectators(client_factory: Any) -> None:
    alice, bob, sam, room = await table(client_factory, "tictactoe")
    await sam.request(type="chat", room=room, text="  good luck  ")
    for who in (alice, bob):
        line = await who.expect("chat")
        assert line == {"type": "chat", "room": room, "from": "sam", "seat": None,
                        "text": "good luck", "account": False}  # fmt: skip
    await alice.request(type="chat", room=room, text="x" * 2000)
    assert len((await bob.expect("chat"))["text"]) == 500


async def test_lobby_lists_and_pushes_rooms(client_factory: Any) -> None:
    watcher = await client_factory("watcher")
    first = await watcher.request(type="list_rooms", subscribe=True)
    assert first["rooms"] == []
    alice = await client_factory("alice")
    joined = await alice.request(type="create_room", game="mnk", options={"width": 7, "k": 4})
    pushed = await watcher.expect("rooms")
    while not pushed["rooms"]:  # a push may already have been on its way before the room
        pushed = await watcher.expect("rooms")
    assert pushed["rooms"] == [
        {"room": joined["room"], "game": "mnk", "title": "7\u00d77, 4 in a row",
         "status": "waiting",
         "players": ["alice", None] if joined["seat"] == 0 else [None, "alice"],
         "accounts": [False, False], "spectators": 0}
    ]  # fmt: skip
    state = await alice.expect("state")
    assert state["game"] == {"name": "mnk", "width": 7, "height": 7, "k": 4, "rule": "freestyle",
                             "title": "7\u00d77, 4 in a row"}  # fmt: skip


async def test_leaving_and_idle_rooms_are_cleaned_up(client_factory: Any, server: Any) -> None:
    alice, bob, sam, room = await table(client_factory, "tictactoe")
    left = await alice.request(type="leave_room", room=room)
    assert left["type"] == "left"
    over = await bob.expect("game_over")
    assert over["reason"] == "resign" and over["winner"] == 1
    await bob.request(type="leave_room", room=room)
    await sam.request(type="leave_room", room=room)
    lonely = await alice.request(type="create_room", game="tictactoe")
    await alice.request(type="leave_room", room=lonely["room"])
    for _ in range(100):
        rooms = (await alice.request(type="list_rooms"))["rooms"]
        if not rooms:
            break
        await asyncio.sleep(0.05)
    assert rooms == []
    assert len(server.arena.rooms) == 0
