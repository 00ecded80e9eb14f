"""The embedded store: one SQLite file in WAL mode, with versioned schema migrations."""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from protocol.vocab import Status
from server.core.journal.rows import (
    EntrantRow,
    EntryCheckRow,
    GameRow,
    Heartbeat,
    JournalRow,
    KeyRow,
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
from server.storage.accounts import ACCOUNT_RECORDS, read_bot_keys, rekey_accounts, write_account
from server.storage.columns import (
    ACCOUNTS_MIGRATION,
    GAME_COLUMNS,
    GAMES_INDEXES,
    RESET_CODES_MIGRATION,
    game_values,
    json_text,
)
from server.storage.entrychecks import SQLITE_MIGRATION as ENTRY_CHECKS_MIGRATION
from server.storage.entrychecks import write_entry_check
from server.storage.history import History
from server.storage.locks import FileLock
from server.storage.movelog import MoveLog, migrate_moves, read_moves
from server.storage.ratings import SQLITE_MIGRATION, write_change
from server.storage.tournaments import SQLITE_MIGRATION as TOURNAMENTS_MIGRATION
from server.storage.tournaments import write_tournament

log = logging.getLogger("mnk.store")

#: Migration N takes a file from ``PRAGMA user_version`` N to N + 1. Append; never edit.
MIGRATIONS: tuple[str | Callable[[sqlite3.Connection], None], ...] = (
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
    # 5: a commit's moves are logged as one row, a game's moves kept as one row once it ends
    # (server/movelog.py): nothing is folded on the commit path
    migrate_moves,
    # 6: history pages by player and by (ended_at, game_id) read an index, never the whole table
    GAMES_INDEXES,
    # 7: accounts (humans with a password, bots by their key's name) and their sessions
    ACCOUNTS_MIGRATION.format(real="REAL"),
    # 8: ratings per (account, pool) and each rated game's changes, saved once per (game, account)
    SQLITE_MIGRATION,
    # 9: one-time password reset codes the operator issues
    RESET_CODES_MIGRATION.format(real="REAL"),
    # 10: look-alike keys taken before case folding, digits and spaces folded (names.py)
    rekey_accounts,
    # 11: tournaments: events, entrants, pairings and results (each pairing and result once)
    TOURNAMENTS_MIGRATION,
    # 12: bot accounts' entry checks (the one rated tournaments ask for), one row per account
    ENTRY_CHECKS_MIGRATION,
)

#: Bytes the WAL file is cut back to after a checkpoint that completes (``journal_size_limit``).
WAL_LIMIT = 64 << 20


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
        step = MIGRATIONS[number]
        if isinstance(step, str):
            db.executescript(f"BEGIN; {step} PRAGMA user_version={number + 1}; COMMIT;")
            continue
        db.execute("BEGIN IMMEDIATE")
        try:
            step(db)
            db.execute(f"PRAGMA user_version={number + 1}")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
    return len(MIGRATIONS)


class Store(History):
    """Writes journal records in batches (from one writer thread) and answers history queries.

    Owns its file while open (``FILE.lock``, :mod:`server.storage.locks`): opening it recovers
    the move log, which must never happen under a running server (``mnk-server keys`` edits
    the file without a Store).
    """

    #: Commits survive the process being killed (WAL, ``synchronous=NORMAL``).
    durable = True
    #: A commit is ~25 µs of page-cache writes: small batches may be committed on the loop.
    commits_on_loop = True
    #: Never: one server's own file has no lease for another node to take over.
    fenced = False

    def __init__(
        self, path: str | Path, commit_timeout: float = 10.0, wal_limit: int = WAL_LIMIT
    ) -> None:
        self.path = Path(path)
        self._busy_ms = int(commit_timeout * 1000)
        #: Whether the connection waits for a held lock now: :meth:`write_now` turns that off
        #: and leaves it off for the next batch (two PRAGMAs a commit were ~1 µs a move under
        #: load); whatever must wait turns it back on first (:meth:`_waiting`).
        self._waits = True
        self.owner = FileLock(self.path)
        # Before the file is opened (a hard link's first connection would start its own WAL)
        # and before the recovery below empties the log.
        self.owner.acquire(str(self.path))
        try:
            #: A batch waits this long for another process's write lock before the server stops.
            self.db = connect(self.path, busy_timeout=commit_timeout)
        except BaseException:
            self.owner.release()
            raise
        try:
            self._open(wal_limit)
        except BaseException:
            self.close()
            raise

    def _open(self, wal_limit: int) -> None:
        """Migrate the file, set the WAL's bounds, recover the move log a killed run left."""
        migrate(self.db)
        # Commits must stay cheap: the WAL is checkpointed into the database (with its fsync)
        # by :meth:`checkpoint` on a worker thread instead, and cut back to ``wal_limit``.
        self.db.execute("PRAGMA wal_autocheckpoint=0")
        self.wal_limit = wal_limit
        self.db.execute(f"PRAGMA journal_size_limit={wal_limit}")
        self._readers = threading.local()
        #: Games whose header row this store wrote and that have not ended: their next header
        #: is an UPDATE. Of those, the ones it inserted whose moves have no row yet: sealing
        #: them reads nothing first. Hints, bounded by the running games; a miss costs a read.
        self._rows: set[str] = set()
        self._fresh: set[str] = set()
        self.moves = MoveLog(self.db)
        #: Set by a batch that failed: the moves kept in memory may be ahead of the file, so
        #: nothing more is written (the server stops; a new Store on the file recovers).
        self.failed = False
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.moves.recover()
        finally:
            self.db.execute("COMMIT")

    def close(self) -> None:
        """Close the writer connection, then let the file go."""
        self.db.close()
        self.owner.release()

    def checkpoint(self, truncate: bool = False) -> None:
        """Copy committed WAL pages into the database file (from a worker thread).

        ``PASSIVE`` (a reader connection) never blocks the writer; ``truncate`` runs on the
        writer's own thread between commits, completes, and cuts the WAL file back to
        ``wal_limit``: a ``RESTART``, then one small commit that starts the WAL over (SQLite cuts
        the file to ``journal_size_limit`` then). Not ``TRUNCATE``: emptying a 64 MB file waits
        for the writeback of all its pages, and every move waited 100+ ms behind it.
        """
        if truncate:
            self._waiting()
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

    def write(self, records: list[JournalRow]) -> None:
        """Commit a batch of records in one transaction; its moves are one row of the log.

        A game that ends in the batch is sealed in it: its moves become the game's one row.
        Waits up to the commit timeout for another process's write lock; trims the log when due.
        """
        self._waiting()
        self._write(records, wait=True)
        self.upkeep()

    def write_now(self, records: list[JournalRow]) -> bool:
        """:meth:`write`, but only if the write lock is free at once: False, with nothing
        written, when another connection holds it. For the event loop's own thread, where a
        batch of moves costs ~25 µs of SQLite and no GIL hand-over; the log's trim is left to
        :meth:`upkeep`, on the writer thread."""
        if self._waits:
            self.db.execute("PRAGMA busy_timeout=0")
            self._waits = False
        return self._write(records, wait=False)

    def _waiting(self) -> None:
        """Let the writer connection wait for a held lock again (after :meth:`write_now`)."""
        if not self._waits:
            self.db.execute(f"PRAGMA busy_timeout={self._busy_ms}")
            self._waits = True

    def upkeep_due(self) -> bool:
        """Whether :meth:`upkeep` should run (after batches written by :meth:`write_now`)."""
        return self.moves.due()

    def upkeep(self) -> None:
        """Trim the move log's front when due (on the writer thread: it may seal games)."""
        if self.moves.due():
            self._waiting()
            self._trim()

    def _write(self, records: list[JournalRow], wait: bool) -> bool:
        if self.failed:
            raise RuntimeError("an earlier batch failed: this store writes no more")
        try:
            if records and all(type(r) is MoveRow for r in records):
                # One statement outside BEGIN is its own transaction, committed (as durably as
                # a COMMIT) before execute returns: one SQLite call instead of three.
                self.moves.append(records)  # type: ignore[arg-type]
            else:
                self._transaction(records)
        except sqlite3.OperationalError as exc:
            # The lock is taken by the first statement (the log's row, or BEGIN IMMEDIATE),
            # before anything is written: a batch refused there can be written later.
            busy = (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF == sqlite3.SQLITE_BUSY
            if busy and not wait and not self.db.in_transaction:
                return False
            self._poison()
            raise
        except BaseException:
            self._poison()
            raise
        return True

    def _poison(self) -> None:
        """A batch failed: the moves kept in memory may be ahead of the file; write no more."""
        self.failed = True
        if self.db.in_transaction:
            self.db.execute("ROLLBACK")

    def _trim(self) -> None:
        """Cut the log's front behind the oldest running game, in its own transaction.

        Upkeep, not the batch: the batch is committed, so a trim that fails (the file locked
        by another process past the timeout) is rolled back, logged and tried after the next.
        """
        try:
            self.db.execute("BEGIN IMMEDIATE")
            sealed, horizon = self.moves.trim()
            self.db.execute("COMMIT")
        except sqlite3.Error:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            log.warning("trimming the move log failed; trying again after the next batch")
            return
        self.moves.trimmed(sealed, horizon)
        self._fresh.difference_update(sealed)  # their moves have a row now

    def _transaction(self, records: list[JournalRow]) -> None:
        """The batch in ``BEGIN IMMEDIATE … COMMIT``, sealing the games that end in it."""
        db, log = self.db, self.moves
        db.execute("BEGIN IMMEDIATE")
        moves: list[MoveRow] = []
        ended: list[str] = []
        discarded: list[str] = []
        for record in records:
            kind = type(record)
            if kind is MoveRow:
                moves.append(record)  # type: ignore[arg-type]
            elif kind is GameRow:
                self._write_game(record)  # type: ignore[arg-type]
                if record.status == Status.OVER:  # type: ignore[union-attr]
                    ended.append(record.game_id)  # type: ignore[union-attr]
            else:
                _WRITERS[kind](db, record)
                if kind is RoomGone and record.discard_game is not None:  # type: ignore[union-attr]
                    discarded.append(record.discard_game)  # type: ignore[union-attr]
        seq = log.insert(moves) if moves else log.seq
        for game_id in discarded:  # with any opening stones the batch logged for it
            db.execute("DELETE FROM game_moves WHERE game_id = ?", (game_id,))
        for game_id in ended:
            fresh = game_id in self._fresh
            log.seal(game_id, [m for m in moves if m.game_id == game_id], fresh)
        db.execute("COMMIT")
        self._forget(ended + discarded)
        log.committed(moves, seq, ended + discarded)

    def _write_game(self, r: GameRow) -> None:
        """A header: an UPDATE of what can change when its row is known to exist, else an
        INSERT (a new game: no failed UPDATE first), else (a game of an earlier run) both."""
        db, game_id = self.db, r.game_id
        if game_id not in self._rows or not db.execute(_UPDATE_GAME, _changed(r)).rowcount:
            if db.execute(_INSERT_NEW_GAME, game_values(r)).rowcount:
                self._fresh.add(game_id)
            else:
                db.execute(_UPDATE_GAME, _changed(r))
        if len(self._rows) >= MAX_HINTS:  # abandoned without an end: start the hints over
            self._rows.clear()
            self._fresh.clear()
        self._rows.add(game_id)

    def _forget(self, game_ids: list[str]) -> None:
        """Games that ended (sealed) or were discarded: no more hints about their rows."""
        self._rows.difference_update(game_ids)
        self._fresh.difference_update(game_ids)

    def _read_game(self, game_id: str) -> tuple[GameRow, list[MoveRow]]:
        """A game's header and moves: its row read in one snapshot, with the writer's committed
        moves not in it yet over it, copied before the snapshot is taken (a game sealed after
        the copy shows in the row; one sealed before it, in the row too)."""
        later = self.moves.unsealed(game_id)
        db = self._reader()
        db.execute("BEGIN")  # deferred: the snapshot is taken by the first read, after the copy
        try:
            game = self._existing_game(db, game_id)
            return game, read_moves(db, game_id, later)
        finally:
            db.execute("COMMIT")

    def _moves(self, db: Any, game: GameRow) -> list[MoveRow]:  # type: ignore[override]
        """A game's moves at start-up (one thread): its row, with any committed moves over it."""
        return read_moves(db, game.game_id, self.moves.unsealed(game.game_id))

    def bot_keys(self) -> list[KeyRow]:
        """Every bot key, revoked ones included (read on a worker thread, never the loop)."""
        return read_bot_keys(self._reader())

    # -- history queries (run off the event loop) ---------------------------------------------

    def _reader(self) -> sqlite3.Connection:
        db = getattr(self._readers, "db", None)
        if db is None:
            db = self._readers.db = connect(self.path)
        return db


# -- row codecs ------------------------------------------------------------------------------


def _write_player(db: sqlite3.Connection, r: PlayerRow) -> None:
    db.execute(
        "INSERT INTO players VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(pid) DO UPDATE SET "
        "name = excluded.name, token_hash = excluded.token_hash, account = excluded.account",
        (r.pid, r.name, r.kind, r.token_hash, r.created_at, r.account),
    )


#: A new game's header: ignored (rowcount 0) when the game has a row already.
_INSERT_NEW_GAME = (
    f"INSERT OR IGNORE INTO games ({', '.join(GAME_COLUMNS)}) "
    f"VALUES ({', '.join('?' * len(GAME_COLUMNS))})"
)
#: What :func:`server.core.journal.recovery.header_key` says can change in a game's header once
#: it exists
#: (the room, number, variant, clock and creation time are the game's own): updated in place,
#: without encoding the rest again or touching the row's place in the table and indexes.
_UPDATE_GAME = (
    "UPDATE games SET options = ?, seat0 = ?, seat1 = ?, name0 = ?, name1 = ?, kind0 = ?, "
    "kind1 = ?, status = ?, winner = ?, reason = ?, line = ?, started_at = ?, ended_at = ?, "
    "fault = ? WHERE game_id = ?"
)
#: Games the header hints may hold (see :class:`Store`): far more than a server runs at once.
MAX_HINTS = 1 << 17


def _changed(r: GameRow) -> tuple[Any, ...]:
    """The values of :data:`_UPDATE_GAME`."""
    return (
        json_text(r.options), *r.seats, *r.names, *r.kinds, r.status, r.winner, r.reason,
        json_text(r.line), r.started_at, r.ended_at, r.fault, r.game_id,
    )  # fmt: skip


def _write_room(db: sqlite3.Connection, r: RoomRow) -> None:
    db.execute("INSERT OR REPLACE INTO rooms VALUES (?, ?)", (r.room, r.game_id))


def _write_room_gone(db: sqlite3.Connection, r: RoomGone) -> None:
    db.execute("DELETE FROM rooms WHERE room = ?", (r.room,))
    if r.discard_game is not None:  # its moves go in MoveLog.forget
        db.execute("DELETE FROM games WHERE game_id = ?", (r.discard_game,))


def _write_heartbeat(db: sqlite3.Connection, r: Heartbeat) -> None:
    db.execute("INSERT OR REPLACE INTO meta VALUES ('alive_at', ?)", (repr(r.at),))


def _write_player_gone(db: sqlite3.Connection, r: PlayerGone) -> None:
    db.execute("DELETE FROM players WHERE pid = ?", (r.pid,))


_WRITERS: dict[type, Any] = {
    PlayerRow: _write_player,
    RoomRow: _write_room,
    RoomGone: _write_room_gone,
    Heartbeat: _write_heartbeat,
    PlayerGone: _write_player_gone,
    RatingChange: write_change,
    **dict.fromkeys(ACCOUNT_RECORDS, write_account),
    **dict.fromkeys((TournamentRow, EntrantRow, PairingRow, ResultRow), write_tournament),
    EntryCheckRow: write_entry_check,
}
