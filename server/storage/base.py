"""What the server needs of its database, and which implementation a ``--db`` value picks.

Two stores share the record types of :mod:`server.core.journal`: the embedded SQLite file
(:class:`server.storage.sqlite.Store`, the default) and PostgreSQL
(:class:`server.storage.postgres.PgStore`, for
``--db postgresql://…``). ``write`` is called on the pipeline's writer thread, never the loop
(SQLite's store also has ``write_now``, which the pipeline calls on the loop: see there).
"""

from __future__ import annotations

from typing import Any, Protocol

from server.core.journal import KeyRow, Record, Snapshot

#: ``--db`` values with these prefixes name a PostgreSQL database (a libpq URL).
PG_SCHEMES = ("postgresql://", "postgres://")


class StoreUnavailable(Exception):
    """The database cannot be reached or opened (a start-up or CLI error, said in one line)."""


class Storage(Protocol):
    """A durable store of players, games, moves, live rooms and bot keys."""

    #: Bytes the store's write-ahead log may grow to before the pipeline truncates it.
    wal_limit: int

    def write(self, records: list[Record]) -> None:
        """Commit a batch of records in one transaction (on the writer thread)."""
        ...

    def load(self) -> Snapshot:
        """Every player and live room, read back at start."""
        ...

    def bot_keys(self) -> list[KeyRow]:
        """Every bot key, revoked ones included."""
        ...

    def list_games(
        self,
        player: str | None = None,
        before: float | None = None,
        limit: int = 20,
        before_id: str | None = None,
    ) -> dict[str, Any]:
        """A page of finished games, newest first."""
        ...

    def get_game(self, game_id: str, fmt: str = "json") -> dict[str, Any]:
        """One game with every move."""
        ...

    def checkpoint(self, truncate: bool = False) -> None:
        """Move the write-ahead log into the database where the store manages that itself."""
        ...

    def wal_size(self) -> int:
        """Bytes in the store's own write-ahead log file (0 when it has none)."""
        ...

    def close(self) -> None:
        """Release the store's connections."""
        ...


def is_pg_url(db: str) -> bool:
    """Whether a ``--db`` value names a PostgreSQL database rather than a SQLite file."""
    return db.startswith(PG_SCHEMES)


def open_store(
    db: str,
    commit_timeout: float = 10.0,
    wal_limit: int | None = None,
    node: str | None = None,
    lease_s: float = 5.0,
) -> Storage:
    """The store a ``--db`` value names: PostgreSQL for a ``postgresql://`` URL, else SQLite.

    ``node`` (PostgreSQL only) joins a cluster as that node, holding a lease of ``lease_s``.
    """
    if is_pg_url(db):
        from server.storage.postgres import PgStore

        return PgStore(db, commit_timeout=commit_timeout, node=node, lease_s=lease_s)
    if node is not None:
        raise StoreUnavailable("--node needs a postgresql:// --db (SQLite is one node's own)")
    from server.storage.sqlite import WAL_LIMIT, Store

    limit = WAL_LIMIT if wal_limit is None else wal_limit
    return Store(db, commit_timeout=commit_timeout, wal_limit=limit)
