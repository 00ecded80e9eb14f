"""What ``mnk-server`` decides and says at start: the names it serves, the link a person opens,
the database as logged, where its bots keep their sessions, and why a start failed."""

from __future__ import annotations

import argparse
import errno
import sqlite3
from pathlib import Path

from server.admin import DB
from server.storage.base import StoreUnavailable
from server.storage.factory import is_pg_url


def allowed_hosts(args: argparse.Namespace) -> tuple[str, ...] | None:
    """``--allowed-hosts`` as the server's config: None for any name. Unsaid, any name behind
    a proxy (it routes only its own names) or with TLS (a certificate for another name fails)."""
    text = args.allowed_hosts
    if text is None:
        return None if args.trust_proxy or args.certfile else ()
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    return None if "*" in names else names


def page_link(args: argparse.Namespace, port: int) -> str:
    """The ``http://`` link a person opens to play (this machine's, for a wildcard ``--host``)."""
    host = args.host
    if host in ("", "0.0.0.0", "::"):
        host = "127.0.0.1"
    elif ":" in host:
        host = f"[{host}]"
    return f"{'https' if args.certfile else 'http'}://{host}:{port}/"


def db_label(db: str) -> str:
    """``--db`` for the log: a SQLite file's full path, a PostgreSQL URL without credentials."""
    if is_pg_url(db):
        return db.partition("://")[0] + "://" + db.partition("://")[2].rpartition("@")[2]
    return str(Path(db).resolve())


def bots_state_dir(db: str) -> Path:
    """Where the built-in bots keep their sessions: beside a SQLite file, else in the cwd."""
    return Path(f"{DB}.bots") if is_pg_url(db) else Path(f"{db}.bots")


def startup_error(args: argparse.Namespace, exc: BaseException) -> str:
    """One line saying why the server could not start, and what to try."""
    if isinstance(exc, OSError) and exc.errno == errno.EADDRINUSE:
        return f"port {args.port} on {args.host} is in use (another mnk-server?); try --port"
    if isinstance(exc, StoreUnavailable):
        return f"{exc}; check --db"
    if isinstance(exc, sqlite3.Error) or str(exc.filename or "").startswith(args.db):
        return f"cannot use the database {args.db!r}: {exc}; try another --db or --memory"
    return f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}"
