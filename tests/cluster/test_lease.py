"""Leases and fencing on a real PostgreSQL: a lapsed node's rooms are adopted exactly once."""

from __future__ import annotations

import threading
import time
from typing import Any

import psycopg
import pytest

from server.cluster import lease
from server.cluster.lease import Fenced
from server.core.journal.rows import GameRow, Heartbeat, MoveRow, PlayerRow, RoomRow
from server.storage.base import StoreLocked, StoreUnavailable
from server.storage.locks import NODE_LOCK_CLASS, node_key
from server.storage.postgres import PgStore

pytestmark = pytest.mark.slow  # a real PostgreSQL

VARIANT = {"name": "gomoku", "width": 15, "height": 15, "k": 5, "rule": "freestyle"}
ROOMS = 40


def rooms_of(store: PgStore, count: int, alive_at: float) -> list[str]:
    """Write ``count`` playing rooms with a move each, and a heartbeat at ``alive_at``."""
    records: list[Any] = [PlayerRow(p, p, "human", f"h{p}", 0.0) for p in ("a", "b", "c")]
    for i in range(count):
        gid = f"g{i}"
        records += [
            GameRow(gid, f"r{i}", 1, VARIANT, {}, None, ("a", "b"), ("a", "b"), ("human",) * 2,
                    "playing", None, None, (), 1.0, 2.0, None),
            RoomRow(f"r{i}", gid),
            MoveRow(gid, 0, 7, 7, 3.0, None),
        ]  # fmt: skip
    store.write([*records, Heartbeat(alive_at)])
    return [f"r{i}" for i in range(count)]


def lapsed(url: str, node: str) -> bool:
    """Whether ``node``'s lease has run out by PostgreSQL's clock."""
    with psycopg.connect(url) as db:
        row = db.execute(
            "SELECT lease_until < extract(epoch FROM clock_timestamp()) FROM nodes WHERE node = %s",
            (node,),
        ).fetchone()
    return row is not None and row[0]


def lose_name_lock(url: str, node: str) -> None:
    """End the session holding ``node``'s name lock (PostgreSQL 14+ waits until it is gone)."""
    with psycopg.connect(url, autocommit=True) as db:
        db.execute(
            "SELECT pg_terminate_backend(pid, 10000) FROM pg_locks WHERE locktype = 'advisory' "
            "AND classid = %s AND objid = %s AND objsubid = 2",
            (NODE_LOCK_CLASS, node_key(node) & 0xFFFFFFFF),
        )


def wait_until(check: Any, timeout: float = 30.0) -> None:
    """Poll ``check`` until it holds."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.05)


def test_a_node_restarted_owns_its_rooms_and_fences_its_old_process(pg_url: str) -> None:
    old = PgStore(pg_url, node="a", leases=lease)
    rooms_of(old, 2, alive_at=10.0)
    with pytest.raises(StoreLocked, match="node a is running already"):
        PgStore(pg_url, node="a", leases=lease)  # refused while the name's lock is held
    old.write([Heartbeat(10.5)])  # and the refused start fenced nothing
    lose_name_lock(pg_url, "a")  # as a partition would: the old process runs on unseen
    again = PgStore(pg_url, node="a", leases=lease)  # the same name again: a new epoch
    snap = again.load()
    assert [r.room for r, _, _ in snap.rooms] == ["r0", "r1"] and snap.alive_at == 10.5
    other = PgStore(pg_url, node="b", leases=lease).load()
    assert other.rooms == []  # b owns nothing; it knows the players with a history only
    assert {p.pid for p in snap.players} == {p.pid for p in other.players} == {"a", "b"}
    with pytest.raises(StoreUnavailable, match="--node"):
        PgStore(pg_url)  # a server without --node must not run beside live nodes
    with pytest.raises(Fenced):
        old.write([Heartbeat(11.0)])
    assert old.fenced
    again.write([Heartbeat(12.0)])


def test_two_survivors_racing_adopt_each_room_exactly_once(pg_url: str) -> None:
    dead = PgStore(pg_url, node="dead", lease_s=0.5, leases=lease)
    rooms = rooms_of(dead, ROOMS, alive_at=42.0)
    survivors = [PgStore(pg_url, node=f"s{i}", leases=lease) for i in range(2)]
    wait_until(lambda: lapsed(pg_url, "dead"))
    got: dict[str, list[tuple[str, Any]]] = {"s0": [], "s1": []}
    start = threading.Barrier(2)

    def race(store: PgStore) -> None:
        start.wait(10)
        for _ in range(20):
            got[str(store.node)] += store.adopt_lapsed()

    threads = [threading.Thread(target=race, args=(s,)) for s in survivors]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    adopted = [(who, r.room) for who, found in got.items() for _, s in found for r, _, _ in s.rooms]
    assert sorted(room for _, room in adopted) == sorted(rooms)  # every room, once
    for _, snap in got["s0"] + got["s1"]:
        assert snap.alive_at == 42.0  # clocks are charged up to the dead node's heartbeat
        assert all([m.ply for m in moves] == [0] for _, _, moves in snap.rooms)
    with psycopg.connect(pg_url) as db:
        owners = dict(db.execute("SELECT room, owner FROM rooms WHERE epoch = 1").fetchall())
        assert owners == dict((room, who) for who, room in adopted)
        assert db.execute("SELECT count(*) FROM rooms WHERE epoch <> 1").fetchone() == (0,)
    with pytest.raises(Fenced):  # the dead node wakes up: it can write nothing more
        dead.write([MoveRow("g0", 1, 8, 8, 50.0, None)])
    with pytest.raises(psycopg.errors.RaiseException, match="mnk-fenced"):
        dead.adopt_lapsed()  # nor adopt anything back
    with psycopg.connect(pg_url) as db:
        assert db.execute("SELECT count(*) FROM moves WHERE ply = 1").fetchone() == (0,)


def test_the_first_node_takes_the_rooms_a_single_server_left(pg_url: str) -> None:
    single = PgStore(pg_url)
    rooms = rooms_of(single, 2, alive_at=3.0)
    single.close()
    first = PgStore(pg_url, node="first", leases=lease)
    assert [r.room for r, _, _ in first.load().rooms] == rooms
    assert PgStore(pg_url, node="second", leases=lease).load().rooms == []


def test_a_clean_stop_hands_the_rooms_over_at_once(pg_url: str) -> None:
    leaving = PgStore(pg_url, node="leaving", lease_s=3600.0, leases=lease)
    rooms = rooms_of(leaving, 3, alive_at=7.0)
    survivor = PgStore(pg_url, node="survivor", leases=lease)
    assert survivor.adopt_lapsed() == []  # an hour of lease left: nothing to take
    leaving.close()
    [(node, snap)] = survivor.adopt_lapsed()
    assert node == "leaving" and [r.room for r, _, _ in snap.rooms] == rooms


def test_a_node_stopped_inside_a_transaction_is_adopted_all_the_same(pg_url: str) -> None:
    """A node stopped (SIGSTOP) in the middle of a transaction of its own holds its lease row's
    lock, which adoption skips: its sessions end past its lease, and the survivor adopts."""
    stuck = PgStore(pg_url, node="stuck", lease_s=1.0, leases=lease)
    rooms = rooms_of(stuck, 2, alive_at=5.0)
    held = stuck.connection()  # a session of the node's, as its keeper's adoption uses
    held.execute("BEGIN")
    held.execute("SELECT 1 FROM nodes WHERE node = 'stuck' FOR UPDATE")  # ... and it stops
    survivor = PgStore(pg_url, node="survivor", leases=lease)
    wait_until(lambda: lapsed(pg_url, "stuck"))
    found: list[Any] = []
    wait_until(lambda: bool(found.extend(survivor.adopt_lapsed()) or found), timeout=30.0)
    [(node, snap)] = found
    assert node == "stuck" and [r.room for r, _, _ in snap.rooms] == rooms
    assert held.broken or held.closed or _session_gone(held)


def _session_gone(conn: Any) -> bool:
    """Whether ``conn``'s server session was ended (its next statement fails)."""
    try:
        conn.execute("SELECT 1")
    except psycopg.Error:  # the server ended it: idle in a transaction past the timeout
        return True
    return False
