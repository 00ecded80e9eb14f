"""The lobby as a sans-I/O core: frames in per connection, replies and broadcasts out.

Every error a peer can cause is an :class:`ArenaError` raised somewhere below and turned into an
``error`` reply in exactly one place, :meth:`Arena.receive`. Nothing here awaits or touches a
socket; the asyncio shell in ``server.shell.server`` delivers what this returns.
"""

from __future__ import annotations

import heapq
import logging
import math
import secrets
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from protocol import wire
from protocol.errors import (
    ArenaError,
    BadFrame,
    BadKey,
    BadMessage,
    BadSession,
    InternalError,
    NoBotAvailable,
    NoSuchRoom,
    NotHello,
    RateLimited,
    TooManyRooms,
    UnknownGame,
    UnsupportedProtocol,
)
from protocol.rules import Termination
from protocol.variants import make_variant
from protocol.vocab import Close as CloseCode
from protocol.wire import MAX_ROOM_ID, Message
from server.core.botdesk import BotDesk
from server.core.clock import ClockSpec
from server.core.journal import PlayerRow, Record, Snapshot
from server.core.keys import KeyRing
from server.core.names import clean_name
from server.core.paging import page, page_size, room_cursor
from server.core.peers import (
    GAME_NAMES,
    HELLO_BYTES,
    HELLO_GAME_BYTES,
    LIMIT_LOG_INTERVAL,
    LOOKUPS,
    BotSeats,
    Close,
    Conn,
    Elsewhere,
    Forwarder,
    Limits,
    Lookup,
    Out,
    Player,
    Reply,
    Resolve,
    hash_token,
    peek_id,
)
from server.core.ratelimit import TokenBucket
from server.core.recovery import Journal, restore_room
from server.core.registry import MemoryRegistry, RoomRegistry
from server.core.room import Room, Send

log = logging.getLogger("mnk.arena")


class Arena(BotDesk):
    """Players, rooms and the lobby, driven by ``receive``, ``disconnect`` and ``sweep``."""

    def __init__(
        self,
        registry: RoomRegistry | None = None,
        limits: Limits | None = None,
        clock: Callable[[], float] | None = None,
        durable: bool = True,
        keys: KeyRing | None = None,
    ) -> None:
        self.rooms: RoomRegistry = registry if registry is not None else MemoryRegistry()
        self.limits = limits or Limits()
        #: Wall-clock seconds: timestamps are stored and must mean the same after a restart.
        self.clock = clock or time.time
        self.players: dict[str, Player] = {}
        #: The bot keys this server accepts; a key's name is its bot's one player id here.
        self.keys = keys if keys is not None else KeyRing()
        self._bot_pid: dict[str, str] = {}
        self._by_token: dict[str, str] = {}
        self._idle_since: dict[str, float] = {}
        self._lobby_dirty = False
        self._lobby_pushed = 0.0
        #: Moves on each time the lobby's changes are pushed (a cluster's bus rewrites it then).
        self.lobby_version = 0
        self._full_sweep = 0.0
        #: Rooms whose clock may run: looked at on every sweep, the rest once per full sweep.
        self._timed: set[str] = set()
        self._journal = Journal(enabled=durable)
        #: The longest frame read as a ``hello`` (its ``games`` list is bounded too).
        self._hello_bytes = HELLO_BYTES + HELLO_GAME_BYTES * self.limits.max_hello_games
        #: History lookups in flight in all (bounded by ``max_lookups``).
        self.lookups = 0
        self._limit_hits: dict[str, int] = {}
        self._limit_logged: dict[str, float] = {}
        #: Who created each live room (for the ``max_rooms_created`` quota).
        self._creator: dict[str, str] = {}
        #: Rooms in the order they were opened: ``rooms`` pages continue after a serial.
        self._serial: dict[str, int] = {}
        self._next_serial = 0
        #: Other cluster nodes' lobby lines by room, with their serials (server/cluster/bus.py).
        self._remote: dict[str, Message] = {}
        self._remote_serial: dict[str, int] = {}
        #: Where requests for rooms held by other cluster nodes go (server/cluster/forward.py).
        self.forward: Forwarder | None = None
        #: Players connected to other nodes with rooms here, and their node (a cluster's
        #: forwarder's): a bot among them is not seated here without its node's word.
        self.remote_members: Mapping[str, str] = {}
        #: Seats this node's bots were lent in other nodes' rooms, per bot (their capacity).
        self.lent: dict[str, int] = {}
        #: Bots connected to other nodes, seated in rooms here (server/cluster/bots.py).
        self.bot_seats: BotSeats | None = None
        #: During :meth:`create_held`: the players of the bots other nodes lent seats of.
        self._granted: dict[str, Player] = {}
        #: Whether the players table is shared by cluster nodes: a session unknown here is
        #: looked up there (``Resolve``) before it is refused.
        self.shared_sessions = False
        #: Offline players who may be pruned, oldest first, with when they went offline.
        self._offline: dict[str, float] = {}
        #: Spectators not saved yet: written together on the next full sweep, off the replies'
        #: path (nothing sent depends on a spectator's row; it only lets the session resume).
        self._unsaved_watchers: dict[str, Player] = {}
        self._handlers: dict[str, Callable[[Player, Message], list[Out]]] = {
            "ping": self._ping,
            "list_rooms": self._list_rooms,
            "create_room": self._create_room,
            "join_room": self._join_room,
            "leave_room": self._leave_room,
            "move": self._move,
            "resign": self._resign,
            "rematch": self._rematch,
            "chat": self._chat,
            "list_games": self._list_games,
            "get_game": self._get_game,
            "list_bots": self._list_bots,
            "choose": self._choose,
        }

    # -- connection life ---------------------------------------------------------------------

    def connect(self) -> Conn:
        """A new connection, before its ``hello``."""
        lim = self.limits
        return Conn(TokenBucket(lim.human_rate, lim.human_burst))

    def receive(self, conn: Conn, frame: bytes | str) -> list[Out]:
        """Handle one frame: the one place where errors become ``error`` replies.

        The rate bucket is charged before the frame is even decoded, so garbage costs tokens
        too; a connection that keeps sending frames that do not decode is closed.
        """
        request_id: int | None = None
        now = self.clock()
        try:
            if not conn.bucket.allow(now):
                request_id = peek_id(frame)
                self.note_limit(conn, "rate_limited", now)
                raise RateLimited("too many messages; slow down")
            try:
                if conn.pid is None and len(frame) > self._hello_bytes:
                    raise BadMessage("a hello is shorter than that; say hello first")
                message = wire.decode(frame)
            except (BadFrame, BadMessage):
                conn.bad_frames += 1
                if conn.bad_frames >= self.limits.max_bad_frames:
                    self.note_limit(conn, "bad_frames", now)
                    return [Close(CloseCode.POLICY, "too many bad frames")]
                raise
            request_id = message.get("id")
            kind = message["type"]
            if kind == "move" and conn.pid is not None and wire.plain_move(message):
                player = self.players[conn.pid]  # the common request, directly, when it is ours
                out = (
                    self._move(player, message)
                    if self.forward is None
                    else self._dispatch(player, message)
                )
            elif conn.pid is None and (kind != "hello" or conn.hello is not None):
                raise NotHello("say hello first, and wait for the welcome")
            elif conn.pid is None:
                out = self._hello(conn, wire.validate(message))
            else:
                wire.validate(message)
                player = self.players[conn.pid]
                if kind in LOOKUPS:
                    self._check_lookups(conn, now)
                    out = self._dispatch(player, message)
                    conn.lookups += 1
                    self.lookups += 1
                else:
                    out = self._dispatch(player, message)
        except ArenaError as exc:
            return [Reply(wire.error(exc.code, exc.message, request_id))]
        except Exception:
            log.exception("handler failed on a %s frame", type(frame).__name__)
            return [_internal_error(request_id)]
        return self._address(conn.pid, out, request_id)

    def session_resolved(
        self, conn: Conn, row: PlayerRow | None, failed: bool = False
    ) -> list[Out]:
        """The shared store's answer to ``conn``'s ``Resolve``: the player ``row`` (None: nobody
        has that session) is loaded here and the waiting ``hello`` completes as a resume."""
        msg = conn.hello
        self.drop_hello(conn)
        if msg is None or conn.pid is not None:
            return []
        request_id = msg.get("id")
        if failed:
            return [_internal_error(request_id)]
        if row is not None and row.token_hash not in self._by_token:
            self._load_player(row)
        if row is not None and row.kind == "bot":  # one identity per bot in the cluster
            self._bot_pid.setdefault(row.name, row.pid)
        try:
            out = self._hello(conn, msg, resolved=True)
        except ArenaError as exc:
            return [Reply(wire.error(exc.code, exc.message, request_id))]
        except Exception:
            log.exception("handler failed on a resolved hello")
            return [_internal_error(request_id)]
        return self._address(conn.pid, out, request_id)

    def drop_hello(self, conn: Conn) -> None:
        """``conn``'s session lookup is over (answered, or its connection left)."""
        if conn.hello is not None:
            conn.hello = None
            self.lookup_done(conn)

    def _load_player(self, row: PlayerRow) -> None:
        """A player another node saved, resuming here: never pruned (nor deleted) from here, as
        it may sit in other nodes' rooms (as :meth:`attach_remote`'s players)."""
        player = self.players.get(row.pid)
        if player is None:
            player = self.players[row.pid] = Player(
                row.pid, row.name, row.kind, row.token_hash, saved=True
            )
        else:  # a remote member here (no token known), or one whose token changed meanwhile
            self._by_token.pop(player.token_hash, None)
            player.token_hash = row.token_hash
        player.played = True
        self._by_token[row.token_hash] = row.pid

    def _check_lookups(self, conn: Conn, now: float) -> None:
        """Refuse a history lookup past the in-flight bounds (per connection and in all)."""
        lim = self.limits
        if conn.lookups >= lim.max_lookups_per_connection or self.lookups >= lim.max_lookups:
            self.note_limit(conn, "lookups", now)
            raise RateLimited("too many history requests in flight; wait for the replies")
        if not conn.bucket.allow(now, lim.lookup_cost):
            self.note_limit(conn, "rate_limited", now)
            raise RateLimited("too many history requests; slow down")

    def lookup_done(self, conn: Conn) -> None:
        """A history lookup of ``conn`` was answered (or dropped): it no longer counts."""
        conn.lookups -= 1
        self.lookups -= 1

    def note_limit(self, conn: Conn | None, what: str, now: float) -> None:
        """Log a limit that bit: at most once a minute per connection, and per limit (with a
        count), so an attack cannot flood the log either."""
        if conn is not None:
            if now - conn.logged_limit_at < LIMIT_LOG_INTERVAL:
                return
            conn.logged_limit_at = now
        self._limit_hits[what] = self._limit_hits.get(what, 0) + 1
        if now - self._limit_logged.get(what, -math.inf) < LIMIT_LOG_INTERVAL:
            return
        who = conn.pid if conn is not None and conn.pid else "a connection"
        hits = self._limit_hits.pop(what)
        log.warning("limit %s hit by %s (%d times in the last minute)", what, who, hits)
        self._limit_logged[what] = now

    def disconnect(self, conn: Conn) -> list[Out]:
        """The connection closed: its player goes offline but keeps every seat for the grace."""
        player = self.players.get(conn.pid) if conn.pid else None
        if player is None:
            return []
        player.online = False
        player.subscribed = False
        now = self.clock()
        player.offline_at = now
        if not player.played:
            self._offline[player.pid] = now
        if player.kind == "bot":
            log.info("bot %s (%s) left", player.name, player.pid)
        if self.forward is not None:
            self.forward.offline(player)
        out: list[Out] = []
        for room in self._rooms_of(player):
            if room.seat_of(player.pid) is None:  # a dropped spectator leaves: no dead weight
                room.drop_spectator(player.pid)
                player.rooms.discard(room.id)
                self._lobby_dirty = True
            else:
                out += room.set_online(player.pid, False, now)
        return out

    def sweep(self) -> list[Out]:
        """Periodic work: forfeit seats whose grace ran out, drop idle rooms, push the lobby."""
        now = self.clock()
        out: list[Out] = []
        if now - self._full_sweep >= self.limits.full_sweep_interval:
            self._full_sweep = now
            rooms = list(self.rooms)
            self._prune_players(now)
            self._save_watchers()
        else:  # between full sweeps only running clocks need a look (timeouts to the 50 ms)
            rooms = [r for rid in list(self._timed) if (r := self.rooms.get(rid)) is not None]
        bot_move_timeout = self.limits.bot_move_timeout
        for room in rooms:
            status = room.status
            if status == "over" or room.clock is None:
                self._timed.discard(room.id)
            if status == "playing":  # nothing expires in a room that is not playing
                expired = room.expire(bot_move_timeout) + self._expire_seats(room, now)
                if expired:
                    self._journal.touch(room)
                    self._lobby_dirty = True
                    out += expired
                    status = room.status
            if status != "playing" and room.is_empty():
                since = self._idle_since.setdefault(room.id, now)
                if now - since >= self.limits.room_linger:
                    self._drop(room)
            else:
                self._idle_since.pop(room.id, None)
        if self._lobby_dirty and now - self._lobby_pushed >= self.limits.lobby_push_interval:
            self._lobby_dirty = False
            self._lobby_pushed = now
            self.lobby_version += 1
            watchers = tuple(p.pid for p in self.players.values() if p.subscribed and p.online)
            if watchers:
                out.append(Send(watchers, self._rooms_message()))
        return out

    def _prune_players(self, now: float) -> None:
        """Forget players offline past ``player_ttl`` with no room and no game in the history."""
        ttl = self.limits.player_ttl
        offline = self._offline
        while offline:
            pid, since = next(iter(offline.items()))
            if now - since < ttl:
                return
            del offline[pid]
            player = self.players.get(pid)
            if player is None or player.online or player.played:
                continue
            if player.rooms or player.created:
                offline[pid] = now  # look again later, when its rooms are gone
                continue
            del self.players[pid]
            self._by_token.pop(player.token_hash, None)
            self._unsaved_watchers.pop(pid, None)
            if player.saved:
                self._journal.player_gone(pid)

    def _save_watchers(self) -> None:
        """Write the rows of spectators still unsaved, all in the sweep's one commit."""
        watchers, self._unsaved_watchers = self._unsaved_watchers, {}
        for player in watchers.values():
            if not player.saved and self.players.get(player.pid) is player:
                self._save_player(player)

    def restore(self, snapshot: Snapshot) -> None:
        """Take back players and live rooms from the store after a restart; everyone is offline.

        Seated players' reconnect grace starts now, and no clock is charged for the downtime.
        A cluster node adopting a lapsed node's rooms restores them the same way: players it
        knows already are kept as they are.
        """
        now = self.clock()
        for row in sorted(snapshot.players, key=lambda r: r.created_at):
            if row.pid in self.players:
                continue
            player = Player(row.pid, row.name, row.kind, row.token_hash, saved=True)
            self.players[row.pid] = player
            self._by_token[row.token_hash] = row.pid
            player.played = row.pid in snapshot.played
            if not player.played:
                self._offline[row.pid] = now
            if row.kind == "bot":  # the newest player of a bot's name, unless one is connected
                current = self.players.get(self._bot_pid.get(row.name, ""))
                if current is None or not current.online:
                    self._bot_pid[row.name] = row.pid
        for room_row, game, moves in snapshot.rooms:
            room = restore_room(room_row, game, moves, self.clock, snapshot.alive_at)
            self._add_room(room)
            self._journal.adopt(room)
            if room.clock is not None and room.status != "over":
                self._timed.add(room.id)
            for member in room.seats:
                if member is not None and member.pid in self.players and room.status != "over":
                    self.players[member.pid].rooms.add(room.id)
                    if not self.players[member.pid].online:
                        room.offline_since[member.pid] = now
        self._lobby_dirty = True

    def set_remote_rooms(self, lines: dict[str, Message]) -> None:
        """The lobby lines of the rooms other cluster nodes own, listed after this node's."""
        if lines == self._remote:
            return
        serials = self._remote_serial
        for room_id in [r for r in serials if r not in lines]:
            del serials[room_id]
        for room_id in lines:
            if room_id not in serials:
                self._next_serial += 1
                serials[room_id] = self._next_serial
        self._remote = lines
        self._lobby_dirty = True

    def welcome_back(self, room_ids: Iterable[str]) -> list[Out]:
        """Players online here seated in rooms just adopted (from a lapsed cluster node) are
        online in them again, and get their state: their requests are no longer forwarded."""
        out: list[Out] = []
        for room in filter(None, map(self.rooms.get, room_ids)):
            for member in room.seats:
                player = self.players.get(member.pid) if member is not None else None
                if player is not None and player.online and player.pid not in room.online:
                    out += room.set_online(player.pid, True)
                    out.append(Send((player.pid,), room.state_for(player.pid)))
        return out

    def attach_remote(self, pid: str, name: str, kind: str, resend: bool = False) -> list[Out]:
        """A player connected to another cluster node asks about a room here: it is online
        here, and gets the state of each room it holds here (as a ``hello`` would give), also
        when it was online already but ``resend`` (it came through another node)."""
        player = self.players.get(pid)
        if player is None:  # its own node saves it (and knows its token): never journaled here
            player = self.players[pid] = Player(pid, name, kind, token_hash="", saved=True)
        player.played = True  # its node prunes it, if any does: never deleted from here
        was_online = player.online
        if was_online and not resend:
            return []
        player.online = True
        player.offline_at = None
        self._offline.pop(pid, None)
        out: list[Out] = []
        for room in self._rooms_of(player):
            if not was_online:
                out += room.set_online(pid, True)
            out.append(Send((pid,), room.state_for(pid)))
        return out

    def revoked_bots(self) -> list[str]:
        """Online bots whose key was revoked or replaced since their ``hello``: to cut off."""
        bots = [self.players.get(pid) for pid in self._bot_pid.values()]
        return [
            p.pid
            for p in bots
            if p is not None
            and p.online
            and (p.key_hash is None or not self.keys.holds(p.name, p.key_hash))
        ]

    def drain(self) -> list[Record]:
        """The durable records produced since the last call, to commit before sending outputs."""
        return self._journal.drain()

    def shutdown(self) -> list[Out]:
        """Tell every room the server is going away (its games resume after a restart)."""
        note = {"type": "server_shutdown", "message": "the server is shutting down"}
        online = tuple(p.pid for p in self.players.values() if p.online)
        return [Send(online, note)] if online else []

    # -- hello -------------------------------------------------------------------------------

    def _hello(self, conn: Conn, msg: Message, resolved: bool = False) -> list[Out]:
        if msg["type"] != "hello":
            raise NotHello("say hello first")
        if msg["protocol"] != wire.PROTOCOL_VERSION:
            raise UnsupportedProtocol(f"this server speaks protocol {wire.PROTOCOL_VERSION}")
        name = clean_name(msg["name"])
        if len(msg.get("games") or ()) > self.limits.max_hello_games:
            raise BadMessage(f"games lists at most {self.limits.max_hello_games} games")
        session = msg.get("session")
        if msg["kind"] == "bot":
            owner = self._bot_owner(msg)
            if self.shared_sessions and not resolved and owner not in self._bot_pid:
                return self._resolve(conn, msg, Resolve("", bot=owner))  # known elsewhere?
            player, token = self._bot_hello(msg, owner)
        elif self._must_resolve(session, resolved):
            return self._resolve(conn, msg, Resolve(hash_token(session)))
        else:
            player, token = self._human_hello(name, session)
        pid, name = player.pid, player.name
        if player.kind == "bot":
            games = msg.get("games") or []
            # only names this server knows are kept: what a bot lists cannot grow its record
            player.games = frozenset(g for g in games if isinstance(g, str) and g in GAME_NAMES)
            capacity = msg.get("capacity", 1)
            player.capacity = max(1, min(capacity, 256))
            level = msg.get("level")
            if level is not None and not 0 <= level <= 10:
                raise BadMessage("level must be 0..10")
            player.level = level
            lim = self.limits
            conn.bucket = TokenBucket(lim.bot_rate, lim.bot_burst)
        conn.pid = pid
        player.online = True
        player.offline_at = None
        self._offline.pop(pid, None)
        if player.kind == "bot":
            log.info("bot %s (%s) joined, capacity %d", name, pid, player.capacity)
        welcome = {"type": "welcome", "protocol": wire.PROTOCOL_VERSION, "player": pid}
        welcome |= {"session": token, "name": name}
        out: list[Out] = [Reply(welcome)]
        for room in self._rooms_of(player):
            out += room.set_online(pid, True)
            out.append(Reply(room.state_for(pid)))
        return out

    def _must_resolve(self, session: str | None, resolved: bool) -> bool:
        """Whether a human's session is unknown here but may be known to the shared store."""
        if not self.shared_sessions or resolved or session is None:
            return False
        return hash_token(session) not in self._by_token

    def _resolve(self, conn: Conn, msg: Message, item: Resolve) -> list[Out]:
        """Park ``msg`` on ``conn`` while the store looks ``item`` up (bounded in all)."""
        if self.lookups >= self.limits.max_lookups:
            self.note_limit(conn, "lookups", self.clock())
            raise RateLimited("the server is busy; say hello again in a moment")
        conn.hello = msg
        conn.lookups += 1
        self.lookups += 1
        return [item]

    def _human_hello(self, name: str, token: str | None) -> tuple[Player, str]:
        """A new human, or the one ``token`` resumes (renamed to ``name``)."""
        if self.keys.owns(name):
            raise BadMessage(f"the name {name!r} belongs to a bot; choose another")
        if token is None:
            token = secrets.token_urlsafe(24)
            player = Player("p_" + secrets.token_hex(6), name, "human", hash_token(token))
            self._add_player(player)
            return player, token
        pid = self._by_token.get(hash_token(token))
        if pid is None:
            raise BadSession("unknown session; say hello without one to start anew")
        player = self.players[pid]
        if player.kind == "bot":
            raise BadKey("this session is a bot's: it resumes only with the bot's key")
        if player.name != name:
            player.name = name
            if player.saved:  # else the new name is written with the row, when it is
                self._save_player(player)
        return player, token

    # -- requests ----------------------------------------------------------------------------

    def _dispatch(self, player: Player, msg: Message) -> list[Out]:
        kind = msg["type"]
        if kind == "hello":
            raise BadMessage("already said hello")
        if self.forward is not None and "room" in msg and self.rooms.get(msg["room"]) is None:
            self._keep(player)  # seated or watching there: its row (and token) is saved here
            return self.forward.request(player, msg)  # another node's room (or none at all)
        return self._handlers[kind](player, msg)

    def _ping(self, player: Player, msg: Message) -> list[Out]:
        return [Reply({"type": "pong"})]

    def _list_rooms(self, player: Player, msg: Message) -> list[Out]:
        if "subscribe" in msg:
            player.subscribed = msg["subscribe"]
        return [Reply(self._rooms_message(msg.get("limit"), msg.get("cursor")))]

    def _create_room(self, player: Player, msg: Message) -> list[Out]:
        options = msg.get("options") or {}
        variant = make_variant(msg["game"], options)
        level = msg.get("level")
        if level is not None and not 1 <= level <= 10:
            raise UnknownGame("level must be 1..10")
        clock = ClockSpec.parse(msg["clock"]) if msg.get("clock") is not None else None
        room_options: dict[str, Any] = {"opponent": msg.get("opponent", "human")}
        kept = ("opening", "max_moves", "position", "opening_rule")
        room_options |= {k: options[k] for k in kept if k in options}
        named = msg.get("bots")
        if "position" in options and (named is not None or room_options["opponent"] == "bot"):
            raise UnknownGame("set-up positions are for games between humans (bots see moves only)")
        if named is None:
            self._check_quota(player, bot=room_options["opponent"] == "bot" or "bot" in msg)
        try:
            if named is not None:
                bots = self._named_bots(named, variant.name, player)
                room_options |= {"opponent": "bot", "bots": [b.name for b in bots]}
            elif msg.get("bot") is not None:  # a human picked the bot by name
                bots = [self._free_bot_named(msg["bot"], variant.name, player)]
                room_options["opponent"] = "bot"
                level = bots[0].level if bots[0].level is not None else level or 5
                level = level or None  # a bot that plays no level shows none
            elif room_options["opponent"] == "bot":
                level = level or 5
                bots = [self._idle_bot(variant.name, level, player)]
            else:
                bots = []
        except Elsewhere as away:  # seats of bots on other nodes: made once they are lent
            self._check_created(player)
            if self.bot_seats is None or self._granted:
                raise NoBotAvailable("the bots named are not free right now") from None
            return self.bot_seats.hold(player, msg, away.names, variant.name)
        if level is not None and bots:
            room_options["level"] = level
        self._check_created(player)
        room = Room(self.rooms.new_id(), variant, room_options, clock, now=self.clock)
        self._keep(player)  # its creator owns a live room: written before the room is
        self._add_room(room)
        player.created.add(room.id)
        self._creator[room.id] = player.pid
        log.info("room %s created by %s (%s): %s", room.id, player.name, player.pid, variant.name)
        if clock is not None:
            self._timed.add(room.id)
        if named is not None:  # a director's room: it watches, the two named bots play
            out = self._seat(player, room, spectate=True)
            for seat, bot in enumerate(bots):
                out += self._seat_bot(bot, room, seat, level)
            return out
        seat = msg.get("seat")
        if seat is None:
            seat = secrets.randbelow(2)
        out = self._seat(player, room, seat=seat)
        if bots:
            out += self._seat_bot(bots[0], room, 1 - seat, level)
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
        self._granted = granted
        try:
            out = self._create_room(player, msg)
        except ArenaError as exc:
            out = [Reply(wire.error(exc.code, exc.message, None))]
        finally:
            self._granted = {}
        made = next(iter(player.created - before), None)
        return self._address(pid, out, msg.get("id")), made

    def _check_created(self, player: Player) -> None:
        """Refuse a new room past the rooms ``player`` created and holds."""
        if len(player.created) >= self.limits.max_rooms_created:
            self.note_limit(None, "max_rooms_created", self.clock())
            raise TooManyRooms("you created too many rooms that are still open; leave some")
        self._check_held(player)

    def _check_quota(self, player: Player, *, bot: bool) -> None:
        """Refuse a new seat past the per-player limits, so nobody can hog rooms or bots."""
        seated = [r for r in self._rooms_of(player) if r.seat_of(player.pid) is not None]
        if sum(r.status == "waiting" for r in seated) >= self.limits.max_waiting_rooms:
            raise TooManyRooms("you already have the most rooms waiting for an opponent")
        if bot:
            bot_games = [
                r for r in seated if r.status == "playing" and r.options.get("opponent") == "bot"
            ]
            if len(bot_games) >= self.limits.max_bot_games:
                raise TooManyRooms("finish or leave a game against a bot first")

    def _check_held(self, player: Player) -> None:
        """Refuse one more room (seat or spectator place) past ``max_rooms_per_player``."""
        if len(player.rooms) >= self.limits.max_rooms_per_player:
            self.note_limit(None, "max_rooms_per_player", self.clock())
            raise TooManyRooms("you are in too many rooms; leave one first")

    def _join_room(self, player: Player, msg: Message) -> list[Out]:
        room = self._room(msg["room"])
        return self._seat(player, room, spectate=msg.get("spectate", False))

    def _leave_room(self, player: Player, msg: Message) -> list[Out]:
        room = self._room(msg["room"])
        out: list[Out] = list(room.leave(player.pid))
        player.rooms.discard(room.id)
        self._lobby_dirty = True
        if room.status != "playing" and room.is_empty():
            self._drop(room)  # nobody is left to come back to it: it goes at once
        return out

    def _move(self, player: Player, msg: Message) -> list[Out]:
        room = self._room(msg["room"], touch=False)
        try:
            sends = room.move(player.pid, msg["x"], msg["y"], msg.get("ply"))
        except BaseException:
            self._journal.touch(room)  # refused: look at the room whole, as any other request
            raise
        self._journal.moved(room)  # the common case: one move row, no header check
        if room.game.over:
            self._lobby_dirty = True
        return sends  # type: ignore[return-value]  # a list of Sends is a list of Outs, uncopied

    def _resign(self, player: Player, msg: Message) -> list[Out]:
        fault = msg.get("fault")
        if fault is not None and player.kind != "bot":
            raise BadMessage("only a bot reports an engine fault; resign without one")
        self._lobby_dirty = True
        return list(self._room(msg["room"]).resign(player.pid, fault))

    def _rematch(self, player: Player, msg: Message) -> list[Out]:
        self._lobby_dirty = True
        room = self._room(msg["room"])
        out = list(room.ask_rematch(player.pid))
        if room.clock is not None and room.status == "playing":
            self._timed.add(room.id)  # the new game's clock needs the fast check again
        return out

    def _choose(self, player: Player, msg: Message) -> list[Out]:
        return list(self._room(msg["room"]).choose(player.pid, msg["choice"]))

    def _chat(self, player: Player, msg: Message) -> list[Out]:
        return list(self._room(msg["room"]).chat(player.pid, msg["text"]))

    def _list_games(self, player: Player, msg: Message) -> list[Out]:
        before = msg.get("before")
        if before is not None and not (math.isfinite(before) and abs(before) < 1e12):
            raise BadMessage("before must be a time in seconds (an ended_at from a page)")
        params = {"player": msg.get("player"), "before": None if before is None else float(before)}
        params["before_id"] = msg.get("before_id")
        params["limit"] = msg.get("limit", 20)
        return [Lookup("list_games", params, msg.get("id"))]

    def _get_game(self, player: Player, msg: Message) -> list[Out]:
        params = {"game_id": msg["game_id"], "fmt": msg.get("format", "json")}
        return [Lookup("get_game", params, msg.get("id"))]

    # -- helpers -----------------------------------------------------------------------------

    def _room(self, room_id: str, touch: bool = True) -> Room:
        room = self.rooms.get(room_id) if len(room_id) <= MAX_ROOM_ID else None
        if room is None:
            if room_id in self._remote:  # forwarding between nodes is not built
                raise NoSuchRoom(f"room {room_id!r} is on another node: connect to that node")
            raise NoSuchRoom(f"no room {room_id[:MAX_ROOM_ID]!r}")
        if touch:
            self._journal.touch(room)
        return room

    def _add_player(self, player: Player) -> None:
        """A new identity; a bot's row is written at once (keys bound how many there are), a
        human's only when it first matters (:meth:`_keep`)."""
        self.players[player.pid] = player
        self._by_token[player.token_hash] = player.pid
        if player.kind == "bot":
            self._save_player(player)

    def _save_player(self, p: Player) -> None:
        p.saved = True
        self._journal.player(p.pid, p.name, p.kind, p.token_hash, self.clock())

    def _keep(self, player: Player, *, watching: bool = False) -> None:
        """``player`` now matters after a restart: a seat or a created room needs its row in
        the same commit (a seat must resume after ``kill -9``); a spectator's can wait for the
        next full sweep."""
        if player.saved:
            return
        if watching:
            self._unsaved_watchers[player.pid] = player
        else:
            self._unsaved_watchers.pop(player.pid, None)
            self._save_player(player)

    def _rooms_of(self, player: Player) -> list[Room]:
        rooms = [self.rooms.get(r) for r in sorted(player.rooms)]
        return [r for r in rooms if r is not None]

    def _rooms_message(self, limit: object = None, cursor: object = None) -> Message:
        """A page of the lobby, oldest rooms first (``next`` continues it)."""
        size = page_size(limit, self.limits.max_page)
        serials = self._serial
        items: Iterable[tuple[int, Any]] = ((serials.get(room.id, 0), room) for room in self.rooms)
        if self._remote:  # a cluster node: the other nodes' rooms too, in one order
            here, lines = self.rooms, self._remote
            there = ((s, lines[r]) for r, s in self._remote_serial.items() if here.get(r) is None)
            items = heapq.merge(items, there, key=lambda item: item[0])
        rooms, after = page(items, room_cursor(cursor), size, _lobby_line)
        return {"type": "rooms", "rooms": rooms, "next": after}

    def _add_room(self, room: Room) -> None:
        self.rooms.add(room)
        self._next_serial += 1
        self._serial[room.id] = self._next_serial

    def _seat(
        self, player: Player, room: Room, *, seat: int | None = None, spectate: bool = False
    ) -> list[Out]:
        if room.id not in player.rooms:
            self._check_held(player)
        sends = room.join(player.member(), spectate=spectate, seat=seat)
        self._keep(player, watching=room.seat_of(player.pid) is None)
        self._journal.touch(room)
        player.rooms.add(room.id)
        self._mark_played(room)
        self._lobby_dirty = True
        return list(sends)

    def _mark_played(self, room: Room) -> None:
        """Once a game starts, its players have history: they are never pruned."""
        if room.started:
            for member in room.seats:
                player = self.players.get(member.pid) if member is not None else None
                if player is not None:
                    player.played = True

    def _expire_seats(self, room: Room, now: float) -> list[Out]:
        if room.status != "playing" or not room.offline_since:
            return []
        grace = self.limits.reconnect_grace
        gone = [
            seat
            for seat, m in enumerate(room.seats)
            if m is not None and now - room.offline_since.get(m.pid, now) >= grace
        ]
        if not gone:
            return []
        if len(gone) == 2:
            return list(room.end(Termination.ABANDONED, None))
        return list(room.end(Termination.DISCONNECT, 1 - gone[0]))

    def _drop(self, room: Room) -> None:
        self._journal.drop(room)
        self.rooms.remove(room.id)
        self._serial.pop(room.id, None)
        creator = self.players.get(self._creator.pop(room.id, ""))
        if creator is not None:
            creator.created.discard(room.id)
        self._idle_since.pop(room.id, None)
        self._timed.discard(room.id)
        for pid in room.members:
            player = self.players.get(pid)
            if player is not None:
                player.rooms.discard(room.id)
        self._lobby_dirty = True

    def _address(self, pid: str | None, out: list[Out], request_id: int | None) -> list[Out]:
        """Turn the room's ``reply`` sends into a reply with the request's id plus a broadcast."""
        if request_id is None:  # nothing to echo: the requester's copy can share the broadcast
            return out
        result: list[Out] = []
        for item in out:
            if isinstance(item, Send) and item.reply and pid is not None:
                others = tuple(p for p in item.to if p != pid)
                if pid in item.to:
                    result.append(Reply(item.message))
                if others:
                    result.append(Send(others, item.message))
            else:
                result.append(item)
        for i, item in enumerate(result):
            if isinstance(item, Reply):
                result[i] = Reply({**item.message, "id": request_id})
                break
        return result


def _lobby_line(item: Room | Message) -> Message:
    """A room's lobby line: a room here renders its own, another node's comes rendered."""
    return item.summary() if isinstance(item, Room) else item


def _internal_error(request_id: int | None) -> Reply:
    """What a client gets when the server failed on its request (nothing internal leaks)."""
    exc = InternalError("the server failed on this request")
    return Reply(wire.error(exc.code, exc.message, request_id))
