"""Hostile round four against quick pairing, ratings and bot seats, over the wire on the real
server with strangers spread over loopback addresses (127.0.x.y): absurd rated clocks, rating
farming, the seek book's bounds, the bot fallback's per-address share, and games per address."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from support.clients import RawClient
from support.servers import bot_key
from websockets.asyncio.client import connect

pytestmark = pytest.mark.slow

CLOCK = {"initial_s": 180, "increment_s": 2}
DAY_CLOCK = {"initial_s": 86400, "increment_s": 0}


@pytest.fixture
def limits_override() -> dict[str, float]:
    """A human's move against a bot may take 3 s here (10 min by default)."""
    return {"human_idle_timeout": 3.0}


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


async def bot(at: Any, server: Any, name: str, capacity: int) -> RawClient:
    """A keyed bot that plays gomoku, from its own address."""
    key = bot_key(server, name)
    return await at(name, "127.0.9.9", kind="bot", key=key, games=["gomoku"], capacity=capacity)


async def test_the_seeks_bot_fallback_keeps_the_per_address_share_of_a_bots_seats(
    at: Any, server: Any
) -> None:
    await bot(at, server, "robo", 4)  # one address may hold 2 of its 4 seats
    hogs = [await at(f"hog{i}", "127.0.3.1") for i in range(4)]
    for i, hog in enumerate(hogs):  # a pool each: no wave pairs two hogs
        clock = {"initial_s": 86400 - i, "increment_s": 0}
        placed = await hog.request(type="seek", game="gomoku", clock=clock, bot_after_s=5)
        assert placed["type"] == "seeking", placed
    honest = await at("honest", "127.0.4.1")
    await honest.request(type="seek", game="gomoku", clock=CLOCK, bot_after_s=5)
    joined = await honest.expect("joined", timeout=30)
    assert joined["type"] == "joined"
    pairing = server.arena.pairing
    assert sum(bool(pairing.book.of(h.player)) for h in hogs) == 2  # two hogs seek on
    for hog in hogs:
        await hog.alive()


async def test_a_human_sitting_on_a_move_against_a_bot_loses_whatever_the_clock(
    at: Any, server: Any
) -> None:
    robo = await bot(at, server, "robo", 2)
    alice = await at("alice")
    ask = {"type": "create_room", "game": "gomoku", "seat": 0, "opponent": "bot"}
    room = (await alice.request(**ask, clock=DAY_CLOCK))["room"]
    await robo.expect("joined", room=room)
    await alice.request(type="move", room=room, x=7, y=7)
    await robo.expect("moved", room=room)
    assert (await robo.request(type="move", room=room, x=8, y=8))["type"] == "moved"
    over = await alice.expect("game_over", room=room, timeout=30)  # alice sits: 3 s here
    assert over["reason"] == "timeout" and over["winner"] == 1, over
