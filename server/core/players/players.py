"""A player and a connection as the core knows them, and how their tokens and ids are made."""

from __future__ import annotations

import hashlib
import math
from collections import deque
from dataclasses import dataclass, field

from protocol import wire
from protocol.errors import ArenaError
from protocol.wire import Message
from server.core.game.members import Member
from server.core.limits import PEEK_LIMIT
from server.core.ratelimit import TokenBucket


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
    #: ``analyse_job``s a bot answers at once (its ``hello``'s ``analyses``; 0: none).
    analyses: int = 0
    #: Whether the store has this player's row. A human is written only once it matters (a
    #: seat, a room, a watched game): a hello alone costs no write, so passers cost no commits.
    saved: bool = False
    #: When this player started each game of the last hour (``max_guest_games_per_hour``).
    game_starts: deque[float] = field(default_factory=deque)
    #: The client address of the human's latest ``hello`` (``Conn.address_key``): one address
    #: gets a fair share of each bot's seats.
    address_key: str | None = None
    #: The account's name for a logged-in human or a bot account; None for a guest.
    account: str | None = None
    #: Seconds a round trip to this player's connection takes, as the server's pings measured
    #: it (smoothed, core/game/lag.py): what its timed moves may get back. 0 until measured.
    lag: float = 0.0

    def member(self) -> Member:
        """How this player appears in a room."""
        return Member(self.pid, self.name, self.kind, self.account is not None)

    def came_online(self) -> None:
        """It connected (here, or on another node through a room here)."""
        self.online, self.offline_at = True, None

    def went_offline(self, now: float) -> None:
        """Its connection closed at ``now``: no lobby pushes until it subscribes again."""
        self.online, self.subscribed, self.offline_at = False, False, now

    def subscribe(self, on: bool) -> None:
        """Whether the lobby's changes are pushed to it."""
        self.subscribed = on

    def retoken(self, token_hash: str) -> None:
        """Its session token is now the one hashed ``token_hash``."""
        self.token_hash = token_hash

    def rename(self, name: str) -> None:
        """It goes by ``name`` now."""
        self.name = name

    def mark_saved(self) -> None:
        """The store has its row."""
        self.saved = True

    def mark_played(self) -> None:
        """A game with it is in the history: never pruned."""
        self.played = True

    def log_in(self, account: str | None) -> None:
        """It is ``account``'s player now (None: a guest again)."""
        self.account = account

    def at_address(self, address_key: str | None) -> None:
        """The client address of its latest hello (a human's; None for a bot)."""
        self.address_key = address_key

    def note_lag(self, lag: float) -> None:
        """Its connection's round trip, as smoothed by the server's pings (core/game/lag.py)."""
        self.lag = lag

    def prove_key(self, key_hash: str) -> None:
        """A bot proved the key hashed ``key_hash`` on its connection."""
        self.key_hash = key_hash

    def offer_play(
        self, games: frozenset[str], capacity: int, level: int | None, analyses: int
    ) -> None:
        """What a bot's hello said it plays: games, seats, level and analyses at once."""
        self.games, self.capacity, self.level, self.analyses = games, capacity, level, analyses


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
    #: The client's address as the shell counts it (an IPv6 /64 is one), None if unknown.
    address_key: str | None = None
    #: The hash of this connection's account session (None for a guest's): logout revokes it.
    session_hash: str | None = None
    #: The name this connection had as a guest, given back on logout.
    guest_name: str | None = None
    #: Whether a password job of this connection is in flight (one at a time).
    auth: bool = False

    def identify(self, pid: str) -> None:
        """``pid`` said hello on this connection."""
        self.pid = pid

    def rate(self, bucket: TokenBucket) -> None:
        """Its messages are charged to ``bucket`` from now on (a bot's is larger)."""
        self.bucket = bucket

    def bad_frame(self) -> int:
        """A frame did not decode: how many have not, so far."""
        self.bad_frames += 1
        return self.bad_frames

    def lookup(self, delta: int) -> None:
        """A history lookup went to the store (+1) or was answered or dropped (-1)."""
        self.lookups += delta

    def park(self, hello: Message | None) -> None:
        """A ``hello`` waits for its session's lookup (None: no longer)."""
        self.hello = hello

    def logged_limit(self, now: float) -> None:
        """A limit that bit it was logged at ``now``."""
        self.logged_limit_at = now

    def sign_in(self, session_hash: str | None) -> None:
        """Its account session is the one hashed ``session_hash`` (None: a guest's)."""
        self.session_hash = session_hash

    def as_guest(self, name: str) -> None:
        """The name it had as a guest, given back on logout."""
        self.guest_name = name

    def authenticating(self, busy: bool) -> None:
        """Whether a password job of it is in flight."""
        self.auth = busy


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
