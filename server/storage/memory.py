"""The store of ``--memory``: nothing durable, nothing kept, for throwaway servers and benchmarks.

Writes are accepted and dropped (a server on it journals nothing anyway: its arena is built
with ``durable=False``, and with :attr:`MemoryStore.durable` False the server runs no commit
pipeline, so a move costs what it did before stores had a common interface). History lookups
answer ``no_history``, as docs/PROTOCOL.md says a server without a database does.
"""

from __future__ import annotations

from typing import Any

from protocol.errors import NoHistory
from server.core.journal.rows import AccountRow, JournalRow, KeyRow, PlayerRow, Snapshot


class MemoryStore:
    """A :class:`~server.storage.base.Storage` that keeps nothing: everything lives in the arena."""

    #: Nothing survives the process: outputs go at once, with no commit to wait for.
    durable = False
    #: Dropping a batch never blocks, so it may happen on the loop.
    commits_on_loop = True
    #: No write-ahead log to bound.
    wal_limit = 0
    #: Never: a memory server is nobody's cluster node.
    fenced = False

    def write(self, records: list[JournalRow]) -> None:
        """Drop the batch: nothing is durable here."""

    def write_now(self, records: list[JournalRow]) -> bool:
        """Drop the batch at once (True: done, nothing to wait for)."""
        return True

    def upkeep_due(self) -> bool:
        """False: nothing is kept, so nothing needs upkeep."""
        return False

    def upkeep(self) -> None:
        """Nothing to do: nothing is kept."""

    def load(self) -> Snapshot:
        """Nothing to restore: every start is a fresh server."""
        return Snapshot([], [], None)

    def bot_keys(self) -> list[KeyRow]:
        """None kept: bot keys come from ``--keys-file`` and the built-in bots only."""
        return []

    def player_by_token(self, token_hash: str) -> PlayerRow | None:
        """None: sessions live in the arena's memory only (asked by cluster nodes, not here)."""
        return None

    def bot_by_name(self, name: str) -> PlayerRow | None:
        """None: players live in the arena's memory only (asked by cluster nodes, not here)."""
        return None

    def account(self, name_key: str) -> AccountRow | None:
        """None: a memory server keeps no accounts (its arena refuses them first)."""
        return None

    def session_account(self, token_hash: str) -> AccountRow | None:
        """None: a memory server keeps no accounts, so no session of one resumes."""
        return None

    def account_named(self, name: str) -> AccountRow | None:
        """None: a memory server keeps no accounts."""
        return None

    def reset_code_valid(self, account: AccountRow, code: str, now: float) -> bool:
        """False: a memory server keeps no accounts."""
        return False

    def list_games(
        self,
        player: str | None = None,
        before: float | None = None,
        limit: int = 20,
        before_id: str | None = None,
    ) -> dict[str, Any]:
        """Refused with ``no_history``: finished games are not kept."""
        raise NoHistory("this server keeps no game history")

    def get_game(self, game_id: str, fmt: str = "json") -> dict[str, Any]:
        """Refused with ``no_history``: finished games are not kept."""
        raise NoHistory("this server keeps no game history")

    def leaderboard(
        self, pool: str, bots: bool = False, page: int = 0, now: float | None = None
    ) -> dict[str, Any]:
        """Refused with ``no_history``: no ratings are kept."""
        raise NoHistory("this server keeps no ratings")

    def profile(
        self, name: str, before: float | None = None, before_id: str | None = None
    ) -> dict[str, Any]:
        """Refused with ``no_history``: no ratings are kept."""
        raise NoHistory("this server keeps no ratings")

    def checkpoint(self, truncate: bool = False) -> None:
        """Nothing to do: there is no write-ahead log."""

    def wal_size(self) -> int:
        """0: there is no write-ahead log."""
        return 0

    def close(self) -> None:
        """Nothing to release."""


#: The one a server needs when given none: it keeps nothing, so any number of servers share it.
MEMORY = MemoryStore()
