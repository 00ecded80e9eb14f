"""The shell's side of lag compensation: each player's round trip measured by the server's own
pings (one as it says hello), and the pongs it asked for never charged to the client's rate."""

from __future__ import annotations

from typing import Any

import pytest
from support.waiting import until

from server.core.game.lag import smoothed

TIGHT = {"human_rate": 0.001, "human_burst": 3.0}


async def test_a_players_round_trip_is_measured_as_it_says_hello(
    server: Any, client_factory: Any
) -> None:
    alice = await client_factory("alice")
    player = server.arena.players[alice.player]
    await until(lambda: player.lag > 0.0)  # no keepalive yet (20 s): the hello's own ping
    assert player.lag < 1.0  # loopback
    ws = server.fanout.sockets[alice.player]
    before = player.lag
    rtt = await (await ws.ping())  # every later measure (the keepalive's) moves the estimate
    assert ws.latency == rtt and player.lag == pytest.approx(smoothed(before, rtt))


@pytest.mark.parametrize("limits_override", [TIGHT])
async def test_pongs_the_server_asked_for_are_free_and_unasked_ones_are_charged(
    server: Any, client_factory: Any
) -> None:
    alice = await client_factory("alice")  # hello: 1 of 3 tokens, 2 left
    ws = server.fanout.sockets[alice.player]
    for _ in range(5):  # five pongs the server asked for: none of them charged
        await (await ws.ping())
    await alice.alive()  # 1 left: none of the pongs was charged
    await alice.ws.pong(b"unasked")  # an unasked pong is charged: the last token
    await alice.error("rate_limited", type="ping")
