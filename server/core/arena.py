"""The lobby as a sans-I/O core: frames in per connection, replies and broadcasts out.

Every error a peer can cause is an :class:`ArenaError` raised below, made an ``error`` reply in
one place, :meth:`Arena.receive`. Nothing here awaits or touches a socket (``server.shell``
delivers what this returns). The arena owns its parts (:class:`Roster`, :class:`Lobby`,
:class:`BotDesk`, :class:`Analysis` …), given the rooms' registry, keys and :class:`Node`."""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable, Iterable

from protocol import wire
from protocol.errors import (
    ArenaError,
    BadFrame,
    BadMessage,
    NoBotAvailable,
    NoSuchRoom,
    NotHello,
    RateLimited,
    RematchUnavailable,
    TooLate,
)
from protocol.vocab import CloseCode, Status
from protocol.wire import MAX_ROOM_ID, Message
from server.core.accounts.desk import ACCOUNT_REQUESTS, Accounts
from server.core.analysis.desk import ANALYSIS, Analysis
from server.core.game.labels import GAME_RULES
from server.core.game.lag import allowed
from server.core.game.members import Send
from server.core.game.options import read_create
from server.core.game.room import Room
from server.core.journal.recovery import Journal
from server.core.journal.rows import AccountRow, JournalRow, KeyRow, PlayerRow, Snapshot
from server.core.limits import HELLO_BYTES, HELLO_GAME_BYTES, LOOKUPS, Limits
from server.core.lobby.registry import MemoryRegistry, RoomRegistry
from server.core.lobby.rooms import Lobby
from server.core.node import Elsewhere, Node, Standalone
from server.core.outputs import Close, Out, Reply, address, get_game, internal_error, list_games
from server.core.pairing.desk import Pairing, Seating
from server.core.pairing.seeks import seek_form
from server.core.players.admission import Admission
from server.core.players.botdesk import BotDesk
from server.core.players.greeter import Greeter
from server.core.players.keys import KeyRing
from server.core.players.players import Conn, Player, peek_id
from server.core.players.presence import Presence
from server.core.players.roster import Roster, rooms_of
from server.core.ratelimit import TokenBucket
from server.core.rating.desk import RatingDesk
from server.core.rating.pools import FORM_POOLS, LABELS
from server.core.round import deadlines
from server.core.round.actions import Actions
from server.core.round.reports import reporting
from server.core.tournament.board import EventBoard
from server.core.tournament.desk import Tournaments
from server.core.tournament.entry import EntryCheck
from server.core.tournament.schedule import Schedule
from server.core.tournament.values import FORMAT_LABELS

log = logging.getLogger("mnk.arena")


def welcome_forms() -> Message:
    """What every ``welcome`` carries from other domains: the pools of the forms' clocks, the
    forms' choices, the labels and the named games' rules (the clients keep no copy)."""
    return {
        "rating_pools": FORM_POOLS,
        "seek_form": seek_form(),
        "labels": {**LABELS, "formats": FORMAT_LABELS},
        "rules": GAME_RULES,
    }


class Arena:
    """Players, rooms and the lobby, driven by ``receive``, ``disconnect`` and ``sweep``."""

    def __init__(
        self,
        registry: RoomRegistry | None = None,
        limits: Limits | None = None,
        clock: Callable[[], float] | None = None,
        *,
        durable: bool = True,
        keys: KeyRing | None = None,
        node: Node | None = None,
    ) -> None:
        self.rooms: RoomRegistry = registry if registry is not None else MemoryRegistry()
        self.limits = lim = limits or Limits()
        #: Wall-clock seconds: timestamps are stored and must mean the same after a restart.
        self.clock = clock or time.time
        #: The rest of the cluster, as far as this arena needs to know it.
        self.node: Node = node if node is not None else Standalone()
        #: The bot keys this server accepts; a key's name is its bot's one player id here.
        self.keys = keys if keys is not None else KeyRing()
        self._journal = Journal(enabled=durable)
        self.roster = Roster(self._journal, self.clock, lim.player_ttl)
        self.players = self.roster.players
        self.lobby = Lobby(self.rooms, lim.max_page, lim.lobby_push_interval)
        self.bots = BotDesk(self.roster, self.rooms, self.keys, limits=lim, node=self.node)
        self.admission = Admission(lim)
        #: Players coming online in rooms here without a hello here (a cluster's).
        self.presence = Presence(self.rooms, self.roster, self.lobby)
        self.ratings = RatingDesk(self.players, self._journal, self.clock)
        self.analysis = Analysis(
            self.roster, self.rooms, self.bots, admission=self.admission, clock=self.clock
        )
        self.greeter = Greeter(
            self.roster, self.bots, self.admission,
            rooms=self.rooms, clock=self.clock, ratings_of=self.ratings.of,
            forms=welcome_forms(),
        )  # fmt: skip
        self.accounts = Accounts(
            self.roster, self.rooms, self.keys, greeter=self.greeter, presence=self.presence,
            node=self.node, journal=self._journal, clock=self.clock,
        )  # fmt: skip
        self._idle_since: dict[str, float] = {}
        self._full_sweep = 0.0
        #: Rooms whose clock may run: looked at on every sweep, the rest once per full sweep.
        self._timed: set[str] = set()
        #: The longest frame read as a ``hello`` (its ``games`` list is bounded too).
        self._hello_bytes = HELLO_BYTES + HELLO_GAME_BYTES * lim.max_hello_games
        #: Who created each live room (for the ``max_rooms_created`` quota).
        self._creator: dict[str, str] = {}
        #: Draw offers, takebacks, aborts and claims (core/round/actions.py).
        self.actions = Actions(
            self._journal, lim, self.clock, find=self._room, changed=self.lobby.changed
        )
        self.pairing = Pairing(  # seeks and their waves
            self.roster, self.rooms, self.ratings, admission=self.admission, bots=self.bots,
            seating=Seating(self._add_room, self._timed.add, self._seat),
        )  # fmt: skip
        self.tournaments = Tournaments(  # events whose games are rooms seated as pairings are
            self.roster, self.rooms, self.ratings,
            seating=Seating(self._add_room, self._timed.add, self._seat), journal=self._journal,
        )  # fmt: skip
        self._handlers = self._requests()

    def _requests(self) -> dict[str, Callable[[Player, Message], list[Out]]]:
        """Each request type a player may send, and its handler (a part's or the arena's)."""
        return {
            "ping": lambda _player, _msg: [Reply({"type": "pong"})],
            **self.actions.handlers(),
            **self.pairing.handlers(),
            **self.tournaments.handlers(),
            **self.tournaments.entry.handlers(),  # the bots' entry check (the examiner's report)
            "abort": self._abort,  # not in a tournament's game: its result counts
            "list_rooms": self._list_rooms,
            "create_room": self._create_room,
            "join_room": self._join_room,
            "leave_room": self._leave_room,
            "move": reporting(self._move, self.rooms),  # a bot's info: to spectators
            "resign": self._resign,
            "rematch": self._rematch,
            "chat": lambda p, msg: list(self._room(msg["room"]).chat(p.pid, msg["text"])),
            "list_games": lambda _player, msg: [list_games(msg)],
            "get_game": lambda _player, msg: [get_game(msg)],
            "list_bots": self.bots.list_bots,
            "choose": lambda p, msg: list(self._room(msg["room"]).choose(p.pid, msg["choice"])),
        } | self.ratings.handlers()

    # -- the shell's ------------------------------------------------------------------------

    @property
    def event_board(self) -> EventBoard:
        """The events held here as a cluster's nodes share them (their lines, their claims)."""
        return self.tournaments.board

    @property
    def hello_timeout(self) -> float:
        """Seconds a new connection has to say hello."""
        return self.limits.hello_timeout

    def note_limit(self, conn: Conn | None, what: str, now: float) -> None:
        """Log a limit the shell saw bite (rate-limited at most once a minute)."""
        self.admission.note(conn, what, now)

    def load_keys(self, rows: Iterable[KeyRow]) -> None:
        """The bot keys as the store has them now (``mnk-server keys`` edits them)."""
        self.keys.load(rows)

    def revoked_bots(self) -> list[str]:
        """Online bots whose key was revoked or replaced: the shell cuts them off."""
        return self.bots.revoked()

    # -- connection life ---------------------------------------------------------------------

    def connect(self, address_key: str | None = None) -> Conn:
        """A new connection, before its ``hello``, from the client address ``address_key``."""
        lim = self.limits
        return Conn(TokenBucket(lim.human_rate, lim.human_burst), address_key=address_key)

    def receive(self, conn: Conn, frame: bytes | str) -> list[Out]:
        """Handle one frame: the one place where errors become ``error`` replies.

        The rate bucket is charged before the frame is even decoded, so garbage costs tokens
        too; a connection that keeps sending frames that do not decode is closed.
        """
        request_id: int | None = None
        now = self.clock()
        try:
            if not conn.bucket.allow_frame(now, frame):
                request_id = peek_id(frame)
                self.admission.note(conn, "rate_limited", now)
                raise RateLimited("too many messages; slow down")
            try:
                if conn.pid is None and len(frame) > self._hello_bytes:
                    raise BadMessage("a hello is shorter than that; say hello first")
                message = wire.decode(frame)
            except (BadFrame, BadMessage):
                if conn.bad_frame() >= self.limits.max_bad_frames:
                    self.admission.note(conn, "bad_frames", now)
                    return [Close(CloseCode.POLICY, "too many bad frames")]
                raise
            request_id = message.get("id")
            kind = message["type"]
            if kind == "move" and conn.pid is not None and wire.plain_move(message):
                player = self.players[conn.pid]  # the common request, directly, when it is ours
                out = (
                    self._move(player, message)
                    if self.node.standalone
                    else self._dispatch(player, message)
                )
            elif wire.misannounced(frame, kind):  # off the move path: a move here is not plain
                raise BadMessage(f"its first key announced a move or a ping, not {kind[:40]!r}")
            elif conn.pid is None and (kind != "hello" or conn.hello is not None):
                raise NotHello("say hello first, and wait for the welcome")
            elif conn.pid is None:
                out = self.greeter.hello(conn, wire.validate(message))
            else:
                wire.validate(message)
                player = self.players[conn.pid]
                if kind in LOOKUPS:
                    self.admission.check_lookup(conn, now)
                    out = self._dispatch(player, message)
                    self.admission.started(conn)
                elif kind in ACCOUNT_REQUESTS:
                    out = self.accounts.request(conn, player, message)
                elif kind in ANALYSIS:  # an analyse (weighed, one at a time) or a bot's answer
                    out = self.analysis.request(conn, player, message)
                else:
                    out = self._dispatch(player, message)
        except ArenaError as exc:
            return [Reply(wire.error(exc.code, exc.message, request_id))]
        except Exception:
            log.exception("handler failed on a %s frame", type(frame).__name__)
            return [internal_error(request_id)]
        return address(conn.pid, out, request_id)

    def session_resolved(
        self, conn: Conn, row: PlayerRow | AccountRow | None, failed: bool = False
    ) -> list[Out]:
        """The store's answer to ``conn``'s ``Resolve``: an account whose session it is, or a
        player ``row`` (None: nobody's) loaded here; the waiting ``hello`` completes with it."""
        msg = conn.hello
        self.admission.drop_hello(conn)
        if msg is None or conn.pid is not None:
            return []
        request_id = msg.get("id")
        if failed:
            return [internal_error(request_id)]
        account = self.greeter.found(row)
        try:
            out = self.greeter.hello(conn, msg, resolved=True, account=account)
        except ArenaError as exc:
            return [Reply(wire.error(exc.code, exc.message, request_id))]
        except Exception:
            log.exception("handler failed on a resolved hello")
            return [internal_error(request_id)]
        return address(conn.pid, out, request_id)

    def disconnect(self, conn: Conn) -> list[Out]:
        """The connection closed: its player goes offline but keeps every seat for the grace."""
        player = self.players.get(conn.pid) if conn.pid else None
        if player is None:
            return []
        now = self.clock()
        self.roster.offline(player, now)
        if player.kind == "bot":
            log.info("bot %s (%s) left", player.name, player.pid)
        self.node.offline(player)
        self.pairing.offline(player)  # its seeks die with its last connection
        return self.presence.offline(player, now)

    def plan_events(self, schedules: Iterable[Schedule]) -> None:
        """Run the operator's recurring tournaments (opened ahead and started by the sweep)."""
        self.tournaments.calendar.plan(schedules)

    @property
    def entry_check(self) -> EntryCheck:
        """The bots' entry check: the shell's examiner takes its queue and reports to it."""
        return self.tournaments.entry

    def tournament_export(self, tid: str) -> Message | None:
        """Event ``tid``'s results with every game (None: not held here), for its archive."""
        return self.tournaments.export(tid)

    def sweep(self) -> list[Out]:
        """Periodic work: forfeit seats whose grace ran out, drop idle rooms, push the lobby."""
        now = self.clock()
        out: list[Out] = self.pairing.sweep(now) + self.analysis.sweep(now)
        out += self.tournaments.sweep(now) + self.tournaments.entry.sweep(now)
        if now - self._full_sweep >= self.limits.full_sweep_interval:
            self._full_sweep = now
            rooms = list(self.rooms)
            self.roster.prune(now)
            self.roster.save_watchers()
            out += self.presence.audience_news(rooms)  # who watches, to each room's members
        else:  # between full sweeps only running clocks need a look (timeouts to the 50 ms)
            rooms = [r for rid in list(self._timed) if (r := self.rooms.get(rid)) is not None]
        for room in rooms:
            status = room.status
            if status == Status.OVER or room.clock is None:
                self._timed.discard(room.id)
            if status == Status.PLAYING:  # nothing expires in a room that is not playing
                expired = deadlines.expired(room, now, self.limits)
                if expired:
                    self._journal.touch(room)
                    self.lobby.changed()
                    out += expired
                    status = room.status
            if status != Status.PLAYING and room.is_empty():
                since = self._idle_since.setdefault(room.id, now)
                if now - since >= self.limits.room_linger:
                    self._drop(room)
            else:
                self._idle_since.pop(room.id, None)
        if self.lobby.push_due(now):
            watchers = tuple(p.pid for p in self.players.values() if p.subscribed and p.online)
            if watchers:
                out.append(Send(watchers, self.lobby.message()))
        return out

    def restore(self, snapshot: Snapshot) -> None:
        """Take back players and live rooms from the store after a restart; everyone is offline.

        Seated players' reconnect grace starts now, and no clock is charged for the downtime.
        A cluster node adopting a lapsed node's rooms restores them the same way: players it
        knows already are kept as they are (ratings newer than the book's are taken).
        """
        self.ratings.load(snapshot.ratings)
        for room in self.presence.restore(snapshot, self.clock):
            self._add_room(room)
            self._journal.adopt(room)
            if room.clock is not None and room.status != Status.OVER:
                self._timed.add(room.id)
        self.tournaments.restore(snapshot.tournaments)  # after the rooms its games play in
        self.tournaments.entry.restore(snapshot.entry_checks)

    def drain(self) -> list[JournalRow]:
        """The durable records produced since the last call, to commit before sending outputs."""
        return self._journal.drain()

    def shutdown(self) -> list[Out]:
        """Tell every room the server is going away (its games resume after a restart)."""
        note = {"type": "server_shutdown", "message": "the server is shutting down"}
        online = tuple(p.pid for p in self.players.values() if p.online)
        return [Send(online, note)] if online else []

    # -- requests ----------------------------------------------------------------------------

    def _dispatch(self, player: Player, msg: Message) -> list[Out]:
        kind = msg["type"]
        if kind == "hello":
            raise BadMessage("already said hello")
        if not self.node.standalone and (
            ("room" in msg and self.rooms.get(msg["room"]) is None)
            or ("tournament" in msg and not self.event_board.holds(msg["tournament"]))
        ):
            out = self.node.forward(player, msg)  # another node's room or event (or none)
            self.roster.keep(player)  # seated or watching there: its row (and token) is here
            return out
        return self._handlers[kind](player, msg)

    def _list_rooms(self, player: Player, msg: Message) -> list[Out]:
        if "subscribe" in msg:
            player.subscribe(msg["subscribe"])
        return [Reply(self.lobby.message(msg.get("limit"), msg.get("cursor")))]

    def _create_room(self, player: Player, msg: Message) -> list[Out]:
        asked = read_create(msg)
        variant, level, clock, named = asked.variant, asked.level, asked.clock, asked.named
        room_options = dict(asked.options)
        if named is None:
            rooms = rooms_of(self.rooms, player)
            self.admission.check_quota(player, rooms, bot=asked.wants_bot)
            self.admission.check_games(player, self.clock())
        try:
            bots, level, chosen = self.bots.chosen(asked, msg.get("bot"), player)
            room_options |= chosen
        except Elsewhere as away:  # seats of bots on other nodes: made once they are lent
            self.admission.check_created(player, self.clock())
            if self.bots.granted:
                raise NoBotAvailable("the bots named are not free right now") from None
            return self.node.hold(player, msg, away.names, variant.name)
        if level is not None and bots:
            room_options["level"] = level
        room_options |= self.ratings.check_create(player, msg, asked, bots)
        self.admission.check_created(player, self.clock())
        room = Room(self.rooms.new_id(), variant, room_options, clock, now=self.clock)
        if named is None:  # a director watches its bots' games: it plays none of them
            self.admission.started_game(player, self.clock())
        self.roster.keep(player)  # its creator owns a live room: written before the room is
        self._add_room(room)
        player.created.add(room.id)
        self._creator[room.id] = player.pid
        log.info("room %s created by %s (%s): %s", room.id, player.name, player.pid, variant.name)
        if clock is not None:
            self._timed.add(room.id)
        if named is not None:  # a director's room: it watches, the two named bots play
            out = self._seat(player, room, spectate=True)
            for seat, bot in enumerate(bots):
                out += self.bots.seat(bot, room, seat, level)
            return out
        seat = msg.get("seat")
        if seat is None:
            seat = secrets.randbelow(2)
        out = self._seat(player, room, seat=seat)
        if bots:
            out += self.bots.seat(bots[0], room, 1 - seat, level)
        return out

    def create_held(
        self, pid: str, msg: Message, granted: dict[str, Player]
    ) -> tuple[list[Out], str | None]:
        """Go on with ``pid``'s ``create_room`` held for seats of bots on other nodes, with the
        players of the bots ``granted`` (remote members here): its outputs (the reply carrying
        the request's id), and the room made (None: refused, or its asker left)."""
        player = self.players.get(pid)
        if player is None or not player.online:
            return [], None
        before = set(player.created)
        self.bots.grant(granted)
        try:
            out = self._create_room(player, msg)
        except ArenaError as exc:
            out = [Reply(wire.error(exc.code, exc.message, None))]
        finally:
            self.bots.grant({})
        made = next(iter(player.created - before), None)
        return address(pid, out, msg.get("id")), made

    def _join_room(self, player: Player, msg: Message) -> list[Out]:
        room = self._room(msg["room"])
        self.ratings.check_join(player, room, msg.get("spectate", False))
        return self._seat(player, room, spectate=msg.get("spectate", False))

    def _leave_room(self, player: Player, msg: Message) -> list[Out]:
        room = self._room(msg["room"])
        out: list[Out] = list(room.leave(player.pid))
        player.rooms.discard(room.id)
        self.lobby.changed()
        if room.status != Status.PLAYING and room.is_empty():
            self._drop(room)  # nobody is left to come back to it: it goes at once
        return out

    def _move(self, player: Player, msg: Message) -> list[Out]:
        room = self._room(msg["room"], touch=False)
        lag = 0.0
        if room.clock is not None:  # timed: the move gets its lag back (core/game/lag.py)
            lag = allowed(player.lag, msg.get("lag_ms"), self.limits.max_lag_refund)
        try:
            sends = room.move(player.pid, msg["x"], msg["y"], msg.get("ply"), lag)
        except BaseException:
            self._journal.touch(room)  # refused: look at the room whole, as any other request
            raise
        self._journal.moved(room)  # the common case: one move row, no header check
        if room.game.over:
            self.lobby.changed()
        return sends  # type: ignore[return-value]  # a list of Sends is a list of Outs, uncopied

    def _resign(self, player: Player, msg: Message) -> list[Out]:
        fault = msg.get("fault")
        if fault is not None and player.kind != "bot":
            raise BadMessage("only a bot reports an engine fault; resign without one")
        self.lobby.changed()
        return list(self._room(msg["room"]).resign(player.pid, fault))

    def _abort(self, player: Player, msg: Message) -> list[Out]:
        if self.tournaments.owns(self._room(msg["room"])):
            raise TooLate("a tournament's game is not aborted: resign or offer a draw")
        return self.actions.abort(player, msg)

    def _rematch(self, player: Player, msg: Message) -> list[Out]:
        room = self._room(msg["room"])
        if self.tournaments.owns(room):
            raise RematchUnavailable("a tournament's games are made by its format")
        self.lobby.changed()
        self.admission.check_games(player, self.clock())
        out = list(room.ask_rematch(player.pid))
        self.admission.started_game(player, self.clock())
        if room.clock is not None and room.status == Status.PLAYING:
            self._timed.add(room.id)  # the new game's clock needs the fast check again
        return out

    # -- helpers -----------------------------------------------------------------------------

    def _room(self, room_id: str, touch: bool = True) -> Room:
        room = self.rooms.get(room_id) if len(room_id) <= MAX_ROOM_ID else None
        if room is None:
            if self.lobby.elsewhere(room_id):  # a node of the cluster not reached by a bus
                raise NoSuchRoom(f"room {room_id!r} is on another node: connect to that node")
            raise NoSuchRoom(f"no room {room_id[:MAX_ROOM_ID]!r}")
        if touch:
            self._journal.touch(room)
        return room

    def _add_room(self, room: Room) -> None:
        self.ratings.attach(room)
        self.rooms.add(room)
        self.lobby.opened(room)
        self.actions.attach(room)

    def _seat(
        self, player: Player, room: Room, *, seat: int | None = None, spectate: bool = False
    ) -> list[Out]:
        if room.id not in player.rooms:
            self.admission.check_held(player, self.clock())
        sends = room.join(player.member(), spectate=spectate, seat=seat)
        self.roster.keep(player, watching=room.seat_of(player.pid) is None)
        self._journal.touch(room)
        player.rooms.add(room.id)
        self.roster.mark_played(room)
        self.lobby.changed()
        return list(sends)

    def _drop(self, room: Room) -> None:
        self._journal.drop(room)
        self.rooms.remove(room.id)
        self.lobby.closed(room.id)
        creator = self.players.get(self._creator.pop(room.id, ""))
        if creator is not None:
            creator.created.discard(room.id)
        self._idle_since.pop(room.id, None)
        self._timed.discard(room.id)
        for pid in room.members:
            player = self.players.get(pid)
            if player is not None:
                player.rooms.discard(room.id)
        self.lobby.changed()
