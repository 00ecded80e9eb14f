"""An attacker cannot make the real server work for honest players' time: admission and floods."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import RawClient


async def replies_until_quiet(client: RawClient, quiet: float = 1.5) -> list[dict[str, Any]]:
    """Every message the server sends until it has sent none for ``quiet`` seconds."""
    got = []
    while True:
        try:
            got.append(await client.recv(quiet))
        except TimeoutError:
            return got


@pytest.mark.parametrize("limits_override", [{"human_rate": 0.01, "human_burst": 5.0}])
async def test_a_flood_past_the_rate_gets_a_burst_of_refusals_then_is_not_read(
    client_factory: Any,
) -> None:
    c = await client_factory("flooder")  # hello took 1 of the 5 tokens
    for i in range(60):
        await c.send(type="ping", id=i)
    got = await replies_until_quiet(c)
    assert [r["type"] for r in got] == ["pong"] * 4 + ["error"] * 5  # then nothing is read
    assert [r["id"] for r in got] == list(range(9))
    other = await client_factory("other")
    await other.alive()
    c.ws.transport.abort()  # its close frame would wait behind the unread pings


@pytest.mark.parametrize("limits_override", [{"human_rate": 20.0, "human_burst": 4.0}])
async def test_a_throttled_connection_is_answered_again_in_order(client_factory: Any) -> None:
    c = await client_factory("eager")
    for i in range(40):
        await c.send(type="ping", id=i)
    got = [await c.recv() for _ in range(40)]
    assert [r["id"] for r in got] == list(range(40))  # nothing lost, nothing reordered
    assert sum(r["type"] == "pong" for r in got) > 3 + 4  # read again once it had tokens
