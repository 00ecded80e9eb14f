"""Reading games back: the start-up snapshot, history pages and one game's record or ``.psq``.

Shared by the SQLite and PostgreSQL stores: it needs only a connection whose ``execute`` takes
``?`` placeholders and yields rows indexed by column name.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from typing import Any

from protocol.errors import NoSuchGame
from protocol.records import PsqRecord, outcome, write_psq
from protocol.rules import Move, WinRule
from server.core.game.labels import titled
from server.core.journal.rows import GameRow, MoveRow, PlayerRow, RoomRow, Snapshot
from server.storage.accounts import AccountReads
from server.storage.entrychecks import read_entry_checks
from server.storage.ratings import RatingQueries, read_ratings
from server.storage.tournaments import read_tournaments

MAX_PAGE = 100
#: The columns a player is found by in ``list_games`` (each has its index).
PLAYER_COLUMNS = ("seat0", "seat1", "name0", "name1")


class History(AccountReads, RatingQueries, ABC):
    """Reading back: the start-up snapshot (from ``self.db``) and history queries (off the loop).

    Works over any connection whose ``execute`` takes ``?`` placeholders and yields rows
    indexed by column name, so the SQLite and PostgreSQL stores share it.
    """

    #: The rooms table's column that orders live rooms by when they got their current game.
    ROOM_ORDER = "rowid"
    db: Any

    @abstractmethod
    def _reader(self) -> Any:
        """A connection for this thread (stores keep one per reader thread)."""

    def load(self) -> Snapshot:
        """Every player and every live room with its current game and moves."""
        db = self.db
        rows = db.execute(f"SELECT room, game_id FROM rooms ORDER BY {self.ROOM_ORDER}")
        alive = db.execute("SELECT value FROM meta WHERE key='alive_at'").fetchone()
        return self.snapshot(db, list(rows), float(alive["value"]) if alive else None)

    def snapshot(self, db: Any, room_rows: list[Any], alive_at: float | None) -> Snapshot:
        """Every player, and the live rooms ``room_rows`` name with their games and moves."""
        players = [PlayerRow(**dict(r)) for r in db.execute("SELECT * FROM players")]
        rooms = []
        for row in room_rows:
            game = self._game_row(db, row["game_id"])
            if game is not None:
                rooms.append((RoomRow(row["room"], row["game_id"]), game, self._moves(db, game)))
        played = frozenset(
            r["pid"]
            for r in db.execute(
                "SELECT seat0 AS pid FROM games WHERE seat0 IS NOT NULL AND started_at IS NOT NULL "
                "UNION SELECT seat1 FROM games WHERE seat1 IS NOT NULL AND started_at IS NOT NULL"
            )
        )
        return Snapshot(
            players, rooms, alive_at, played, read_ratings(db), read_tournaments(db),
            read_entry_checks(db),
        )  # fmt: skip

    def player_by_token(self, token_hash: str) -> PlayerRow | None:
        """The player a session token's hash resumes, saved by whichever node: a session resumes
        on any node (read on a worker thread, never the loop)."""
        row = (
            self._reader()
            .execute("SELECT * FROM players WHERE token_hash = ?", (token_hash,))
            .fetchone()
        )
        return None if row is None else PlayerRow(**dict(row))

    def bot_by_name(self, name: str) -> PlayerRow | None:
        """The newest player of the bot ``name``, saved by whichever node: a bot is one player
        on every node (read on a worker thread, never the loop)."""
        row = (
            self._reader()
            .execute(
                "SELECT * FROM players WHERE kind = 'bot' AND name = ? "
                "ORDER BY created_at DESC, pid LIMIT 1",
                (name,),
            )
            .fetchone()
        )
        return None if row is None else PlayerRow(**dict(row))

    def list_games(
        self,
        player: str | None = None,
        before: float | None = None,
        limit: int = 20,
        before_id: str | None = None,
    ) -> dict[str, Any]:
        """Finished games, newest first; the next page starts after (``before``, ``before_id``).

        Ties on ``ended_at`` are ordered by ``game_id``, so paging with both never skips a game.
        """
        limit = max(1, min(limit, MAX_PAGE))
        where = "status = 'over'"
        paging: list[Any] = []
        if before is not None and before_id is not None:  # a range of the index, then ties
            where += " AND ended_at <= ? AND (ended_at < ? OR game_id < ?)"
            paging += [before, before, before_id]
        elif before is not None:
            where += " AND ended_at < ?"
            paging.append(before)
        order = " ORDER BY ended_at DESC, game_id DESC LIMIT ?"
        if player:  # one page of each player column's index, merged: never the whole table
            parts = (
                f"SELECT * FROM (SELECT * FROM games WHERE {c} = ? AND {where}{order}) AS by_{c}"
                for c in PLAYER_COLUMNS
            )
            sql = f"SELECT * FROM ({' UNION '.join(parts)}) AS mine{order}"
            args = [a for _ in PLAYER_COLUMNS for a in (player, *paging, limit + 1)]
            args.append(limit + 1)
        else:
            sql = f"SELECT * FROM games WHERE {where}{order}"
            args = [*paging, limit + 1]
        rows = self._reader().execute(sql, args).fetchall()
        games = [_summary(_row_to_game(r)) for r in rows[:limit]]
        more = len(rows) > limit
        return {"type": "games", "games": games, "more": more}

    def get_game(self, game_id: str, fmt: str = "json") -> dict[str, Any]:
        """One game with every move and its time; ``fmt`` ``psq`` adds the Gomocup record."""
        game, moves = self._read_game(game_id)
        record = game_record(game, moves)
        reply: dict[str, Any] = {"type": "game", "game": record}
        if fmt == "psq":
            reply["psq"] = to_psq(game, moves)
        return reply

    def _read_game(self, game_id: str) -> tuple[GameRow, list[MoveRow]]:
        """A game's header and moves (on this thread's reader); NoSuchGame if there is none."""
        db = self._reader()
        game = self._existing_game(db, game_id)
        return game, self._moves(db, game)

    def _existing_game(self, db: Any, game_id: str) -> GameRow:
        """The game's header; NoSuchGame (naming at most 64 characters of the id) if none."""
        game = self._game_row(db, game_id)
        if game is None:
            raise NoSuchGame(f"no game {game_id[:64]!r}")
        return game

    @staticmethod
    def _game_row(db: Any, game_id: str) -> GameRow | None:
        row = db.execute("SELECT * FROM games WHERE game_id = ?", (game_id,)).fetchone()
        return _row_to_game(row) if row else None

    @staticmethod
    def _moves(db: Any, game: GameRow) -> list[MoveRow]:
        # x < 0: a takeback's tombstone (core/game/offers.py), not a move
        sql = "SELECT * FROM moves WHERE game_id = ? AND x >= 0 ORDER BY ply"
        rows = db.execute(sql, (game.game_id,))
        return [
            MoveRow(
                r["game_id"],
                r["ply"],
                r["x"],
                r["y"],
                r["at"],
                None if r["clock0"] is None else (r["clock0"], r["clock1"]),
            )
            for r in rows
        ]


def _row_to_game(r: Any) -> GameRow:
    return GameRow(
        game_id=r["game_id"],
        room=r["room"],
        game_no=r["game_no"],
        variant=json.loads(r["variant"]),
        options=json.loads(r["options"]),
        clock=None if r["clock"] is None else json.loads(r["clock"]),
        seats=(r["seat0"], r["seat1"]),
        names=(r["name0"], r["name1"]),
        kinds=(r["kind0"], r["kind1"]),
        status=r["status"],
        winner=r["winner"],
        reason=r["reason"],
        line=tuple(tuple(c) for c in json.loads(r["line"])),
        created_at=r["created_at"],
        started_at=r["started_at"],
        ended_at=r["ended_at"],
        fault=r["fault"],
    )


def _summary(g: GameRow) -> dict[str, Any]:
    return {
        "game_id": g.game_id,
        "room": g.room,
        "game": titled(g.variant),
        "players": list(g.names),
        "player_ids": list(g.seats),
        "winner": g.winner,
        "reason": g.reason,
        "outcome": outcome(g.winner, g.reason),
        "fault": g.fault,
        "opening": len(g.options.get("opening") or ()),
        "started_at": g.started_at,
        "ended_at": g.ended_at,
    }


#: Room options that change how the game was played: the JSON record repeats them.
RULE_OPTIONS = ("position", "opening_rule", "opening_made")


def game_record(game: GameRow, moves: list[MoveRow]) -> dict[str, Any]:
    """The JSON export of a game: players, variant, every move with its time, result.

    ``ms`` is the time the move took: 0 for opening stones, and measured from the start of play
    (not from room creation) for the first real move.
    """
    start = game.started_at or game.created_at
    opening = len(game.options.get("opening") or ())

    def took(i: int) -> int:
        if i < opening:
            return 0
        previous = moves[i - 1].at if i > opening else start
        return max(0, round(1000 * (moves[i].at - max(previous, start))))

    rules = {k: v for k, v in game.options.items() if k in RULE_OPTIONS}
    return {
        **_summary(game),
        **({"options": rules} if rules else {}),
        "kinds": list(game.kinds),
        "clock": game.clock,
        "status": game.status,
        "line": [list(c) for c in game.line],
        "moves": [
            {
                "x": m.x,
                "y": m.y,
                "at": m.at,
                "ms": took(i),
                "clocks": list(m.clocks) if m.clocks else None,
            }
            for i, m in enumerate(moves)
        ],
    }


def to_psq(game: GameRow, moves: list[MoveRow]) -> str:
    """The game in Gomocup's ``.psq`` format."""
    record = game_record(game, moves)
    psq = PsqRecord(
        width=game.variant["width"],
        height=game.variant["height"],
        moves=tuple(Move(m["x"], m["y"]) for m in record["moves"]),
        times_ms=tuple(m["ms"] for m in record["moves"]),
        players=(game.names[0] or "", game.names[1] or ""),
        winner=game.winner,
        rule=WinRule(game.variant.get("rule", "freestyle")),
        no_result=game.reason if outcome(game.winner, game.reason) == "none" else None,
    )
    return write_psq(psq)
