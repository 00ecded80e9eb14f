"""``mnk-server keys`` and ``mnk-server accounts``: the operator's commands for the bot keys
(which a running server re-reads within seconds) and the accounts in a server's database (a
SQLite file or PostgreSQL; a running server reads an account at its next hello or login)."""

from __future__ import annotations

import argparse
import secrets
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from protocol.errors import ArenaError
from server.core.journal.rows import KeyRow
from server.core.players.keys import hash_key, new_key
from server.core.players.names import clean_name, name_key
from server.storage.accounts import (
    account_by_key,
    put_bot_key,
    put_reset_code,
    read_accounts,
    read_bot_keys,
    revoke_bot_key,
    set_disabled,
)
from server.storage.base import StoreUnavailable
from server.storage.entrychecks import forget_entry_check
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
    taken = None
    if is_pg_url(db_path) or Path(db_path).exists():
        with account_table(db_path) as db:
            taken = account_by_key(db, name_key(name))
    if taken is not None and taken.kind == "human":
        raise ValueError(f"{taken.name!r} is a player's account: choose another name")
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
    db = getattr(args, "db", DB)
    try:
        if args.action == "add":
            print(add_key(db, args.name))
        elif args.action == "list":
            for row in list_keys(db):
                made = time.strftime("%Y-%m-%d %H:%M", time.gmtime(row.created_at))
                state = "active" if row.revoked_at is None else "revoked"
                print(f"{row.name}\t{state}\tcreated {made} UTC")
        elif not revoke_key(db, args.name):
            print(f"mnk-server keys: {args.name!r} has no active key", file=sys.stderr)
            return 1
    except (ValueError, StoreUnavailable) as exc:
        print(f"mnk-server keys: {exc}", file=sys.stderr)
        return 1
    return 0


# -- accounts ----------------------------------------------------------------------------------


@contextmanager
def account_table(db_path: str) -> Iterator[Any]:
    """A connection to ``--db`` taking ``?`` placeholders, its schema up to date, committed and
    closed after (a SQLite file must exist: a server makes it)."""
    if is_pg_url(db_path):
        from server.storage.pgschema import migrate as pg_migrate
        from server.storage.postgres import Qmark
        from server.storage.postgres import connect as pg_connect

        conn = pg_connect(db_path)
        try:
            pg_migrate(conn)
            yield Qmark(conn)
        finally:
            conn.close()
        return
    if not Path(db_path).exists():
        raise ValueError(f"no database at {db_path}")
    db = connect(db_path)
    try:
        migrate(db)
        yield db
    finally:
        db.close()


def accounts_parser() -> argparse.ArgumentParser:
    """The command line of ``mnk-server accounts``."""
    db = argparse.ArgumentParser(add_help=False)
    db.add_argument(
        "--db",
        default=argparse.SUPPRESS,
        help=f"the server's SQLite file or postgresql:// URL ({DB})",
    )
    p = argparse.ArgumentParser(
        prog="mnk-server accounts",
        description="List, disable, enable accounts, issue a password reset code, or have a "
        "bot's entry check run again.",
        parents=[db],
    )
    sub = p.add_subparsers(dest="action", required=True)
    sub.add_parser("list", parents=[db], help="list accounts: name, kind, state, created")
    for action, what in (
        ("disable", "log out and refuse"),
        ("enable", "let back in"),
        ("reset", "print a one-time code that sets a new password of"),
        ("recheck", "forget the entry check (from the next start) of the bot"),
    ):
        one = sub.add_parser(action, parents=[db], help=f"{what} the account NAME")
        one.add_argument("name")
    return p


#: A reset code: 16 characters of an alphabet without look-alikes (about 79 bits), valid a day.
RESET_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
RESET_LENGTH = 16
RESET_HOURS = 24.0


def issue_reset(db: Any, name: str, now: float) -> str:
    """A new one-time reset code for the human account ``name`` (any earlier one is void);
    ValueError if there is none. Only its hash is stored."""
    try:
        account = account_by_key(db, name_key(clean_name(name)))
    except ArenaError as exc:
        raise ValueError(exc.message) from None
    if account is None or account.kind != "human":
        raise ValueError(f"no player's account {name!r}")
    code = "".join(secrets.choice(RESET_ALPHABET) for _ in range(RESET_LENGTH))
    put_reset_code(db, account, code, now + RESET_HOURS * 3600.0)
    return code


def recheck(db: Any, name: str) -> int:
    """Forget the bot ``name``'s entry check: the server checks it again before its next rated
    event (a running server keeps what it knows until it restarts)."""
    if not forget_entry_check(db, name):
        print(f"mnk-server accounts: no entry check of {name!r} stored", file=sys.stderr)
        return 1
    print(f"{name}: its entry check runs again at its next rated entry after a server start")
    return 0


def accounts_main(argv: list[str]) -> int:
    """``mnk-server accounts list | disable NAME | enable NAME | reset NAME | recheck NAME``;
    returns the exit status."""
    args = accounts_parser().parse_args(argv)
    db_path = getattr(args, "db", DB)
    try:
        with account_table(db_path) as db:
            if args.action == "list":
                for row in read_accounts(db):
                    made = time.strftime("%Y-%m-%d %H:%M", time.gmtime(row.created_at))
                    state = "active" if row.disabled_at is None else "disabled"
                    print(f"{row.name}\t{row.kind}\t{state}\tcreated {made} UTC")
                return 0
            if args.action == "reset":
                code = issue_reset(db, args.name, time.time())
                print(f"reset code for {args.name}: {code}")
                print(f"valid {RESET_HOURS:g} hours, once: give it to the account's owner, who")
                print("enters it with a new password under 'Forgot password?' when logging in")
                return 0
            if args.action == "recheck":
                return recheck(db, args.name)
            at = time.time() if args.action == "disable" else None
            if not set_disabled(db, args.name, at):
                print(f"mnk-server accounts: no account {args.name!r}", file=sys.stderr)
                return 1
    except (ValueError, StoreUnavailable) as exc:
        print(f"mnk-server accounts: {exc}", file=sys.stderr)
        return 1
    return 0
