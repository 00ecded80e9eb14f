"""The bot keys and accounts tables, in SQL both stores speak (``?`` placeholders: a SQLite
connection, or PostgreSQL through :class:`server.storage.postgres.Qmark`)."""

from __future__ import annotations

from typing import Any

from server.core.journal import KeyRow

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
