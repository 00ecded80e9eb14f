"""The bot keys and accounts tables, in SQL both stores speak (``?`` placeholders: a SQLite
connection, or PostgreSQL through :class:`server.storage.postgres.Qmark`)."""

from __future__ import annotations

import hashlib
import hmac
import logging
from typing import Any

from server.core.journal.rows import (
    AccountJournalRow,
    AccountRow,
    KeyRow,
    PasswordRow,
    SessionGone,
    SessionRow,
)
from server.core.players.names import name_key

# -- bot keys (the keys CLI writes them; a running server reads them) -------------------------


def read_bot_keys(db: Any) -> list[KeyRow]:
    """Every row of the bot keys table, by name."""
    rows = db.execute("SELECT name, key_hash, created_at, revoked_at FROM bot_keys ORDER BY name")
    return [KeyRow(r["name"], r["key_hash"], r["created_at"], r["revoked_at"]) for r in rows]


def put_bot_key(db: Any, row: KeyRow) -> None:
    """Store a new key for ``row.name``, replacing any earlier (revoked) one of that name."""
    db.execute(
        "INSERT OR REPLACE INTO bot_keys VALUES (?, ?, ?, ?)",
        (row.name, row.key_hash, row.created_at, row.revoked_at),
    )


def revoke_bot_key(db: Any, name: str, at: float) -> bool:
    """Mark the live key of ``name`` revoked; False if it has none."""
    cur = db.execute(
        "UPDATE bot_keys SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL", (at, name)
    )
    return cur.rowcount > 0


# -- accounts and their sessions ---------------------------------------------------------------

#: Each account record's statement and its parameters (``?`` placeholders). Every statement is
#: idempotent, so a batch sent twice changes nothing more; a new account whose name or look-alike
#: is taken meanwhile (another node's) is not inserted rather than failing the whole batch.
ACCOUNT_SQL: dict[type, tuple[str, Any]] = {
    AccountRow: (
        "INSERT INTO accounts (name, name_key, pid, kind, password_hash, created_at, "
        "disabled_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
        lambda r: (r.name, r.name_key, r.pid, r.kind, r.password_hash, r.created_at, None),
    ),
    PasswordRow: (
        "UPDATE accounts SET password_hash = ? WHERE name = ?",
        lambda r: (r.password_hash, r.name),
    ),
    SessionRow: (
        "INSERT INTO account_sessions (token_hash, name, created_at) VALUES (?, ?, ?) "
        "ON CONFLICT DO NOTHING",
        lambda r: (r.token_hash, r.name, r.created_at),
    ),
}


def account_statement(record: AccountJournalRow) -> tuple[str, tuple[Any, ...]]:
    """The statement (``?`` placeholders) that saves an account record."""
    if isinstance(record, SessionGone):
        if record.token_hash is not None:
            return "DELETE FROM account_sessions WHERE token_hash = ?", (record.token_hash,)
        return (
            "DELETE FROM account_sessions WHERE name = ? AND token_hash <> ?",
            (record.name, record.keep or ""),
        )
    sql, params = ACCOUNT_SQL[type(record)]
    return sql, params(record)


def write_account(db: Any, record: AccountJournalRow) -> None:
    """Save one account record on a SQLite connection (inside the batch's transaction)."""
    db.execute(*account_statement(record))


#: The record types :func:`write_account` saves.
ACCOUNT_RECORDS = (AccountRow, PasswordRow, SessionRow, SessionGone)

_ACCOUNT_COLUMNS = "name, name_key, pid, kind, password_hash, created_at, disabled_at"


def _account(row: Any) -> AccountRow | None:
    return None if row is None else AccountRow(**{k: row[k] for k in _ACCOUNT_COLUMNS.split(", ")})


def account_by_key(db: Any, name_key: str) -> AccountRow | None:
    """The account whose name looks like one whose :func:`name_key` is ``name_key``."""
    sql = f"SELECT {_ACCOUNT_COLUMNS} FROM accounts WHERE name_key = ?"
    return _account(db.execute(sql, (name_key,)).fetchone())


def account_by_name(db: Any, name: str) -> AccountRow | None:
    """The account named exactly ``name``: a look-alike an older server let register keeps its
    old key (:func:`rekey_accounts`), and logs in by its exact name."""
    sql = f"SELECT {_ACCOUNT_COLUMNS} FROM accounts WHERE name = ?"
    return _account(db.execute(sql, (name,)).fetchone())


def account_by_session(db: Any, token_hash: str) -> AccountRow | None:
    """The account a session token's hash belongs to (disabled or not), or None."""
    sql = (
        f"SELECT {', '.join('a.' + c for c in _ACCOUNT_COLUMNS.split(', '))} FROM accounts a "
        "JOIN account_sessions s ON s.name = a.name WHERE s.token_hash = ?"
    )
    return _account(db.execute(sql, (token_hash,)).fetchone())


def read_accounts(db: Any) -> list[AccountRow]:
    """Every account, by name (``mnk-server accounts list``)."""
    rows = db.execute(f"SELECT {_ACCOUNT_COLUMNS} FROM accounts ORDER BY name")
    return [a for r in rows if (a := _account(r)) is not None]


def set_disabled(db: Any, name: str, at: float | None) -> bool:
    """Disable (``at``) or enable (None) the account ``name``; False if there is none. A
    disabled account's sessions stay stored but no longer resume."""
    cur = db.execute("UPDATE accounts SET disabled_at = ? WHERE name = ?", (at, name))
    return cur.rowcount > 0


def rekey_accounts(db: Any, mark: str = "?") -> None:
    """Recompute every account's ``name_key`` with today's :func:`name_key` (a migration; in
    order of creation: where two old names now look alike, the older takes the key and the
    newer keeps its old one, logging in by its exact name; a warning names it)."""
    rows = list(db.execute("SELECT name, name_key FROM accounts ORDER BY created_at, name"))
    taken: set[str] = set()
    keys = []
    for row in rows:
        key = name_key(row["name"]) or row["name_key"]
        if key in taken:
            logging.getLogger("mnk.store").warning(
                "account %r now looks like an older one: it keeps its old key", row["name"]
            )
            key = row["name_key"]
        taken.add(key)
        keys.append((row["name"], key))
    for name, _ in keys:  # a unique placeholder first: no two rows ever share a key mid-way
        db.execute(
            f"UPDATE accounts SET name_key = {mark} WHERE name = {mark}", ("\x01" + name, name)
        )
    for name, key in keys:
        db.execute(f"UPDATE accounts SET name_key = {mark} WHERE name = {mark}", (key, name))


# -- reset codes (the accounts CLI issues one; a running server reads and checks it) -----------


def code_hash(code: str) -> str:
    """How a reset code is kept: its SHA-256 (a code is random, 80 bits: no slow hash needed)."""
    return hashlib.sha256(code.encode()).hexdigest()


def put_reset_code(db: Any, account: AccountRow, code: str, expires_at: float) -> None:
    """Issue ``code`` for ``account`` (replacing any earlier one), valid until ``expires_at``
    and only while the account's password is the one it has now."""
    db.execute("DELETE FROM reset_codes WHERE name = ?", (account.name,))
    db.execute(
        "INSERT INTO reset_codes (name, code_hash, expires_at, password_hash) VALUES (?, ?, ?, ?)",
        (account.name, code_hash(code), expires_at, account.password_hash or ""),
    )


def reset_code_valid(db: Any, account: AccountRow, code: str, now: float) -> bool:
    """Whether ``code`` is ``account``'s live reset code (not expired, not spent)."""
    row = db.execute(
        "SELECT code_hash, expires_at, password_hash FROM reset_codes WHERE name = ?",
        (account.name,),
    ).fetchone()
    if row is None or row["expires_at"] <= now or not account.password_hash:
        return False
    fresh = row["password_hash"] == account.password_hash
    return fresh and hmac.compare_digest(row["code_hash"], code_hash(code))


class AccountReads:
    """The account look-ups a running server makes (on worker threads, never the loop)."""

    def _reader(self) -> Any:
        raise NotImplementedError

    def account(self, name_key: str) -> AccountRow | None:
        """The account named like ``name_key`` (see :func:`account_by_key`)."""
        return account_by_key(self._reader(), name_key)

    def session_account(self, token_hash: str) -> AccountRow | None:
        """The account the session ``token_hash`` belongs to (see :func:`account_by_session`)."""
        return account_by_session(self._reader(), token_hash)

    def account_named(self, name: str) -> AccountRow | None:
        """The account named exactly ``name`` (see :func:`account_by_name`)."""
        return account_by_name(self._reader(), name)

    def reset_code_valid(self, account: AccountRow, code: str, now: float) -> bool:
        """Whether ``code`` resets ``account``'s password now (see :func:`reset_code_valid`)."""
        return reset_code_valid(self._reader(), account, code, now)
