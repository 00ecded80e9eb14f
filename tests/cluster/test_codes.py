"""Room codes unique across nodes: each node hands out codes it reserved in PostgreSQL's
``room_codes`` table, never one another node holds or a live room has (real PostgreSQL)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import psycopg
import pytest

from server.cluster import lease
from server.cluster.codes import BATCH, LOW, CodeRegistry, collect
from server.storage.postgres import PgStore

pytestmark = pytest.mark.slow  # a real PostgreSQL


@pytest.fixture
def stores(pg_url: str) -> Iterator[tuple[PgStore, PgStore]]:
    """Two nodes' stores on one fresh database."""
    a = PgStore(pg_url, node="a", leases=lease)
    b = PgStore(pg_url, node="b", leases=lease)
    try:
        yield a, b
    finally:
        a.close()
        b.close()


def same_codes() -> Iterator[str]:
    """The same code sequence for every node: as if their random generators agreed."""
    return (f"c{n:05d}" for n in itertools.count())


def test_two_nodes_drawing_the_same_codes_never_hand_out_the_same_one(
    stores: tuple[PgStore, PgStore], pg_url: str
) -> None:
    with psycopg.connect(pg_url) as db:  # a live room (a single server's) has c00040
        db.execute("INSERT INTO rooms (room, game_id) VALUES ('c00040', 'g_x')")
    a, b = (CodeRegistry(s, s.node, generate=same_codes().__next__) for s in stores)
    a.fill()
    b.fill()
    from_a = {a.new_id() for _ in range(LOW)}
    from_b = {b.new_id() for _ in range(LOW)}
    assert len(from_a) == len(from_b) == LOW
    assert not from_a & from_b
    assert from_a == {f"c{n:05d}" for n in range(LOW)}
    assert "c00040" not in from_b and all(code >= f"c{BATCH:05d}" for code in from_b)
    assert a.unreserved == b.unreserved == 0
    with psycopg.connect(pg_url) as db:
        held = dict(db.execute("SELECT code, node FROM room_codes").fetchall())
    assert all(held[code] == "a" for code in from_a) and all(held[c] == "b" for c in from_b)


def test_an_empty_pool_falls_back_to_a_free_random_code_and_stale_codes_are_collected(
    stores: tuple[PgStore, PgStore], pg_url: str
) -> None:
    a = CodeRegistry(stores[0], "a")
    code = a.new_id()  # nothing reserved yet: a random code, counted
    assert len(code) == 6 and a.unreserved == 1
    a.fill()
    with psycopg.connect(pg_url) as db:
        db.execute("INSERT INTO rooms (room, game_id) VALUES (%s, 'g_x')", (a.pool[0][0],))
    with psycopg.connect(pg_url, autocommit=True) as db:
        assert collect(db, keep=-1.0) == len(a.pool) - 1  # all but the live room's code


def test_a_pool_that_runs_dry_grows_so_the_same_burst_is_reserved_next_time(
    stores: tuple[PgStore, PgStore],
) -> None:
    a = CodeRegistry(stores[0], "a")
    a.fill()
    burst = 100  # rooms made in one go, faster than a refill
    codes = [a.new_id() for _ in range(burst)]
    dry = a.unreserved
    assert dry > 0 and a.low == LOW  # it grows at the refill, by what was missing
    a.fill()
    assert a.low == LOW + dry and len(a.pool) >= burst
    codes += [a.new_id() for _ in range(burst)]
    assert a.unreserved == dry, "the grown pool should have held the same burst"
    assert len(set(codes)) == len(codes)
    a.fill()
    assert a.low == LOW + dry  # no dry spell: no growth
