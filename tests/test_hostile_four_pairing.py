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
