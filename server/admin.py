"""``mnk-server keys``: the operator's command for the bot keys in a server's database (a
SQLite file or PostgreSQL), which a running server re-reads within seconds."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from protocol.errors import ArenaError
from server.core.journal import KeyRow
from server.core.keys import hash_key, new_key
from server.core.names import clean_name, name_key
from server.storage.accounts import put_bot_key, read_bot_keys, revoke_bot_key
from server.storage.base import StoreUnavailable
from server.storage.factory import is_pg_url
from server.storage.sqlite import connect, migrate

#: The server's database when ``--db`` is not given: a SQLite file in the working directory.
DB = "mnk-arena.sqlite3"


class SqliteKeys:
    """The bot keys table of a SQLite file, for ``mnk-server keys``."""

    def __init__(self, db_path: str, create: bool) -> None:
        if not create and not Path(db_path).exists():  # listing makes no new file
            raise ValueError(f"no database at {db_path}")
        self.db = connect(db_path)
        migrate(self.db)

    def read(self) -> list[KeyRow]:
        """Every key, by name."""
        return read_bot_keys(self.db)

    def put(self, row: KeyRow) -> None:
        """Store a new key, replacing any earlier (revoked) one of that name."""
        put_bot_key(self.db, row)

    def revoke(self, name: str, at: float) -> bool:
        """Mark the live key of ``name`` revoked; False if it has none."""
        return revoke_bot_key(self.db, name, at)

    def close(self) -> None:
        """Close the connection."""
        self.db.close()


@contextmanager
def key_table(db_path: str, create: bool = False) -> Iterator[Any]:
    """The bot keys table of ``--db``: a SQLite file or a ``postgresql://`` database."""
    if is_pg_url(db_path):
        from server.storage.postgres import PgKeys

        table: Any = PgKeys(db_path)
    else:
        table = SqliteKeys(db_path, create)
    try:
        yield table
    finally:
        table.close()


def add_key(db_path: str, name: str, now: float | None = None) -> str:
    """Make a key for ``name`` in the database and return it (it is shown only this once)."""
    try:
        name = clean_name(name)
    except ArenaError as exc:
        raise ValueError(exc.message) from None
    with key_table(db_path, create=True) as table:
        for row in table.read():
            if row.revoked_at is None and name_key(row.name) == name_key(name):
                raise ValueError(f"{row.name!r} already has a key: revoke it first")
        key = new_key()
        table.put(KeyRow(name, hash_key(key), time.time() if now is None else now))
    return key


def list_keys(db_path: str) -> list[KeyRow]:
    """Every key in the database (hashes only)."""
    with key_table(db_path) as table:
        return table.read()


def revoke_key(db_path: str, name: str) -> bool:
    """Revoke ``name``'s key; False if it had none. A running server refuses it within seconds."""
    with key_table(db_path) as table:
        return table.revoke(name, time.time())


def keys_parser() -> argparse.ArgumentParser:
    """The command line of ``mnk-server keys``."""
    p = argparse.ArgumentParser(
        prog="mnk-server keys", description="Manage the keys that let bots connect."
    )
    # --db is accepted before and after the action; SUPPRESS keeps one from hiding the other.
    db = argparse.ArgumentParser(add_help=False)
    db.add_argument(
        "--db",
        default=argparse.SUPPRESS,
        help=f"the server's SQLite file or postgresql:// URL ({DB})",
    )
    p = argparse.ArgumentParser(
        prog="mnk-server keys", description="Manage the keys that let bots connect.", parents=[db]
    )
    sub = p.add_subparsers(dest="action", required=True)
    add = sub.add_parser(
        "add", parents=[db], help="make a key for a bot NAME and print it (shown only once)"
    )
    add.add_argument("name")
    sub.add_parser("list", parents=[db], help="list bot names with their keys' state")
    revoke = sub.add_parser("revoke", parents=[db], help="revoke the key of a bot NAME")
    revoke.add_argument("name")
    return p


def keys_main(argv: list[str]) -> int:
    """``mnk-server keys add NAME | list | revoke NAME``; returns the exit status."""
    args = keys_parser().parse_args(argv)
    args.db = getattr(args, "db", DB)
    try:
        if args.action == "add":
            print(add_key(args.db, args.name))
        elif args.action == "list":
            for row in list_keys(args.db):
                made = time.strftime("%Y-%m-%d %H:%M", time.gmtime(row.created_at))
                state = "active" if row.revoked_at is None else "revoked"
                print(f"{row.name}\t{state}\tcreated {made} UTC")
        elif not revoke_key(args.db, args.name):
            print(f"mnk-server keys: {args.name!r} has no active key", file=sys.stderr)
            return 1
    except (ValueError, StoreUnavailable) as exc:
        print(f"mnk-server keys: {exc}", file=sys.stderr)
        return 1
    return 0
