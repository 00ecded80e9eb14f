"""What the arena and its shell exchange: the values a request turns into (replies, look-ups,
closes), a player and a connection as the core knows them, the policy limits, and the seams a
cluster node plugs in (forwarding, bots on other nodes)."""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from typing import Any, Protocol

from protocol import wire
from protocol.errors import ArenaError
from protocol.variants import NAMES
from protocol.wire import Message
from server.core.ratelimit import TokenBucket
from server.core.room import Member, Send


@dataclass(slots=True)
class Reply:
    """A message for the connection whose request is being handled (not frozen: made per
    request, and a frozen ``__init__`` is slow; nothing changes one once made)."""

    message: Message


@dataclass(frozen=True, slots=True)
class Lookup:
    """A history query for the store, answered off the event loop as a reply with ``id``."""

    query: str
    params: dict[str, Any]
    request_id: int | None


@dataclass(frozen=True, slots=True)
class Resolve:
    """A session token unknown here (or a bot's name, ``bot``), to look up in the cluster's
    shared players table off the event loop; the answer goes back through
    :meth:`Arena.session_resolved`."""

    token_hash: str
    bot: str | None = None


@dataclass(frozen=True, slots=True)
class Close:
    """Close the requesting connection (after the replies before it): it broke a policy."""

    code: int
    reason: str


Out = Reply | Send | Lookup | Resolve | Close


class Forwarder(Protocol):
    """A cluster node's link to the others: requests for their rooms go to the owner."""

    def request(self, player: Player, msg: Message) -> list[Out]:
        """Send ``msg`` (about a room not held here) to the room's owner node, or raise."""
        ...

    def offline(self, player: Player) -> None:
        """``player``'s socket here closed: the nodes it played through see it go offline."""
        ...


class BotSeats(Protocol):
    """A cluster node's link to the bots connected to other nodes (server/cluster/bots.py)."""

    def listing(self) -> dict[str, Message]:
        """The ``list_bots`` entries of the bots online on other nodes, by player id."""
        ...

    def elsewhere(self, name: str, game: str, asker: str) -> bool:
        """Whether the bot ``name`` is online on another node and plays ``game``."""
        ...

    def idle(self, game: str, level: int, asker: str) -> str | None:
        """The least busy bot online on another node that plays ``game`` at ``level``."""
        ...

    def hold(self, player: Player, msg: Message, names: list[str], game: str) -> list[Out]:
        """Hold ``player``'s ``create_room`` while the bots ``names``' nodes lend them a seat
        (it goes on with :meth:`Arena.create_held`), or raise."""
        ...


class Elsewhere(Exception):
    """The named bots are not free here but online on other nodes: ask their nodes for seats."""

    def __init__(self, names: list[str]) -> None:
        super().__init__(names)
        self.names = names


#: What a bot may list in ``games``: the variants this server knows, or ``*`` for all.
GAME_NAMES = frozenset({*NAMES, "*"})
#: Requests answered by the store off the event loop (bounded in flight).
LOOKUPS = frozenset({"list_games", "get_game"})
#: Seconds between two log lines about the same limit (or the same connection).
LIMIT_LOG_INTERVAL = 60.0
#: Longest refused frame still decoded to echo its ``id`` in the ``rate_limited`` error.
PEEK_LIMIT = 1024
#: Bytes a ``hello`` may take besides its ``games`` list, and per entry of that list: a longer
#: frame before ``hello`` is refused undecoded (a 60 KB bot list cost half a millisecond).
HELLO_BYTES = 16384
HELLO_GAME_BYTES = 128


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
    #: Open connections in all, and from one client address (the shell refuses the rest).
    max_connections: int = 4096
    max_connections_per_address: int = 64
    #: Connections from one address that have not said ``hello`` yet (the shell refuses more),
    #: and HTTP 503 answers per second to refused connections (past it they are dropped).
    max_pending_per_address: int = 16
    refusal_rate: float = 10.0
    #: New connections per second from one address, and at once (each is a ``hello`` to come:
    #: the shell refuses the rest at accept). The burst lets an address open its whole quota.
    hello_rate: float = 4.0
    hello_burst: float = 64.0
    #: Seconds a new connection has to say ``hello`` before it is closed.
    hello_timeout: float = 10.0
    #: Undecodable or malformed frames a connection may send before it is closed with 1008.
    max_bad_frames: int = 20
    #: Rooms one player may be in at once (seated or watching), and keep alive having created.
    max_rooms_per_player: int = 64
    max_rooms_created: int = 32
    #: Entries a bot's ``hello`` ``games`` list may hold.
    max_hello_games: int = 32
    #: History lookups (``list_games``/``get_game``) in flight per connection, and in all.
    max_lookups_per_connection: int = 2
    max_lookups: int = 32
    #: Extra tokens a history lookup takes from the rate bucket: it costs a query and a thread.
    lookup_cost: float = 4.0
    #: Entries in one page of ``rooms`` or ``bots`` (a client may ask for fewer).
    max_page: int = 100
    #: An offline player with no room and no game in the history is forgotten after this long.
    player_ttl: float = 3600.0


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
    #: Rooms this player created that still exist (bounded by ``max_rooms_created``).
    created: set[str] = field(default_factory=set)
    #: Whether a game with this player is in the history (such players are never pruned).
    played: bool = False
    #: When the player went offline (for pruning), or None while online.
    offline_at: float | None = None
    #: The key a bot proved on its connection (never stored): revoking it cuts the bot off.
    key_hash: str | None = None
    #: A bot's level: None plays whatever level a room asks, 1-10 only that level, 0 none (it
    #: is seated only in rooms that name it).
    level: int | None = None
    #: Whether the store has this player's row. A human is written only once it matters (a
    #: seat, a room, a watched game): a hello alone costs no write, so passers cost no commits.
    saved: bool = False

    def member(self) -> Member:
        """How this player appears in a room."""
        return Member(self.pid, self.name, self.kind)


@dataclass(slots=True)
class Conn:
    """What the core knows of one connection: who said hello on it and its rate bucket."""

    bucket: TokenBucket
    pid: str | None = None
    #: Frames that did not decode to a message; too many close the connection.
    bad_frames: int = 0
    #: History lookups sent to the store and not yet answered.
    lookups: int = 0
    #: A ``hello`` waiting for its session to be looked up in the shared store (one at a time).
    hello: Message | None = None
    #: When a limit that bit this connection was last logged (at most once a minute).
    logged_limit_at: float = -math.inf


def peek_id(frame: bytes | str) -> int | None:
    """The ``id`` of a small refused frame, so its ``rate_limited`` error can echo it."""
    if not isinstance(frame, bytes) or len(frame) > PEEK_LIMIT:
        return None
    try:
        rid = wire.decode(frame).get("id")
    except ArenaError:
        return None
    return rid if type(rid) is int else None


def bot_pid(name: str) -> str:
    """A bot's player id on a cluster none of whose nodes saved one yet: every node makes the
    same, so two nodes greeting it at once make one player."""
    return "p_" + hashlib.sha256(f"bot:{name}".encode()).hexdigest()[:12]


def hash_token(token: str) -> str:
    """Session tokens are stored hashed, so a leaked player table resumes nobody."""
    return hashlib.sha256(token.encode()).hexdigest()
