"""What a connection may have in flight (history lookups, a parked ``hello``), what a player
may hold (rooms, seats, games against bots), and a log of the limits that bit, at most once a
minute per connection and per limit."""

from __future__ import annotations

import logging
import math
from collections import deque

from protocol.errors import RateLimited, TooManyGames, TooManyRooms
from protocol.vocab import Status
from protocol.wire import Message
from server.core.game.room import Room
from server.core.limits import LIMIT_LOG_INTERVAL, Limits
from server.core.outputs import Out, Resolve
from server.core.players.players import Conn, Player

log = logging.getLogger("mnk.arena")
#: Seconds over which a player's games are counted (``Limits.max_guest_games_per_hour``).
GAMES_WINDOW = 3600.0
#: Client addresses whose game starts are kept before the quiet ones are forgotten.
MAX_ADDRESSES = 4096


class Admission:
    """Counts the store lookups in flight, checks a player's quotas and logs limits hit."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        #: History lookups and parked hellos in flight in all (bounded by ``max_lookups``).
        self.lookups = 0
        self._hits: dict[str, int] = {}
        self._logged: dict[str, float] = {}
        #: When the humans of each client address started games, within the last hour.
        self._address_starts: dict[str, deque[float]] = {}

    def check_lookup(self, conn: Conn, now: float) -> None:
        """Refuse a history lookup past the in-flight bounds, or past the rate (it costs more
        than a message: a query and a thread)."""
        lim = self.limits
        if conn.lookups >= lim.max_lookups_per_connection or self.lookups >= lim.max_lookups:
            self.note(conn, "lookups", now)
            raise RateLimited("too many history requests in flight; wait for the replies")
        if not conn.bucket.allow(now, lim.lookup_cost):
            self.note(conn, "rate_limited", now)
            raise RateLimited("too many history requests; slow down")

    def charge(self, conn: Conn, now: float) -> None:
        """Charge a request that weighs as a history lookup (``analyse``) to the rate."""
        if not conn.bucket.allow(now, self.limits.lookup_cost):
            self.note(conn, "rate_limited", now)
            raise RateLimited("too many heavy requests; slow down")

    def started(self, conn: Conn) -> None:
        """A lookup of ``conn`` went to the store: it counts until :meth:`done`."""
        conn.lookup(+1)
        self.lookups += 1

    def done(self, conn: Conn) -> None:
        """A lookup of ``conn`` was answered (or dropped): it no longer counts."""
        conn.lookup(-1)
        self.lookups -= 1

    def park_hello(self, conn: Conn, msg: Message, item: Resolve, now: float) -> list[Out]:
        """Park ``msg`` on ``conn`` while the store looks ``item`` up (bounded in all)."""
        if self.lookups >= self.limits.max_lookups:
            self.note(conn, "lookups", now)
            raise RateLimited("the server is busy; say hello again in a moment")
        conn.park(msg)
        self.started(conn)
        return [item]

    def drop_hello(self, conn: Conn) -> None:
        """``conn``'s session lookup is over (answered, or its connection left)."""
        if conn.hello is not None:
            conn.park(None)
            self.done(conn)

    def note(self, conn: Conn | None, what: str, now: float) -> None:
        """Log a limit that bit: at most once a minute per connection, and per limit (with a
        count), so an attack cannot flood the log either."""
        if conn is not None:
            if now - conn.logged_limit_at < LIMIT_LOG_INTERVAL:
                return
            conn.logged_limit(now)
        self._hits[what] = self._hits.get(what, 0) + 1
        if now - self._logged.get(what, -math.inf) < LIMIT_LOG_INTERVAL:
            return
        who = conn.pid if conn is not None and conn.pid else "a connection"
        hits = self._hits.pop(what)
        log.warning("limit %s hit by %s (%d times in the last minute)", what, who, hits)
        self._logged[what] = now

    def check_created(self, player: Player, now: float) -> None:
        """Refuse a new room past the rooms ``player`` created and holds."""
        if len(player.created) >= self.limits.max_rooms_created:
            self.note(None, "max_rooms_created", now)
            raise TooManyRooms("you created too many rooms that are still open; leave some")
        self.check_held(player, now)

    def check_held(self, player: Player, now: float) -> None:
        """Refuse one more room (seat or spectator place) past ``max_rooms_per_player``."""
        if len(player.rooms) >= self.limits.max_rooms_per_player:
            self.note(None, "max_rooms_per_player", now)
            raise TooManyRooms("you are in too many rooms; leave one first")

    def check_quota(self, player: Player, rooms: list[Room], *, bot: bool) -> None:
        """Refuse a new seat past the per-player limits (``rooms``: the player's), so nobody
        can hog rooms or bots."""
        seated = [r for r in rooms if r.seat_of(player.pid) is not None]
        if sum(r.status == Status.WAITING for r in seated) >= self.limits.max_waiting_rooms:
            raise TooManyRooms("you already have the most rooms waiting for an opponent")
        if bot:
            bot_games = [
                r
                for r in seated
                if r.status == Status.PLAYING and r.options.get("opponent") == "bot"
            ]
            if len(bot_games) >= self.limits.max_bot_games:
                raise TooManyRooms("finish or leave a game against a bot first")

    def check_games(self, player: Player, now: float) -> None:
        """Refuse a human one more game past ``max_guest_games_per_hour`` (a rematch loop
        otherwise writes game rows without end); bots play what humans and directors ask."""
        starts = player.game_starts
        while starts and now - starts[0] >= GAMES_WINDOW:
            starts.popleft()
        if player.kind != "bot" and len(starts) >= self.limits.max_guest_games_per_hour:
            self.note(None, "max_guest_games_per_hour", now)
            wait = math.ceil((starts[0] + GAMES_WINDOW - now) / 60)
            raise TooManyGames(f"you started {len(starts)} games this hour; wait {wait} min")
        key = player.address_key
        if player.kind == "bot" or key is None:
            return
        starts = self._address_starts.get(key, deque())
        while starts and now - starts[0] >= GAMES_WINDOW:
            starts.popleft()
        if len(starts) >= self.limits.max_games_per_address_hour:
            self.note(None, "max_games_per_address_hour", now)
            wait = math.ceil((starts[0] + GAMES_WINDOW - now) / 60)
            raise TooManyGames(
                f"your address started {len(starts)} games this hour; wait {wait} min"
            )

    def started_game(self, player: Player, now: float) -> None:
        """``player`` started a game (checked by :meth:`check_games` first): it counts for
        the player and for its client address (guests are free: an address is not)."""
        if player.kind == "bot":
            return
        player.game_starts.append(now)
        key = player.address_key
        if key is not None:
            self._address_starts.setdefault(key, deque()).append(now)
            if len(self._address_starts) > MAX_ADDRESSES:  # forget the addresses gone quiet
                stale = [k for k, v in self._address_starts.items() if now - v[-1] >= GAMES_WINDOW]
                for k in stale:
                    del self._address_starts[k]
