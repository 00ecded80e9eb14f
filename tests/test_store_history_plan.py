"""History pages read an index on both stores: by player, and after (before, before_id).

``list_games`` by player once scanned every game (137 ms at 400,000 games); these tests read the
query plan of each filter and fail on a full scan, and check the pages against a plain filter.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import psycopg
import pytest

from server.core.journal.rows import GameRow
from server.storage import pgschema
from server.storage import sqlite as sqlite_store
from server.storage.columns import GAME_COLUMNS, game_values
from server.storage.factory import open_store

VARIANT = {"name": "tictactoe", "width": 3, "height": 3, "k": 3, "rule": "freestyle"}
GAMES = 3000
PLAYERS = 60

#: Each filter and the index names its plan must read (a full scan reads none of them).
FILTERS: list[tuple[dict[str, Any], tuple[str, ...]]] = [
    ({"player": "p7"}, ("games_by_seat0", "games_by_seat1", "games_by_name0", "games_by_name1")),
    ({"player": "n7", "before": 1500.0, "before_id": "g01500"}, ("games_by_name0",)),
    ({"before": 1500.0, "before_id": "g01500"}, ("games_by_end",)),
    ({"before": 1500.0}, ("games_by_end",)),
    ({}, ("games_by_end",)),
]


def row(i: int) -> GameRow:
    """Game ``i``: over unless every tenth, two of the players, ties on ``ended_at`` in pairs."""
    a, b = f"p{i % PLAYERS}", f"p{(i * 7 + 1) % PLAYERS}"
    status = "playing" if i % 10 == 0 else "over"
    return GameRow(f"g{i:05d}", f"r{i}", 1, VARIANT, {}, None, (a, b), ("n" + a[1:], "n" + b[1:]),
                   ("human",) * 2, status, 0, "five", (), 1.0, 2.0, float(i // 2))  # fmt: skip


def fill(db: str) -> None:
    """Write the games straight into the store's table (and let PostgreSQL count them)."""
    values = [game_values(row(i)) for i in range(GAMES)]
    columns = ", ".join(GAME_COLUMNS)
    if db.startswith("postgresql"):
        marks = ", ".join(["%s"] * len(GAME_COLUMNS))
        with psycopg.connect(db, autocommit=True) as conn:
            with conn.cursor() as cur:
                cur.executemany(f"INSERT INTO games ({columns}) VALUES ({marks})", values)
            conn.execute("ANALYZE games")
        return
    with sqlite3.connect(db) as conn:
        marks = ", ".join(["?"] * len(GAME_COLUMNS))
        conn.executemany(f"INSERT INTO games ({columns}) VALUES ({marks})", values)
        conn.execute("ANALYZE")


class Spy:
    """A reader that remembers the last statement it ran."""

    def __init__(self, reader: Any) -> None:
        self.reader, self.sql, self.args = reader, "", ()

    def execute(self, sql: str, args: Any = ()) -> Any:
        """Run it, and keep it for ``EXPLAIN``."""
        self.sql, self.args = sql, args
        return self.reader.execute(sql, args)


def plan(store: Any, pg: bool, **filters: Any) -> str:
    """The query plan of ``list_games(**filters)`` as text."""
    spy = Spy(store._reader())
    store._reader = lambda: spy
    try:
        store.list_games(**filters)
    finally:
        del store._reader
    if pg:
        spy.reader.execute("SET enable_seqscan = off")  # as if the table were large
        rows = spy.reader.execute("EXPLAIN " + spy.sql, spy.args).fetchall()
        spy.reader.execute("RESET enable_seqscan")
        return "\n".join(next(iter(dict(r).values())) for r in rows)
    rows = spy.reader.execute("EXPLAIN QUERY PLAN " + spy.sql, spy.args).fetchall()
    return "\n".join(r["detail"] for r in rows)


@pytest.mark.parametrize(("filters", "indexes"), FILTERS)
def test_each_history_filter_reads_an_index(
    both_dbs: str, filters: dict[str, Any], indexes: tuple[str, ...]
) -> None:
    store = open_store(both_dbs)
    pg = both_dbs.startswith("postgresql")
    try:
        fill(both_dbs)
        text = plan(store, pg, **filters)
    finally:
        store.close()
    assert "SCAN games" not in text and "Seq Scan" not in text, text
    for index in indexes:
        assert index in text, text
    if "before" in filters:  # the page starts inside the index, not at its newest end
        assert ("ended_at <" in text) if pg else ("ended_at<" in text), text


def expected(player: str | None, before: float | None, before_id: str | None) -> list[str]:
    """What a page holds, by a plain filter over every game."""
    games = [row(i) for i in range(GAMES)]
    keep = [
        g
        for g in games
        if g.status == "over"
        and (player is None or player in g.seats or player in g.names)
        and (before is None or g.ended_at < before
             or (before_id is not None and g.ended_at == before and g.game_id < before_id))
    ]  # fmt: skip
    keep.sort(key=lambda g: (g.ended_at, g.game_id), reverse=True)
    return [g.game_id for g in keep]


@pytest.mark.parametrize("player", [None, "p3", "n3"])
def test_pages_match_a_plain_filter(both_dbs: str, player: str | None) -> None:
    store = open_store(both_dbs)
    try:
        fill(both_dbs)
        seen: list[str] = []
        before: float | None = None
        before_id: str | None = None
        for _ in range(GAMES):  # bounded: a page of at least one game each time
            page = store.list_games(player=player, before=before, limit=37, before_id=before_id)
            seen += [g["game_id"] for g in page["games"]]
            if not page["more"]:
                break
            before, before_id = page["games"][-1]["ended_at"], page["games"][-1]["game_id"]
    finally:
        store.close()
    assert seen == expected(player, None, None)


def test_a_sqlite_file_of_the_previous_version_gets_the_indexes(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    db = sqlite_store.connect(path)
    previous = sqlite_store.MIGRATIONS[:-1]
    for number, step in enumerate(previous):  # the file as the previous release left it
        db.execute("BEGIN IMMEDIATE")
        db.executescript(step) if isinstance(step, str) else step(db)
        db.execute(f"PRAGMA user_version={number + 1}")
        db.commit() if db.in_transaction else None
    db.close()
    store = open_store(str(path))
    store.close()
    db = sqlite3.connect(path)
    names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    version = db.execute("PRAGMA user_version").fetchone()[0]
    db.close()
    assert version == len(sqlite_store.MIGRATIONS)
    assert {"games_by_seat0", "games_by_seat1", "games_by_name0", "games_by_name1"} <= names


def test_a_postgresql_database_of_the_previous_version_gets_the_indexes(pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as db:
        db.execute(
            "CREATE TABLE schema_version (one BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one), "
            "version INTEGER NOT NULL)"
        )
        for step in pgschema.MIGRATIONS[:-1]:  # a data step (the accounts' rekey) is code
            db.execute(step) if isinstance(step, str) else step(db)
        db.execute("INSERT INTO schema_version VALUES (TRUE, %s)", (len(pgschema.MIGRATIONS) - 1,))
    open_store(pg_url).close()
    with psycopg.connect(pg_url) as db:
        names = {r[0] for r in db.execute("SELECT indexname FROM pg_indexes")}
        version = db.execute("SELECT version FROM schema_version").fetchone()
    assert version == (len(pgschema.MIGRATIONS),)
    assert {"games_by_seat0", "games_by_seat1", "games_by_name0", "games_by_name1"} <= names
