"""A crowd of idle connections closing at once does not stall the event loop: their ends take a
bounded share of each loop turn, so an honest client's pings keep being answered meanwhile."""

from __future__ import annotations

import asyncio
import math
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from support.waiting import until

from server.shell.ends import Ends

CROWD = 2000
SCRIPT = Path(__file__).parent / "support" / "crowd.py"
PINGS = {"human_rate": 10_000.0, "human_burst": 10_000.0, "reconnect_grace": 60.0}

pytestmark = pytest.mark.slow


def start_crowd(url: str, base: int) -> subprocess.Popen[str]:
    """``CROWD`` idle players (hello'd) from 127.``base``.x.y, in a process of their own."""
    proc = subprocess.Popen(
        [sys.executable, str(SCRIPT), url, str(CROWD), str(base)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.startswith("ready"):
        proc.kill()
        raise AssertionError(f"the crowd did not connect: {line!r}")
    return proc


async def burst(
    server: Any, client_factory: Any, base: int, kill: bool = True
) -> tuple[float, float]:
    """Kill (or close) a crowd while an honest client pings every 2 ms: the worst round trip
    (seconds) from the kill until every crowd player is offline, and how long that took."""
    crowd = await asyncio.to_thread(start_crowd, server.url, base)
    try:
        honest = await client_factory(f"honest{base}")
        await until(lambda: len(server.fanout.sockets) == CROWD + 1)
        worst, done = 0.0, False

        async def pinger() -> None:
            nonlocal worst
            while not done:
                sent = time.perf_counter()
                reply = await honest.request(type="ping")
                assert reply["type"] == "pong", reply
                worst = max(worst, time.perf_counter() - sent)
                await asyncio.sleep(0.002)

        for _ in range(20):  # warm: the pinger's path is hot before the burst
            await honest.request(type="ping")
        task = asyncio.create_task(pinger())
        start = time.perf_counter()
        if kill:
            crowd.send_signal(signal.SIGKILL)
        else:
            assert crowd.stdin is not None
            crowd.stdin.write("close\n")
            crowd.stdin.flush()
        await until(lambda: len(server.fanout.sockets) == 1, timeout=60)
        took = time.perf_counter() - start
        done = True
        await task
        crowd_players = [p for p in server.arena.players.values() if p.name.startswith("idle")]
        assert len(crowd_players) >= CROWD and not any(p.online for p in crowd_players)
        await honest.close()
        return worst, took
    finally:
        if crowd.poll() is None:
            crowd.kill()
        crowd.wait()


def unbounded(ends: Ends) -> None:
    """Let ``ends`` run every end at once (the server before its ends had a budget)."""
    ends.budget = math.inf


@pytest.mark.parametrize("limits_override", [PINGS])
@pytest.mark.parametrize("kill", [True, False], ids=["kill", "close"])
async def test_a_crowd_closing_at_once_leaves_honest_pings_answered(
    server: Any, client_factory: Any, kill: bool
) -> None:
    budget = server.guard.ends.budget
    unbounded(server.guard.ends)
    stall, stall_took = await burst(server, client_factory, 3, kill)
    server.guard.ends.budget = budget
    worst, took = await burst(server, client_factory, 4, kill)
    print(f"{CROWD} closes: one stretch {stall * 1e3:.1f} ms (over in {stall_took * 1e3:.0f} ms);"
          f" budgeted {worst * 1e3:.1f} ms (over in {took * 1e3:.0f} ms)")  # fmt: skip
    assert stall > 0.02, "the burst without a budget no longer stalls: make the crowd larger"
    assert worst < stall / 3, (worst, stall)
