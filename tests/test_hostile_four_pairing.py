"""Hostile round four against quick pairing, ratings and bot seats, over the wire on the real
server with strangers spread over loopback addresses (127.0.x.y): absurd rated clocks, rating
farming, the seek book's bounds, the bot fallback's per-address share, and games per address."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import msgpack
import pytest
from support.clients import RawClient
from support.servers import bot_key
from support.waiting import until_answered
from websockets.asyncio.client import connect

pytestmark = pytest.mark.slow

CLOCK = {"initial_s": 180, "increment_s": 2}
DAY_CLOCK = {"initial_s": 86400, "increment_s": 0}


@pytest.fixture
def limits_override() -> dict[str, float]:
    """A human's move against a bot may take 3 s here (10 min by default), and one address may
    start 30 games an hour (600)."""
    return {"human_idle_timeout": 3.0, "max_games_per_address_hour": 30}


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


async def test_odd_clock_seeks_from_many_addresses_stay_bounded_and_honest_seeks_go_through(
    at: Any,
) -> None:
    watcher = await at("watcher", "127.0.6.9")
    first = await watcher.request(type="list_seeks", subscribe=True, limit=100)
    assert first["type"] == "seeks"
    odd = iter(range(61, 10_000))
    codes: dict[str, list[str]] = {}
    for a in range(1, 5):  # four addresses, each with 9 sockets of 3 odd-clock seeks
        address = f"127.0.5.{a}"
        for i in range(9):
            guest = await at(f"odd{a}x{i}", address)
            for _ in range(3):
                clock = {"initial_s": next(odd), "increment_s": 0}
                reply = await guest.request(type="seek", game="gomoku", clock=clock)
                codes.setdefault(address, []).append(reply.get("code", reply["type"]))
    first_address = codes["127.0.5.1"]
    assert first_address.count("seeking") == 24, first_address  # one address: 24 seeks
    assert set(first_address[24:]) == {"too_many_seeks"}
    everything = [code for found in codes.values() for code in found]
    assert everything.count("seeking") == 50 and "busy" in everything  # 50 odd clocks at once
    honest = await at("honest", "127.0.6.1")
    placed = await honest.request(type="seek", game="gomoku", clock=CLOCK)
    assert placed["type"] == "seeking", placed  # the standard pools stay open
    odd_one = await honest.request(
        type="seek", game="gomoku", clock={"initial_s": 7, "increment_s": 0}
    )
    assert odd_one["code"] == "busy" and "standard" in odd_one["message"], odd_one
    page = await watcher.request(type="list_seeks", limit=100)
    size = len(msgpack.packb(page, use_bin_type=True))
    assert len(page["seeks"]) == 50 and page["next"] is not None
    assert len(page["pools"]) == 34 + 50 and size < 48 * 1024, size
    churners = [await at(f"churn{i}", "127.0.6.2") for i in range(3)]
    await watcher.alive()
    before = len(watcher.seen)
    loop = asyncio.get_running_loop()
    started = loop.time()
    while loop.time() - started < 2.0:  # 2 s of changes, a few every 10 ms
        for churner in churners:
            placed_now = await churner.request(type="seek", game="renju", clock=CLOCK)
            if placed_now["type"] == "seeking":
                await churner.request(type="cancel_seek", seek=placed_now["seek"])
        await asyncio.sleep(0.01)
    elapsed = loop.time() - started
    await watcher.alive()
    pushes = [m for m in watcher.seen[before:] if m["type"] == "seeks" and "id" not in m]
    assert 1 <= len(pushes) <= elapsed / 0.5 + 2, (len(pushes), elapsed)
    assert max(len(m["seeks"]) for m in pushes) == 20  # a push holds 20 seeks at most
    joined = await watcher.request(type="accept_seek", seek=placed["seek"]["seek"])
    assert joined["type"] == "joined", joined


async def test_fresh_guests_cannot_start_games_without_end_from_one_address_nor_keep_empty_ones(
    at: Any, server: Any
) -> None:
    address = "127.0.7.1"
    ask = {"type": "create_room", "game": "tictactoe", "seat": 0}
    for i in range(30):  # fresh guest pairs: each guest far under its own 60 an hour
        a, b = await at(f"a{i}", address), await at(f"b{i}", address)
        room = (await a.request(**ask))["room"]
        await b.request(type="join_room", room=room)
        if i == 0:  # one game played: kept
            await a.request(type="move", room=room, x=0, y=0)
            await b.request(type="move", room=room, x=1, y=1)
            assert (await a.request(type="resign", room=room))["type"] == "game_over"
        else:  # the rest aborted before a move
            assert (await a.request(type="abort", room=room))["type"] == "game_over"
        for c in (a, b):
            await c.request(type="leave_room", room=room)
            await c.close()
    late = await at("late", address)
    error = await late.error("too_many_games", **ask)
    assert "address" in error["message"], error
    elsewhere = await at("elsewhere", "127.0.7.2")
    assert (await elsewhere.request(**ask))["type"] == "joined"

    async def kept() -> list[dict[str, Any]]:
        reply = await elsewhere.request(type="list_games", limit=100)
        return reply["games"] if reply["type"] == "games" else [reply]  # rate_limited: again

    async def only_one_kept() -> bool:
        return len(await kept()) <= 1

    await until_answered(only_one_kept)  # the rooms go after their linger, empty games with them
    games = await kept()
    assert [g["reason"] for g in games] == ["resign"], games
