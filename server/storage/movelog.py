"""Moves in the SQLite store: one log row per commit while games run, one row per game after.

A commit's moves go to ``move_batches`` as one msgpack blob (``protocol.wire.pack``: one
appended row, the last page or two of one table), whatever number of games they belong to. When
a game ends, its moves are written as one row of ``game_moves`` (sealed), from the lists this
writer keeps in memory, and the log's rows that no running game still needs are deleted from
its front. Nothing is folded on the commit path: at 100 games a commit's ~45 moves cost one
row instead of 45 B-tree inserts.

A game's moves as read back: its ``game_moves`` row (complete once the game is sealed), with
the moves this writer has committed since over it (the later of two for one ply wins), from
memory: the log itself is read only when the store opens, to seal what a killed run left.
"""

from __future__ import annotations

import itertools
import operator
import sqlite3
from collections import deque
from collections.abc import Iterable
from typing import Any

from protocol.wire import pack, unpack
from server.core.journal.rows import MoveRow, played

#: Batches between two trims of the log's front (a trim is one range ``DELETE``).
TRIM_EVERY = 64
#: Moves the log may hold (about 40 bytes each); past that, the games that began in its older
#: half (long, slow or abandoned ones) are sealed as they stand, so the log can be cut in half.
MAX_LOG = 1 << 18

#: A game's moves as stored: ``[ply, x, y, at, clocks]`` per move (``clocks`` None or a pair).
Stored = list[Any]
#: A record's stored fields (all but the game id), and a stored move's ply (C-level loops).
_STORED = operator.itemgetter(slice(1, None))
_PLY = operator.itemgetter(0)

SCHEMA = """
    CREATE TABLE game_moves (game_id TEXT PRIMARY KEY, moves BLOB NOT NULL);
    CREATE TABLE move_batches (seq INTEGER PRIMARY KEY, moves BLOB NOT NULL);
"""


def move_row(game_id: str, m: Stored) -> MoveRow:
    """One stored ``[ply, x, y, at, clocks]`` as a record."""
    clocks = m[4]
    return MoveRow(game_id, m[0], m[1], m[2], m[3], None if clocks is None else tuple(clocks))


class MoveLog:
    """The writer's side: logs batches, seals games, trims the log (on whichever thread holds
    the writer's connection: the loop or the writer thread, never both at once).

    Its memory changes only after the statements they follow are committed, so what
    :meth:`unsealed` shows a reader thread was committed (and a failed batch changes nothing).
    """

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        #: Committed moves of this run that are in no game's row yet, as stored (plain tuples,
        #: which the cyclic GC stops tracking, not the records: a game keeps up to hundreds),
        #: and the batch of each game's first such move (the log's front cannot pass it).
        self.pending: dict[str, list[tuple[Any, ...]]] = {}
        self.since: dict[str, int] = {}
        self.trim_every = TRIM_EVERY
        self.max_log = MAX_LOG
        #: The last batch's number, and the number at the last trim.
        self.seq = 0
        self.trimmed_at = 0
        #: The log's rows as (batch number, moves in it), and the moves in all of them.
        self.batches: deque[tuple[int, int]] = deque()
        self.logged = 0

    def due(self) -> bool:
        """Whether the log's front should be trimmed now (after ``trim_every`` batches)."""
        return self.seq - self.trimmed_at >= self.trim_every

    def insert(self, moves: list[MoveRow]) -> int:
        """Log one batch of moves as one row (in the caller's transaction, or its own)."""
        seq = self.seq + 1
        self.db.execute("INSERT INTO move_batches VALUES (?, ?)", (seq, pack(moves)))
        return seq

    def committed(self, moves: list[MoveRow], seq: int, sealed: Iterable[str] = ()) -> None:
        """The batch ``seq`` holding ``moves`` is committed, and the games ``sealed`` with it."""
        if moves:
            self.seq = seq
            self.batches.append((seq, len(moves)))
            self.logged += len(moves)
        pending, since = self.pending, self.since
        for move in moves:
            gid = move[0]
            rows = pending.get(gid)
            if rows is None:
                pending[gid] = [move[1:]]
                since[gid] = seq
            else:
                rows.append(move[1:])
        for game_id in sealed:
            pending.pop(game_id, None)
            since.pop(game_id, None)

    def append(self, moves: list[MoveRow]) -> None:
        """Log a batch of moves alone: one statement, its own transaction."""
        self.committed(moves, self.insert(moves))

    def seal(self, game_id: str, moves: Iterable[MoveRow] = (), fresh: bool = False) -> None:
        """Write the game's moves (with ``moves`` of the batch) as its row, in a transaction;
        ``fresh``: the caller knows the game has no row yet (nothing to read and merge).

        The caller tells :meth:`committed` once the transaction is, and the game leaves memory.
        """
        rows = [*self.pending.get(game_id, ()), *map(_STORED, moves)]
        if rows:
            merge(self.db, game_id, rows, fresh)

    def unsealed(self, game_id: str) -> list[MoveRow]:
        """The game's committed moves that are in no row yet (a copy; any thread may ask)."""
        stored = list(self.pending.get(game_id, ()))  # one C-level copy: the writer may append
        return [MoveRow(game_id, *m) for m in stored]

    def trim(self) -> tuple[list[str], int]:
        """Delete the log's rows no running game needs (in a transaction); the games it sealed
        and the first batch it kept.

        When the log holds more than ``max_log`` moves, the games that began in its older half
        are sealed as they stand first: an abandoned or very slow game does not hold the log.
        """
        sealed: list[str] = []
        if self.logged > self.max_log:
            half, cut = self.logged // 2, self.seq
            for seq, count in self.batches:
                half -= count
                if half <= 0:
                    cut = seq
                    break
            sealed = [g for g, s in self.since.items() if s <= cut]
            for game_id in sealed:
                self.seal(game_id)
        since = (
            (s for g, s in self.since.items() if g not in sealed) if sealed else self.since.values()
        )
        horizon = min(since, default=self.seq + 1)
        self.db.execute("DELETE FROM move_batches WHERE seq < ?", (horizon,))
        return sealed, horizon

    def trimmed(self, sealed: list[str], horizon: int) -> None:
        """The trim's transaction is committed: forget what it sealed and the rows before
        ``horizon`` it deleted."""
        self.trimmed_at = self.seq
        for game_id in sealed:
            self.pending.pop(game_id, None)
            self.since.pop(game_id, None)
        batches = self.batches
        while batches and batches[0][0] < horizon:
            self.logged -= batches.popleft()[1]

    def recover(self) -> None:
        """Seal what an earlier run left in the log and empty it (at open, in a transaction)."""
        logged: dict[str, list[Stored]] = {}
        for (blob,) in self.db.execute("SELECT moves FROM move_batches ORDER BY seq"):
            for m in unpack(blob):
                logged.setdefault(m[0], []).append(m[1:])
        for game_id, moves in logged.items():
            if self.db.execute("SELECT 1 FROM games WHERE game_id = ?", (game_id,)).fetchone():
                merge(self.db, game_id, moves)  # a discarded game's moves go with the log
        self.db.execute("DELETE FROM move_batches")
        self.pending.clear()
        self.since.clear()
        self.batches.clear()
        self.seq = self.trimmed_at = self.logged = 0


def merge(db: Any, game_id: str, moves: list[Stored], fresh: bool = False) -> None:
    """Write ``moves`` over the game's row (a later move for one ply wins); ``fresh``: it has
    none."""
    row = None
    if not fresh:
        row = db.execute("SELECT moves FROM game_moves WHERE game_id = ?", (game_id,)).fetchone()
    if row is None and list(map(_PLY, moves)) == list(range(len(moves))):
        merged = moves  # the usual case: a whole game, in order, no twins
    else:
        by_ply = {m[0]: m for m in (unpack(row[0]) if row else ())}
        by_ply.update((m[0], m) for m in moves)
        merged = [by_ply[ply] for ply in sorted(by_ply)]
    db.execute("INSERT OR REPLACE INTO game_moves VALUES (?, ?)", (game_id, pack(merged)))


def read_moves(db: Any, game_id: str, later: list[MoveRow]) -> list[MoveRow]:
    """A game's moves: its row, with ``later`` ones (committed, in no row yet) over it.

    Take ``later`` before reading the row: a seal in between then shows in the row.
    """
    row = db.execute("SELECT moves FROM game_moves WHERE game_id = ?", (game_id,)).fetchone()
    by_ply = {m[0]: move_row(game_id, m) for m in (unpack(row[0]) if row else ())}
    by_ply.update((m.ply, m) for m in later)
    return played([by_ply[ply] for ply in sorted(by_ply)])  # a takeback's tombstones go


def migrate_moves(db: sqlite3.Connection) -> None:
    """Schema 5: the moves table and its log become one row per game (each game's moves merged)."""
    for statement in SCHEMA.split(";")[:-1]:
        db.execute(statement)  # not executescript: it would commit the migration's transaction
    logged: dict[str, list[Stored]] = {}
    log = db.execute("SELECT game_id, ply, x, y, at, clock0, clock1 FROM move_log ORDER BY rowid")
    for r in log:
        logged.setdefault(r[0], []).append(_stored(r))
    rows = db.execute(
        "SELECT game_id, ply, x, y, at, clock0, clock1 FROM moves ORDER BY game_id, ply"
    )
    for game_id, group in itertools.groupby(rows, key=lambda r: r[0]):
        moves = [_stored(r) for r in group] + logged.pop(game_id, [])
        merge(db, game_id, moves)
    for game_id, moves in logged.items():
        merge(db, game_id, moves)
    db.execute("DROP TABLE moves")
    db.execute("DROP TABLE move_log")


def _stored(r: Any) -> Stored:
    """A row of the old moves table (or its log) as stored now."""
    return [r[1], r[2], r[3], r[4], None if r[5] is None else [r[5], r[6]]]
