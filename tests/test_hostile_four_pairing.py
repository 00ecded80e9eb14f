"""Hostile round four against quick pairing, ratings and bot seats, over the wire on the real
server with strangers spread over loopback addresses (127.0.x.y): absurd rated clocks, rating
farming, the seek book's bounds, the bot fallback's per-address share, and games per address."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from support.clients import RawClient
from websockets.asyncio.client import connect

pytestmark = pytest.mark.slow

CLOCK = {"initial_s": 180, "increment_s": 2}


@pytest.fixture
async def at(server: Any) -> AsyncIterator[Callable[..., Any]]:
    """Open a client from a given loopback address, said hello as ``name``; closed after."""
    opened: list[RawClient] = []

    async def make(name: str, address: str = "127.0.0.1", **extra: Any) -> RawClient:
        ws = await connect(server.url, compression=None, max_size=None, local_addr=(address, 0))
        client = RawClient(ws)
        opened.append(client)
        await client.hello(name, **extra)
        return client

    yield make
    for client in opened:
        await client.close()


async def account(at: Callable[..., Any], name: str, address: str = "127.0.0.1") -> RawClient:
    """A client from ``address`` that registered ``name`` (and is logged in as it)."""
    c = await at(f"guest-{name}", address)
    reply = await c.request(type="register", name=name, password="correct horse battery")
    assert reply["type"] == "logged_in", reply
    c.player = reply["player"]
    return c


async def test_absurd_clocks_are_refused_and_rated_ones_need_a_real_clock(at: Any) -> None:
    alice = await account(at, "alice")
    absurd = [
        {"initial_s": 0.001, "increment_s": 0},
        {"initial_s": 1e-300, "increment_s": 0},
        {"initial_s": 60, "increment_s": 0, "move_s": 0.001},
    ]
    for clock in absurd:  # no timed game at all, rated or not
        for rated in (True, False):
            error = await alice.error(
                "bad_options", type="create_room", game="gomoku", clock=clock, rated=rated
            )
            assert "clock" in error["message"], error
            await alice.error("bad_options", type="seek", game="gomoku", clock=clock, rated=rated)
    short = [{"initial_s": 5, "increment_s": 0}, {"initial_s": 60, "increment_s": 0, "move_s": 2}]
    for clock in short:  # casual: yes; rated: a rated seat must not lose on time at once
        error = await alice.error(
            "bad_options", type="create_room", game="gomoku", clock=clock, rated=True
        )
        assert "rated" in error["message"], error
        await alice.error("bad_options", type="seek", game="gomoku", clock=clock, rated=True)
        made = await alice.request(type="create_room", game="gomoku", clock=clock)
        assert made["type"] == "joined", made
        await alice.request(type="leave_room", room=made["room"])
    made = await alice.request(
        type="create_room", game="gomoku", rated=True, clock={"initial_s": 15, "increment_s": 0}
    )
    assert made["type"] == "joined", made
    placed = await alice.request(
        type="seek", game="gomoku", rated=True, clock={"initial_s": 15, "increment_s": 0}
    )
    assert placed["type"] == "seeking", placed


async def rated_game(alice: RawClient, bob: RawClient, moves: int) -> dict[str, Any]:
    """A rated gomoku game of alice (seat 0) and bob with ``moves`` moves, alice resigning."""
    ask = {"type": "create_room", "game": "gomoku", "seat": 0, "rated": True, "clock": CLOCK}
    room = (await alice.request(**ask))["room"]
    await bob.request(type="join_room", room=room)
    for ply in range(moves):
        moved = await (alice, bob)[ply % 2].request(type="move", room=room, x=ply, y=0)
        assert moved["type"] == "moved", moved
    over = await alice.request(type="resign", room=room)
    assert over["type"] == "game_over" and over["winner"] == 1, over
    for c in (alice, bob):
        await c.request(type="leave_room", room=room)
    return over


async def test_rating_farming_by_resigning_at_once_or_over_and_over_is_not_rated(
    at: Any,
) -> None:
    alice, bob = await account(at, "alice"), await account(at, "bob")  # one address, two accounts
    for moves in (0, 1):  # fewer than two moves: the game never started
        over = await rated_game(alice, bob, moves)
        assert "ratings" not in over and over["unrated"] == "too_short", over
    rated = [await rated_game(alice, bob, 2) for _ in range(5)]
    assert all(len(o["ratings"]) == 2 and "unrated" not in o for o in rated)
    top = rated[-1]["ratings"][1]["after"]
    for _ in range(2):  # the pair's sixth game of the day on: played, kept, not rated
        over = await rated_game(alice, bob, 4)
        assert "ratings" not in over and over["unrated"] == "repeated", over
    carol = await account(at, "carol", "127.0.0.2")  # bob against someone else: rated
    over = await rated_game(carol, bob, 2)
    assert over["ratings"][1]["before"] == top
