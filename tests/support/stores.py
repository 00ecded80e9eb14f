"""The two stores for tests: a fresh database per backend, and a lock that holds commits back."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest

from support.clients import connected


def backend_db(request: pytest.FixtureRequest, backend: str, tmp_path: Path) -> str:
    """A fresh ``--db`` value: a SQLite file in ``tmp_path`` or a new PostgreSQL database."""
    if backend == "postgresql":
        return str(request.getfixturevalue("pg_url"))
    return str(tmp_path / "arena.sqlite3")


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def both_dbs(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The test server's database, once per store (``db = both_dbs`` in a module).

    The PostgreSQL run is ``slow`` (it starts the session's PostgreSQL server): the fast loop
    (``-m "not slow"``) keeps the SQLite one.
    """
    return backend_db(request, request.param, tmp_path)


class HeldLock:
    """A lock on the database held by another connection, in a thread of its own."""

    def __init__(self) -> None:
        self.taken = threading.Event()
        self.release = threading.Event()
        self.thread = threading.Thread(target=self._hold, daemon=True)

    def _hold(self) -> None:
        """Take the lock, set ``taken``, wait for ``release``, let go."""
        raise NotImplementedError

    async def __aenter__(self) -> HeldLock:
        self.thread.start()
        await asyncio.to_thread(self.taken.wait, 10)
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.release.set()
        await asyncio.to_thread(self.thread.join, 10)


async def loop_answers_while_a_commit_waits(url: str, lock: HeldLock) -> None:
    """While ``lock`` holds a move's commit back, pings are answered and the move is not sent."""
    alice, bob = await connected(url, "alice"), await connected(url, "bob")
    pinger = await connected(url, "pinger")
    room = (await alice.request(type="create_room", game="gomoku", seat=0))["room"]
    await bob.request(type="join_room", room=room)
    async with lock:
        await alice.send(type="move", room=room, x=7, y=7)
        worst = 0.0
        for _ in range(10):  # on main each ping waited out the 5 s busy timeout
            started = time.monotonic()
            await pinger.alive()
            worst = max(worst, time.monotonic() - started)
            await asyncio.sleep(0.1)
        with pytest.raises(TimeoutError):  # nothing uncommitted leaves
            await bob.expect("moved", timeout=0.3)
    assert worst < 1.0
    assert (await bob.expect("moved", timeout=10))["x"] == 7
    for c in (alice, bob, pinger):
        await c.close()
