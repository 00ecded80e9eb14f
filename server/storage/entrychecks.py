"""Bot accounts' entry checks in the SQL stores: the table (SQLite's migration 12,
PostgreSQL's 10), one row per account written again at each run, all read back at a restart
(bot accounts are the operator's keys: a few)."""

from __future__ import annotations

import json
from typing import Any

from server.core.journal.rows import EntryCheckRow

_TABLE = """
    CREATE TABLE IF NOT EXISTS entry_checks (
        account TEXT PRIMARY KEY, passed {bool} NOT NULL, failed TEXT NOT NULL,
        at {real} NOT NULL, runs INTEGER NOT NULL);
"""
#: The migration (SQLite, PostgreSQL).
SQLITE_MIGRATION = _TABLE.format(real="REAL", bool="INTEGER")
PG_MIGRATION = _TABLE.format(real="DOUBLE PRECISION", bool="BOOLEAN")

_SQL = (
    "INSERT INTO entry_checks VALUES ({p}, {p}, {p}, {p}, {p}) ON CONFLICT (account) DO UPDATE "
    "SET passed = excluded.passed, failed = excluded.failed, at = excluded.at, "
    "runs = excluded.runs"
)


def values(r: EntryCheckRow) -> tuple[Any, ...]:
    """The row's column values, in the table's order."""
    return (r.account, r.passed, json.dumps(list(r.failed)), r.at, r.runs)


def write_entry_check(db: Any, r: EntryCheckRow) -> None:
    """Save ``r`` in SQLite's open transaction."""
    db.execute(_SQL.format(p="?"), values(r))


def pg_entry_check(r: EntryCheckRow, node: str | None) -> tuple[str, Any]:
    """The PostgreSQL statement that saves ``r``."""
    return _SQL.format(p="%s"), values(r)


def read_entry_checks(db: Any) -> tuple[EntryCheckRow, ...]:
    """Every account's latest entry check (over a ``?`` or ``%s`` reader)."""
    return tuple(
        EntryCheckRow(
            r["account"], bool(r["passed"]), tuple(json.loads(r["failed"])), r["at"], r["runs"]
        )
        for r in db.execute("SELECT * FROM entry_checks ORDER BY account")
    )


def forget_entry_check(db: Any, account: str) -> bool:
    """Drop ``account``'s entry check (over a ``?`` connection), so that the server checks the
    bot again at its next rated entry after its next start; False if it had none."""
    return db.execute("DELETE FROM entry_checks WHERE account = ?", (account,)).rowcount > 0
