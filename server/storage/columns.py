"""The games table's columns as both SQL stores write them (SQLite and PostgreSQL share them)."""

from __future__ import annotations

import json
from typing import Any

from server.core.journal.rows import GameRow


def game_values(r: GameRow) -> tuple[Any, ...]:
    """A game header as the games table's columns, in their order (JSON where nested)."""
    return (
        r.game_id, r.room, r.game_no, json.dumps(r.variant), json_text(r.options),
        None if r.clock is None else json.dumps(r.clock), *r.seats, *r.names, *r.kinds,
        r.status, r.winner, r.reason, json_text(r.line), r.created_at, r.started_at,
        r.ended_at, r.fault,
    )  # fmt: skip


#: The games table's columns in :func:`game_values`' order.
GAME_COLUMNS = (
    "game_id", "room", "game_no", "variant", "options", "clock", "seat0", "seat1", "name0",
    "name1", "kind0", "kind1", "status", "winner", "reason", "line", "created_at", "started_at",
    "ended_at", "fault",
)  # fmt: skip


#: The indexes ``list_games`` reads (server/storage/history.py): each player column, then the
#: page order, so a player's page or a page after (before, before_id) is a range, not a scan.
GAMES_INDEXES = """
    DROP INDEX IF EXISTS games_by_end;
    CREATE INDEX games_by_end ON games (status, ended_at, game_id);
    CREATE INDEX games_by_seat0 ON games (seat0, status, ended_at, game_id);
    CREATE INDEX games_by_seat1 ON games (seat1, status, ended_at, game_id);
    CREATE INDEX games_by_name0 ON games (name0, status, ended_at, game_id);
    CREATE INDEX games_by_name1 ON games (name1, status, ended_at, game_id);
"""


#: Accounts (a human's name and password hash, or a bot's name: one player id each, kept
#: forever, and named on its player's row; ``name_key`` is
#: :func:`server.core.players.names.name_key`,
#: unique so no two accounts look alike) and their sessions (one per device, only the token's
#: hash kept). SQLite's REAL is PostgreSQL's DOUBLE PRECISION: ``{real}`` is filled in per store.
ACCOUNTS_MIGRATION = """
    CREATE TABLE accounts (
        name TEXT PRIMARY KEY, name_key TEXT NOT NULL UNIQUE, pid TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL, password_hash TEXT, created_at {real} NOT NULL,
        disabled_at {real});
    CREATE TABLE account_sessions (
        token_hash TEXT PRIMARY KEY, name TEXT NOT NULL, created_at {real} NOT NULL);
    CREATE INDEX account_sessions_by_name ON account_sessions (name);
    ALTER TABLE players ADD COLUMN account TEXT;
"""

#: One-time password reset codes the operator issued (``mnk-server accounts reset NAME``): one
#: per account, only the code's SHA-256 kept, valid until ``expires_at`` and only while the
#: account's password hash is still ``password_hash`` (so a used code is spent: the reset
#: changed it; so is one whose account changed its password since).
RESET_CODES_MIGRATION = """
    CREATE TABLE reset_codes (
        name TEXT PRIMARY KEY, code_hash TEXT NOT NULL, expires_at {real} NOT NULL,
        password_hash TEXT NOT NULL);
"""


def json_text(value: Any) -> str:
    """``json.dumps`` of a dict or a sequence, without its cost for the empty ones most headers
    carry (no line before the end; often no options)."""
    if not value:
        return "{}" if isinstance(value, dict) else "[]"
    return json.dumps(value)
