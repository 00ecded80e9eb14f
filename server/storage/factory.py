"""Which store a ``--db`` value names, opened: PostgreSQL for a URL, else a SQLite file."""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.storage.base import Storage, StoreUnavailable

if TYPE_CHECKING:
    from server.storage.postgres import Leases

#: ``--db`` values with these prefixes name a PostgreSQL database (a libpq URL).
PG_SCHEMES = ("postgresql://", "postgres://")


def is_pg_url(db: str) -> bool:
    """Whether a ``--db`` value names a PostgreSQL database rather than a SQLite file."""
    return db.startswith(PG_SCHEMES)


def open_store(
    db: str,
    commit_timeout: float = 10.0,
    wal_limit: int | None = None,
    node: str | None = None,
    lease_s: float = 5.0,
    leases: Leases | None = None,
) -> Storage:
    """The store a ``--db`` value names: PostgreSQL for a ``postgresql://`` URL, else SQLite.

    ``node`` (PostgreSQL only) joins a cluster as that node, holding a lease of ``lease_s``
    kept by ``leases`` (the cluster's :mod:`server.cluster.lease`: storage imports no cluster).
    Raises :class:`~server.storage.base.StoreLocked` when another server holds the database.
    """
    if is_pg_url(db):
        from server.storage.postgres import PgStore

        return PgStore(db, commit_timeout, node=node, lease_s=lease_s, leases=leases)
    if node is not None:
        raise StoreUnavailable("--node needs a postgresql:// --db (SQLite is one node's own)")
    from server.storage.sqlite import WAL_LIMIT, Store

    limit = WAL_LIMIT if wal_limit is None else wal_limit
    return Store(db, commit_timeout=commit_timeout, wal_limit=limit)
