"""One process per ``--node`` name on a real PostgreSQL: a second one refuses to start (naming
the running one) without fencing it, and ``kill -9`` of the first leaves no stale lock."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import psycopg
import pytest
from support.servers import MOVES, ServerProcess, play, second_server

from server.cluster import lease
from server.core.journal.rows import Heartbeat
from server.storage.base import Fenced, StoreLocked
from server.storage.locks import NODE_LOCK_CLASS, node_key
from server.storage.postgres import PgStore

pytestmark = pytest.mark.slow  # real node processes on a real PostgreSQL


def lock_held(url: str, node: str) -> bool:
    """Whether some session holds ``node``'s name lock now."""
    with psycopg.connect(url) as db:
        row = db.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted "
            "AND classid = %s AND objid = %s AND objsubid = 2",
            (NODE_LOCK_CLASS, node_key(node) & 0xFFFFFFFF),
        ).fetchone()
    return row is not None and row[0] > 0


def epoch(url: str, node: str) -> int:
    """``node``'s lease epoch (bumped by every process that joins under the name)."""
    with psycopg.connect(url) as db:
        row = db.execute("SELECT epoch FROM nodes WHERE node = %s", (node,)).fetchone()
    assert row is not None
    return int(row[0])


async def wait_for(check: Callable[[], bool], timeout: float = 30.0) -> None:
    """Poll ``check`` (blocking, run off the loop) until it holds."""
    deadline = time.monotonic() + timeout
    while not await asyncio.to_thread(check):
        assert time.monotonic() < deadline, "condition not reached in time"
        await asyncio.sleep(0.05)


async def test_a_second_process_of_one_node_name_refuses_and_the_first_serves_on(
    pg_url: str,
) -> None:
    node = ("--node", "a", "--lease", "3")
    first = ServerProcess(pg_url, extra=node)
    await first.start()
    try:
        assert first.proc is not None
        alice, room = await play(first, MOVES[:2])
        before = epoch(pg_url, "a")
        done = second_server(pg_url, *node)
        assert done.returncode != 0 and "Traceback" not in done.stderr
        [line] = done.stderr.strip().splitlines()
        assert line.startswith("mnk-server: node a is running already")
        assert f"pid {first.proc.pid} " in line
        assert epoch(pg_url, "a") == before  # the refused start fenced nothing
        await alice.request(type="move", room=room, x=7, y=8, ply=2)  # the first serves on
        await alice.close()
        first.kill()  # kill -9: PostgreSQL ends its session, and the lock with it
        await wait_for(lambda: not lock_held(pg_url, "a"))
        again = ServerProcess(pg_url, extra=node)
        await again.start()
        try:
            back = await again.client("alice", alice.session)
            state = await back.expect("state", room=room)
            assert state["moves"] == [list(m) for m in MOVES]
            await back.close()
        finally:
            again.kill()
    finally:
        if first.proc is not None and first.proc.poll() is None:
            first.kill()


def end_sessions(url: str) -> None:
    """End every other session of the database, as a restart of PostgreSQL would."""
    with psycopg.connect(url, autocommit=True) as db:
        db.execute(
            "SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )


def test_a_node_takes_its_name_again_when_its_session_was_lost(pg_url: str) -> None:
    store = PgStore(pg_url, node="n", leases=lease)
    end_sessions(pg_url)
    assert not lock_held(pg_url, "n")
    store.write([Heartbeat(1.0)])  # on a new connection, the name taken again first
    assert lock_held(pg_url, "n")
    with pytest.raises(StoreLocked, match=r"node n is running already \(mnk-server node n pid"):
        PgStore(pg_url, node="n", leases=lease)
    end_sessions(pg_url)
    other = PgStore(pg_url, node="n", leases=lease)  # meanwhile another process took the name
    with pytest.raises(Fenced):
        store.write([Heartbeat(2.0)])
    assert store.fenced
    other.write([Heartbeat(3.0)])
    other.close()
    store.close()
