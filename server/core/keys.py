"""Bot keys: operator-issued credentials that prove a connection is the bot whose name it takes.

A key is 32 random bytes (URL-safe text); only its SHA-256 is kept. Each key belongs to one
name, so a key fixes its bot's name and no connection can pass for a bot it holds no key of.
Keys come from the database (``mnk-server keys add``), from ``--keys-file`` and from the
built-in bot pool, which makes a fresh one for each of its bots at every start.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import secrets
import sys
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from protocol.errors import ArenaError
from server.core.journal import KeyRow
from server.core.names import clean_name, name_key
from server.storage.base import StoreUnavailable
from server.storage.factory import is_pg_url
from server.storage.sqlite import connect, migrate, put_bot_key, read_bot_keys, revoke_bot_key

#: Random bytes per key; a key longer than MAX_KEY characters is not even hashed.
KEY_BYTES = 32
MAX_KEY = 256
#: The database ``mnk-server`` uses when not told otherwise.
DB = "mnk-arena.sqlite3"


def new_key() -> str:
    """A fresh high-entropy key."""
    return secrets.token_urlsafe(KEY_BYTES)


def hash_key(key: str) -> str:
    """What is stored of a key: its SHA-256, so a leaked table lets nobody in."""
    return hashlib.sha256(key.encode()).hexdigest()


class KeyRing:
    """The keys a server accepts: its database's (reloaded) and those given at start (static).

    A static key (``--keys-file``, the built-in pool) wins over a stored one of the same name.
    """

    def __init__(self) -> None:
        self._stored: dict[str, str] = {}
        self._static: dict[str, str] = {}
        self._by_hash: dict[str, str] = {}
        self._hash_of: dict[str, str] = {}
        self._owned: set[str] = set()

    def add(self, name: str, key: str) -> None:
        """Accept ``key`` for the bot ``name`` from now on (a static key)."""
        self._static[clean_name(name)] = hash_key(key)
        self._rebuild()

    def load(self, rows: Iterable[KeyRow]) -> None:
        """Replace the stored keys by ``rows`` (revoked rows are dropped)."""
        self._stored = {r.name: r.key_hash for r in rows if r.revoked_at is None}
        self._rebuild()

    def _rebuild(self) -> None:
        self._hash_of = self._stored | self._static
        self._by_hash = {digest: name for name, digest in self._hash_of.items()}
        self._owned = {name_key(name) for name in self._hash_of}

    def identify(self, key: str) -> str | None:
        """The name ``key`` belongs to, or None for an unknown, revoked or absurd key."""
        if not key or len(key) > MAX_KEY:
            return None
        digest = hash_key(key)
        name = self._by_hash.get(digest)
        if name is None or not hmac.compare_digest(self._hash_of[name], digest):
            return None
        return name

    def holds(self, name: str, key_hash: str) -> bool:
        """Whether ``name``'s key is still ``key_hash`` (not revoked, not replaced)."""
        current = self._hash_of.get(name)
        return current is not None and hmac.compare_digest(current, key_hash)

    def owns(self, name: str) -> bool:
        """Whether ``name`` (or a name that would pass for it) belongs to a bot key."""
        return name_key(name) in self._owned

    def __len__(self) -> int:
        return len(self._hash_of)


def read_keys_file(path: Path) -> list[tuple[str, str]]:
    """``NAME=KEY`` lines (blank lines and ``#`` comments skipped); ValueError when malformed."""
    pairs = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, key = line.rpartition("=")
        if not sep or not key.strip():
            raise ValueError(f"{path}:{number}: expected NAME=KEY")
        try:
            pairs.append((clean_name(name), key.strip()))
        except ArenaError as exc:
            raise ValueError(f"{path}:{number}: {exc.message}") from None
    return pairs


# -- mnk-server keys ----------------------------------------------------------------------------


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
