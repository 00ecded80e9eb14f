"""PostgreSQL's schema (versioned migrations under an advisory lock) and one statement per record.

Every statement is idempotent (an upsert or a delete), so a batch whose commit outcome is
unknown can be sent again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import psycopg

from server.core.journal.rows import (
    EntrantRow,
    EntryCheckRow,
    GameRow,
    Heartbeat,
    JournalRow,
    MoveRow,
    PairingRow,
    PlayerGone,
    PlayerRow,
    RatingChange,
    ResultRow,
    RoomGone,
    RoomRow,
    TournamentRow,
)
from server.storage.accounts import ACCOUNT_RECORDS, account_statement, rekey_accounts
from server.storage.columns import (
    ACCOUNTS_MIGRATION,
    GAME_COLUMNS,
    GAMES_INDEXES,
    RESET_CODES_MIGRATION,
    game_values,
)
from server.storage.entrychecks import PG_MIGRATION as ENTRY_CHECKS_MIGRATION
from server.storage.entrychecks import pg_entry_check
from server.storage.ratings import PG_MIGRATION, pg_change
from server.storage.tournaments import PG_MIGRATION as TOURNAMENTS_MIGRATION
from server.storage.tournaments import PG_OWNERS_MIGRATION, pg_tournament

#: What the fencing function ``mnk_fence`` says when it refuses a commit.
FENCED = "mnk-fenced"

#: Node leases, room owners and epochs, and the fencing function every commit of a node calls
#: first: it renews the lease, or raises (the transaction writes nothing) when the lease lapsed
#: or the epoch moved on (server/cluster/lease.py joins, releases and adopts).
LEASES_MIGRATION = """
    ALTER TABLE rooms ADD COLUMN owner TEXT, ADD COLUMN epoch BIGINT NOT NULL DEFAULT 0;
    CREATE INDEX rooms_by_owner ON rooms (owner);
    CREATE TABLE nodes (
        node TEXT PRIMARY KEY, epoch BIGINT NOT NULL,
        lease_until DOUBLE PRECISION NOT NULL, alive_at DOUBLE PRECISION);
    CREATE FUNCTION mnk_fence(who TEXT, token BIGINT, lease DOUBLE PRECISION) RETURNS void AS $$
    BEGIN
        UPDATE nodes SET lease_until = extract(epoch FROM clock_timestamp()) + lease
            WHERE node = who AND epoch = token
            AND lease_until > extract(epoch FROM clock_timestamp());
        IF NOT FOUND THEN
            RAISE EXCEPTION 'mnk-fenced: node % lost its lease', who;
        END IF;
    END $$ LANGUAGE plpgsql;
"""

#: Room codes reserved by nodes, unique cluster-wide (server/cluster/codes.py reserves them).
CODES_MIGRATION = """
    CREATE TABLE room_codes (code TEXT PRIMARY KEY, node TEXT NOT NULL,
        at DOUBLE PRECISION NOT NULL);
"""

#: Migration N takes the database from schema version N to N + 1. Append; never edit.
MIGRATIONS: tuple[str | Callable[[psycopg.Connection[Any]], None], ...] = (
    """
    CREATE TABLE players (
        pid TEXT PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL,
        token_hash TEXT NOT NULL UNIQUE, created_at DOUBLE PRECISION NOT NULL);
    CREATE TABLE games (
        game_id TEXT PRIMARY KEY, room TEXT NOT NULL, game_no INTEGER NOT NULL,
        variant TEXT NOT NULL, options TEXT NOT NULL, clock TEXT,
        seat0 TEXT, seat1 TEXT, name0 TEXT, name1 TEXT, kind0 TEXT, kind1 TEXT,
        status TEXT NOT NULL, winner INTEGER, reason TEXT, line TEXT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL, started_at DOUBLE PRECISION,
        ended_at DOUBLE PRECISION, fault TEXT);
    CREATE INDEX games_by_end ON games (status, ended_at);
    CREATE TABLE moves (
        game_id TEXT NOT NULL, ply INTEGER NOT NULL, x INTEGER NOT NULL, y INTEGER NOT NULL,
        at DOUBLE PRECISION NOT NULL, clock0 DOUBLE PRECISION, clock1 DOUBLE PRECISION,
        PRIMARY KEY (game_id, ply));
    CREATE TABLE rooms (room TEXT PRIMARY KEY, game_id TEXT NOT NULL, seq BIGSERIAL NOT NULL);
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
    CREATE TABLE bot_keys (
        name TEXT PRIMARY KEY, key_hash TEXT NOT NULL UNIQUE,
        created_at DOUBLE PRECISION NOT NULL, revoked_at DOUBLE PRECISION);
    """,
    # 2: node leases, room owners and epochs, the fencing function
    LEASES_MIGRATION,
    # 3: room codes reserved by nodes, unique cluster-wide
    CODES_MIGRATION,
    # 4: history pages by player and by (ended_at, game_id) read an index, never the whole table
    GAMES_INDEXES,
    # 5 (SQLite's 7): accounts (humans with a password, bots by their key's name), sessions
    ACCOUNTS_MIGRATION.format(real="DOUBLE PRECISION"),
    # 6 (SQLite's 8): ratings per (account, pool) and each rated game's changes, once per (game,
    # account)
    PG_MIGRATION,
    # 7 (SQLite's 9): one-time password reset codes the operator issues
    RESET_CODES_MIGRATION.format(real="DOUBLE PRECISION"),
    # 8 (SQLite's 10): look-alike keys taken before case folding (names.py)
    lambda db: rekey_accounts(db, "%s"),
    # 9 (SQLite's 11): tournaments: events, entrants, pairings and results
    TOURNAMENTS_MIGRATION,
    # 10 (SQLite's 12): bot accounts' entry checks, one row per account
    ENTRY_CHECKS_MIGRATION,
    # 11: the node that runs each event, and each scheduled occurrence opened once
    PG_OWNERS_MIGRATION,
)

#: The advisory lock key migrations hold (any constant no other user of the database takes).
MIGRATION_LOCK = 0x6D6E6B01


def migrate(db: psycopg.Connection[Any]) -> int:
    """Bring the schema up to date under the migration lock; returns the version now."""
    with db.transaction():
        db.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        db.execute(
            "CREATE TABLE IF NOT EXISTS schema_version "
            "(one BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one), version INTEGER NOT NULL)"
        )
        row = db.execute("SELECT version FROM schema_version").fetchone()
        version = row["version"] if row else 0
        if version > len(MIGRATIONS):
            raise RuntimeError(f"database schema {version} is newer than this server knows")
        for number in range(version, len(MIGRATIONS)):
            step = MIGRATIONS[number]
            if isinstance(step, str):
                db.execute(step)
            else:
                step(db)
        db.execute(
            "INSERT INTO schema_version (version) VALUES (%s) "
            "ON CONFLICT (one) DO UPDATE SET version = excluded.version",
            (len(MIGRATIONS),),
        )
    return len(MIGRATIONS)


# -- row codecs: each is idempotent, so a batch can be sent twice ------------------------------

_GAME_COLUMNS = ", ".join(GAME_COLUMNS)
_GAME_UPDATE = ", ".join(f"{c} = excluded.{c}" for c in GAME_COLUMNS[1:])

#: One SQL statement and its parameters.
Statement = tuple[str, Any]


def _player(r: PlayerRow, node: str | None) -> Statement:
    sql = (
        "INSERT INTO players VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (pid) DO UPDATE SET "
        "name = excluded.name, token_hash = excluded.token_hash, account = excluded.account"
    )
    return sql, (r.pid, r.name, r.kind, r.token_hash, r.created_at, r.account)


def _account(r: Any, node: str | None) -> Statement:
    sql, params = account_statement(r)
    return sql.replace("?", "%s"), params


def _game(r: GameRow, node: str | None) -> Statement:
    sql = (
        f"INSERT INTO games ({_GAME_COLUMNS}) VALUES ({', '.join(['%s'] * 20)}) "
        f"ON CONFLICT (game_id) DO UPDATE SET {_GAME_UPDATE}"
    )
    return sql, game_values(r)


def _move(r: MoveRow, node: str | None) -> Statement:
    sql = (
        "INSERT INTO moves VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (game_id, ply) "
        "DO UPDATE SET x = excluded.x, y = excluded.y, at = excluded.at, "
        "clock0 = excluded.clock0, clock1 = excluded.clock1"
    )
    return sql, (r.game_id, r.ply, r.x, r.y, r.at, *(r.clocks or (None, None)))


def _room(r: RoomRow, node: str | None) -> Statement:
    # A room that gets a new game moves to the end of the order, as SQLite's REPLACE does.
    sql = (
        "INSERT INTO rooms (room, game_id, owner) VALUES (%s, %s, %s) ON CONFLICT (room) "
        "DO UPDATE SET game_id = excluded.game_id, seq = excluded.seq"
    )
    return sql, (r.room, r.game_id, node)


def _room_gone(r: RoomGone, node: str | None) -> Statement:
    if r.discard_game is None:
        return "DELETE FROM rooms WHERE room = %s", (r.room,)
    sql = (
        "WITH gone AS (DELETE FROM rooms WHERE room = %(room)s), "
        "moves_gone AS (DELETE FROM moves WHERE game_id = %(game)s) "
        "DELETE FROM games WHERE game_id = %(game)s"
    )
    return sql, {"room": r.room, "game": r.discard_game}


def _heartbeat(r: Heartbeat, node: str | None) -> Statement:
    if node is not None:  # a node's own heartbeat: survivors charge its clocks up to here
        return "UPDATE nodes SET alive_at = %s WHERE node = %s", (r.at, node)
    sql = (
        "INSERT INTO meta VALUES ('alive_at', %s) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value"
    )
    return sql, (repr(r.at),)


def _player_gone(r: PlayerGone, node: str | None) -> Statement:
    return "DELETE FROM players WHERE pid = %s", (r.pid,)


_ROW_SQL: dict[type, Any] = {
    PlayerRow: _player,
    GameRow: _game,
    MoveRow: _move,
    RoomRow: _room,
    RoomGone: _room_gone,
    Heartbeat: _heartbeat,
    PlayerGone: _player_gone,
    RatingChange: pg_change,
    **dict.fromkeys(ACCOUNT_RECORDS, _account),
    **dict.fromkeys((TournamentRow, EntrantRow, PairingRow, ResultRow), pg_tournament),
    EntryCheckRow: pg_entry_check,
}


def row_sql(record: JournalRow, node: str | None) -> Statement:
    """The statement that saves ``record`` (``node``: the cluster node writing it, if any)."""
    return _ROW_SQL[type(record)](record, node)


#: Every move of a run of moves in one statement: one row per array element.
MOVES_SQL = (
    "INSERT INTO moves (game_id, ply, x, y, at, clock0, clock1) "
    "SELECT * FROM unnest(%s::text[], %s::int[], %s::int[], %s::int[], "
    "%s::float8[], %s::float8[], %s::float8[]) ON CONFLICT (game_id, ply) "
    "DO UPDATE SET x = excluded.x, y = excluded.y, at = excluded.at, "
    "clock0 = excluded.clock0, clock1 = excluded.clock1"
)


def _moves(run: list[MoveRow]) -> Statement:
    # A statement may upsert a row once only: the last write of a (game, ply) wins, as it
    # would statement by statement.
    last = list({(r.game_id, r.ply): r for r in run}.values())
    clocks = [r.clocks or (None, None) for r in last]
    # The numbers go as array literals made here (psycopg's array dumpers were most of the
    # writer thread's CPU per batch), each then quoted by psycopg as any string; the ids
    # (strings) as a list, which psycopg dumps and quotes itself.
    return MOVES_SQL, (
        [r.game_id for r in last],
        _ints(r.ply for r in last),
        _ints(r.x for r in last),
        _ints(r.y for r in last),
        _floats(r.at for r in last),
        _floats(c[0] for c in clocks),
        _floats(c[1] for c in clocks),
    )


def _ints(values: Iterable[int]) -> str:
    """A PostgreSQL array literal of integers (``int`` prints digits and a sign only)."""
    return "{" + ",".join([str(int(v)) for v in values]) + "}"


def _floats(values: Iterable[float | None]) -> str:
    """A PostgreSQL array literal of doubles or NULLs (``repr`` of a float is a number,
    ``inf``, ``-inf`` or ``nan``, all of which PostgreSQL reads)."""
    return "{" + ",".join(["NULL" if v is None else repr(float(v)) for v in values]) + "}"


def batch_sql(records: list[JournalRow], node: str | None) -> list[Statement]:
    """The statements that save ``records`` in order; each run of consecutive moves is one
    statement (a batch is mostly moves: one round of parse, plan and execute for all of them)."""
    statements: list[Statement] = []
    run: list[MoveRow] = []
    for record in records:
        if type(record) is MoveRow:
            run.append(record)
            continue
        if run:
            statements.append(_moves(run))
            run = []
        statements.append(_ROW_SQL[type(record)](record, node))
    if run:
        statements.append(_moves(run))
    return statements
