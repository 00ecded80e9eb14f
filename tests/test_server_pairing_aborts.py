"""A paired game aborted by the first-move deadline on the real server (the deadline shortened):
the player not at fault is put back in the pool first in line, the one at fault is not, and a
wave does not pair the two again."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.slow

CLOCK = {"initial_s": 180, "increment_s": 2}


@pytest.fixture
def limits_override() -> dict[str, float]:
    """3+2's first-move deadline is 25 s at the default 30 s scale: 2.5 s here."""
    return {"first_move_timeout": 3.0}


async def test_a_first_move_abort_reseeks_the_innocent_and_blocks_the_pair(
    client_factory: Any,
) -> None:
    alice, bob = await client_factory("alice"), await client_factory("bob")
    mine = await alice.request(type="seek", game="gomoku", clock=CLOCK)
    theirs = await bob.request(type="seek", game="gomoku", clock=CLOCK)
    seats = {c: (await c.expect("joined", timeout=10))["seat"] for c in (alice, bob)}
    late = alice if seats[alice] == 0 else bob  # seat 0 moves first, and never does
    innocent = bob if late is alice else alice
    over = await innocent.expect("game_over", timeout=15)
    assert over["reason"] == "aborted"
    again = await innocent.expect("seeking", timeout=10)
    assert "id" not in again
    placed = mine if innocent is alice else theirs
    assert again["seek"]["seek"] == placed["seek"]["seek"]
    page = await late.request(type="list_seeks")
    assert [s["player"] for s in page["seeks"]] == [innocent.player]  # not the one at fault
    retry = await late.request(type="seek", game="gomoku", clock=CLOCK)
    assert retry["type"] == "seeking"
    carol = await client_factory("carol")
    await carol.request(type="seek", game="gomoku", clock=CLOCK)
    paired = await carol.expect("joined", timeout=10)
    mate = await innocent.expect("joined", timeout=10)
    assert mate["room"] == paired["room"]  # first in line: carol's opponent, not the late one
    page = await late.request(type="list_seeks")
    assert [s["seek"] for s in page["seeks"]] == [retry["seek"]["seek"]]
