"""What the server needs of its database: the :class:`Storage` interface and its errors.

Three stores implement it with the record types of :mod:`server.core.journal.rows`: the embedded
SQLite file (:class:`server.storage.sqlite.Store`, the default), PostgreSQL
(:class:`server.storage.postgres.PgStore`, for ``--db postgresql://…``) and nothing durable
(:class:`server.storage.memory.MemoryStore`, for ``--memory``). :mod:`server.storage.factory`
picks one for a ``--db`` value; this module imports none of them, so each may import it.
"""

from __future__ import annotations

from typing import Any, Protocol

from server.core.journal.rows import AccountRow, JournalRow, KeyRow, PlayerRow, Snapshot


class StoreUnavailable(Exception):
    """The database cannot be reached or opened (a start-up or CLI error, said in one line)."""


class StoreLocked(StoreUnavailable):
    """Another server process holds the database (its file, or its ``--node`` name): two
    servers on one database would restore the same games and overwrite each other's moves."""


class Fenced(Exception):
    """This node's lease lapsed and its rooms may be someone else's: it must neither write nor
    send again (raised by a cluster node's commit)."""


class Storage(Protocol):
    """A store of players, games, moves, live rooms and bot keys, as the shell and CLI use it.

    ``write`` runs on the pipeline's writer thread, never the loop; ``write_now``, ``upkeep_due``
    and the properties run on the loop; reads run on worker threads (``load`` at start).
    """

    #: Whether what is written survives the process: False (``--memory``) and the server
    #: delivers every output at once, with no commit pipeline in the way of a move.
    durable: bool
    #: Whether :meth:`write_now` can commit on the event loop's own thread (a local file):
    #: the pipeline then commits small batches there and sizes batches for it.
    commits_on_loop: bool
    #: Bytes the store's write-ahead log may grow to before the pipeline truncates it.
    wal_limit: int

    @property
    def fenced(self) -> bool:
        """Whether a commit was refused because another node may own this node's rooms now."""
        ...

    def write(self, records: list[JournalRow]) -> None:
        """Commit a batch of records in one transaction (on the writer thread)."""
        ...

    def write_now(self, records: list[JournalRow]) -> bool:
        """Commit a batch at once on the loop if that cannot block: False, nothing written,
        when it would have to wait (then the pipeline uses :meth:`write`)."""
        ...

    def upkeep_due(self) -> bool:
        """Whether :meth:`upkeep` should run on the writer thread after :meth:`write_now`."""
        ...

    def upkeep(self) -> None:
        """Housekeeping that :meth:`write_now` left for the writer thread."""
        ...

    def load(self) -> Snapshot:
        """Every player and live room, read back at start."""
        ...

    def bot_keys(self) -> list[KeyRow]:
        """Every bot key, revoked ones included."""
        ...

    def player_by_token(self, token_hash: str) -> PlayerRow | None:
        """The player a session token's hash resumes (a cluster node asks: saved anywhere)."""
        ...

    def bot_by_name(self, name: str) -> PlayerRow | None:
        """The newest player of the bot ``name`` (a cluster node asks: saved anywhere)."""
        ...

    def account(self, name_key: str) -> AccountRow | None:
        """The account whose name's look-alike form is ``name_key`` (on a worker thread)."""
        ...

    def session_account(self, token_hash: str) -> AccountRow | None:
        """The account whose session token hashes to ``token_hash`` (on a worker thread)."""
        ...

    def account_named(self, name: str) -> AccountRow | None:
        """The account named exactly ``name`` (on a worker thread)."""
        ...

    def reset_code_valid(self, account: AccountRow, code: str, now: float) -> bool:
        """Whether ``code`` is ``account``'s live reset code at ``now`` (on a worker thread)."""
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

    def leaderboard(
        self, pool: str, bots: bool = False, page: int = 0, now: float | None = None
    ) -> dict[str, Any]:
        """A page of a pool's leaderboard (``leaderboard`` reply)."""
        ...

    def profile(
        self, name: str, before: float | None = None, before_id: str | None = None
    ) -> dict[str, Any]:
        """An account's ratings, record, history and a page of its games (``profile`` reply)."""
        ...

    def checkpoint(self, truncate: bool = False) -> None:
        """Move the write-ahead log into the database where the store manages that itself."""
        ...

    def wal_size(self) -> int:
        """Bytes in the store's own write-ahead log file (0 when it has none)."""
        ...

    def close(self) -> None:
        """Release the store's connections (and its hold on the database)."""
        ...
