"""A crowd of idle connections closing at once does not stall the event loop: their ends take a
bounded share of each loop turn, so an honest client's pings keep being answered meanwhile.

Measured against the same burst with the budget lifted (every end at once, as before it had
one), in the same run: the loop's turns in CPU time of its thread (what a busy machine's
preemption does not inflate), the longest but one (the loop itself reads every socket's EOF in
one turn, whatever the server does with them: ~9 ms for 2,000 on stock asyncio), and the honest
client's worst ping round trip."""

from __future__ import annotations

import asyncio
import math
import signal
import time
from dataclasses import dataclass
from typing import Any

import pytest
from support.crowd import start as start_crowd
from support.waiting import until

from server.shell.ends import Ends

CROWD = 2000
#: Pairs of bursts tried before the budgeted one's worst ping must have beaten the unbounded
#: one's: a ping is wall time, and the suite's other worker may load the machine in one burst.
PAIRS = 3
PINGS = {"human_rate": 10_000.0, "human_burst": 10_000.0, "reconnect_grace": 60.0}

pytestmark = pytest.mark.slow


class Turns:
    """Times every turn of the running loop (a callback that schedules itself again) in CPU
    time of the loop's thread; keeps the two longest."""

    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.longest = [0.0, 0.0]
        self.on = True
        self._last = time.thread_time()
        self.loop.call_soon(self._tick)

    def _tick(self) -> None:
        now = time.thread_time()
        self.longest = sorted([*self.longest, now - self._last])[-2:]
        self._last = now
        if self.on:
            self.loop.call_soon(self._tick)


@dataclass
class Burst:
    """What one burst of ends cost the loop (seconds)."""

    worst_ping: float
    #: The longest turn of the loop but one (CPU seconds of its thread).
    long_turn: float
    took: float
    #: Crowd players still online when a player in a room who left mid-burst was seen offline.
    crowd_left: int


async def burst(server: Any, client_factory: Any, base: int, kill: bool = True) -> Burst:
    """Kill (or close) a crowd while an honest client pings every 2 ms, from then until every
    crowd player is offline; mid-burst a player in a room drops, and its opponent waits for
    the news."""
    crowd = await asyncio.to_thread(start_crowd, server.url, CROWD, base)
    try:
        honest = await client_factory(f"honest{base}")
        alice, bob = await client_factory(f"alice{base}"), await client_factory(f"bob{base}")
        room = (await alice.request(type="create_room", game="gomoku", seat=0))["room"]
        await bob.request(type="join_room", room=room)
        await until(lambda: len(server.fanout.sockets) == CROWD + 3)
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
        turns = Turns()
        start = time.perf_counter()
        if kill:
            crowd.send_signal(signal.SIGKILL)
        else:
            assert crowd.stdin is not None
            crowd.stdin.write("close\n")
            crowd.stdin.flush()
        if server.guard.ends.budget < math.inf:  # the crowd's ends wait their turns
            await until(lambda: len(server.guard.ends) >= 50, timeout=30)
        bob.ws.transport.abort()  # gone without a word, as a player's lost network goes
        await alice.expect("presence", room=room, seat=1, online=False)
        crowd_left = len(server.fanout.sockets) - 2  # all but the pinger and alice
        await until(lambda: len(server.fanout.sockets) == 2, timeout=60)
        took = time.perf_counter() - start
        turns.on = done = True
        await task
        crowd_players = [p for p in server.arena.players.values() if p.name.startswith("idle")]
        assert len(crowd_players) >= CROWD and not any(p.online for p in crowd_players)
        await honest.close()
        await alice.close()
        return Burst(worst, turns.longest[0], took, crowd_left)
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
    for attempt in range(PAIRS):
        unbounded(server.guard.ends)
        stall = await burst(server, client_factory, 3 + 2 * attempt, kill)
        server.guard.ends.budget = budget
        spread = await burst(server, client_factory, 4 + 2 * attempt, kill)
        for name, b in (("at once", stall), ("budgeted", spread)):
            turn, ping, took = b.long_turn * 1e3, b.worst_ping * 1e3, b.took * 1e3
            print(f"{CROWD} ends {name}: longest turn but one {turn:.1f} ms of CPU, ", end="")
            print(f"worst ping {ping:.1f} ms, all offline in {took:.0f} ms; ", end="")
            print(f"a player in a room seen offline with {b.crowd_left} of the crowd still on")
        # CPU time, every pair: the budget's doing, whatever else the machine runs
        assert stall.long_turn > 0.015, "ends at once no longer stall the loop: a larger crowd"
        # (at most a half: a killed crowd's EOFs may come over two turns, each ~5-9 ms to read
        # whatever the budget; a third failed once so in CI, 9.7 against 28.4 ms)
        assert spread.long_turn < stall.long_turn / 2, (spread, stall)
        assert spread.crowd_left > 0, "the player in a room waited behind the whole crowd"
        if spread.worst_ping < stall.worst_ping:  # wall time: another test's load can hit one
            break
    else:
        raise AssertionError(f"budgeted ends pinged no better in {PAIRS} pairs: {spread}, {stall}")
