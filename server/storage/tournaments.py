"""Tournaments in the SQL stores: the tables (SQLite's migration 11, PostgreSQL's 9), each
record's write (a pairing and a result saved at most once per (tournament, key), so a batch
written twice counts nothing twice) and the rows a restarting server rebuilds its events from.
Results come back in the order of their time (an arena's streaks read them so): one player's
results never share an instant, as it plays one game of an event at a time.
"""

from __future__ import annotations

import json
from typing import Any

from server.core.journal.rows import (
    EntrantRow,
    PairingRow,
    ResultRow,
    TournamentJournalRow,
    TournamentRow,
)

#: Finished events a restart takes back (the latest; the rest stay in the store only).
KEEP_FINISHED = 50

_TABLES = """
    CREATE TABLE IF NOT EXISTS tournaments (
        tournament TEXT PRIMARY KEY, name TEXT NOT NULL, creator TEXT, settings TEXT NOT NULL,
        status TEXT NOT NULL, created_at {real} NOT NULL, starts_at {real},
        started_at {real}, ended_at {real});
    CREATE INDEX IF NOT EXISTS tournaments_by_status ON tournaments (status, ended_at);
    CREATE TABLE IF NOT EXISTS tournament_entrants (
        tournament TEXT NOT NULL, pid TEXT NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL,
        seq INTEGER NOT NULL, rating {real} NOT NULL, state TEXT NOT NULL,
        PRIMARY KEY (tournament, pid));
    CREATE TABLE IF NOT EXISTS tournament_pairings (
        tournament TEXT NOT NULL, key TEXT NOT NULL, round INTEGER NOT NULL, first TEXT NOT NULL,
        second TEXT, opening INTEGER, room TEXT, game_id TEXT, at {real} NOT NULL,
        PRIMARY KEY (tournament, key));
    CREATE TABLE IF NOT EXISTS tournament_results (
        tournament TEXT NOT NULL, key TEXT NOT NULL, game_id TEXT, winner INTEGER,
        void {bool} NOT NULL, at {real} NOT NULL, PRIMARY KEY (tournament, key));
"""
#: The migration (SQLite, PostgreSQL): events, entrants, pairings, results.
SQLITE_MIGRATION = _TABLES.format(real="REAL", bool="INTEGER")
PG_MIGRATION = _TABLES.format(real="DOUBLE PRECISION", bool="BOOLEAN")

_SQL = {
    TournamentRow: (
        "INSERT INTO tournaments VALUES ({p}, {p}, {p}, {p}, {p}, {p}, {p}, {p}, {p}) "
        "ON CONFLICT (tournament) DO UPDATE SET status = excluded.status, "
        "starts_at = excluded.starts_at, started_at = excluded.started_at, "
        "ended_at = excluded.ended_at"
    ),
    EntrantRow: (
        "INSERT INTO tournament_entrants VALUES ({p}, {p}, {p}, {p}, {p}, {p}, {p}) "
        "ON CONFLICT (tournament, pid) DO UPDATE SET state = excluded.state"
    ),
    PairingRow: (
        "INSERT INTO tournament_pairings VALUES ({p}, {p}, {p}, {p}, {p}, {p}, {p}, {p}, {p}) "
        "ON CONFLICT (tournament, key) DO NOTHING"
    ),
    ResultRow: (
        "INSERT INTO tournament_results (tournament, key, game_id, winner, void, at) "
        "VALUES ({p}, {p}, {p}, {p}, {p}, {p}) ON CONFLICT (tournament, key) DO NOTHING"
    ),
}
SQLITE_SQL = {kind: sql.format(p="?") for kind, sql in _SQL.items()}
PG_SQL = {kind: sql.format(p="%s") for kind, sql in _SQL.items()}

#: PostgreSQL's migration 11: the node that runs each event (a cluster's; NULL: a single
#: server's, the first node's when it joins), and each scheduled occurrence opened once
#: cluster-wide (its schedule and start; the event's row is inserted in the same transaction).
PG_OWNERS_MIGRATION = """
    ALTER TABLE tournaments ADD COLUMN owner TEXT;
    CREATE INDEX tournaments_by_owner ON tournaments (owner);
    CREATE TABLE tournament_occurrences (
        schedule TEXT NOT NULL, starts_at DOUBLE PRECISION NOT NULL, tournament TEXT NOT NULL,
        node TEXT NOT NULL, PRIMARY KEY (schedule, starts_at));
"""
#: A cluster node's event header: as the others, and the writer owns it (it is the owner: its
#: commits are fenced by its lease, and an adopter took the row over first).
PG_EVENT_SQL = (
    "INSERT INTO tournaments (tournament, name, creator, settings, status, created_at, "
    "starts_at, started_at, ended_at, owner) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
    "ON CONFLICT (tournament) DO UPDATE SET status = excluded.status, "
    "starts_at = excluded.starts_at, started_at = excluded.started_at, "
    "ended_at = excluded.ended_at, owner = excluded.owner"
)


def values(r: TournamentJournalRow) -> tuple[Any, ...]:
    """The record's column values, in its table's order."""
    if isinstance(r, TournamentRow):
        return (
            r.tournament, r.name, r.creator, json.dumps(r.settings, separators=(",", ":")),
            r.status, r.created_at, r.starts_at, r.started_at, r.ended_at,
        )  # fmt: skip
    if isinstance(r, EntrantRow):
        return (r.tournament, r.pid, r.name, r.kind, r.seq, r.rating, r.state)
    if isinstance(r, PairingRow):
        return (
            r.tournament, r.key, r.round, r.first, r.second, r.opening, r.room, r.game_id, r.at,
        )  # fmt: skip
    return (r.tournament, r.key, r.game_id, r.winner, r.void, r.at)


def write_tournament(db: Any, r: TournamentJournalRow) -> None:
    """Save ``r`` in SQLite's open transaction."""
    db.execute(SQLITE_SQL[type(r)], values(r))


def pg_tournament(r: TournamentJournalRow, node: str | None) -> tuple[str, Any]:
    """The PostgreSQL statement that saves ``r`` (``node``: the cluster node writing it, the
    event's owner)."""
    if node is not None and isinstance(r, TournamentRow):
        return PG_EVENT_SQL, (*values(r), node)
    return PG_SQL[type(r)], values(r)


def read_tournaments(db: Any, owner: str | None = None) -> tuple[TournamentJournalRow, ...]:
    """The rows of every open or running event and the latest finished ones (``owner``: of
    the events that cluster node runs): headers, then entrants, pairings and results, each
    kind in the order written (over a ``?`` reader)."""
    mine = "" if owner is None else "AND owner = ? "
    kept = (
        f"SELECT tournament FROM tournaments WHERE status <> 'finished' {mine}UNION ALL "
        f"SELECT * FROM (SELECT tournament FROM tournaments WHERE status = 'finished' {mine}"
        f"ORDER BY ended_at DESC LIMIT {KEEP_FINISHED}) AS latest"
    )
    args = () if owner is None else (owner, owner)
    rows: list[TournamentJournalRow] = []
    for r in db.execute(f"SELECT * FROM tournaments WHERE tournament IN ({kept})", args):
        d = dict(r)
        d.pop("owner", None)
        d["settings"] = json.loads(d["settings"])
        rows.append(TournamentRow(**d))
    tables = (
        ("tournament_entrants", "seq", EntrantRow),
        ("tournament_pairings", "at, key", PairingRow),
        ("tournament_results", "at, key", ResultRow),
    )
    for table, order, kind in tables:
        query = f"SELECT * FROM {table} WHERE tournament IN ({kept}) ORDER BY tournament, {order}"
        for r in db.execute(query, args):
            d = dict(r)
            if kind is ResultRow:
                d["void"] = bool(d["void"])
            rows.append(kind(**d))
    return tuple(rows)
