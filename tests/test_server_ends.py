"""The guard's ``Ends``: connections' ends take a bounded share of each loop turn, in order,
players' in rooms first; one that fails does not stop the others.

Timed on a fake clock (an end "takes" what it advances the clock by): the rules hold however
loaded the machine is. The real burst is ``test_server_close_burst.py``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

import pytest
from support.clock import FakeClock

from server.shell.ends import Ends


def costing(clock: FakeClock, seconds: float, ran: list[str], name: str) -> Callable[[], None]:
    """An end ``name`` that takes ``seconds`` of the (fake) clock and says it ran."""

    def run() -> None:
        ran.append(name)
        clock.advance(seconds)

    return run


async def test_ends_run_at_once_within_the_budget_then_a_budget_per_turn_in_order() -> None:
    clock = FakeClock(1000.0)
    ends = Ends(budget=0.001, clock=clock)
    ran: list[str] = []
    ends.run(costing(clock, 0.0004, ran, "a"))
    ends.run(costing(clock, 0.0004, ran, "b"))
    assert ran == ["a", "b"] and len(ends) == 0  # a lone close is handled at once
    for name in "cdefg":
        ends.run(costing(clock, 0.0004, ran, name))
    assert ran == ["a", "b", "c"] and len(ends) == 4 and ends.deferred == 4  # budget spent
    await asyncio.sleep(0)  # the next turn: 0.4 + 0.4 + 0.4 ms, then the budget is spent
    assert ran == list("abcdef") and len(ends) == 1
    await asyncio.sleep(0)
    assert ran == list("abcdefg") and len(ends) == 0
    await asyncio.sleep(0)
    assert ends.spent == 0.0


async def test_a_player_in_a_room_ends_before_the_idle_crowd_waiting() -> None:
    clock = FakeClock(1000.0)
    ends = Ends(budget=0.001, clock=clock)
    ran: list[str] = []
    for n in range(6):
        ends.run(costing(clock, 0.0006, ran, f"idle{n}"))
    assert ran == ["idle0", "idle1"]
    ends.run(costing(clock, 0.0006, ran, "player"), first=True)  # the budget is spent: it waits
    ends.run(costing(clock, 0.0006, ran, "player-lost"), first=True)  # its next end, after it
    assert ran == ["idle0", "idle1"]
    await asyncio.sleep(0)
    assert ran == ["idle0", "idle1", "player", "player-lost"]  # ahead of the crowd, in order
    await asyncio.sleep(0)
    assert ran[4:] == ["idle2", "idle3"]
    ends.run(costing(clock, 0.0, ran, "late-idle"))  # the budget is spent: behind the others
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert ran[6:] == ["idle4", "idle5", "late-idle"] and len(ends) == 0


async def test_each_turn_runs_at_least_one_end_and_a_failing_one_stops_none(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = FakeClock(1000.0)
    ends = Ends(budget=0.0, clock=clock)
    ran: list[str] = []

    def fails() -> None:
        ran.append("fails")
        raise RuntimeError("boom")

    with caplog.at_level(logging.ERROR, logger="mnk.server"):
        ends.run(fails)
        ends.run(costing(clock, 0.0, ran, "next"))
        assert ran == []  # no budget at all: every end waits for a turn
        await asyncio.sleep(0)
        assert ran == ["fails"]
        await asyncio.sleep(0)
        assert ran == ["fails", "next"]
    assert "ending a connection failed" in caplog.text
