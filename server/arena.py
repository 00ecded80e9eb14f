"""The lobby as a sans-I/O core: frames in per connection, replies and broadcasts out.

Every error a peer can cause is an :class:`ArenaError` raised somewhere below and turned into an
``error`` reply in exactly one place, :meth:`Arena.receive`. Nothing here awaits or touches a
socket; the asyncio shell in ``server.shell`` delivers what this returns.
"""

from __future__ import annotations

import hashlib
import logging
import math
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from protocol import wire
from protocol.errors import (
    ArenaError,
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
from protocol.wire import MAX_NAME, MAX_ROOM_ID, Message
from server.clock import ClockSpec
from server.journal import Record, Snapshot
from server.ratelimit import TokenBucket
from server.recovery import Journal, restore_room
from server.registry import MemoryRegistry, RoomRegistry
from server.room import Member, Room, Send

log = logging.getLogger("mnk.arena")


@dataclass(frozen=True, slots=True)
class Reply:
    """A message for the connection whose request is being handled."""

    message: Message


@dataclass(frozen=True, slots=True)
class Lookup:
    """A history query for the store, answered off the event loop as a reply with ``id``."""

    query: str
    params: dict[str, Any]
    request_id: int | None


Out = Reply | Send | Lookup


@dataclass(frozen=True, slots=True)
class Limits:
    """Tunable policy: rate limits per kind of peer, and how long rooms and seats are kept."""

    human_rate: float = 20.0
    human_burst: float = 40.0
    #: Bots play many fast games on one connection: a tournament bot sends hundreds a second.
    bot_rate: float = 2000.0
    bot_burst: float = 4000.0
    reconnect_grace: float = 60.0
    bot_move_timeout: float = 60.0
    room_linger: float = 30.0
    lobby_push_interval: float = 0.25
    #: One player may keep this many rooms waiting for an opponent, and play this many bots.
    max_waiting_rooms: int = 5
    max_bot_games: int = 4
    #: How often every room is checked (grace, idle rooms, bots sitting on a move).
    full_sweep_interval: float = 1.0


@dataclass(slots=True)
class Player:
    """An identity: seats belong to it, not to a socket, and its session token resumes it."""

    pid: str
    name: str
    kind: str
    token_hash: str
    online: bool = False
    rooms: set[str] = field(default_factory=set)
    subscribed: bool = False
    games: frozenset[str] = frozenset()
    capacity: int = 0
    #: A bot's level: None plays whatever level a room asks, 1-10 only that level, 0 none (it
    #: is seated only in rooms that name it).
    level: int | None = None

    def member(self) -> Member:
        """How this player appears in a room."""
        return Member(self.pid, self.name, self.kind)


@dataclass(slots=True)
class Conn:
    """What the core knows of one connection: who said hello on it and its rate bucket."""

    bucket: TokenBucket
    pid: str | None = None


def hash_token(token: str) -> str:
    """Session tokens are stored hashed, so a leaked player table resumes nobody."""
    return hashlib.sha256(token.encode()).hexdigest()


class Arena:
    """Players, rooms and the lobby, driven by ``receive``, ``disconnect`` and ``sweep``."""

    def __init__(
        self,
        registry: RoomRegistry | None = None,
        limits: Limits | None = None,
        clock: Callable[[], float] | None = None,
        durable: bool = True,
    ) -> None:
        self.rooms: RoomRegistry = registry if registry is not None else MemoryRegistry()
        self.limits = limits or Limits()
        #: Wall-clock seconds: timestamps are stored and must mean the same after a restart.
        self.clock = clock or time.time
        self.players: dict[str, Player] = {}
        self._by_token: dict[str, str] = {}
        self._idle_since: dict[str, float] = {}
        self._lobby_dirty = False
        self._lobby_pushed = 0.0
        self._full_sweep = 0.0
        #: Rooms whose clock may run: looked at on every sweep, the rest once per full sweep.
        self._timed: set[str] = set()
        self._journal = Journal(enabled=durable)
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
        }

    # -- connection life ---------------------------------------------------------------------

    def connect(self) -> Conn:
        """A new connection, before its ``hello``."""
        lim = self.limits
        return Conn(TokenBucket(lim.human_rate, lim.human_burst))

    def receive(self, conn: Conn, frame: bytes | str) -> list[Out]:
        """Handle one frame: the one place where errors become ``error`` replies."""
        request_id: int | None = None
        try:
            message = wire.decode(frame)
            request_id = message.get("id")
            if not conn.bucket.allow(self.clock()):
                raise RateLimited("too many messages; slow down")
            if conn.pid is None and message["type"] != "hello":
                raise NotHello("say hello first")
            wire.validate(message)
            if conn.pid is None:
                out = self._hello(conn, message)
            else:
                out = self._dispatch(self.players[conn.pid], message)
        except ArenaError as exc:
            return [Reply(wire.error(exc.code, exc.message, request_id))]
        except Exception:
            log.exception("handler failed on a %s frame", type(frame).__name__)
            exc = InternalError("the server failed on this request")
            return [Reply(wire.error(exc.code, exc.message, request_id))]
        return self._address(conn.pid, out, request_id)

    def disconnect(self, conn: Conn) -> list[Out]:
        """The connection closed: its player goes offline but keeps every seat for the grace."""
        player = self.players.get(conn.pid) if conn.pid else None
        if player is None:
            return []
        player.online = False
        player.subscribed = False
        now = self.clock()
        out: list[Out] = []
        for room in self._rooms_of(player):
            out += room.set_online(player.pid, False, now)
        return out

    def sweep(self) -> list[Out]:
        """Periodic work: forfeit seats whose grace ran out, drop idle rooms, push the lobby."""
        now = self.clock()
        out: list[Out] = []
        if now - self._full_sweep >= self.limits.full_sweep_interval:
            self._full_sweep = now
            rooms = list(self.rooms)
        else:  # between full sweeps only running clocks need a look (timeouts to the 50 ms)
            rooms = [r for rid in list(self._timed) if (r := self.rooms.get(rid)) is not None]
        for room in rooms:
            if room.status == "over" or room.clock is None:
                self._timed.discard(room.id)
            expired = room.expire(self.limits.bot_move_timeout) + self._expire_seats(room, now)
            if expired:
                self._journal.touch(room)
                self._lobby_dirty = True
                out += expired
            if room.status != "playing" and room.is_empty():
                since = self._idle_since.setdefault(room.id, now)
                if now - since >= self.limits.room_linger:
                    self._drop(room)
            else:
                self._idle_since.pop(room.id, None)
        if self._lobby_dirty and now - self._lobby_pushed >= self.limits.lobby_push_interval:
            self._lobby_dirty = False
            self._lobby_pushed = now
            watchers = tuple(p.pid for p in self.players.values() if p.subscribed and p.online)
            if watchers:
                out.append(Send(watchers, self._rooms_message()))
        return out

    def restore(self, snapshot: Snapshot) -> None:
        """Take back players and live rooms from the store after a restart; everyone is offline.

        Seated players' reconnect grace starts now, and no clock is charged for the downtime.
        """
        now = self.clock()
        for row in snapshot.players:
            player = Player(row.pid, row.name, row.kind, row.token_hash)
            self.players[row.pid] = player
            self._by_token[row.token_hash] = row.pid
        for room_row, game, moves in snapshot.rooms:
            room = restore_room(room_row, game, moves, self.clock, snapshot.alive_at)
            self.rooms.add(room)
            self._journal.adopt(room)
            if room.clock is not None and room.status != "over":
                self._timed.add(room.id)
            for member in room.seats:
                if member is not None and member.pid in self.players and room.status != "over":
                    self.players[member.pid].rooms.add(room.id)
                    room.offline_since[member.pid] = now
        self._lobby_dirty = True

    def drain(self) -> list[Record]:
        """The durable records produced since the last call, to commit before sending outputs."""
        return self._journal.drain()

    def shutdown(self) -> list[Out]:
        """Tell every room the server is going away (its games resume after a restart)."""
        note = {"type": "server_shutdown", "message": "the server is shutting down"}
        online = tuple(p.pid for p in self.players.values() if p.online)
        return [Send(online, note)] if online else []

    # -- hello -------------------------------------------------------------------------------

    def _hello(self, conn: Conn, msg: Message) -> list[Out]:
        if msg["type"] != "hello":
            raise NotHello("say hello first")
        if msg["protocol"] != wire.PROTOCOL_VERSION:
            raise UnsupportedProtocol(f"this server speaks protocol {wire.PROTOCOL_VERSION}")
        name = " ".join(msg["name"].split())
        if not 1 <= len(name) <= MAX_NAME:
            raise BadMessage(f"name must be 1..{MAX_NAME} characters")
        token = msg.get("session")
        if token is not None:
            pid = self._by_token.get(hash_token(token))
            if pid is None:
                raise BadSession("unknown session; say hello without one to start anew")
            player = self.players[pid]
            if player.name != name:
                player.name = name
                self._save_player(player)
        else:
            token = secrets.token_urlsafe(24)
            pid = "p_" + secrets.token_hex(6)
            player = Player(pid, name, msg["kind"], hash_token(token))
            self._add_player(player)
        if player.kind == "bot":
            games = msg.get("games") or []
            player.games = frozenset(g for g in games if isinstance(g, str))
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
        welcome = {"type": "welcome", "protocol": wire.PROTOCOL_VERSION, "player": pid}
        welcome |= {"session": token, "name": name}
        out: list[Out] = [Reply(welcome)]
        for room in self._rooms_of(player):
            out += room.set_online(pid, True)
            out.append(Reply(room.state_for(pid)))
        return out

    # -- requests ----------------------------------------------------------------------------

    def _dispatch(self, player: Player, msg: Message) -> list[Out]:
        kind = msg["type"]
        if kind == "hello":
            raise BadMessage("already said hello")
        return self._handlers[kind](player, msg)

    def _ping(self, player: Player, msg: Message) -> list[Out]:
        return [Reply({"type": "pong"})]

    def _list_rooms(self, player: Player, msg: Message) -> list[Out]:
        if "subscribe" in msg:
            player.subscribed = msg["subscribe"]
        return [Reply(self._rooms_message())]

    def _create_room(self, player: Player, msg: Message) -> list[Out]:
        options = msg.get("options") or {}
        variant = make_variant(msg["game"], options)
        level = msg.get("level")
        if level is not None and not 1 <= level <= 10:
            raise UnknownGame("level must be 1..10")
        clock = ClockSpec.parse(msg["clock"]) if msg.get("clock") is not None else None
        room_options: dict[str, Any] = {"opponent": msg.get("opponent", "human")}
        room_options |= {k: options[k] for k in ("opening", "max_moves") if k in options}
        named = msg.get("bots")
        if named is None:
            self._check_quota(player, bot=room_options["opponent"] == "bot" or "bot" in msg)
        if named is not None:
            bots = self._named_bots(named, variant.name)
            room_options |= {"opponent": "bot", "bots": [b.name for b in bots]}
        elif msg.get("bot") is not None:  # a human picked the bot by name
            bots = [self._free_bot_named(msg["bot"], variant.name)]
            room_options["opponent"] = "bot"
            level = bots[0].level if bots[0].level is not None else level or 5
            level = level or None  # a bot that plays no level shows none
        elif room_options["opponent"] == "bot":
            level = level or 5
            bots = [self._idle_bot(variant.name, level)]
        else:
            bots = []
        if level is not None and bots:
            room_options["level"] = level
        room = Room(self.rooms.new_id(), variant, room_options, clock, now=self.clock)
        self.rooms.add(room)
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

    def _list_bots(self, player: Player, msg: Message) -> list[Out]:
        bots = [
            {
                "name": p.name,
                "player": p.pid,
                "games": sorted(p.games),
                "capacity": p.capacity,
                "active": self._active_games(p),
                "online": p.online,
                "level": p.level,
            }
            for p in self.players.values()
            if p.kind == "bot"
        ]
        return [Reply({"type": "bots", "bots": bots})]

    def _join_room(self, player: Player, msg: Message) -> list[Out]:
        room = self._room(msg["room"])
        return self._seat(player, room, spectate=msg.get("spectate", False))

    def _leave_room(self, player: Player, msg: Message) -> list[Out]:
        room = self._room(msg["room"])
        out: list[Out] = list(room.leave(player.pid))
        player.rooms.discard(room.id)
        self._lobby_dirty = True
        return out

    def _move(self, player: Player, msg: Message) -> list[Out]:
        room = self._room(msg["room"])
        out: list[Out] = list(room.move(player.pid, msg["x"], msg["y"], msg.get("ply")))
        if room.game.over:
            self._lobby_dirty = True
        return out

    def _resign(self, player: Player, msg: Message) -> list[Out]:
        self._lobby_dirty = True
        return list(self._room(msg["room"]).resign(player.pid, msg.get("fault")))

    def _rematch(self, player: Player, msg: Message) -> list[Out]:
        self._lobby_dirty = True
        room = self._room(msg["room"])
        out = list(room.ask_rematch(player.pid))
        if room.clock is not None and room.status == "playing":
            self._timed.add(room.id)  # the new game's clock needs the fast check again
        return out

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

    def _room(self, room_id: str) -> Room:
        room = self.rooms.get(room_id) if len(room_id) <= MAX_ROOM_ID else None
        if room is None:
            raise NoSuchRoom(f"no room {room_id[:MAX_ROOM_ID]!r}")
        self._journal.touch(room)
        return room

    def _add_player(self, player: Player) -> None:
        self.players[player.pid] = player
        self._by_token[player.token_hash] = player.pid
        self._save_player(player)

    def _save_player(self, p: Player) -> None:
        self._journal.player(p.pid, p.name, p.kind, p.token_hash, self.clock())

    def _rooms_of(self, player: Player) -> list[Room]:
        rooms = [self.rooms.get(r) for r in sorted(player.rooms)]
        return [r for r in rooms if r is not None]

    def _rooms_message(self) -> Message:
        return {"type": "rooms", "rooms": [room.summary() for room in self.rooms]}

    def _seat(
        self, player: Player, room: Room, *, seat: int | None = None, spectate: bool = False
    ) -> list[Out]:
        sends = room.join(player.member(), spectate=spectate, seat=seat)
        self._journal.touch(room)
        player.rooms.add(room.id)
        self._lobby_dirty = True
        return list(sends)

    def _named_bots(self, names: list[object], game: str) -> list[Player]:
        if len(names) != 2 or not all(isinstance(n, str) for n in names) or names[0] == names[1]:
            raise UnknownGame("bots must name two different bots")
        return [self._free_bot_named(name, game) for name in names]  # type: ignore[arg-type]

    def _free_bot_named(self, name: str, game: str) -> Player:
        bots = [p for p in self.players.values() if p.kind == "bot" and p.name == name]
        free = [p for p in bots if p.online and self._plays(p, game) and self._has_room(p)]
        if not free:
            raise NoBotAvailable(f"bot {name!r} is not connected, or busy, or does not play {game}")
        return free[0]

    @staticmethod
    def _plays(bot: Player, game: str) -> bool:
        return game in bot.games or "*" in bot.games

    def _has_room(self, bot: Player) -> bool:
        return self._active_games(bot) < bot.capacity

    def _idle_bot(self, game: str, level: int) -> Player:
        """The least busy bot that plays ``game`` at ``level``.

        A bot for any level and one fixed at exactly this level both qualify (on a tie in load
        the fixed one); a bot fixed at another level, or at none, never does.
        """
        candidates = [
            p
            for p in self.players.values()
            if p.kind == "bot" and p.online and self._plays(p, game) and p.level in (None, level)
        ]
        load = {p.pid: self._active_games(p) for p in candidates}
        free = [p for p in candidates if load[p.pid] < p.capacity]
        if not free:
            raise NoBotAvailable(f"no bot is free to play {game} at level {level} right now")
        return min(free, key=lambda p: (load[p.pid], p.level is None))

    def _active_games(self, player: Player) -> int:
        return sum(room.status != "over" for room in self._rooms_of(player))

    def _seat_bot(self, bot: Player, room: Room, seat: int, level: int | None) -> list[Out]:
        out: list[Out] = []
        for send in room.join(bot.member(), seat=seat):
            if send.reply:  # the bot's own ``joined``: not a reply to the human's request
                extra = {} if level is None else {"level": level}
                send = Send(send.to, {**send.message, **extra})
            out.append(send)
        bot.rooms.add(room.id)
        return out

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
