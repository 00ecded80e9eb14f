"""Fair clocks over a slow network, end to end: a real server on loopback, Alice behind a 150 ms
round trip (tests/support/slowlink.py), Bob next door answering at once. Alice thinks the same
fixed time every move in each game; her clock is too short to pay the wire as well.

With lag compensation (the server's pings measure her link) she is not flagged, as a client next
door with the same thinking time is not; with it turned off (``Limits.max_lag_refund = 0``) the
same game flags her. And a server killed with SIGKILL and restarted keeps the clocks as they
stood and goes on compensating (the quotas start again, the lag is measured again).
"""

from __future__ import annotations

import asyncio
import statistics
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from support.clients import RawClient
from support.servers import ServerProcess
from support.slowlink import SlowLink
from support.waiting import until
from websockets.asyncio.client import connect

from server.core.arena import Arena
from server.core.limits import Limits
from server.shell.server import ArenaServer, ServerConfig
from server.storage.factory import open_store

pytestmark = pytest.mark.slow

#: One way of Alice's link: a 150 ms round trip.
ONE_WAY = 0.075
#: Alice's thinking time every move, her moves in the game, and a clock that holds them with
#: 0.9 s to spare when the wire is not charged, and is 0.9 s short when it is (12 x 0.15 s).
THINK = 0.15
MOVES = 12
CLOCK = {"initial_s": THINK * MOVES + 0.9, "increment_s": 0.0}
#: Cells far enough apart that nobody makes five: Alice's rows 0, 4, 8; Bob's 2, 6, 10.
ALICE_CELLS = [(x, y) for y in (0, 4, 8) for x in range(0, 15, 2)]
BOB_CELLS = [(x, y) for y in (2, 6, 10) for x in range(0, 15, 2)]


@asynccontextmanager
async def served(tmp_path: Path, **limits: Any) -> AsyncIterator[ArenaServer]:
    """A real server (SQLite, durable) on loopback with ``limits``, stopped after."""
    settings: dict[str, Any] = {"full_sweep_interval": 0.1, "human_rate": 1000.0}
    tmp_path.mkdir(exist_ok=True)
    srv = ArenaServer(
        Arena(limits=Limits(**settings | limits)),
        ServerConfig(port=0, sweep_interval=0.02),
        open_store(str(tmp_path / "lag.sqlite3")),
    )
    await srv.start()
    try:
        yield srv
    finally:
        await srv.stop()


async def client(url: str, name: str, session: str | None = None) -> RawClient:
    """A raw client at ``url`` that said hello (resuming ``session`` if given)."""
    c = RawClient(await connect(url, compression=None))
    await (c.hello(name) if session is None else c.hello(name, session=session))
    return c


async def next_of(c: RawClient, ply: int) -> dict[str, Any]:
    """The ``moved`` of ``ply`` or a ``game_over``, whichever comes first (the rest skipped)."""
    while True:
        message = await c.recv()
        if message["type"] == "game_over" or (message["type"] == "moved" and message["ply"] == ply):
            return message


async def play(alice: RawClient, bob: RawClient, room: str, moves: int, ply: int = 0) -> Any:
    """Alice thinks ``THINK`` then moves, Bob answers at once, ``moves`` times from ``ply``.

    Returns the ``game_over`` if the game ended, else Alice's clock after each of her moves.
    """
    clocks: list[float] = []
    for _ in range(moves):
        await asyncio.sleep(THINK)  # the thinking itself, the thing being timed
        x, y = ALICE_CELLS[(ply // 2) % len(ALICE_CELLS)]
        await alice.send(type="move", room=room, x=x, y=y, ply=ply)
        seen = await next_of(bob, ply)
        if seen["type"] == "game_over":
            return seen
        clocks.append(seen["clocks"][0])
        x, y = BOB_CELLS[(ply // 2) % len(BOB_CELLS)]
        await bob.send(type="move", room=room, x=x, y=y, ply=ply + 1)
        reply = await next_of(alice, ply + 1)  # her turn begins
        if reply["type"] == "game_over":
            return reply
        ply += 2
    return clocks


async def timed_game(srv: ArenaServer, lagged: bool) -> Any:
    """Alice (behind the slow link if ``lagged``) against Bob on ``CLOCK``: what :func:`play`
    returns for her ``MOVES`` moves."""
    link = await SlowLink(srv.port, ONE_WAY).start() if lagged else None
    alice = await client(link.url if link else srv.local_url, "alice")
    bob = await client(srv.local_url, "bob")
    try:
        if lagged:  # the ping at hello measured her link (the keepalive would, in 20 s)
            player = srv.arena.players[alice.player]
            await until(lambda: player.lag > 0.1)
            assert 2 * ONE_WAY <= player.lag < 2 * ONE_WAY + 0.1
        reply = await alice.request(type="create_room", game="gomoku", seat=0, clock=CLOCK)
        room = reply["room"]
        await bob.request(type="join_room", room=room)
        await alice.expect("state", status="playing")
        return await play(alice, bob, room, MOVES)
    finally:
        await alice.close()
        await bob.close()
        if link is not None:
            await link.close()


async def test_a_lagged_client_is_not_flagged_where_a_client_next_door_is_not(
    tmp_path: Path,
) -> None:
    async with served(tmp_path / "a") as srv:
        near = await timed_game(srv, lagged=False)
    async with served(tmp_path / "b") as srv:
        far = await timed_game(srv, lagged=True)
    assert isinstance(near, list) and len(near) == MOVES, near  # no flag next door
    assert isinstance(far, list) and len(far) == MOVES, far  # nor 150 ms away
    # her clock ends about where the neighbour's does: the wire was not charged to her
    assert abs(far[-1] - near[-1]) < 0.5, (near, far)
    assert far[-1] > 0.3


async def test_without_lag_compensation_the_same_lagged_client_flags(tmp_path: Path) -> None:
    async with served(tmp_path, max_lag_refund=0.0) as srv:
        over = await timed_game(srv, lagged=True)
    assert isinstance(over, dict), f"not flagged: clocks {over}"
    assert over["reason"] == "timeout" and over["winner"] == 1, over


async def test_a_sigkill_keeps_the_clocks_and_the_compensation(proc: ServerProcess) -> None:
    """Three lagged moves each side of a kill -9: each charged about her thinking time only.

    No wait for the pings: the server pings a connection as it says hello, before the ``state``
    it sends her, so her pong reaches it before any move she makes after that ``state``."""
    await proc.start()
    link = await SlowLink(proc.port, ONE_WAY).start()
    spec = {"initial_s": 60.0, "increment_s": 0.0}
    try:
        alice, bob = await client(link.url, "alice"), await proc.client("bob")
        room = (await alice.request(type="create_room", game="gomoku", seat=0, clock=spec))["room"]
        await bob.request(type="join_room", room=room)
        await alice.expect("state", status="playing")
        before = await play(alice, bob, room, 3)
        assert isinstance(before, list), before
        proc.kill()
        await proc.start()
        alice = await client(link.url, "alice", alice.session)
        bob = await proc.client("bob", bob.session)
        state = await alice.expect("state", room=room)
        assert state["status"] == "playing" and state["clock_running"] == 0
        # the clock stands where her last move left it, less at most her turn until the kill
        assert before[-1] - 2.0 <= state["clocks"][0] <= before[-1] + 1e-3, (before, state)
        after = await play(alice, bob, room, 3, ply=6)
        assert isinstance(after, list), after
    finally:
        await link.close()
    # each move but the first on each side of the kill (their turns began before the measure):
    charged = [before[0] - before[1], before[1] - before[2], after[0] - after[1]]
    charged.append(after[1] - after[2])
    assert statistics.mean(charged) < THINK + 0.1, charged  # uncompensated: >= THINK + 0.15
