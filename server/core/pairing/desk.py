"""Quick pairing as a part of the arena: ``seek``, ``cancel_seek``, ``list_seeks`` and
``accept_seek``, and the waves that pair each pool (docs/PROTOCOL.md, "Pairing").

The seeks live in a :class:`SeekBook` (this process's memory by default). Waves run from the
arena's sweep on its clock: every ``WAVE_INTERVAL`` seconds, or at the next sweep once a pool
holds ``FULL_POOL`` seeks. A pairing makes the room as ``create_room`` would (the same room,
quotas and rated checks) and seats both players through the arena (:class:`Seating`).
Nothing here runs per move. On a cluster node the book is the cluster's one pool
(``Node.seek_book``): its node runs the waves and claims seeks for ``cancel_seek`` and
``accept_seek`` (``server/cluster/pairing.py``), so that a seek is taken exactly once.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import secrets
from collections import deque
from collections.abc import Callable

from protocol import wire
from protocol.errors import (
    ArenaError,
    BadOptions,
    Busy,
    NoBotAvailable,
    NoSuchSeek,
    OutOfRange,
    OwnSeek,
    RatedNeedsAccount,
    TooManySeeks,
)
from protocol.rules import Termination
from protocol.variants import FIXED
from protocol.wire import Message
from server.core.game.clock import ClockSpec
from server.core.game.members import Send
from server.core.game.options import RoomRequest
from server.core.game.room import Room
from server.core.lobby.registry import RoomRegistry
from server.core.outputs import Out, Reply
from server.core.pairing.matcher import wave
from server.core.pairing.memory import PairMemory
from server.core.pairing.rooms import Paired, Seating, tagged
from server.core.pairing.seeklist import AddressSeeks, SeekList, Widening
from server.core.pairing.seeks import (
    MAX_CUSTOM_POOLS,
    MemoryBook,
    Seek,
    SeekBook,
    no_room_for,
    pool_label,
    read_seek,
)
from server.core.players.admission import Admission
from server.core.players.botdesk import BotDesk, plays
from server.core.players.players import Player
from server.core.players.roster import Roster, rooms_of
from server.core.rating.desk import RatingDesk
from server.core.rating.pools import pool_of
from server.core.round.actions import moved_each

log = logging.getLogger("mnk.pairing")

#: Seconds between two waves, and a pool's size that pairs it at the next sweep instead.
WAVE_INTERVAL = 2.0
FULL_POOL = 32
#: Open seeks one player may hold, seeks it may place a minute, and a seek's longest wait.
MAX_OPEN = 3
MAX_PER_MINUTE = 30
SEEK_TTL = 1800.0


class Pairing:
    """The seek book, its waves, and the rooms a pairing makes."""

    def __init__(
        self,
        roster: Roster,
        rooms: RoomRegistry,
        ratings: RatingDesk,
        *,
        admission: Admission,
        bots: BotDesk,
        seating: Seating,
        book: SeekBook | None = None,
    ) -> None:
        self.players, self.rooms, self.ratings = roster.players, rooms, ratings
        self.admission, self.bots, self.seating = admission, bots, seating
        self.clock, self.limits, self.node = roster.clock, bots.limits, bots.node
        #: A cluster's one pool (``Node.seek_book``): its node runs the waves and takes seeks.
        shared = self.node.seek_book()
        self.shared = shared is not None
        if book is None:  # (an empty book is falsy: never ``shared or …``)
            book = shared if shared is not None else MemoryBook()
        self.book: SeekBook = book
        #: When each player placed its seeks of the last minute.
        self._placed: dict[str, deque[float]] = {}
        #: The seek pages and their pushes; each client address's open seeks.
        self.listing = SeekList(self.book, self.players, self.limits)
        self.addresses = AddressSeeks(lambda pid: len(self.book.of(pid)), self.limits)
        self.widening = Widening(self.book, self.shared)
        self._next_wave = -math.inf
        self._full: set[str] = set()
        self._games: dict[str, Paired] = {}
        #: Who may not be paired with whom, and each player's last seat.
        self.memory = PairMemory(rooms, self.clock)

    def handlers(self) -> dict[str, Callable[[Player, Message], list[Out]]]:
        """The requests handled here, by type."""
        return {
            "seek": self.seek,
            "cancel_seek": self.cancel_seek,
            "list_seeks": self.list_seeks,
            "accept_seek": self.accept_seek,
        }

    # -- requests ----------------------------------------------------------------------------

    def seek(self, player: Player, msg: Message) -> list[Out]:
        """Place a seek in its pool (checked and bounded first)."""
        self.node.check_seeks()  # a cluster's pool may be out of reach
        asked = read_seek(msg)
        now = self.clock()
        label = pool_label(asked.game, asked.clock, asked.rated)
        mine = self.book.of(player.pid)
        if len(mine) >= MAX_OPEN:
            raise TooManySeeks(f"you hold {MAX_OPEN} open seeks: cancel one first")
        placed = self._placed.setdefault(player.pid, deque())
        while placed and now - placed[0] >= 60.0:
            placed.popleft()
        if len(placed) >= MAX_PER_MINUTE:
            raise TooManySeeks(f"at most {MAX_PER_MINUTE} seeks a minute: wait")
        if len(self.book) >= self.limits.max_seeks:
            raise Busy("the server holds as many seeks as it may: try again soon")
        self.addresses.check(player)
        if no_room_for(self.book, label):
            raise Busy(f"{MAX_CUSTOM_POOLS} odd clocks are sought now: pick a standard one")
        variant = FIXED[asked.game]
        if asked.rated:  # rated_needs_account, rated_needs_clock, as create_room says
            request = RoomRequest(variant, None, asked.clock, {"opponent": "human"}, None, False)
            self.ratings.check_create(player, {"rated": True}, request, [])
        if player.kind != "bot" and any(s.pool == label for s in mine):
            raise BadOptions(f"already seeking that ({label})")
        rating, provisional = self._rating(player, asked.game, asked.clock)
        if asked.range is not None:
            if player.account is None:
                raise BadOptions("a guest has no rating: seek without a range")
            level = 1500.0 if rating is None else rating
            if not asked.range[0] <= level <= asked.range[1]:
                raise BadOptions(f"your rating ({level:.0f}) must lie inside the range")
        self.admission.check_games(player, now)
        seek = Seek(
            "s_" + secrets.token_hex(8), player.pid, player.name, player.kind,
            player.account is not None, asked.game, asked.clock, asked.rated, asked.range,
            asked.bot_after_s, rating, provisional, now,
        )  # fmt: skip
        self._place(seek)
        placed.append(now)
        self.addresses.placed(player)
        return [Reply({"type": "seeking", "seek": seek.view()})]

    def cancel_seek(self, player: Player, msg: Message) -> list[Out]:
        """Take one of your seeks out of its pool."""
        if self.shared:  # claimed out of the cluster's pool first
            return self.node.take_seek(player, msg)
        seek = self.book.get(msg["seek"])
        if seek is None or seek.pid != player.pid or self.book.take(seek.id) is None:
            raise NoSuchSeek(f"you have no open seek {msg['seek'][:40]!r}")
        self.listing.changed()
        return [Reply({"type": "seek_cancelled", "seek": seek.id})]

    def list_seeks(self, player: Player, msg: Message) -> list[Out]:
        """A page of the open seeks with every pool's count; ``subscribe`` pushes its changes."""
        game, limit = msg.get("game"), msg.get("limit")
        if "subscribe" in msg:
            self.listing.subscribe(player.pid, game, limit, bool(msg["subscribe"]))
        return [Reply(self.listing.page(game, limit, msg.get("cursor")))]

    def accept_seek(self, player: Player, msg: Message) -> list[Out]:
        """Take someone's open seek: the room is made, both are seated."""
        if self.shared:  # claimed out of the cluster's pool first
            return self.node.take_seek(player, msg)
        seek = self.book.get(msg["seek"])
        if seek is None:
            raise NoSuchSeek(f"no open seek {msg['seek'][:40]!r}: cancelled, or just taken")
        self.check_accept(player, seek)
        seeker = self.players.get(seek.pid)
        if self.book.take(seek.id) is None or seeker is None:
            raise NoSuchSeek("that seek was just taken")
        self.listing.changed()
        unfit = self._unfit(seek, seeker)
        if unfit:  # its seek ends (the seeker is told why); the accepter gets no_such_seek
            refused = NoSuchSeek("that seek's player cannot start a game now")
            return [Reply(wire.error(refused.code, refused.message)), *unfit]
        return self._start(seek, player, None, reply_to=player.pid)

    def check_accept(self, player: Player, seek: Seek) -> None:
        """Raise what refuses ``player`` taking ``seek`` (its own, unrated, out of range, or
        one more game now)."""
        if seek.pid == player.pid:
            raise OwnSeek("that seek is your own")
        if seek.rated and player.account is None:
            raise RatedNeedsAccount("rated games are between accounts: log in or register")
        rating, _provisional = self._rating(player, seek.game, seek.clock)
        if not seek.admits(1500.0 if rating is None else rating):
            raise OutOfRange("your rating is outside that seek's range")
        self._fit(player)

    # -- the arena's calls -------------------------------------------------------------------

    def offline(self, player: Player) -> None:
        """``player``'s last connection closed: its seeks die (nobody is there to tell)."""
        for seek in self.book.of(player.pid):
            self.book.take(seek.id)
            self.listing.changed()
        self.listing.subscribe(player.pid, None, None, False)

    def sweep(self, now: float) -> list[Out]:
        """Due waves (with expiries, bot fallbacks and paired games' aborts) and the push."""
        out: list[Out] = []
        due = now >= self._next_wave
        if due or self._full:
            labels = self.book.labels() if due else sorted(self._full)
            if self.shared:  # the cluster's waves are its node's (server/cluster/pairing.py)
                labels = []
            self._full.clear()
            if due:
                self._next_wave = now + WAVE_INTERVAL
                self.memory.prune(now)
                out += self._aborted(now)
                out += self._lapsed(now)
            for label in labels:
                out += self._wave(label)
            if due:
                out += self.widening.due()
        out += self.listing.due(now)
        return out

    # -- waves -------------------------------------------------------------------------------

    def _wave(self, label: str) -> list[Out]:
        """Pair one pool; the seeks left missed a wave (their gaps widen)."""
        out: list[Out] = []
        for a, b in wave(self.book.pool(label), self.memory.blocked):
            first, second = self.players.get(a.pid), self.players.get(b.pid)
            if first is None or second is None or self.book.get(a.id) is not a:
                continue  # a human's seek ended by a pairing of this wave in another pool
            if self.book.get(b.id) is not b:
                continue
            unfit = self._unfit(a, first) + self._unfit(b, second)
            if unfit:
                out += unfit
                continue
            self.book.take(a.id)
            self.book.take(b.id)
            out += self._start(a, second, b)
        for seek in self.book.pool(label):
            seek.missed()
        return out

    def _unfit(self, seek: Seek, player: Player) -> list[Out]:
        """Nothing if ``player`` may start a game now; else its seek ends (``cancelled``)."""
        try:
            self._fit(player)
        except ArenaError as exc:
            self.book.take(seek.id)
            self.listing.changed()
            note = {"type": "seek_ended", "seek": seek.id, "reason": "cancelled"}
            return [Send((player.pid,), note | {"message": exc.message})]
        return []

    def _lapsed(self, now: float) -> list[Out]:
        """Seeks past ``SEEK_TTL`` end ``expired``; those past ``bot_after_s`` get a bot."""
        out: list[Out] = []
        for seek in list(self.book.listed(None)):
            if self.book.get(seek.id) is not seek:
                continue  # ended by a bot's pairing of this loop (its player's other seeks)
            if now - seek.since >= SEEK_TTL:
                if self.book.take(seek.id) is None:
                    continue  # another node's: it ends there
                self.listing.changed()
                note = {"type": "seek_ended", "seek": seek.id, "reason": "expired"}
                out.append(Send((seek.pid,), note))
            elif seek.bot_after_s is not None and now - seek.since >= seek.bot_after_s:
                if seek not in self.book.of(seek.pid):
                    continue  # another node's seek: its node seats a bot
                out += self._bot_for(seek)
        for pid in [p for p, stamps in self._placed.items() if not stamps or now - stamps[-1] > 60]:
            del self._placed[pid]
        self.addresses.prune()
        return out

    def _bot_for(self, seek: Seek) -> list[Out]:
        """Seat the connected bot nearest the seeker's rating that plays the game and has a
        free seat (within the seek's range); none: the seek waits on."""
        seeker = self.players.get(seek.pid)
        if seeker is None:
            return []
        best: tuple[float, str, Player] | None = None
        for bot in self.bots.local_bots():
            if bot.pid == seek.pid or not plays(bot.games, seek.game):
                continue
            if self.bots.active_games(bot) >= bot.capacity or not self.bots.fair(bot, seeker):
                continue  # full, or the seeker's address holds its share of the bot's seats
            rating = self._rating(bot, seek.game, seek.clock)[0]
            level = 1500.0 if rating is None else rating
            if seek.admits(level):
                candidate = (abs(level - seek.level), bot.pid, bot)
                best = candidate if best is None or candidate[:2] < best[:2] else best
        if best is None:
            return []
        try:
            self._fit(seeker)
            self.admission.check_quota(seeker, rooms_of(self.rooms, seeker), bot=True)
        except ArenaError:
            return []  # it keeps seeking: a human may still come
        bot = best[2]
        if self.shared:  # claimed out of the cluster's pool first: a wave may be taking it
            return self.node.claim_seek(seek, lambda: self._start(seek, bot, None, bot=True))
        self.book.take(seek.id)
        return self._start(seek, bot, None, bot=True)

    def _aborted(self, now: float) -> list[Out]:
        """Paired games aborted before both moved: the pair is blocked from each other, and
        a player whose opponent did not make a first move in time seeks again, first in line."""
        out: list[Out] = []
        for room_id, paired in list(self._games.items()):
            room = self.rooms.get(room_id)
            outcome = room.game.outcome if room is not None else None
            if room is not None and outcome is None and not moved_each(room):
                continue
            del self._games[room_id]
            if room is None or outcome is None or outcome.termination != Termination.ABORTED:
                continue
            pids = [m.pid if m is not None else "" for m in room.seats]
            self.memory.block(pids[0], pids[1], now)
            late = room.offers.late if room.offers is not None else None
            seek = paired.seeks.get(pids[1 - late]) if late is not None else None
            player = self.players.get(seek.pid) if seek is not None else None
            if seek is None or player is None or not player.online:
                continue
            mine = self.book.of(player.pid)
            if len(mine) >= MAX_OPEN or any(s.pool == seek.pool for s in mine):
                continue
            again = dataclasses.replace(seek, since=now, priority=True)
            self._place(again)
            out.append(Send((player.pid,), {"type": "seeking", "seek": again.view()}))
        return out

    # -- helpers -----------------------------------------------------------------------------

    def _place(self, seek: Seek) -> None:
        self.book.add(seek)
        self.widening.shown(seek)
        self.listing.changed()
        if self.book.size(seek.pool) >= FULL_POOL:
            self._full.add(seek.pool)

    def _rating(
        self, player: Player, game: str, clock: ClockSpec | None
    ) -> tuple[float | None, bool]:
        """``player``'s rating in the rating pool of ``game`` on ``clock`` (None: a guest, or
        untimed), and whether it is provisional."""
        pool = pool_of(FIXED[game], clock)
        if pool is None or player.account is None:
            return None, False
        rating = self.ratings.current(player.account, pool)
        return rating.rating, rating.provisional

    def _fit(self, player: Player) -> None:
        """Raise what refuses ``player`` one more game now (as ``create_room`` would)."""
        now = self.clock()
        self.admission.check_games(player, now)
        self.admission.check_held(player, now)
        if player.kind == "bot" and self.bots.active_games(player) >= player.capacity:
            raise NoBotAvailable(f"bot {player.name!r} has no free seat")

    def _start(
        self,
        seek: Seek,
        other: Player,
        other_seek: Seek | None,
        *,
        reply_to: str | None = None,
        bot: bool = False,
    ) -> list[Out]:
        """Make the room of a pairing and seat both: each gets ``joined`` (with ``seek``) and
        ``state``; a human's other seeks end (``cancelled``)."""
        seeker = self.players[seek.pid]
        options: dict[str, object] = {"opponent": "bot" if bot else "human"}
        if seek.rated:
            options["rated"] = True
        room = Room(self.rooms.new_id(), FIXED[seek.game], options, seek.clock, now=self.clock)
        self.seating.add(room)
        if seek.clock is not None:
            self.seating.timed(room.id)
        seat = self.memory.colour(seeker, other)
        now = self.clock()
        out: list[Out] = []
        seeks = {seeker.pid: seek}
        if other_seek is not None:
            seeks[other.pid] = other_seek
        for player, chair in ((seeker, seat), (other, 1 - seat)):
            if bot and player is other:
                sends = self.bots.seat(player, room, chair, player.level)
            else:
                self.admission.started_game(player, now)
                sends = self.seating.seat(player, room, seat=chair)
            named = seeks.get(player.pid, seek).id
            out += tagged(sends, player.pid, named, player.pid == reply_to)
            self.memory.played(player.pid, chair)
            out += self._drop_others(player)
        self._games[room.id] = Paired(seeks)
        self.listing.changed()
        log.info("room %s paired from %s: %s and %s", room.id, seek.pool, seeker.name, other.name)
        return out

    def _drop_others(self, player: Player) -> list[Out]:
        """A human plays one game at a time: its other seeks end (``cancelled``)."""
        if player.kind == "bot":
            return []
        out: list[Out] = []
        for seek in self.book.of(player.pid):
            self.book.take(seek.id)
            note = {"type": "seek_ended", "seek": seek.id, "reason": "cancelled"}
            out.append(Send((player.pid,), note))
        return out

    # -- a cluster node's pairing (server/cluster/pairing.py) --------------------------------

    def changed(self) -> None:
        """The seeks listed changed (another node's, or a claim): push the lists."""
        self.listing.changed()

    def start(self, seek: Seek, other: Player, other_seek: Seek | None, reply_to: str) -> list[Out]:
        """Make the room of ``seek`` (taken out of the pool) and ``other`` (by its own
        ``other_seek``, or accepting), as a wave or an accept here does."""
        return self._start(seek, other, other_seek, reply_to=reply_to)

    def drop_others(self, player: Player) -> list[Out]:
        """``player`` was paired on another node: its other seeks here end."""
        return self._drop_others(player)
