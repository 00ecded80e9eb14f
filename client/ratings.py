"""Accounts and ratings as the client reads them from the wire (pure, no pygame).

The shapes are those of the shared spec (docs/PROTOCOL.md): a seat's rating in ``state``, the
rating changes of a rated ``game_over``, a ``leaderboard`` page and a ``profile``. Every parser
is lenient: a missing or odd field reads as "not rated", never as an exception.
"""

from __future__ import annotations

from dataclasses import dataclass

from client.history import parse_rows
from client.labels import LABELS
from client.values import HistoryRow, Message

#: ``welcome.rating_pools``: per form clock ``"initial+increment"``, each game's pool.
FormPools = dict[str, dict[str, str]]


def form_pools(raw: object) -> FormPools:
    """``welcome.rating_pools`` as the server says it (an odd entry is left out)."""
    out: FormPools = {}
    for clock, pools in raw.items() if isinstance(raw, dict) else ():
        if isinstance(pools, dict):
            out[str(clock)] = {str(g): p for g, p in pools.items() if isinstance(p, str)}
    return out


def pool_of(pools: FormPools, form_game: str, clock: tuple[int, int] | None) -> str | None:
    """The pool the server says a rated game of this form game and clock counts in (None:
    casual only, or a clock the server named no pool for)."""
    if clock is None:
        return None
    return pools.get(f"{clock[0]}+{clock[1]}", {}).get(form_game)


def pool_label(pool: str) -> str:
    """``gomoku-blitz`` as the server names it, ``Gomoku blitz`` (an unknown pool as it is)."""
    return LABELS.pool(pool)


def _int(value: object, default: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return default
    return round(value)


@dataclass(frozen=True, slots=True)
class Rating:
    """A rating as shown beside a name: ``1523``, or ``1500?`` while provisional."""

    rating: int
    rd: int = 0
    provisional: bool = False
    games: int = 0

    @classmethod
    def from_wire(cls, raw: object) -> Rating | None:
        """Parse ``{rating, rd, provisional, games?}`` (None for a guest, an empty seat)."""
        if not isinstance(raw, dict) or not isinstance(raw.get("rating"), int | float):
            return None
        return cls(
            _int(raw.get("rating")),
            _int(raw.get("rd")),
            bool(raw.get("provisional")),
            _int(raw.get("games")),
        )

    @property
    def label(self) -> str:
        """The rating with ``?`` when provisional (as Lichess writes it)."""
        return f"{self.rating}{'?' if self.provisional else ''}"


def ratings_by_pool(raw: object) -> dict[str, Rating]:
    """``{pool: {rating, rd, provisional, games}}`` (welcome, logged_in, profile)."""
    if not isinstance(raw, dict):
        return {}
    out = {str(pool): Rating.from_wire(r) for pool, r in raw.items()}
    return {pool: r for pool, r in out.items() if r is not None}


def seat_ratings(raw: object) -> list[Rating | None]:
    """``state.ratings``: two seats' ratings, None for a guest or an empty seat."""
    items = raw if isinstance(raw, list) else []
    out = [Rating.from_wire(r) for r in items[:2]]
    return out + [None] * (2 - len(out))


def seat_flags(raw: object) -> list[bool] | None:
    """``state.accounts`` (or a lobby row's): which seats are accounts; None when not sent."""
    if not isinstance(raw, list):
        return None
    out = [bool(a) for a in raw[:2]]
    return out + [False] * (2 - len(out))


@dataclass(frozen=True, slots=True)
class RatingChange:
    """One seat's rating before and after a rated game (a ``game_over.ratings`` entry)."""

    seat: int
    pool: str
    before: int
    after: int
    provisional: bool = False

    @property
    def delta(self) -> int:
        """How much the game moved the rating."""
        return self.after - self.before

    @property
    def label(self) -> str:
        """``1500 → 1523 (+23)``."""
        mark = "?" if self.provisional else ""
        return f"{self.before} \u2192 {self.after}{mark} ({self.delta:+d})".replace("-", "\u2212")


def rating_changes(raw: object) -> list[RatingChange]:
    """``game_over.ratings`` (empty for a casual game)."""
    out: list[RatingChange] = []
    for item in raw if isinstance(raw, list) else ():
        if not isinstance(item, dict) or item.get("seat") not in (0, 1):
            continue
        out.append(
            RatingChange(
                int(item["seat"]),
                str(item.get("pool", "")),
                _int(item.get("before")),
                _int(item.get("after")),
                bool(item.get("provisional")),
            )
        )
    return out[:2]


@dataclass(frozen=True, slots=True)
class LeaderRow:
    """One line of a leaderboard."""

    rank: int
    name: str
    rating: int
    rd: int
    games: int
    #: Not settled yet (the server lists these under the settled ones, marked "?").
    provisional: bool = False


@dataclass(frozen=True, slots=True)
class Leaderboard:
    """A ``leaderboard`` page: the pool, players or bots, the page and its rows."""

    pool: str
    bots: bool
    page: int
    players: tuple[LeaderRow, ...]

    @classmethod
    def from_wire(cls, msg: Message) -> Leaderboard:
        """Parse a ``leaderboard`` reply."""
        rows = []
        for i, row in enumerate(msg.get("players") or ()):
            if isinstance(row, dict):
                rank = _int(row.get("rank"), i + 1)
                rows.append(
                    LeaderRow(
                        rank,
                        str(row.get("name", "?"))[:32],
                        _int(row.get("rating")),
                        _int(row.get("rd")),
                        _int(row.get("games")),
                        row.get("provisional") is True,
                    )
                )
        return cls(
            str(msg.get("pool", "")), bool(msg.get("bots")), _int(msg.get("page")), tuple(rows)
        )


@dataclass(frozen=True, slots=True)
class Record:
    """Games played, won, drawn and lost."""

    played: int = 0
    won: int = 0
    drawn: int = 0
    lost: int = 0


@dataclass(frozen=True, slots=True)
class Profile:
    """A ``profile`` reply: ratings per pool, the record, daily history and recent games."""

    name: str
    bot: bool
    ratings: dict[str, Rating]
    record: Record
    history: dict[str, tuple[tuple[str, int], ...]]
    games: tuple[HistoryRow, ...]
    more: bool = False

    @property
    def empty(self) -> bool:
        """Nothing to show: a guest's name, or an account that never played."""
        return not self.ratings and not self.record.played and not self.games

    @classmethod
    def from_wire(cls, msg: Message) -> Profile:
        """Parse a ``profile`` reply (``games`` is a ``list_games`` page)."""
        rec = msg.get("record") if isinstance(msg.get("record"), dict) else {}
        assert isinstance(rec, dict)
        record = Record(*(_int(rec.get(k)) for k in ("played", "won", "drawn", "lost")))
        history: dict[str, tuple[tuple[str, int], ...]] = {}
        raw_history = msg.get("history")
        for pool, points in raw_history.items() if isinstance(raw_history, dict) else ():
            good = (
                [
                    (str(p[0]), _int(p[1]))
                    for p in points
                    if isinstance(p, list | tuple) and len(p) == 2
                ]
                if isinstance(points, list)
                else []
            )
            if good:
                history[str(pool)] = tuple(good)
        page = msg.get("games")
        rows = page.get("games") if isinstance(page, dict) else page
        rows = [r for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []
        return cls(
            name=str(msg.get("name", ""))[:32],
            bot=bool(msg.get("bot")),
            ratings=ratings_by_pool(msg.get("ratings")),
            record=record,
            history=history,
            games=tuple(parse_rows(rows)),
            more=bool(page.get("more")) if isinstance(page, dict) else False,
        )
