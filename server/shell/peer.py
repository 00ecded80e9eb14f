"""Where the server listens (:class:`ServerConfig`) and one open connection (:class:`Peer`)."""

from __future__ import annotations

import asyncio
import math
import ssl
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from websockets.asyncio.server import ServerConnection

from protocol import wire
from server.core.players.players import Conn
from server.core.players.presence import LOBBY
from server.core.ports import Members
from server.core.ratelimit import TokenBucket
from server.shell import keepalive


@dataclass
class ServerConfig:
    """Where to listen and how the transport behaves."""

    host: str = "127.0.0.1"
    port: int = 8765
    max_frame: int = wire.MAX_FRAME
    sweep_interval: float = 0.05
    heartbeat_interval: float = 1.0
    #: A certificate chain and its key: serve ``wss://`` (TLS) instead of ``ws://``.
    certfile: str | None = None
    keyfile: str | None = None
    #: A reverse proxy on loopback says who the client is (``X-Forwarded-For``).
    trust_proxy: bool = False
    #: How often the bot keys are re-read from the database (``mnk-server keys`` edits it).
    keys_interval: float = 2.0
    #: Origins besides the server's own whose pages may open a game socket (browsers only).
    origins: tuple[str, ...] = ()
    #: Names (``Host``) served besides addresses, loopback's and ``host``'s own; None: any
    #: name (``--allowed-hosts '*'``, or a proxy in front or a certificate vouching for it).
    allowed_hosts: tuple[str, ...] | None = ()
    #: Seconds between WebSocket pings to each connection, and without a pong before it is closed.
    ping_interval: float = keepalive.INTERVAL
    ping_timeout: float = keepalive.TIMEOUT

    def served_names(self) -> tuple[str, ...] | None:
        """Every name a browser may reach this server by (see ``allowed_hosts``), or None."""
        if self.allowed_hosts is None:
            return None
        names = [*self.allowed_hosts, *(urlsplit(o).hostname or "" for o in self.origins)]
        if self.host not in ("", "0.0.0.0", "::"):
            names.append(self.host)
        return tuple(names)

    def ssl_context(self) -> ssl.SSLContext | None:
        """The server's TLS context, or None for plain ``ws://``."""
        if self.certfile is None:
            return None
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(self.certfile, self.keyfile)
        return context


@dataclass(eq=False, slots=True)
class Peer:
    """One open connection: its socket, what the arena knows of it, its history lookups."""

    ws: ServerConnection
    conn: Conn
    lookups: set[asyncio.Task[None]] = field(default_factory=set)
    closed: bool = False
    #: Closes the connection if it has not said hello in time (cancelled by the hello).
    deadline: asyncio.TimerHandle | None = None
    #: ``rate_limited`` replies this connection may still get at once (made at its first one).
    refusals: TokenBucket | None = None
    #: When a throttled connection may be read again (arena clock; 0: it is not throttled).
    resume_at: float = 0.0
    #: A request waiting in the lobby lane, and what its later frames wait for meanwhile.
    deferred: bytes | str | None = None
    waiting: asyncio.Future[None] | None = None

    def watch_hello(self, deadline: asyncio.TimerHandle) -> asyncio.TimerHandle:
        """``deadline`` closes the connection unless it says hello in time; returned."""
        self.deadline = deadline
        return deadline

    def close(self) -> None:
        """The connection closed: nothing more is sent to it, its lookups are dropped."""
        self.closed = True

    def defer(self, frame: bytes | str, waiting: asyncio.Future[None]) -> None:
        """``frame`` waits in the lobby lane; the later frames wait for ``waiting``."""
        self.deferred, self.waiting = frame, waiting

    def undefer(self) -> tuple[bytes | str | None, asyncio.Future[None] | None]:
        """The request that waited in the lane and what the later frames waited for (taken)."""
        taken = self.deferred, self.waiting
        self.deferred = self.waiting = None
        return taken

    def pause_until(self, at: float) -> None:
        """Read nothing more from this peer until ``at`` (arena clock)."""
        self.resume_at = at

    def refused(self, now: float) -> float:
        """A frame was refused for its rate: seconds to read nothing more from this peer.

        A client past its limit gets as many ``rate_limited`` replies as its burst, then its
        frames wait unread (in its socket) until it may be refused again: flooding costs the
        server no more than twice the client's rate, however fast it sends.
        """
        bucket = self.conn.bucket
        if self.refusals is None:
            self.refusals = TokenBucket(bucket.rate, bucket.burst)
        self.refusals.allow(now)
        return self.refusals.wait(now)

    def control(self, now: float) -> bool:
        """A ping or pong came (websockets answered a ping already): charge it like a message.

        True once it is past the rate and past its refusals too: the connection is to be cut,
        since nothing queues control frames, so holding its messages would not stop them.
        """
        if self.conn.bucket.allow(now):
            return False
        return self.refused(now) > 0

    def quiet(self, members: Members, clock: Callable[[], float]) -> float:
        """Seconds since this connection last sent a frame (inf: never); 0 while it is in a
        room or is a bot, so that its end goes first (see ``Ends``)."""
        if self.closed or members.engaged(self.conn):
            return 0.0
        bucket = self.conn.bucket
        return math.inf if bucket.tokens < 0 else clock() - bucket.stamp

    def worth(self, members: Members) -> int:
        """What keeping this connection is worth to a full server (``Presence.worth``)."""
        if self.closed:
            return LOBBY
        return members.worth(self.conn)
