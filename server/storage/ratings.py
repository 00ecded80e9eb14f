"""Ratings in the SQL stores: the tables (schema migration 8), the exactly-once write of a
rated game's changes, and the leaderboard and profile queries (run off the event loop)."""

from __future__ import annotations

import time
from typing import Any

from server.core.journal.rows import RatingChange, RatingRow
from server.core.players.names import name_key
from server.core.rating.desk import check_board
from server.core.rating.glicko2 import PROVISIONAL_RD
from server.storage.accounts import account_by_key

#: A leaderboard page (:data:`server.core.rating.desk.BOARD_PAGES` pages at most).
BOARD_PAGE = 50
#: Who is on a leaderboard: a settled rating first (the provisional ones under them), played
#: lately.
BOARD_MAX_RD = 75.0
BOARD_RECENT_S = 30 * 86400.0
#: The rated games a profile's history reads at most (newest first), and its points per pool.
HISTORY_ROWS = 2000
HISTORY_POINTS = 365
#: A profile's page of recent games.
PROFILE_GAMES = 20

_TABLES = """
    CREATE TABLE ratings (
        account TEXT NOT NULL, pool TEXT NOT NULL, pid TEXT NOT NULL, name TEXT NOT NULL,
        bot {bool} NOT NULL, rating {real} NOT NULL, rd {real} NOT NULL, vol {real} NOT NULL,
        games INTEGER NOT NULL, won INTEGER NOT NULL, drawn INTEGER NOT NULL,
        lost INTEGER NOT NULL, at {real} NOT NULL,
        PRIMARY KEY (account, pool));
    CREATE INDEX ratings_board ON ratings (pool, bot, rating DESC, account);
    CREATE TABLE rating_changes (
        game_id TEXT NOT NULL, account TEXT NOT NULL, pool TEXT NOT NULL, score {real} NOT NULL,
        before {real} NOT NULL, rating {real} NOT NULL, rd {real} NOT NULL, at {real} NOT NULL,
        PRIMARY KEY (game_id, account));
    CREATE INDEX rating_changes_by_account ON rating_changes (account, at);
"""
#: Migration 8 (SQLite, PostgreSQL): ratings per (account, pool), changes per (game, account).
SQLITE_MIGRATION = _TABLES.format(bool="INTEGER", real="REAL")
PG_MIGRATION = _TABLES.format(bool="BOOLEAN", real="DOUBLE PRECISION")

#: The change's row; a second write of the same (game, account) inserts nothing.
_CHANGE = (
    "INSERT INTO rating_changes (game_id, account, pool, score, before, rating, rd, at) "
    "VALUES ({p}, {p}, {p}, {p}, {p}, {p}, {p}, {p}) ON CONFLICT (game_id, account) DO NOTHING"
)
#: The rating it sets, with the game counted in the pool's record. A stored rating moves by
#: the change (``after - before``): where another cluster node rated the account meanwhile
#: (its book ahead of this node's), no update is lost; alone, that is exactly ``after``.
_RATING = (
    "INSERT INTO ratings (account, pool, pid, name, bot, rating, rd, vol, games, won, drawn, "
    "lost, at) {source} ON CONFLICT (account, pool) DO UPDATE SET pid = excluded.pid, "
    "name = excluded.name, rating = ratings.rating + excluded.rating - {p}, rd = excluded.rd, "
    "vol = excluded.vol, "
    "games = ratings.games + 1, won = ratings.won + excluded.won, "
    "drawn = ratings.drawn + excluded.drawn, lost = ratings.lost + excluded.lost, at = excluded.at"
)
_SQLITE_CHANGE = _CHANGE.format(p="?")
_SQLITE_RATING = _RATING.format(source=f"VALUES ({', '.join('?' * 13)})", p="?")
#: PostgreSQL: one statement (a batch is one message), the rating set only by a new change.
PG_RATING_SQL = f"WITH new AS ({_CHANGE.format(p='%s')} RETURNING account) " + _RATING.format(
    source="SELECT %s, %s, %s, %s, %s, %s, %s, %s, 1, %s, %s, %s, %s FROM new WHERE true",
    p="%s",
)


def _rating_values(r: RatingChange) -> tuple[Any, ...]:
    won, drawn, lost = int(r.score == 1), int(r.score == 0.5), int(r.score == 0)
    return (
        r.account, r.pool, r.pid, r.name, r.bot, r.rating, r.rd, r.vol, won, drawn, lost, r.at
    )  # fmt: skip


def _change_values(r: RatingChange) -> tuple[Any, ...]:
    return (r.game_id, r.account, r.pool, r.score, r.before, r.rating, r.rd, r.at)


def write_change(db: Any, r: RatingChange) -> None:
    """Save ``r`` in SQLite's open transaction: the rating moves only if the change is new."""
    if db.execute(_SQLITE_CHANGE, _change_values(r)).rowcount:
        account, pool, pid, name, bot, rating, rd, vol, *rest = _rating_values(r)
        values = (account, pool, pid, name, bot, rating, rd, vol, 1, *rest, r.before)
        db.execute(_SQLITE_RATING, values)


def pg_change(r: RatingChange, node: str | None) -> tuple[str, Any]:
    """The PostgreSQL statement that saves ``r`` at most once."""
    return PG_RATING_SQL, (*_change_values(r), *_rating_values(r), r.before)


def read_ratings(db: Any) -> tuple[RatingRow, ...]:
    """Every stored rating (a restarting server's ratings book)."""
    rows = db.execute("SELECT account, pool, rating, rd, vol, games, at, bot FROM ratings")
    keys = ("account", "pool", "rating", "rd", "vol", "games", "at")
    return tuple(RatingRow(*(r[k] for k in keys), bool(r["bot"])) for r in rows)


class RatingQueries:
    """The leaderboard and profile queries, over the store's ``?`` reader connections."""

    def _reader(self) -> Any:
        raise NotImplementedError

    def list_games(
        self,
        player: str | None = None,
        before: float | None = None,
        limit: int = 20,
        before_id: str | None = None,
    ) -> dict[str, Any]:
        raise NotImplementedError

    def leaderboard(
        self, pool: str, bots: bool = False, page: int = 0, now: float | None = None
    ) -> dict[str, Any]:
        """A page of ``pool``'s board of those who played in it in the last 30 days: settled
        ratings (RD <= 75) best first, then the provisional ones (marked), best first, so that
        a new server's board is not empty; humans and bots on separate boards."""
        check_board(pool, page)
        since = (time.time() if now is None else now) - BOARD_RECENT_S
        rows = (
            self._reader()
            .execute(
                "SELECT name, rating, rd, games FROM ratings WHERE pool = ? AND bot = ? "
                "AND at >= ? ORDER BY (rd > ?), rating DESC, account LIMIT ? OFFSET ?",
                (pool, bots, since, BOARD_MAX_RD, BOARD_PAGE, page * BOARD_PAGE),
            )
            .fetchall()
        )
        players = [
            {
                "rank": page * BOARD_PAGE + i + 1,
                "name": r["name"],
                "rating": round(r["rating"]),
                "rd": round(r["rd"]),
                "games": r["games"],
                "provisional": r["rd"] > BOARD_MAX_RD,
            }
            for i, r in enumerate(rows)
        ]
        return {"type": "leaderboard", "pool": pool, "bots": bots, "page": page, "players": players}

    def profile(
        self, name: str, before: float | None = None, before_id: str | None = None
    ) -> dict[str, Any]:
        """An account's ratings, record, rating history (a point a day) and a page of its
        games; a name without an account answers the same shape, empty, with ``exists`` false
        (found by its look-alike form, as names are unique among accounts)."""
        db = self._reader()
        account = account_by_key(db, name_key(name)) if name.strip() else None
        reply: dict[str, Any] = {
            "type": "profile",
            "name": name if account is None else account.name,
            "exists": account is not None,
            "bot": account is not None and account.kind == "bot",
            "ratings": {},
            "record": {"played": 0, "won": 0, "drawn": 0, "lost": 0},
            "history": {},
            "games": {"type": "games", "games": [], "more": False},
        }
        if account is None:
            return reply
        record = reply["record"]
        for r in db.execute("SELECT * FROM ratings WHERE account = ?", (account.name,)):
            reply["ratings"][r["pool"]] = {
                "rating": round(r["rating"]),
                "rd": round(r["rd"]),
                "provisional": r["rd"] >= PROVISIONAL_RD,
                "games": r["games"],
            }
            for key in ("won", "drawn", "lost"):
                record[key] += r[key]
            record["played"] += r["games"]
        reply["history"] = self._history(db, account.name)
        reply["games"] = self.list_games(account.pid, before, PROFILE_GAMES, before_id)
        return reply

    @staticmethod
    def _history(db: Any, account: str) -> dict[str, list[list[Any]]]:
        """Per pool, the rating at the end of each day it played (oldest first)."""
        rows = db.execute(
            "SELECT pool, at, rating FROM rating_changes WHERE account = ? "
            "ORDER BY at DESC LIMIT ?",
            (account, HISTORY_ROWS),
        ).fetchall()
        days: dict[str, dict[str, int]] = {}
        for r in rows:  # newest first: a day's first row seen is its last rating
            day = time.strftime("%Y-%m-%d", time.gmtime(r["at"]))
            days.setdefault(r["pool"], {}).setdefault(day, round(r["rating"]))
        return {
            pool: [[day, rating] for day, rating in sorted(points.items())][-HISTORY_POINTS:]
            for pool, points in days.items()
        }
