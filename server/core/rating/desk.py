"""Rated rooms in the core: the ratings book (each account's rating per pool, in memory), the
checks a rated room makes, and a rated game's end, whose changes are journaled with the game's
final header (one batch, one transaction) and shown in its ``game_over``.

Nothing here is on the move path: a room is rated or not when it is made, and the work is done
once per game, when it ends.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from protocol.errors import (
    BadMessage,
    BadOptions,
    BadPage,
    RatedNeedsAccount,
    RatedNeedsClock,
    RatedPosition,
    UnknownPool,
    UnratedGame,
)
from protocol.rules import Termination
from protocol.wire import Message
from server.core.game.options import RoomRequest
from server.core.game.room import Room
from server.core.journal.recovery import Journal
from server.core.journal.rows import RatingChange, RatingRow
from server.core.outputs import Lookup, Out
from server.core.players.players import Player
from server.core.rating import glicko2
from server.core.rating.glicko2 import DAY, Rating
from server.core.rating.pools import POOLS, pool_of

log = logging.getLogger("mnk.ratings")

#: Leaderboard pages there are at most (each of 50 players).
BOARD_PAGES = 10


@dataclass(slots=True)
class Entry:
    """An account's standing in one pool: its rating, games there, and when it last played."""

    rating: Rating
    games: int
    at: float


def view(rating: Rating) -> Message:
    """A rating as a seat shows it: rounded, with its provisional mark."""
    return {
        "rating": round(rating.rating),
        "rd": round(rating.rd),
        "provisional": rating.provisional,
    }


def check_board(pool: object, page: object) -> None:
    """``unknown_pool`` or ``bad_page`` for a leaderboard request that cannot be answered."""
    if pool not in POOLS:
        raise UnknownPool(f"no pool {str(pool)[:40]!r}; pools: {', '.join(POOLS)}")
    if type(page) is not int or not 0 <= page < BOARD_PAGES:
        raise BadPage(f"page must be 0..{BOARD_PAGES - 1}")


#: A rated game's shortest clock: ``initial_s`` as Lichess's fastest rated control (a quarter
#: of a minute), and ``move_s`` when the clock has one: a rated seat never loses on time at once.
MIN_RATED_INITIAL_S, MIN_RATED_MOVE_S = 15.0, 5.0

#: Rated games two accounts may play each other in a rolling day (all pools together): past
#: it their games are played and kept, not rated (two accounts of one farmer cannot pump a
#: rating); games against a bot account are not counted. Counted in memory: a restart, or
#: another cluster node, starts its own count.
MAX_PAIR_RATED_PER_DAY = 5
#: Moves (beyond opening stones) a game needs to be rated: one with fewer never started
#: (Lichess aborts it), so a resignation at ply 0 moves nobody's rating.
MIN_RATED_MOVES = 2

#: Endings with no result: nobody's rating moves.
UNRATED = frozenset((Termination.ABANDONED, Termination.ABORTED))


class RatingDesk:
    """The ratings book and everything a rated room asks of it."""

    def __init__(
        self,
        players: dict[str, Player],
        journal: Journal,
        clock: Callable[[], float],
    ) -> None:
        self.players, self.journal, self.clock = players, journal, clock
        self.book: dict[tuple[str, str], Entry] = {}
        #: When each pair of accounts (sorted) last had games rated, within the last day.
        self._pairs: dict[tuple[str, str], list[float]] = {}
        #: The pools each account has a rating in (for ``logged_in``'s and ``welcome``'s map).
        self.pools: dict[str, set[str]] = {}

    # -- the book ----------------------------------------------------------------------------

    def load(self, rows: Iterable[RatingRow]) -> None:
        """Take stored ratings (at start, or a lapsed node's adoption): the newest wins."""
        for row in rows:
            key = (row.account, row.pool)
            known = self.book.get(key)
            if known is None or known.at <= row.at:
                self.book[key] = Entry(Rating(row.rating, row.rd, row.vol), row.games, row.at)
                self.pools.setdefault(row.account, set()).add(row.pool)

    def current(self, account: str, pool: str) -> Rating:
        """``account``'s rating in ``pool`` now: its RD grown by the days since it played."""
        entry = self.book.get((account, pool))
        if entry is None:
            return Rating()
        return glicko2.idle(entry.rating, (self.clock() - entry.at) / DAY)

    def of(self, account: str | None) -> dict[str, Message]:
        """Every pool's rating of ``account`` (``logged_in``, ``welcome``): empty for a guest."""
        if account is None:
            return {}
        found: dict[str, Message] = {}
        for pool in sorted(self.pools.get(account, ())):
            found[pool] = view(self.current(account, pool)) | {
                "games": self.book[(account, pool)].games
            }
        return found

    # -- rated rooms -------------------------------------------------------------------------

    def check_create(
        self, player: Player, msg: Message, asked: RoomRequest, bots: list[Player]
    ) -> dict[str, bool]:
        """The options a ``create_room`` (``msg``) adds for ratings: ``rated`` if asked and
        ``player`` may make that rated room, else the error that refuses it: the
        creator (or, in a director's room, both bots) must be accounts, the game timed, in a
        pool, and played from the empty board."""
        if not msg.get("rated"):
            return {}
        seated = bots if asked.named is not None else [player, *bots]
        if any(p.account is None for p in seated):
            raise RatedNeedsAccount("rated games are between accounts: log in or register")
        if asked.clock is None:
            raise RatedNeedsClock("a rated game needs a clock")
        move_s = asked.clock.move_s
        if asked.clock.initial_s < MIN_RATED_INITIAL_S or (
            move_s is not None and move_s < MIN_RATED_MOVE_S
        ):
            raise BadOptions(
                f"a rated game's clock needs initial_s >= {MIN_RATED_INITIAL_S:g} s"
                f" and move_s >= {MIN_RATED_MOVE_S:g} s"
            )
        pool = pool_of(asked.variant, asked.clock)
        if pool is None:
            raise UnratedGame(f"{asked.variant.name} on this board is played casual only")
        if "position" in asked.options:
            raise RatedPosition("rated games start from the empty board")
        return {"rated": True}

    def check_join(self, player: Player, room: Room, spectate: bool) -> None:
        """A guest may watch a rated room, not take its seat."""
        guest = player.account is None and room.seat_of(player.pid) is None
        if room.pool is not None and not spectate and guest:
            raise RatedNeedsAccount("rated games are between accounts: log in or register")

    def attach(self, room: Room) -> None:
        """Make ``room`` (new or restored) rated if its options say so: its ``state`` then
        shows its pool and each seat's rating, and its games are rated as they end."""
        if room.options.get("rated"):
            room.rate(pool_of(room.variant, room.clock_spec), self)

    def seat(self, pid: str, pool: str) -> Message | None:
        """How a seat's rating shows in ``state``: None for a guest."""
        player = self.players.get(pid)
        account = player.account if player is not None else None
        return None if account is None else view(self.current(account, pool))

    def settle(self, room: Room, over: Message) -> None:
        """``room``'s rated game ended with ``over``: update the book, journal each change
        (before the drain that writes the game's final header: one batch, one transaction)
        and add them to the ``game_over``. A game with no result (``abandoned``, ``aborted``)
        is not rated."""
        pool, outcome = room.pool, room.game.outcome
        if pool is None or outcome is None or outcome.termination in UNRATED:
            return
        seated = [self.players.get(m.pid) if m is not None else None for m in room.seats]
        first, second = seated
        if first is None or second is None or first.account is None or second.account is None:
            log.warning("rated game %s ended without two accounts: not rated", room.game_id)
            return
        now = self.clock()
        unrated = self._unrated(room, first, second, now)
        if unrated is not None:
            over["unrated"] = unrated
            return
        before = [self.current(first.account, pool), self.current(second.account, pool)]
        score = 0.5 if outcome.winner is None else float(outcome.winner == 0)
        after = glicko2.game(before[0], before[1], score)
        changes: list[Message] = []
        for seat, player in enumerate((first, second)):
            account = player.account
            assert account is not None
            old, new = before[seat], after[seat]
            entry = self.book.get((account, pool))
            self.book[(account, pool)] = Entry(new, (entry.games if entry else 0) + 1, now)
            self.pools.setdefault(account, set()).add(pool)
            bot = player.kind == "bot"
            seat_score = score if seat == 0 else 1.0 - score
            change = RatingChange(
                room.game_id, account, player.pid, player.name, bot, pool,
                seat_score, old.rating, new.rating, new.rd, new.vol, now,
            )  # fmt: skip
            self.journal.rated(change)
            changes.append(
                {
                    "seat": seat,
                    "pool": pool,
                    "before": round(old.rating),
                    "after": round(new.rating),
                    "provisional": new.provisional,
                }
            )
        over["ratings"] = changes

    def _unrated(self, room: Room, first: Player, second: Player, now: float) -> str | None:
        """Why ``room``'s game between ``first`` and ``second`` (accounts) is not rated
        (``too_short``, ``repeated``), or None: it is, and counts toward the pair's day (a bot's
        games do not: its operator's key, not a stranger, makes a bot account; nor do a
        tournament's, whose pairings the server makes, not the pair: a long rated round robin
        is rated through, as lichess rates its tournaments)."""
        if len(room.game.moves) - len(room.opening) < MIN_RATED_MOVES:
            return "too_short"
        if first.kind == "bot" or second.kind == "bot" or "tournament" in room.options:
            return None
        a, b = str(first.account), str(second.account)
        pair = (a, b) if a <= b else (b, a)
        stamps = [t for t in self._pairs.get(pair, ()) if now - t < DAY]
        if len(stamps) >= MAX_PAIR_RATED_PER_DAY:
            self._pairs[pair] = stamps
            return "repeated"
        stamps.append(now)
        self._pairs[pair] = stamps
        if len(self._pairs) > 1024:  # forget the pairs whose day is over
            for key in [k for k, v in self._pairs.items() if now - v[-1] >= DAY]:
                del self._pairs[key]
        return None

    # -- requests ----------------------------------------------------------------------------

    def handlers(self) -> dict[str, Callable[[Player, Message], list[Out]]]:
        """The arena's handlers of ``leaderboard`` and ``profile`` (store lookups)."""
        return {
            "leaderboard": lambda _player, msg: [self.leaderboard(msg)],
            "profile": lambda _player, msg: [self.profile(msg)],
        }

    def leaderboard(self, msg: Message) -> Lookup:
        """A ``leaderboard`` request as the store's query (its pool and page checked first)."""
        pool, page = msg["pool"], msg.get("page", 0)
        check_board(pool, page)
        params: dict[str, Any] = {"pool": pool, "bots": msg.get("bots", False), "page": page}
        params["now"] = self.clock()
        return Lookup("leaderboard", params, msg.get("id"))

    def profile(self, msg: Message) -> Lookup:
        """A ``profile`` request as the store's query."""
        before = msg.get("before")
        if before is not None and not (math.isfinite(before) and abs(before) < 1e12):
            raise BadMessage("before must be a time in seconds (an ended_at from a page)")
        params = {"name": msg["name"], "before": None if before is None else float(before)}
        params["before_id"] = msg.get("before_id")
        return Lookup("profile", params, msg.get("id"))
