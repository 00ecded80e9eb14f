"""The store cannot freeze the loop, stays bounded, and forgets players nobody will miss."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from support.clients import RawClient, connected
from support.stores import HeldLock, loop_answers_while_a_commit_waits
from support.waiting import until
from websockets.asyncio.client import connect

from server.core.arena import Arena
from server.core.journal.rows import PlayerRow
from server.core.limits import Limits
from server.shell.pipeline import Pipeline
from server.shell.server import ArenaServer, ServerConfig
from server.storage.sqlite import Store


class WriteLock(HeldLock):
    """Another connection holding the SQLite write lock."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path

    def _hold(self) -> None:
        db = sqlite3.connect(self.path, isolation_level=None)
        db.execute("BEGIN IMMEDIATE")
        self.taken.set()
        self.release.wait(30)
        db.execute("ROLLBACK")
        db.close()


async def make_server(
    tmp_path: Path, commit_timeout: float = 10.0, **limits: Any
) -> AsyncIterator[ArenaServer]:
    """A server on its own SQLite file, with the store's commit timeout given."""
    settings: dict[str, Any] = {"human_rate": 1000.0, "human_burst": 1000.0}
    settings |= {"full_sweep_interval": 0.05} | limits
    store = Store(tmp_path / "arena.sqlite3", commit_timeout=commit_timeout)
    srv = ArenaServer(Arena(limits=Limits(**settings)), ServerConfig(port=0), store)
    await srv.start()
    srv.url = f"ws://127.0.0.1:{srv.port}"  # type: ignore[attr-defined]
    try:
        yield srv
    finally:
        await srv.stop()


@pytest.fixture
async def srv(tmp_path: Path) -> AsyncIterator[ArenaServer]:
    """A server whose commits wait up to 10 s for the write lock."""
    async for s in make_server(tmp_path, player_ttl=0.3):
        yield s


async def test_a_held_write_lock_does_not_freeze_the_loop(srv: Any, tmp_path: Path) -> None:
    await loop_answers_while_a_commit_waits(srv.url, WriteLock(tmp_path / "arena.sqlite3"))


async def test_a_store_that_stays_locked_stops_the_server_and_says_so(tmp_path: Path) -> None:
    async for server in make_server(tmp_path, commit_timeout=0.5):
        alice = await connected(server.url, "alice")  # type: ignore[attr-defined]
        async with WriteLock(tmp_path / "arena.sqlite3"):
            await alice.send(type="create_room", game="gomoku")
            assert (await alice.expect("server_shutdown", timeout=10))["type"]
            await asyncio.wait_for(server.failed.wait(), 10)
            assert "joined" not in [m["type"] for m in alice.seen]
        await alice.close()


async def test_players_without_seats_or_history_are_pruned(srv: Any, tmp_path: Path) -> None:
    alice, bob = await connected(srv.url, "alice"), await connected(srv.url, "bob")
    room = (await alice.request(type="create_room", game="tictactoe", seat=0))["room"]
    await bob.request(type="join_room", room=room)
    for ply, (x, y) in enumerate([(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)]):
        await (alice, bob)[ply % 2].request(type="move", room=room, x=x, y=y)
    await alice.request(type="leave_room", room=room)
    await bob.request(type="leave_room", room=room)
    passers = [await connected(srv.url, f"passer{i}") for i in range(20)]
    waiting = await connected(srv.url, "waiting")
    await waiting.request(type="create_room", game="gomoku")
    for c in (*passers, alice, bob):
        await c.close()
    keep = {alice.player, bob.player, waiting.player}
    await until(lambda: set(srv.arena.players) == keep)

    def rows() -> set[str]:
        db = sqlite3.connect(tmp_path / "arena.sqlite3")
        try:
            return {r[0] for r in db.execute("SELECT pid FROM players")}
        finally:
            db.close()

    await until(lambda: rows() == keep)  # on main, 3,000 hellos left 3,000 rows for good
    again = RawClient(await connect(srv.url, compression=None))
    await again.error("bad_session", type="hello", protocol=1, name="p", kind="human",
                      session=passers[0].session)  # fmt: skip
    await again.hello("alice", session=alice.session)  # a player with history resumes
    await again.close()
    await waiting.close()


@pytest.mark.slow
async def test_the_wal_is_cut_back_after_checkpoints(tmp_path: Path) -> None:
    store = Store(tmp_path / "w.sqlite3", wal_limit=256 * 1024)
    pipeline = Pipeline(store)
    pipeline.start()
    delivered = []
    for batch in range(60):
        rows = [
            PlayerRow(f"p_{batch}_{i}", "x" * 32, "human", f"{batch}-{i}-" + "h" * 60, 0.0)
            for i in range(200)
        ]
        pipeline.submit(list(rows), lambda: delivered.append(1))
        await asyncio.sleep(0)
    await pipeline.flush()
    assert len(delivered) == 60
    assert store.wal_size() > 256 * 1024  # about 3 MB written: the WAL grew
    await until(lambda: store.wal_size() <= 256 * 1024, timeout=20)  # and is cut back
    await pipeline.close()
    store.close()
