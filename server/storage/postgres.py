"""The PostgreSQL store: the same records and queries as the SQLite one, on a shared database.

Writes go through psycopg 3 (sync, a batch in one message) on the pipeline's writer thread, so
a slow or unreachable database stalls deliveries, never the event loop (``bench/bench_store.py``
measured it against asyncpg). Every write is idempotent (``ON CONFLICT … DO UPDATE``, deletes),
so a batch whose commit outcome is unknown (the connection died mid-commit) is sent again on a
new connection until ``commit_timeout`` runs out. Migrations run under an advisory lock, so
nodes starting together upgrade the schema once. A cluster node is handed its leases (the
cluster's :mod:`server.cluster.lease`: storage imports no cluster code) and holds its name's lock
(:mod:`server.storage.locks`) for its life.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from typing import Any, Protocol

import psycopg
from psycopg.rows import dict_row

from server.core.journal.rows import EntrantRow, JournalRow, KeyRow, Snapshot, TournamentRow
from server.storage.base import Fenced, StoreLocked, StoreUnavailable
from server.storage.history import History
from server.storage.locks import lock_node, node_label
from server.storage.pgschema import FENCED, batch_sql, migrate
from server.storage.tournaments import pg_tournament, read_tournaments

log = logging.getLogger("mnk.store")

#: Renews a node's lease in the commit's transaction, or aborts it (``mnk_fence``, pgschema.py).
FENCE_SQL = "SELECT mnk_fence(%s, %s, %s)"

#: Seconds a connection attempt may take before it counts as a failure.
CONNECT_TIMEOUT = 5


class Leases(Protocol):
    """A cluster's node leases, which a node's store takes, gives up and adopts by (the
    cluster's :mod:`server.cluster.lease` is one: a module of these functions)."""

    def join(self, db: Any, node: str, lease: float) -> int:
        """Take ``node``'s lease with a new epoch (fencing older processes); the epoch."""
        ...

    def release(self, db: Any, node: str, epoch: int) -> None:
        """Give the lease up now (a clean stop)."""
        ...

    def claim_lapsed(self, db: Any, me: str) -> list[tuple[str, float | None, list[Any]]]:
        """In the caller's transaction, take every lapsed node's rooms for ``me``."""
        ...


def open_connection(
    url: str, timeout: float = CONNECT_TIMEOUT, **options: Any
) -> psycopg.Connection[Any]:
    """An autocommit connection (transactions are explicit) with rows indexed by column name."""
    return psycopg.connect(
        url,
        row_factory=dict_row,
        autocommit=True,
        connect_timeout=max(1, round(timeout)),
        **options,
    )


def connect(url: str, timeout: float = CONNECT_TIMEOUT, **options: Any) -> psycopg.Connection[Any]:
    """:func:`open_connection`, or StoreUnavailable (said in one line) if it cannot."""
    try:
        return open_connection(url, timeout, **options)
    except psycopg.Error as exc:
        said = " ".join(str(exc).split())  # libpq's message spans lines
        raise StoreUnavailable(f"cannot connect to PostgreSQL: {said}") from exc


class Qmark:
    """A connection that takes ``?`` placeholders, so :class:`History`'s SQL runs unchanged."""

    def __init__(self, db: psycopg.Connection[Any]) -> None:
        self.conn = db

    def execute(self, sql: str, args: Any = ()) -> psycopg.Cursor[Any]:
        """Run ``sql`` (whose only ``?`` are placeholders) with ``args``."""
        return self.conn.execute(sql.replace("?", "%s"), args)


class PgStore(History):
    """Writes journal records in batches (from one writer thread) and answers history queries."""

    ROOM_ORDER = "seq"
    #: Commits survive the process (and any one node): outputs wait for them.
    durable = True
    #: Commits go over the network: never on the event loop, always on the writer thread.
    commits_on_loop = False

    def __init__(
        self,
        url: str,
        commit_timeout: float = 10.0,
        node: str | None = None,
        *,
        lease_s: float = 5.0,
        leases: Leases | None = None,
    ) -> None:
        if node is not None and leases is None:
            raise ValueError("a cluster node's store needs its leases (server.cluster.lease)")
        self.url = url
        #: A batch is retried this long (on new connections) before the server stops.
        self.commit_timeout = commit_timeout
        #: PostgreSQL manages its own write-ahead log: the pipeline never truncates anything.
        self.wal_limit = 0
        #: In a cluster, this node's name, lease and epoch: every commit is fenced by them.
        self.node, self.lease_s, self.epoch, self.leases = node, lease_s, 0, leases
        #: Set when a commit was refused because another node may own this node's rooms now.
        self.fenced = False
        #: A node's own connection, holding its name's lock until the process ends.
        self._name_lock: psycopg.Connection[Any] | None = None
        #: Until when (monotonic) this node surely holds its lease: the start of its last
        #: fenced commit plus what that commit renewed it for.
        self.held_until = math.inf
        writer = connect(url, **self.session_options())
        try:
            migrate(writer)
            self._join(writer)
        except BaseException:
            writer.close()
            if self._name_lock is not None:
                self._name_lock.close()
            raise
        self._writer: psycopg.Connection[Any] | None = writer
        self._readers = threading.local()
        self._opened: list[psycopg.Connection[Any]] = []
        self._lock = threading.Lock()

    def session_options(self) -> dict[str, str]:
        """A node's sessions end if they idle inside a transaction past its lease: a node
        stopped (SIGSTOP, a frozen VM) in the middle of one would otherwise hold its lease
        row's lock, which the survivors' adoption skips (``SKIP LOCKED``) for as long as the
        session lives. A live node never idles in a transaction: its batches are one message."""
        if self.node is None:
            return {}
        ms = max(1000, round(self.lease_s * 1000))
        return {"options": f"-c idle_in_transaction_session_timeout={ms}"}

    def _join(self, writer: psycopg.Connection[Any]) -> None:
        """Take this node's name (refused while another process runs it), then its lease; a
        server without ``--node`` refuses to run beside live nodes."""
        if self.node is None:
            live = writer.execute(
                "SELECT 1 FROM nodes WHERE lease_until > extract(epoch FROM clock_timestamp())"
            ).fetchone()
            if live is not None:
                raise StoreUnavailable("cluster nodes hold this database: start with --node NAME")
            return
        # Before the lease: joining bumps the epoch, which would fence the running process.
        self._name_lock = connect(self.url, application_name=node_label(self.node))
        lock_node(self._name_lock, self.node)
        self.held_until = time.monotonic() + self.lease_s
        assert self.leases is not None  # checked by __init__
        self.epoch = self.leases.join(writer, self.node, self.lease_s)

    def close(self) -> None:
        """Give a node's lease up (its rooms are adopted at once), close every connection."""
        leases, node = self.leases, self.node
        if leases is not None and node is not None and not self.fenced and self._writer is not None:
            try:
                leases.release(self._writer, node, self.epoch)
            except psycopg.Error:
                log.warning("could not give the lease up: survivors adopt when it lapses")
        with self._lock:
            conns = [self._writer, *self._opened, self._name_lock]  # the name's lock last
            self._opened.clear()
        for conn in conns:
            if conn is not None:
                conn.close()

    def checkpoint(self, truncate: bool = False) -> None:
        """Nothing to do: PostgreSQL checkpoints its own write-ahead log."""

    def wal_size(self) -> int:
        """0: there is no WAL file of the store's own to bound."""
        return 0

    def write_now(self, records: list[JournalRow]) -> bool:
        """False, nothing written: a commit over the network never runs on the event loop."""
        return False

    def upkeep_due(self) -> bool:
        """False: PostgreSQL keeps its own tables (nothing is left for the writer thread)."""
        return False

    def upkeep(self) -> None:
        """Nothing to do: PostgreSQL keeps its own tables."""

    # -- writing -----------------------------------------------------------------------------

    def write(self, records: list[JournalRow]) -> None:
        """Commit a batch in one transaction, again on a new connection if the outcome is unknown.

        Raises once ``commit_timeout`` has passed without a commit: the server must stop.
        """
        deadline = time.monotonic() + self.commit_timeout
        delay = 0.05
        while True:
            try:
                self._commit(records)
                return
            except psycopg.errors.RaiseException as exc:
                if FENCED not in str(exc):
                    raise
                self.fenced = True
                raise Fenced(f"node {self.node} lost its lease") from exc
            except psycopg.OperationalError as exc:  # connection lost, server restarting
                self._drop_writer()
                if time.monotonic() + delay >= deadline:
                    raise
                log.warning("commit of %d records failed (%s); retrying", len(records), exc)
                time.sleep(delay)
                delay = min(2 * delay, 1.0)

    def _commit(self, records: list[JournalRow]) -> None:
        db = self._writer
        if db is None or db.closed:
            db = self._writer = open_connection(self.url, **self.session_options())
            self._keep_name()  # the database may have restarted, ending the lock's session too
        started, renewed = time.monotonic(), None
        statements = batch_sql(records, self.node)
        if self.node is not None:
            renewed = self.lease_s
            statements.insert(0, (FENCE_SQL, (self.node, self.epoch, renewed)))
        # One simple-protocol message with every statement, values quoted by psycopg: the
        # server runs it as one transaction (the fence aborts all of it), in one round trip
        # and one wake-up of this thread (pipeline mode took about twice its CPU per batch).
        cursor = psycopg.ClientCursor(db)
        cursor.execute("; ".join([cursor.mogrify(sql, args) for sql, args in statements]))
        if renewed is not None:
            self.held_until = started + renewed

    def _keep_name(self) -> None:
        """Take this node's name lock again if its session was lost (PostgreSQL restarted);
        refused, another process of this name runs now: this one is fenced."""
        lock, node = self._name_lock, self.node
        if lock is None or node is None:
            return
        try:
            lock.execute("SELECT 1")
            return
        except psycopg.Error:
            lock.close()
        self._name_lock = open_connection(self.url, application_name=node_label(node))
        try:
            lock_node(self._name_lock, node)
        except StoreLocked as exc:
            self.fenced = True
            raise Fenced(f"node {node} lost its name to another process") from exc

    def holds_lease(self) -> bool:
        """Whether this node surely still holds its lease (not after a stall past it: a node
        woken from SIGSTOP must send nothing more, even before a commit finds it fenced)."""
        return not self.fenced and time.monotonic() < self.held_until

    def _fence(self, db: psycopg.Connection[Any]) -> None:
        """Renew this node's lease in ``db``'s transaction, which aborts if it lapsed."""
        db.execute(FENCE_SQL, (self.node, self.epoch, self.lease_s))

    def _drop_writer(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    # -- reading -----------------------------------------------------------------------------

    @property
    def db(self) -> Qmark:  # type: ignore[override]
        """Where :meth:`load` reads: this thread's reader (the writer may be mid-commit)."""
        return self._reader()

    def load(self) -> Snapshot:
        """Every player and the live rooms this node owns (all of them without ``--node``)."""
        if self.node is None:
            return super().load()
        db = self.db
        rows = db.execute(
            "SELECT room, game_id FROM rooms WHERE owner = ? ORDER BY seq", (self.node,)
        )
        alive = db.execute("SELECT alive_at FROM nodes WHERE node = ?", (self.node,)).fetchone()
        return self.snapshot(db, list(rows), alive["alive_at"] if alive else None)

    def snapshot(self, db: Any, room_rows: list[Any], alive_at: float | None) -> Snapshot:
        """As :meth:`History.snapshot`; a node takes the players seated in its rooms and those
        with a history (never pruned), so their sessions resume on any node.

        Players with neither sit in another node's rooms: a node that knew them would forget
        (prune) them after their time-to-live while they wait there.
        """
        full = super().snapshot(db, room_rows, alive_at)
        if self.node is None:
            return full
        seated = {pid for _, game, _ in full.rooms for pid in game.seats if pid is not None}
        # The events this node owns (its own at a start; with an adoption's, those it took
        # over in the same transaction): their entrants are kept too, to be seated in games.
        events = read_tournaments(db, self.node)
        seated.update(r.pid for r in events if isinstance(r, EntrantRow))
        players = [p for p in full.players if p.pid in seated or p.pid in full.played]
        return Snapshot(
            players, full.rooms, alive_at, full.played, full.ratings, events, full.entry_checks
        )

    def adopt_lapsed(self) -> list[tuple[str, Snapshot]]:
        """Take the rooms of every node whose lease lapsed; each adopted node with its rooms.

        Each room's clock is charged up to its old node's last heartbeat, not beyond.
        """
        assert self.node is not None and self.leases is not None
        db = self._reader()
        with db.conn.transaction():
            self._fence(db.conn)  # only a node holding its own lease adopts
            claimed = self.leases.claim_lapsed(db.conn, self.node)
            return [(node, self.snapshot(db, rows, alive)) for node, alive, rows in claimed]

    def connection(self) -> psycopg.Connection[Any]:
        """This thread's autocommit connection (for a worker thread's own queries)."""
        return self._reader().conn

    def room_owner(self, room: str) -> str | None:
        """The node that owns ``room`` now, or None (no such live room): a cluster forwards
        requests for a room there (read on a worker thread, never the loop)."""
        row = self._reader().execute("SELECT owner FROM rooms WHERE room = ?", (room,)).fetchone()
        return None if row is None else row["owner"]

    def room_owners(self, rooms: list[str]) -> dict[str, str]:
        """The owner of each of ``rooms`` that is live (a forwarding node checks there where a
        room went after an adoption; read on a worker thread, never the loop)."""
        rows = self._reader().execute(
            "SELECT room, owner FROM rooms WHERE room = ANY(?) AND owner IS NOT NULL", (rooms,)
        )
        return {row["room"]: row["owner"] for row in rows}

    def event_owners(self, events: list[str]) -> dict[str, str]:
        """The node that runs each of ``events`` now (a cluster forwards requests about an
        event there; read on a worker thread, never the loop)."""
        rows = self._reader().execute(
            "SELECT tournament, owner FROM tournaments "
            "WHERE tournament = ANY(?) AND owner IS NOT NULL",
            (events,),
        )
        return {row["tournament"]: row["owner"] for row in rows}

    def claim_occurrence(self, schedule: str, row: TournamentRow) -> bool:
        """Open the scheduled occurrence ``row`` (of ``schedule``, at its start) as this node's
        unless a node opened it already: its claim and its event's row in one fenced
        transaction, so each occurrence is opened once cluster-wide and is adopted with its
        node (on a worker thread, never the loop)."""
        assert self.node is not None
        db = self._reader()
        with db.conn.transaction():
            self._fence(db.conn)
            won = db.execute(
                "INSERT INTO tournament_occurrences VALUES (?, ?, ?, ?) "
                "ON CONFLICT (schedule, starts_at) DO NOTHING RETURNING tournament",
                (schedule, row.starts_at, row.tournament, self.node),
            ).fetchone()
            if won is not None:
                sql, args = pg_tournament(row, self.node)
                db.conn.execute(sql, args)
        return won is not None

    def bot_keys(self) -> list[KeyRow]:
        """Every bot key, revoked ones included (read on a worker thread, never the loop)."""
        return read_bot_keys(self._reader().conn)

    def _reader(self) -> Qmark:
        """This thread's autocommit connection (made again after the database went away)."""
        reader: Qmark | None = getattr(self._readers, "db", None)
        if reader is not None and (reader.conn.closed or reader.conn.broken):
            reader = None
        if reader is None:
            conn = connect(self.url, **self.session_options())
            with self._lock:
                self._opened = [c for c in self._opened if not c.closed]
                self._opened.append(conn)
            reader = self._readers.db = Qmark(conn)
        return reader


# -- bot keys (the keys CLI writes them; a running server reads them) -------------------------


def read_bot_keys(db: psycopg.Connection[Any]) -> list[KeyRow]:
    """Every row of the bot keys table, by name."""
    rows = db.execute("SELECT name, key_hash, created_at, revoked_at FROM bot_keys ORDER BY name")
    return [KeyRow(**r) for r in rows]


class PgKeys:
    """The bot keys table of a PostgreSQL database, for ``mnk-server keys``."""

    def __init__(self, url: str) -> None:
        self.db = connect(url)
        migrate(self.db)

    def read(self) -> list[KeyRow]:
        """Every key, by name."""
        return read_bot_keys(self.db)

    def put(self, row: KeyRow) -> None:
        """Store a new key for ``row.name``, replacing any earlier (revoked) one of that name."""
        self.db.execute(
            "INSERT INTO bot_keys VALUES (%s, %s, %s, %s) ON CONFLICT (name) DO UPDATE SET "
            "key_hash = excluded.key_hash, created_at = excluded.created_at, "
            "revoked_at = excluded.revoked_at",
            (row.name, row.key_hash, row.created_at, row.revoked_at),
        )

    def revoke(self, name: str, at: float) -> bool:
        """Mark the live key of ``name`` revoked; False if it has none."""
        cur = self.db.execute(
            "UPDATE bot_keys SET revoked_at = %s WHERE name = %s AND revoked_at IS NULL", (at, name)
        )
        return cur.rowcount > 0

    def close(self) -> None:
        """Close the connection."""
        self.db.close()
