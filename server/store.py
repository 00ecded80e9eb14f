"""The embedded store: one SQLite file in WAL mode, with versioned schema migrations."""

from __future__ import annotations

import functools
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

from server.history import History
from server.journal import (
    GameRow,
    Heartbeat,
    KeyRow,
    MoveRow,
    PlayerGone,
    PlayerRow,
    Record,
    RoomGone,
    RoomRow,
)

#: Migration N takes a file from ``PRAGMA user_version`` N to N + 1. Append; never edit.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE players (
        pid TEXT PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL,
        token_hash TEXT NOT NULL UNIQUE, created_at REAL NOT NULL);
    CREATE TABLE games (
        game_id TEXT PRIMARY KEY, room TEXT NOT NULL, game_no INTEGER NOT NULL,
        variant TEXT NOT NULL, options TEXT NOT NULL, clock TEXT,
        seat0 TEXT, seat1 TEXT, name0 TEXT, name1 TEXT, kind0 TEXT, kind1 TEXT,
        status TEXT NOT NULL, winner INTEGER, reason TEXT, line TEXT NOT NULL,
        created_at REAL NOT NULL, started_at REAL, ended_at REAL);
    CREATE INDEX games_by_end ON games (status, ended_at);
    CREATE TABLE moves (
        game_id TEXT NOT NULL, ply INTEGER NOT NULL, x INTEGER NOT NULL, y INTEGER NOT NULL,
        at REAL NOT NULL, clock0 REAL, clock1 REAL,
        PRIMARY KEY (game_id, ply)) WITHOUT ROWID;
    CREATE TABLE rooms (room TEXT PRIMARY KEY, game_id TEXT NOT NULL);
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
    """,
    # 2: forfeits by bots record what broke (crash, hang, illegal_move, error)
    """
    ALTER TABLE games ADD COLUMN fault TEXT;
    """,
    # 3: bot keys issued by the operator; a key fixes the name of the bot that holds it
    """
    CREATE TABLE bot_keys (
        name TEXT PRIMARY KEY, key_hash TEXT NOT NULL UNIQUE,
        created_at REAL NOT NULL, revoked_at REAL);
    """,
    # 4: moves are appended to a log first (a commit touches its last page or two, instead of
    # one page per game) and folded into the moves table in bulk, in key order
    """
    CREATE TABLE move_log (
        game_id TEXT NOT NULL, ply INTEGER NOT NULL, x INTEGER NOT NULL, y INTEGER NOT NULL,
        at REAL NOT NULL, clock0 REAL, clock1 REAL);
    """,
)

#: Bytes the WAL file is cut back to after a checkpoint that completes (``journal_size_limit``).
WAL_LIMIT = 64 << 20
#: Moves the log may hold before a commit folds them into the moves table (a second or so of
#: play under load; the fold costs a few ms, once).
FOLD_ROWS = 4096


def connect(path: str | Path, busy_timeout: float = 5.0) -> sqlite3.Connection:
    """A connection with the pragmas every user of the file needs."""
    db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    # NORMAL in WAL mode: a commit survives the process being killed, not a power cut.
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute(f"PRAGMA busy_timeout={int(busy_timeout * 1000)}")
    db.row_factory = sqlite3.Row
    return db


def migrate(db: sqlite3.Connection) -> int:
    """Bring the schema up to date; returns the version the file is at now."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version > len(MIGRATIONS):
        raise RuntimeError(f"database schema {version} is newer than this server knows")
    for number in range(version, len(MIGRATIONS)):
        db.executescript(f"BEGIN; {MIGRATIONS[number]} PRAGMA user_version={number + 1}; COMMIT;")
    return len(MIGRATIONS)


class Store(History):
    """Writes journal records in batches (from one writer thread) and answers history queries."""

    def __init__(
        self, path: str | Path, commit_timeout: float = 10.0, wal_limit: int = WAL_LIMIT
    ) -> None:
        self.path = Path(path)
        #: A batch waits this long for another process's write lock before the server stops.
        self.db = connect(self.path, busy_timeout=commit_timeout)
        migrate(self.db)
        # Commits must stay cheap: the WAL is checkpointed into the database (with its fsync)
        # by :meth:`checkpoint` on a worker thread instead, and cut back to ``wal_limit``.
        self.db.execute("PRAGMA wal_autocheckpoint=0")
        self.wal_limit = wal_limit
        self.db.execute(f"PRAGMA journal_size_limit={wal_limit}")
        self._readers = threading.local()
        #: The move log is folded into the moves table when it holds this many rows.
        self.fold_rows = FOLD_ROWS
        #: Rows in the move log now (it starts empty: what a previous run left is folded).
        self._logged = 0
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self._fold()
        finally:
            self.db.execute("COMMIT")

    def close(self) -> None:
        """Close the writer connection."""
        self.db.close()

    def checkpoint(self, truncate: bool = False) -> None:
        """Copy committed WAL pages into the database file (from a worker thread).

        ``PASSIVE`` (a reader connection) never blocks the writer; ``truncate`` runs on the
        writer's own thread between commits, completes, and cuts the WAL file back to
        ``wal_limit``: a ``RESTART``, then one small commit that starts the WAL over (SQLite cuts
        the file to ``journal_size_limit`` then). Not ``TRUNCATE``: emptying a 64 MB file waits
        for the writeback of all its pages, and every move waited 100+ ms behind it.
        """
        if truncate:
            self.db.execute("PRAGMA wal_checkpoint(RESTART)")
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('wal_restarted', '')")
        else:
            self._reader().execute("PRAGMA wal_checkpoint(PASSIVE)")

    def wal_size(self) -> int:
        """Bytes in the WAL file now (0 when there is none)."""
        try:
            return Path(f"{self.path}-wal").stat().st_size
        except FileNotFoundError:
            return 0

    # -- writing -----------------------------------------------------------------------------

    def write(self, records: list[Record]) -> None:
        """Commit a batch of records in one transaction (runs of moves as one statement).

        Moves go to the move log; a batch that fills it folds it into the moves table.
        """
        db = self.db
        logged = self._logged
        if self._moves_only(records):
            # One statement outside BEGIN is its own transaction, committed (as durably as a
            # COMMIT) before execute returns: one SQLite call instead of three, so the writer
            # takes the GIL back once per batch instead of three times.
            db.execute(_log_moves_sql(len(records)), [v for r in records for v in _move_params(r)])
            self._logged = logged + len(records)
            return
        db.execute("BEGIN IMMEDIATE")
        try:
            moves: list[tuple[object, ...]] = []
            for record in records:
                if type(record) is MoveRow:
                    moves.append(_move_params(record))
                    continue
                if moves:
                    self._log_moves(moves)
                    moves = []
                if type(record) is RoomGone and record.discard_game is not None:
                    gone = db.execute(_DISCARD_LOGGED, (record.discard_game,))
                    self._logged -= gone.rowcount
                _WRITERS[type(record)](db, record)
            if moves:
                self._log_moves(moves)
            if self._logged >= self.fold_rows:
                self._fold()
            db.execute("COMMIT")
        except BaseException:
            self._logged = logged
            db.execute("ROLLBACK")
            raise

    def _moves_only(self, records: list[Record]) -> bool:
        """Whether the batch is moves alone, fits one statement and leaves the log unfolded."""
        count = len(records)
        if not 0 < count <= LOG_CHUNK or self._logged + count >= self.fold_rows:
            return False
        return all(type(record) is MoveRow for record in records)

    def _log_moves(self, moves: list[tuple[object, ...]]) -> None:
        """Append moves to the log in as few statements as possible (one step each)."""
        for start in range(0, len(moves), LOG_CHUNK):
            chunk = moves[start : start + LOG_CHUNK]
            self.db.execute(_log_moves_sql(len(chunk)), [v for row in chunk for v in row])
        self._logged += len(moves)

    def _fold(self) -> None:
        """Move the log's rows into the moves table, in key order (the later of twins wins)."""
        self.db.execute(_FOLD)
        self.db.execute("DELETE FROM move_log")
        self._logged = 0

    @staticmethod
    def _moves(db: Any, game: GameRow) -> list[MoveRow]:
        """A game's moves: the moves table's, with the move log's (newer) over them."""
        moves = {m.ply: m for m in History._moves(db, game)}
        for r in db.execute(_LOGGED_MOVES, (game.game_id,)):
            clocks = None if r["clock0"] is None else (r["clock0"], r["clock1"])
            moves[r["ply"]] = MoveRow(r["game_id"], r["ply"], r["x"], r["y"], r["at"], clocks)
        return [moves[ply] for ply in sorted(moves)]

    def bot_keys(self) -> list[KeyRow]:
        """Every bot key, revoked ones included (read on a worker thread, never the loop)."""
        return read_bot_keys(self._reader())

    # -- history queries (run off the event loop) ---------------------------------------------

    def _reader(self) -> sqlite3.Connection:
        db = getattr(self._readers, "db", None)
        if db is None:
            db = self._readers.db = connect(self.path)
        return db


# -- bot keys (the keys CLI writes them; a running server reads them) -------------------------


def read_bot_keys(db: Any) -> list[KeyRow]:
    """Every row of the bot keys table, by name."""
    rows = db.execute("SELECT name, key_hash, created_at, revoked_at FROM bot_keys ORDER BY name")
    return [KeyRow(r["name"], r["key_hash"], r["created_at"], r["revoked_at"]) for r in rows]


def put_bot_key(db: sqlite3.Connection, row: KeyRow) -> None:
    """Store a new key for ``row.name``, replacing any earlier (revoked) one of that name."""
    db.execute(
        "INSERT OR REPLACE INTO bot_keys VALUES (?, ?, ?, ?)",
        (row.name, row.key_hash, row.created_at, row.revoked_at),
    )


def revoke_bot_key(db: sqlite3.Connection, name: str, at: float) -> bool:
    """Mark the live key of ``name`` revoked; False if it has none."""
    cur = db.execute(
        "UPDATE bot_keys SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL", (at, name)
    )
    return cur.rowcount > 0


# -- row codecs ------------------------------------------------------------------------------


def _write_player(db: sqlite3.Connection, r: PlayerRow) -> None:
    db.execute(
        "INSERT INTO players VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT(pid) DO UPDATE SET name = excluded.name, token_hash = excluded.token_hash",
        (r.pid, r.name, r.kind, r.token_hash, r.created_at),
    )


def game_values(r: GameRow) -> tuple[Any, ...]:
    """A game header as the games table's columns, in their order (JSON where nested)."""
    return (
        r.game_id, r.room, r.game_no, json.dumps(r.variant), json.dumps(r.options),
        None if r.clock is None else json.dumps(r.clock), *r.seats, *r.names, *r.kinds,
        r.status, r.winner, r.reason, json.dumps(r.line), r.created_at, r.started_at,
        r.ended_at, r.fault,
    )  # fmt: skip


def _write_game(db: sqlite3.Connection, r: GameRow) -> None:
    db.execute(
        "INSERT OR REPLACE INTO games (game_id, room, game_no, variant, options, clock, seat0, "
        "seat1, name0, name1, kind0, kind1, status, winner, reason, line, created_at, started_at, "
        "ended_at, fault) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        game_values(r),
    )


#: Moves appended by one statement at most (7 parameters each, SQLite allows 32766).
LOG_CHUNK = 256


@functools.lru_cache(maxsize=LOG_CHUNK)
def _log_moves_sql(count: int) -> str:
    """One INSERT for ``count`` moves: sqlite3 releases and takes back the GIL once per step,
    and with the event loop busy each take-back costs a thread switch."""
    return "INSERT INTO move_log VALUES " + ", ".join(["(?, ?, ?, ?, ?, ?, ?)"] * count)


_FOLD = "INSERT OR REPLACE INTO moves SELECT * FROM move_log ORDER BY game_id, ply, rowid"
_LOGGED_MOVES = "SELECT * FROM move_log WHERE game_id = ? ORDER BY rowid"
_DISCARD_LOGGED = "DELETE FROM move_log WHERE game_id = ?"


def _move_params(r: MoveRow) -> tuple[object, ...]:
    return r[:5] + (r[5] or _NO_CLOCKS)


_NO_CLOCKS = (None, None)


def _write_room(db: sqlite3.Connection, r: RoomRow) -> None:
    db.execute("INSERT OR REPLACE INTO rooms VALUES (?, ?)", (r.room, r.game_id))


def _write_room_gone(db: sqlite3.Connection, r: RoomGone) -> None:
    db.execute("DELETE FROM rooms WHERE room = ?", (r.room,))
    if r.discard_game is not None:
        db.execute("DELETE FROM moves WHERE game_id = ?", (r.discard_game,))
        db.execute("DELETE FROM games WHERE game_id = ?", (r.discard_game,))


def _write_heartbeat(db: sqlite3.Connection, r: Heartbeat) -> None:
    db.execute("INSERT OR REPLACE INTO meta VALUES ('alive_at', ?)", (repr(r.at),))


def _write_player_gone(db: sqlite3.Connection, r: PlayerGone) -> None:
    db.execute("DELETE FROM players WHERE pid = ?", (r.pid,))


_WRITERS: dict[type, Any] = {
    PlayerRow: _write_player,
    GameRow: _write_game,
    RoomRow: _write_room,
    RoomGone: _write_room_gone,
    Heartbeat: _write_heartbeat,
    PlayerGone: _write_player_gone,
}
