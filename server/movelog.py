"""Moves in the SQLite store: one log row per commit while games run, one row per game after.

A commit's moves go to ``move_batches`` as one msgpack blob (one appended row, the last page or
two of one table), whatever number of games they belong to. When a game ends, its moves are
written as one row of ``game_moves`` (sealed), from the lists this writer keeps in memory, and the
log's rows that no running game still needs are deleted from its front. Nothing is folded on the
commit path: at 100 games a commit's ~45 moves cost one row instead of 45 B-tree inserts.

A game's moves as read back: its ``game_moves`` row (complete once the game is over; a prefix
for a game that is still running), with the log's moves of that game over it (the later of two
rows for one ply wins). Opening the store seals what a previous run left in the log.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections import deque
from typing import Any

import msgpack

from server.journal import MoveRow

#: Batches between two trims of the log's front (a trim is one range ``DELETE``).
TRIM_EVERY = 64
#: Moves the log may hold (about 40 bytes each); past that, the games that began in its older
#: half (long, slow or abandoned ones) are sealed as they stand, so the log can be cut in half.
MAX_LOG = 1 << 18

#: A game's moves as stored: ``[ply, x, y, at, clocks]`` per move (``clocks`` None or a pair).
Stored = list[Any]

SCHEMA = """
    CREATE TABLE game_moves (game_id TEXT PRIMARY KEY, moves BLOB NOT NULL);
    CREATE TABLE move_batches (seq INTEGER PRIMARY KEY, moves BLOB NOT NULL);
"""


def move_row(game_id: str, m: Stored) -> MoveRow:
    """One stored ``[ply, x, y, at, clocks]`` as a record."""
    clocks = m[4]
    return MoveRow(game_id, m[0], m[1], m[2], m[3], None if clocks is None else tuple(clocks))


class MoveLog:
    """The writer's side: logs batches, seals games, trims the log (all on the writer thread)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        #: Moves logged by this run of games not sealed yet, and the batch of each one's first.
        self.pending: dict[str, list[MoveRow]] = {}
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
        """Whether logging one more batch should also trim the log."""
        return self.seq + 1 - self.trimmed_at >= self.trim_every

    def append(self, moves: list[MoveRow]) -> None:
        """Log one batch of moves as one row (in the caller's transaction, or its own)."""
        seq = self.seq + 1
        self.db.execute("INSERT INTO move_batches VALUES (?, ?)", (seq, msgpack.packb(moves)))
        self.seq = seq
        self.batches.append((seq, len(moves)))
        self.logged += len(moves)
        pending, since = self.pending, self.since
        for move in moves:
            gid = move[0]
            rows = pending.get(gid)
            if rows is None:
                pending[gid] = [move]
                since[gid] = seq
            else:
                rows.append(move)

    def seal(self, game_id: str) -> None:
        """Write the game's moves as its one row (in a transaction); it needs the log no more."""
        rows = self.pending.pop(game_id, None)
        self.since.pop(game_id, None)
        if rows is not None:
            merge(self.db, game_id, [r[1:] for r in rows])

    def forget(self, game_id: str) -> None:
        """A discarded game: its moves are dropped with its row."""
        self.pending.pop(game_id, None)
        self.since.pop(game_id, None)
        self.db.execute("DELETE FROM game_moves WHERE game_id = ?", (game_id,))

    def trim(self) -> None:
        """Delete the log's rows no running game needs (in a transaction).

        When the log holds more than ``max_log`` moves, the games that began in its older half
        are sealed as they stand first: an abandoned or very slow game does not hold the log.
        """
        self.trimmed_at = self.seq
        if self.logged > self.max_log:
            half, cut = self.logged // 2, self.seq
            for seq, count in self.batches:
                half -= count
                if half <= 0:
                    cut = seq
                    break
            for game_id in [g for g, s in self.since.items() if s <= cut]:
                self.seal(game_id)
        horizon = min(self.since.values(), default=self.seq + 1)
        self.db.execute("DELETE FROM move_batches WHERE seq < ?", (horizon,))
        batches = self.batches
        while batches and batches[0][0] < horizon:
            self.logged -= batches.popleft()[1]

    def recover(self) -> None:
        """Seal what an earlier run left in the log and empty it (at open, in a transaction)."""
        logged: dict[str, list[Stored]] = {}
        for (blob,) in self.db.execute("SELECT moves FROM move_batches ORDER BY seq"):
            for m in msgpack.unpackb(blob):
                logged.setdefault(m[0], []).append(m[1:])
        for game_id, moves in logged.items():
            if self.db.execute("SELECT 1 FROM games WHERE game_id = ?", (game_id,)).fetchone():
                merge(self.db, game_id, moves)  # a discarded game's moves go with the log
        self.db.execute("DELETE FROM move_batches")
        self.pending.clear()
        self.since.clear()
        self.batches.clear()
        self.seq = self.trimmed_at = self.logged = 0


def merge(db: Any, game_id: str, moves: list[Stored]) -> None:
    """Write ``moves`` over the game's row (a later move for one ply wins)."""
    row = db.execute("SELECT moves FROM game_moves WHERE game_id = ?", (game_id,)).fetchone()
    if row is None and all(m[0] == i for i, m in enumerate(moves)):
        merged = moves  # the usual case: a whole game, in order, no twins
    else:
        by_ply = {m[0]: m for m in (msgpack.unpackb(row[0]) if row else ())}
        by_ply.update((m[0], m) for m in moves)
        merged = [by_ply[ply] for ply in sorted(by_ply)]
    db.execute("INSERT OR REPLACE INTO game_moves VALUES (?, ?)", (game_id, msgpack.packb(merged)))


def read_moves(db: Any, game_id: str, over: bool) -> list[MoveRow]:
    """A game's moves: its row, with the log's over them unless the game is over (sealed).

    Call inside one read transaction: between two statements the writer may seal and trim.
    """
    row = db.execute("SELECT moves FROM game_moves WHERE game_id = ?", (game_id,)).fetchone()
    by_ply = {m[0]: m for m in (msgpack.unpackb(row[0]) if row else ())}
    if not over:
        key = msgpack.packb(game_id)  # a blob holding the game's moves holds these bytes
        rows = db.execute(
            "SELECT moves FROM move_batches WHERE instr(moves, ?) > 0 ORDER BY seq", (key,)
        )
        for (blob,) in rows:
            by_ply.update((m[1], m[1:]) for m in msgpack.unpackb(blob) if m[0] == game_id)
    return [move_row(game_id, by_ply[ply]) for ply in sorted(by_ply)]


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
