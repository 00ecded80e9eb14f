"""Tournaments as a part of the arena: ``create_tournament``, ``join_tournament``,
``leave_tournament``, ``start_tournament``, ``list_tournaments``, ``get_tournament`` and
``watch_tournament`` (docs/PROTOCOL.md, "Tournaments").

An event's games are ordinary rooms made and seated through the arena's :class:`Seating`, as a
pairing's are, so clocks, ratings, bots and results work as in any room. Each room reports its
game's end here once, through its one end-of-game path (:class:`Reporter`, beside the ratings),
never per move; a result is keyed by the event's game and counted once. The next round, an
arena's next pairings, an event's start and end and the pushes to its watchers all run from the
arena's sweep, on the arena's clock. Every change is a journal record, written in the batch of
the change that made it (a pairing with its room, a result with its game's final header), so a
restart rebuilds each event where it stood (:meth:`Tournaments.restore`).
"""

from __future__ import annotations

import logging
import secrets
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from protocol.errors import (
    ArenaError,
    BadMessage,
    NoSuchTournament,
    NotLoggedIn,
    NotTournamentCreator,
    RatedNeedsAccount,
    TooManyTournaments,
    TournamentClosed,
    TournamentFull,
)
from protocol.rules import Termination
from protocol.variants import FIXED
from protocol.wire import Message
from server.core.game.members import Send
from server.core.game.messages import Rater
from server.core.game.room import Room
from server.core.journal.recovery import Journal
from server.core.journal.rows import PairingRow, ResultRow, TournamentJournalRow
from server.core.lobby.registry import RoomRegistry
from server.core.outputs import Out, Reply
from server.core.pairing.rooms import Seating
from server.core.players.players import Player
from server.core.players.roster import Roster
from server.core.rating.desk import RatingDesk
from server.core.rating.pools import pool_of
from server.core.tournament.board import EventBoard
from server.core.tournament.entry import EntryCheck
from server.core.tournament.event import (
    FINISHED,
    GONE,
    IN,
    OPEN,
    OUT,
    PAUSED,
    RUNNING,
    Entrant,
    Event,
    Settings,
    Slot,
    read_settings,
    rebuild,
)
from server.core.tournament.schedule import Calendar
from server.core.tournament.upcoming import upcoming
from server.core.tournament.values import ARENA, Bye, Game

log = logging.getLogger("mnk.tournament")

#: Events one account may create in a day, and events open or running at once on a server.
MAX_CREATED_PER_DAY = 5
MAX_LIVE_EVENTS = 64
#: Finished events kept in memory (listed, watched); older ones stay in the store only.
KEEP_FINISHED = 50
#: Watchers of one event, and events one player may watch at once.
MAX_WATCHERS = 256
MAX_WATCHING = 8
#: A watcher gets an event at most this often (the latest state wins).
PUSH_INTERVAL = 0.25
#: Seconds between two looks at the events' clocks (starts, an arena's end and its pairings).
SCAN_INTERVAL = 1.0
DAY = 86400.0


class Reporter:
    """A tournament room's end-of-game listener: the ratings' (a rated room's) first, then the
    event's result (the room calls it from its one end-of-game path)."""

    def __init__(self, ended: Callable[[Room, Message], None], inner: Rater | None) -> None:
        self.ended, self.inner = ended, inner

    def seat(self, pid: str, pool: str) -> Message | None:
        """A seat's rating for ``state`` (the ratings' answer)."""
        return self.inner.seat(pid, pool) if self.inner is not None else None

    def settle(self, room: Room, over: Message) -> None:
        """The room's game ended: rate it (if rated), then count it in the event."""
        if self.inner is not None:
            self.inner.settle(room, over)
        self.ended(room, over)


def outcome_of(room: Room) -> tuple[int | None, bool]:
    """A finished tournament game's (winning seat, void): a game aborted because a first
    move did not come is lost by the seat that had to make it; an abandoned game (and an
    aborted one whose late seat is unknown) is lost by both."""
    outcome = room.game.outcome
    assert outcome is not None
    if outcome.termination == Termination.ABORTED and room.colours is not None:
        return 1 - room.colours.index(room.game.board.to_move), False
    if outcome.termination in (Termination.ABORTED, Termination.ABANDONED):
        return None, True
    return outcome.winner, False


def unattended(event: Event) -> bool:
    """A scheduled occurrence that nobody entered (not listed once it is over)."""
    return event.settings.schedule is not None and not event.players_at_start()


class Tournaments:
    """The events of this server: their requests, their games' rooms, their sweep."""

    def __init__(
        self,
        roster: Roster,
        rooms: RoomRegistry,
        ratings: RatingDesk,
        *,
        seating: Seating,
        journal: Journal,
        board: EventBoard | None = None,
    ) -> None:
        self.roster, self.players, self.rooms, self.ratings = roster, roster.players, rooms, ratings
        #: The bots' entry check, asked before a bot's first rated entry (the shell examines).
        self.entry = EntryCheck(journal, roster.clock)
        self.seating, self.journal, self.clock = seating, journal, roster.clock
        #: The events held here, and (a cluster's) the others' lines and occurrence claims.
        self.board = board if board is not None else EventBoard()
        self.events: dict[str, Event] = self.board.events
        #: Each live room of an event: (event, game key, game id).
        self._rooms: dict[str, tuple[str, str, str]] = {}
        #: Events whose games changed: the sweep looks at their next pairings.
        self._dirty: set[str] = set()
        #: Watchers by event, events by watcher, and each event's last push (time, version).
        self._watchers: dict[str, set[str]] = {}
        self._watching: dict[str, set[str]] = {}
        self._pushed: dict[str, tuple[float, int]] = {}
        #: When each account created its events of the last day.
        self._created: dict[str, deque[float]] = {}
        self._next_scan = 0.0
        #: The operator's recurring events (``plan`` them), each occurrence opened once.
        self.calendar = Calendar()

    def handlers(self) -> dict[str, Callable[[Player, Message], list[Out]]]:
        """The requests handled here, by type."""
        return {
            "create_tournament": self.create,
            "join_tournament": self.join,
            "leave_tournament": self.leave,
            "start_tournament": self.start,
            "list_tournaments": self.board.list_events,
            "get_tournament": self.get,
            "watch_tournament": self.watch,
        }

    @staticmethod
    def owns(room: Room) -> bool:
        """Whether ``room`` plays a game of an event (no rematch, no abort there)."""
        return "tournament" in room.options

    # -- requests ----------------------------------------------------------------------------

    def create(self, player: Player, msg: Message) -> list[Out]:
        """Create an event (an account's); its creator watches it."""
        if player.account is None:
            raise NotLoggedIn("a guest cannot create a tournament: log in or register")
        settings = read_settings(msg)
        now = self.clock()
        made = self._created.setdefault(player.account, deque())
        while made and now - made[0] >= DAY:
            made.popleft()
        if len(made) >= MAX_CREATED_PER_DAY:
            raise TooManyTournaments(f"an account creates at most {MAX_CREATED_PER_DAY} a day")
        starts_in = msg.get("starts_in_s")
        starts_at = None if starts_in is None else now + float(starts_in)
        event = self.open_event(settings, player.account, starts_at)
        made.append(now)
        self._watch(player, event)
        return [Reply(event.message())]

    def open_event(self, settings: Any, creator: str | None, starts_at: float | None) -> Event:
        """A new event (``creator`` None: the operator's) starting at ``starts_at`` (None:
        when its creator starts it), journaled."""
        self._check_room()
        tid = event_id()
        while tid in self.events:
            tid = event_id()
        return self._opened(Event(tid, settings, creator, self.clock(), starts_at))

    def _check_room(self) -> None:
        if sum(e.status != FINISHED for e in self.events.values()) >= MAX_LIVE_EVENTS:
            raise TooManyTournaments("the server holds the most tournaments it may: try later")

    def _opened(self, event: Event) -> Event:
        """``event`` is held here from now on, journaled."""
        tid, settings, creator = event.id, event.settings, event.creator
        self.events[tid] = event
        self.journal.record(event.row())
        log.info("tournament %s (%s) created by %s", tid, settings.format, creator or "operator")
        return event

    def join(self, player: Player, msg: Message) -> list[Out]:
        """Enter an event (or come back to an arena after a pause); a person watches it (a bot
        is sent its games, not every change of the event: ``watch_tournament`` if it wants them)."""
        event = self._event(msg)
        known = event.entrants.get(player.pid)
        if event.status == FINISHED or (
            event.status == RUNNING and event.settings.format != ARENA and known is None
        ):
            raise TournamentClosed("this tournament takes no more entrants")
        if event.settings.rated and player.account is None:
            raise RatedNeedsAccount("a rated tournament is for accounts: log in or register")
        if known is not None and known.state == OUT and event.status == RUNNING:
            raise TournamentClosed("you withdrew from this tournament")
        if known is None or known.state == GONE:
            if len(event.active()) >= event.settings.max_players:
                raise TournamentFull(f"at most {event.settings.max_players} players")
            if event.settings.rated:
                self.entry.admit(player)  # a bot's first rated event: its check first
            seq = max((e.seq for e in event.entrants.values()), default=0) + 1
            entrant = Entrant(
                player.pid, player.name, player.kind, seq, self._rating(player, event)
            )
            event.enter(entrant)
            self.roster.keep(player)  # an entrant's row must outlive a restart
        elif known.state != IN:
            event.set_state(player.pid, IN)
        self.journal.record(event.entrant_row(player.pid))
        self._dirty.add(event.id)
        if player.kind != "bot":
            self._watch(player, event)
        return [Reply(event.message())]

    def leave(self, player: Player, msg: Message) -> list[Out]:
        """Leave an event: before its start, out of it; once it runs, withdrawn (an arena's
        player is paused, and may come back with ``join_tournament``)."""
        event = self._event(msg)
        known = event.entrants.get(player.pid)
        if known is None or known.state in (OUT, GONE):
            raise BadMessage("you are not in this tournament")
        if event.status == FINISHED:
            raise TournamentClosed("this tournament is over")
        arena = event.settings.format == ARENA
        state = GONE if event.status == OPEN else PAUSED if arena else OUT
        event.set_state(player.pid, state)
        self.journal.record(event.entrant_row(player.pid))
        self._dirty.add(event.id)
        return [Reply(event.message())]

    def start(self, player: Player, msg: Message) -> list[Out]:
        """Start an event now (its creator)."""
        event = self._event(msg)
        if event.creator is None or event.creator != player.account:
            raise NotTournamentCreator("only the tournament's creator starts it")
        if event.status != OPEN:
            raise TournamentClosed("this tournament has started already")
        if len(event.active()) < 2:
            raise TournamentClosed("a tournament starts with two players or more")
        out = self._begin(event)
        return [Reply(event.message()), *out]

    def get(self, player: Player, msg: Message) -> list[Out]:
        """The whole event (one page of its games)."""
        return [Reply(self._event(msg).message(msg.get("page", 0)))]

    def watch(self, player: Player, msg: Message) -> list[Out]:
        """Watch an event (pushed again when it changes), or stop (``watch: false``)."""
        event = self._event(msg)
        if msg.get("watch", True):
            self._watch(player, event, asked=True)
        else:
            self._unwatch(player.pid, event.id)
        return [Reply(event.message(msg.get("page", 0)))]

    def export(self, tid: str) -> Message | None:
        """Event ``tid``'s results with every game (None: no such event held here), for the
        archive of its games the web front builds off the loop."""
        event = self.events.get(tid)
        return None if event is None else event.export()

    # -- a game's end ------------------------------------------------------------------------

    def ended(self, room: Room, over: Message) -> None:
        """``room``'s game ended: its result counts in its event, once (keyed by game id)."""
        found = self._rooms.get(room.id)
        if found is None or found[2] != room.game_id:
            return
        tid, key, game_id = found
        del self._rooms[room.id]
        over["tournament"] = tid
        event = self.events.get(tid)
        if event is None or event.status == FINISHED:
            return  # an arena's game still going at its end counts for nothing
        winner, void = outcome_of(room)
        self._result(event, key, game_id, winner, void)

    def _result(
        self, event: Event, key: str, game_id: str | None, winner: int | None, void: bool
    ) -> None:
        if event.record(key, winner, void) is not None:
            now = self.clock()
            self.journal.record(ResultRow(event.id, key, game_id, winner, void, now))
            self._dirty.add(event.id)

    # -- the sweep ---------------------------------------------------------------------------

    def sweep(self, now: float) -> list[Out]:
        """Start events due, end arenas whose time is up, make the next games of the events
        that changed (an arena's every ``SCAN_INTERVAL`` too), push events to watchers."""
        out: list[Out] = []
        if now >= self._next_scan:
            self._next_scan = now + SCAN_INTERVAL
            self._open_scheduled(now)
            for event in list(self.events.values()):
                out += self._scan(event, now)
        for tid in list(self._dirty):
            self._dirty.discard(tid)
            event = self.events.get(tid)
            if event is not None and event.status == RUNNING:
                out += self._advance(event, now)
        return out + self._pushes(now)

    def _open_scheduled(self, now: float) -> None:
        """Open the operator's occurrences due (once each: an event keeps its schedule and
        start, and a restart tells the calendar)."""
        for settings, start in self.calendar.due(now):
            try:
                if self.board.claims is None:
                    self.open_event(settings, None, start)
                else:
                    self._claim(settings, start, now)
            except TooManyTournaments:
                log.warning("scheduled %r at %.0f not opened: too many", settings.name, start)

    def _claim(self, settings: Settings, start: float, now: float) -> None:
        """Open the occurrence once the cluster's store says no node opened it before."""
        claims = self.board.claims
        assert claims is not None and settings.schedule is not None
        self._check_room()
        event = Event(event_id(), settings, None, now, start)

        def won() -> None:
            if event.id not in self.events:
                self._opened(event)

        claims.claim(settings.schedule, event.row(), won)

    def _scan(self, event: Event, now: float) -> list[Out]:
        """An event's clock: its start when due, an arena's end, an arena's pairings."""
        if event.status == OPEN and event.starts_at is not None and now >= event.starts_at:
            if len(event.active()) < 2:
                log.info("tournament %s: too few players at its start; over", event.id)
                self._finish(event, now)
                return []
            return self._begin(event)
        if event.status == RUNNING and event.settings.format == ARENA:
            self._dirty.add(event.id)
        return []

    def _begin(self, event: Event) -> list[Out]:
        now = self.clock()
        event.start(now)
        self.journal.record(event.row())
        log.info("tournament %s started with %d players", event.id, len(event.active()))
        return self._advance(event, now)

    def _finish(self, event: Event, now: float) -> None:
        event.finish(now)
        self.journal.record(event.row())
        log.info("tournament %s finished", event.id)
        if unattended(event):
            self._forget(event.id)  # an occurrence nobody came to: in the store only
        finished = [e for e in self.events.values() if e.status == FINISHED]
        for old in sorted(finished, key=lambda e: e.ended_at or 0)[:-KEEP_FINISHED]:
            self._forget(old.id)

    def _forget(self, tid: str) -> None:
        """Keep a finished event in the store only."""
        self.events.pop(tid, None)
        self._pushed.pop(tid, None)
        for pid in self._watchers.pop(tid, set()):
            self._watching.get(pid, set()).discard(tid)

    def _advance(self, event: Event, now: float) -> list[Out]:
        """The event's next games as :mod:`upcoming` decides them, opened; or its end."""
        made = upcoming(event, now, self._online)
        if made.over:
            self._finish(event, now)
            return []
        out = self._play(event, made.games, made.byes, now)
        if not event.live() and event.settings.format != ARENA:
            self._dirty.add(event.id)  # forfeits only (or a scan cut short): look again
        return out

    def _online(self, pid: str) -> bool:
        """Whether player ``pid`` is connected (an arena pairs only those)."""
        return (player := self.players.get(pid)) is not None and player.online

    def _play(
        self, event: Event, games: Iterable[Game], byes: Iterable[Bye], now: float
    ) -> list[Out]:
        """Seat each game in a room of its own (a withdrawn or missing player forfeits it)."""
        out: list[Out] = []
        for bye in byes:
            event.bye(bye)
            self.journal.record(
                PairingRow(
                    event.id, f"{bye.round}.bye", bye.round, bye.player, None, None, None, None, now
                )
            )
        for game in games:
            out += self._open(event, game, now)
        return out

    def _open(self, event: Event, game: Game, now: float) -> list[Out]:
        """One game's room, both players seated; the pairing journaled with it."""
        players = [self.players.get(pid) for pid in game.players]
        absent = [
            seat
            for seat, (pid, player) in enumerate(zip(game.players, players, strict=True))
            if player is None or event.entrants[pid].state not in (IN, PAUSED)
        ]
        if absent:
            return self._forfeit(event, game, absent, now)
        s = event.settings
        room = Room(
            self.rooms.new_id(),
            FIXED[s.game],
            s.room_options(event.id, game.opening),
            s.clock,
            now=self.clock,
        )
        self.seating.add(room)
        room.rate(room.pool, Reporter(self.ended, room.rater))
        if s.clock is not None:
            self.seating.timed(room.id)
        self._rooms[room.id] = (event.id, game.key, room.game_id)
        event.paired(Slot(game, room.id, room.game_id, now))
        self.journal.record(pairing_row(event.id, game, room.id, room.game_id, now))
        out: list[Out] = []
        refused = []
        for seat, player in enumerate(players):
            assert player is not None
            try:
                sends = self.seating.seat(player, room, seat=seat)
            except ArenaError as exc:  # a quota refused the seat: that player loses the game
                log.warning("tournament %s: %s not seated: %s", event.id, player.name, exc.message)
                refused.append(seat)
                continue
            out += [self._tag(send, event.id) for send in sends]
        if len(refused) == 1:
            out += room.end(Termination.FORFEIT, 1 - refused[0])
        elif refused:
            out += room.end(Termination.ABANDONED, None)
        return out

    def _forfeit(self, event: Event, game: Game, absent: list[int], now: float) -> list[Out]:
        """A game with a player withdrawn: no room; the other wins (both out: void)."""
        event.paired(Slot(game, None, None, now))
        self.journal.record(pairing_row(event.id, game, None, None, now))
        winner = None if len(absent) == 2 else 1 - absent[0]
        self._result(event, game.key, None, winner, winner is None)
        return []

    @staticmethod
    def _tag(send: Out, tid: str) -> Out:
        """A seated player's ``joined`` names the event."""
        if isinstance(send, Send) and send.message.get("type") == "joined":
            return Send(send.to, {**send.message, "tournament": tid})
        return send

    # -- watchers ----------------------------------------------------------------------------

    def _watch(self, player: Player, event: Event, *, asked: bool = False) -> None:
        """``player`` watches ``event``: past a bound, ``tournament_full`` when it ``asked``
        (``watch_tournament``), else (its creator's or an entrant's own watch) nothing."""
        watchers = self._watchers.setdefault(event.id, set())
        if player.pid in watchers:
            return
        mine = self._watching.get(player.pid, set())
        if len(mine) >= MAX_WATCHING or len(watchers) >= MAX_WATCHERS:
            if asked and len(mine) >= MAX_WATCHING:
                raise TournamentFull(f"you watch {MAX_WATCHING} tournaments: stop watching one")
            if asked:
                raise TournamentFull("this tournament has the most watchers it may")
            return
        watchers.add(player.pid)
        self._watching.setdefault(player.pid, set()).add(event.id)

    def _unwatch(self, pid: str, tid: str) -> None:
        self._watchers.get(tid, set()).discard(pid)
        mine = self._watching.get(pid)
        if mine is not None:
            mine.discard(tid)
            if not mine:
                del self._watching[pid]

    def _pushes(self, now: float) -> list[Out]:
        """Each watched event that changed, to its online watchers, at most every
        ``PUSH_INTERVAL`` (the latest state wins); offline watchers stop watching."""
        out: list[Out] = []
        for tid, watchers in self._watchers.items():
            event = self.events.get(tid)
            if event is None or not watchers:
                continue
            at, version = self._pushed.get(tid, (-PUSH_INTERVAL, 0))
            if version == event.version or now - at < PUSH_INTERVAL:
                continue
            self._pushed[tid] = (now, event.version)
            gone = [pid for pid in watchers if not (p := self.players.get(pid)) or not p.online]
            for pid in gone:
                self._unwatch(pid, tid)
            if watchers:
                out.append(Send(tuple(sorted(watchers)), event.message()))
        return out

    # -- helpers -----------------------------------------------------------------------------

    def _event(self, msg: Message) -> Event:
        event = self.events.get(msg["tournament"])
        if event is None:
            raise NoSuchTournament(f"no tournament {str(msg['tournament'])[:40]!r}")
        return event

    def _rating(self, player: Player, event: Event) -> float:
        pool = pool_of(FIXED[event.settings.game], event.settings.clock)
        if player.account is None or pool is None:
            return 1500.0
        return self.ratings.current(player.account, pool).rating

    # -- a restart ---------------------------------------------------------------------------

    def restore(self, rows: Iterable[TournamentJournalRow]) -> None:
        """Take back the events from the store (after the rooms): each game in flight reports
        to its event again; a game whose room is gone without a result is void. Events held
        already are kept as they are (a cluster node adopting a lapsed node's rooms and events
        reads back its own too)."""
        now = self.clock()
        for tid, event in rebuild(rows).items():
            self.calendar.seen(event.settings.schedule, event.starts_at)
            if tid in self.events or (event.status == FINISHED and unattended(event)):
                continue  # held already, or an occurrence nobody came to (in the store only)
            self.events[tid] = event
            if event.creator is not None and now - event.created_at < DAY:
                made = self._created.setdefault(event.creator, deque())
                made.append(event.created_at)
                self._created[event.creator] = deque(sorted(made))
            for slot in event.live():
                self._reattach(event, slot)
            if event.status == RUNNING:
                self._dirty.add(event.id)

    def _reattach(self, event: Event, slot: Slot) -> None:
        """A restored game: its room reports to the event again, or its result is settled."""
        room = self.rooms.get(slot.room or "")
        if room is not None and room.game_id == slot.game_id and not room.game.over:
            room.rate(room.pool, Reporter(self.ended, room.rater))
            self._rooms[room.id] = (event.id, slot.game.key, room.game_id)
        elif room is not None and room.game_id == slot.game_id:
            winner, void = outcome_of(room)
            self._result(event, slot.game.key, slot.game_id, winner, void)
        else:
            log.warning("tournament %s: game %s lost its room", event.id, slot.game.key)
            self._result(event, slot.game.key, slot.game_id, None, True)


def pairing_row(event: str, game: Game, room: str | None, gid: str | None, at: float) -> PairingRow:
    """The journal's row of ``game`` paired in ``event`` (``room``, ``gid``: None for a game
    forfeited before any room)."""
    return PairingRow(
        event, game.key, game.round, game.first, game.second, game.opening, room, gid, at
    )


def event_id() -> str:
    """A new event's id: 8 URL-safe characters that never begin with ``-``, so that
    ``mnk-bot --tournament ID`` is never read as an option (a swiss once drew ``-RqcxUOd``)."""
    while True:
        tid = secrets.token_urlsafe(6)
        if tid[0] != "-":
            return tid
