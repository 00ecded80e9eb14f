"""Admission control for the shell, in two steps.

At its TCP accept (or, behind a trusted proxy, at its HTTP request, where the client's address
is first known) every connection is charged to its address's bucket of requests and counted
against a per-address bound of connections of any kind: a flood costs an accept each past them.
Once its request is read, a game socket (an upgrade) is admitted by the game's own limits:
connections in all, per address, before ``hello``, and new sockets per second per address (each
a ``hello`` to come). A page or asset request has its own, larger bound (requests in flight per
address) and never spends the game socket's budget: a household behind one address reloads
pages freely and still gets its sockets.

One over a limit is refused with an HTTP 503 and the reason while the server has answers to
spare, else dropped at once (unanswered).
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import logging
import math
import time
from collections import Counter
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

from protocol.vocab import CloseCode
from server.core.ratelimit import TokenBucket
from server.shell.conn import ArenaConnection
from server.shell.ends import Ends
from server.shell.eviction import Fruitless, least_worth
from server.shell.front import FULL, Buckets, FrontDesk, PageLimits
from server.shell.keepalive import Keepalive

log = logging.getLogger("mnk.server")

#: Seconds between the INFO lines that count connections opened and closed.
REPORT_INTERVAL = 60.0
#: Bytes of one connection's input parsed per loop turn. websockets parses a whole read at once:
#: 3,000 tiny frames sent in one go (68 KB) held the loop ~45 ms; in slices, every other
#: socket's callbacks run between two of them.
READ_SLICE = 4096
#: The first byte of a client's close frame: what follows it is parsed as a connection's end.
CLOSE_FRAME = 0x88
#: A connection that sent a frame this recently (seconds) ends before idle ones (see ``Ends``).
RECENT = 1.0


def address_key(address: str) -> str:
    """What limits count an address under: an IPv6 address's /64 (one host often holds a whole
    /64), an IPv4-mapped IPv6 address as its IPv4 address, anything else as it is."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((int(ip) >> 64 << 64, 64)))
    return address


def address_of(ws: ServerConnection, request: Request | None = None, proxied: bool = False) -> str:
    """The client's IP address (the port is left out: limits are per address).

    Behind a trusted reverse proxy (``proxied``) every peer is the proxy: the client is the
    last address the proxy appended to ``X-Forwarded-For``.
    """
    request = request or ws.request
    if proxied and request is not None:
        forwarded = request.headers.get("X-Forwarded-For")
        if forwarded:
            return address_key(forwarded.rsplit(",", 1)[-1].strip()[:64])
    peer = ws.remote_address
    return address_key(str(peer[0])) if peer else "?"


def is_upgrade(request: Request) -> bool:
    """Whether ``request`` asks for a WebSocket (a game socket), not a page or an asset."""
    return any("websocket" in value.lower() for value in request.headers.get_all("Upgrade"))


def client_key(ws: ServerConnection) -> str:
    """The client a connection is known by in the core (``Conn.address_key``): its address as
    the limits count it (an IPv6 address by its /64: an address each would let one client take
    a bot's every seat)."""
    address = getattr(ws, "address", None)
    return address if isinstance(address, str) else address_of(ws)


class GuardedConnection(ArenaConnection):
    """A connection on the direct receive path, counted by a :class:`ConnectionGuard` at accept."""

    def __init__(self, *args: Any, guard: ConnectionGuard, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.guard = guard
        #: The client address it is counted under (None: not counted).
        self.address: str | None = None
        #: Whether it is counted as not having said ``hello`` yet.
        self.pending = False
        #: When it was counted in (``time.monotonic``): a newer one is never closed for another.
        self.since = 0.0
        #: Why it was refused (it gets a 503), or None.
        self.refusal: str | None = None
        #: The address its accept was charged to (None: not counted yet, or counted out).
        self.client: str | None = None
        #: Whether it is counted as a page or asset request (not a game socket).
        self.page = False
        #: Refused and dropped before anything was read: websockets never sees it.
        self.dropped = False
        #: Input read but not parsed yet (reading is paused meanwhile): a slice per loop turn.
        self.unparsed = bytearray()
        self._lost = False
        #: The peer's end of input was seen (its handling may wait in the guard's ``ends``).
        self._eof = False
        #: Whether its ends go first (decided at its first end: see :meth:`_end`).
        self._first: bool | None = None

    def refuse(self, reason: str) -> None:
        """It is refused (a 503 says ``reason``)."""
        self.refusal = reason

    def count_in(self, address: str, now: float) -> None:
        """It is counted under ``address`` from ``now``, as not having said hello yet."""
        self.address, self.pending, self.since = address, True, now

    def charged_to(self, client: str | None, page: bool = False) -> None:
        """Its accept is charged to ``client`` (None: counted out), as a page or not."""
        self.client, self.page = client, page

    def said_hello(self) -> bool:
        """It said hello: no longer pending; whether it was."""
        was, self.pending = self.pending, False
        return was

    def count_out(self) -> str | None:
        """It is counted out of its address (returned, None if it had none)."""
        address, self.address = self.address, None
        return address

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Count the connection in, or drop it before reading a byte of its request."""
        guard = self.guard
        if not guard.proxied:
            peer = transport.get_extra_info("peername")
            address = address_key(str(peer[0])) if peer else "?"
            if not guard.accept(self, address) and not guard.answer():
                self.dropped = True
                transport.abort()
                return
        super().connection_made(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        """Count the connection out now; websockets learns of it (and the handler ends) when
        the guard's ``ends`` have room (this turn, or a later one in a burst of ends)."""
        self._lost = True
        self.unparsed.clear()
        self.guard.leave(self)
        if not self.dropped:
            self._end(functools.partial(super().connection_lost, exc))

    def data_received(self, data: bytes) -> None:
        """Parse at most ``READ_SLICE`` bytes now; the rest on later loop turns, in order (a
        close frame as a connection's end: when the guard's ``ends`` have room)."""
        if self.muted:  # reading resumed by websockets' queue: still nothing is read
            self.transport.pause_reading()
            return
        if self.unparsed:  # (reading resumed for websockets' queue) behind the earlier slices
            self.unparsed += data
            self.transport.pause_reading()
            return
        if data[0] == CLOSE_FRAME:  # (or a payload byte that looks like one: in order anyway)
            self.unparsed += data  # parsed when the guard's ends have room, as an EOF would be
            self.transport.pause_reading()
            self._end(self._parse_more)
            return
        if len(data) > READ_SLICE:
            self.unparsed += memoryview(data)[READ_SLICE:]
            self.transport.pause_reading()
            self.loop.call_soon(self._parse_more)
            data = data[:READ_SLICE]
        super().data_received(data)

    def dropped_late(self) -> None:
        """Refused past the answers' rate once its request was read: closed unanswered."""
        self.transport.abort()

    def mute(self) -> None:
        """Read nothing more, and drop what was read but not parsed yet."""
        self.unparsed.clear()
        super().mute()

    def _parse_more(self) -> None:
        """Parse the next slice of a long read; read again once none is left."""
        if self._lost or not self.unparsed or self.muted:
            return
        chunk = bytes(self.unparsed[:READ_SLICE])
        del self.unparsed[:READ_SLICE]
        if self.unparsed:
            self.loop.call_soon(self._parse_more)
        elif not self.recv_messages.paused and not self._eof:  # (else websockets resumes it)
            self.transport.resume_reading()
        super().data_received(chunk)

    def eof_received(self) -> bool | None:
        """The peer is done sending: its end is handled when the guard's ``ends`` have room.

        Until then the transport stays open (half-closed: True keeps it so), then it closes as
        websockets would have it. A TLS transport cannot stay half-open: handled at once.
        """
        if self._eof:
            return True
        self._eof = True
        if not self.transport.can_write_eof():
            return self._end_of_input()
        self._end(self._end_input)
        return True

    def _end(self, job: Callable[[], None]) -> None:
        """Hand one of this connection's ends to the guard's ``ends``, always in one queue: the
        first queue if its player is in a room, a bot, or sent a frame lately."""
        if self._first is None:
            quiet = self.quiet
            self._first = quiet is not None and quiet() < RECENT
        self.guard.ends.run(job, self._first)

    def _end_input(self) -> None:
        """The peer's EOF, handled on its turn: the transport closes unless websockets keeps it."""
        if self._lost:  # lost meanwhile: its loss, queued behind, tells websockets the rest
            return
        if not self._end_of_input():
            self.transport.close()

    def _end_of_input(self) -> bool | None:
        """Parse what is left of the peer's input first, then give websockets the end."""
        if self.unparsed and not self._lost:
            chunk = bytes(self.unparsed)
            self.unparsed.clear()
            super().data_received(chunk)
        return super().eof_received()


class ConnectionGuard:
    """Counts open connections per client address and refuses those past the limits."""

    def __init__(
        self,
        max_total: int,
        max_per_address: int,
        proxied: bool = False,
        *,
        max_pending: int = 16,
        refusal_rate: float = 10.0,
        hello_rate: float = math.inf,
        hello_burst: float = 64.0,
        evict_after: float = math.inf,
        pages: PageLimits | None = None,
    ) -> None:
        self.max_total, self.max_per_address = max_total, max_per_address
        #: Connections from one address that have not said ``hello`` yet.
        self.max_pending = max_pending
        #: Whether a reverse proxy in front says who the client is (``--trust-proxy``).
        self.proxied = proxied
        #: 503 answers per second (and at once); past them refused connections are dropped.
        self.answers = TokenBucket(refusal_rate, max(1.0, refusal_rate))
        #: New connections (hellos to come) per second from one address, and at once.
        self.hello_rate, self.hello_burst = hello_rate, max(1.0, hello_burst)
        #: Each address's bucket of new game sockets.
        self.arrivals = Buckets(hello_rate, self.hello_burst)
        self.open: Counter[str] = Counter()
        #: Each address's counted connections, and how long one must have been open before a
        #: full server may close it for a connection from a lighter address.
        self.held: dict[str, set[GuardedConnection]] = {}
        self.evict_after = evict_after
        #: The last search for a connection to close that found nothing (for a moment).
        self.fruitless = Fruitless()
        self.evicted = 0
        self._closing: set[asyncio.Task[None]] = set()
        #: Connections' ends: a bounded share of each loop turn, players' in rooms first.
        self.ends = Ends()
        self.pending: Counter[str] = Counter()
        self.total = 0
        #: Every connection at accept, and the page requests (see ``front.py``).
        self.desk = FrontDesk(max_total, max_per_address, pages or PageLimits())
        self.opened = self.closed = self.refused = self.evicted = 0
        #: Refused connections dropped unanswered (since the start).
        self.dropped = 0
        self._last_report = 0.0

    def connection_factory(
        self, keepalive: Keepalive | None = None
    ) -> Callable[..., ServerConnection]:
        """What ``serve(create_connection=…)`` makes each accepted connection with (pinged by
        ``keepalive``, else by websockets' task of its own)."""
        return functools.partial(GuardedConnection, guard=self, keepalive=keepalive)

    def own_bound(self, address: str) -> str | None:
        """Why ``address`` may not open one more connection however empty the server, or None."""
        if self.open[address] >= self.max_per_address:
            return "too many connections from your address"
        if self.pending[address] >= self.max_pending:
            return "too many connections from your address that have not said hello"
        return None

    def arrive(self, conn: GuardedConnection, address: str) -> bool:
        """Count a new connection in; False when it is refused (``conn.refusal`` says why).

        Its address's own bounds and bucket of new sockets first: one past them is refused
        without a look at the others (it never closes a connection to be refused anyway). Then a
        full server closes a connection of its heaviest addresses for it (see
        :meth:`_make_room`), so a few addresses filling the server cannot keep a new one out.
        """
        reason = self.own_bound(address) or self._too_fast(address)
        if reason is None and self.total >= self.max_total and not self._make_room(address):
            reason = FULL
        if reason is not None:
            self.refused += 1
            conn.refuse(reason)
            return False
        conn.count_in(address, time.monotonic())
        self.held.setdefault(address, set()).add(conn)
        self.open[address] += 1
        self.pending[address] += 1
        self.total += 1
        self.opened += 1
        return True

    def _make_room(self, address: str) -> bool:
        """Close one connection of an address that holds more than ``address`` plus one, for
        a newcomer from it; whether one was closed.

        Whatever it sends: a socket that pings or watches holds a place as a silent one does.
        The least worth first (``Presence.worth``: in no room, watching, a waiting seat; a bot
        or a player seated in a live game never), of the heaviest address, the oldest first; one
        counted in less than ``evict_after`` ago never (two newcomers do not take turns). No
        rate of tries shared by everyone (the busiest knockers took it all): each try is
        charged to its address's bucket of new sockets, and a fruitless search is remembered
        for a moment (``Fruitless``), so the addresses that hold most are refused first.
        """
        now, mine = time.monotonic(), self.open[address]
        if math.isinf(self.evict_after) or self.fruitless.known(mine, now):
            return False
        victim = least_worth(self.open, self.held, mine, now, self.evict_after)
        if victim is None:
            self.fruitless.found_nothing(mine, now)
            return False
        self._evict(victim)
        return True

    def _evict(self, conn: GuardedConnection) -> None:
        """Count ``conn`` out now (its place goes to the newcomer) and close it with 1013."""
        self.evicted += 1
        self.leave(conn)
        reason = "the server is full; you held the most connections"
        task = asyncio.ensure_future(conn.close(CloseCode.TRY_LATER, reason))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    def _too_fast(self, address: str) -> str | None:
        """Charge ``address``'s bucket of new game sockets: why it is refused now, or None.

        Charged once the request says it is an upgrade, before any WebSocket work, admitted or
        not: a flood of hellos from one address costs a short request each past its burst, not a
        handshake, a hello and a commit; a flood of knocks at a full server, not a search each.
        """
        if self.arrivals.allow(address):
            return None
        return "too many new connections from your address; slow down"

    def accept(self, conn: GuardedConnection, address: str) -> bool:
        """Count a new connection of any kind in at accept (``FrontDesk``); False when it is
        refused (``conn.refusal`` says why). Whether it is a game socket is known later."""
        reason = self.desk.accept(address)
        if reason is not None:
            self.refused += 1
            conn.refuse(reason)
            return False
        conn.charged_to(address)
        return True

    def _page(self, conn: GuardedConnection) -> str | None:
        """Count a page or asset request in (its own bound): why it is refused, or None."""
        address = conn.client
        reason = None if address is None else self.desk.page(address)
        if reason is not None:
            self.refused += 1
        conn.charged_to(address, address is not None and reason is None)
        return reason

    def answer(self) -> bool:
        """Whether a refused connection still gets an HTTP 503 (else it is dropped, cheaply)."""
        if self.answers.allow(time.monotonic()):
            return True
        self.dropped += 1
        return False

    def process_request(self, ws: ServerConnection, request: Request) -> Response | None:
        """Admit a request by its kind (a game socket by the game's limits, a page by its own)
        or refuse it with a 503 (dropped unanswered past the answers' rate), before any frame."""
        assert isinstance(ws, GuardedConnection)
        if self.proxied and ws.refusal is None and ws.client is None:
            self.accept(ws, address_of(ws, request, True))
        if ws.refusal is None and ws.client is not None:
            if is_upgrade(request):
                self.arrive(ws, ws.client)
            else:
                refusal = self._page(ws)
                if refusal is not None:
                    ws.refuse(refusal)
            if ws.refusal is not None and not self.answer():
                ws.dropped_late()
        if ws.refusal is None:
            return None
        return ws.respond(HTTPStatus.SERVICE_UNAVAILABLE, ws.refusal + "\n")

    def said_hello(self, conn: ServerConnection) -> None:
        """A counted connection said ``hello``: it no longer counts as pending."""
        if isinstance(conn, GuardedConnection) and conn.pending and conn.address is not None:
            conn.said_hello()
            self._uncount(self.pending, conn.address)

    def leave(self, conn: GuardedConnection) -> None:
        """A connection closed: count it out of whatever it was counted in."""
        if conn.client is not None:
            self.desk.leave(conn.client, conn.page)
            conn.charged_to(None)
        pending = conn.pending
        address = conn.count_out()
        if address is None:
            return
        if pending:
            conn.said_hello()
            self._uncount(self.pending, address)
        self._uncount(self.open, address)
        held = self.held.get(address)
        if held is not None:
            held.discard(conn)
            if not held:
                del self.held[address]
        self.total -= 1
        self.closed += 1

    @staticmethod
    def _uncount(counter: Counter[str], address: str) -> None:
        counter[address] -= 1
        if counter[address] <= 0:
            del counter[address]

    def report(self, now: float) -> None:
        """Log the connection counts once per ``REPORT_INTERVAL`` (at INFO; limits at WARNING)."""
        if now - self._last_report < REPORT_INTERVAL:
            return
        if self._last_report and (self.opened or self.closed or self.refused):
            log.info(
                "connections: %d open from %d address(es); %d opened, %d closed in the last minute",
                self.total, len(self.open), self.opened, self.closed,
            )  # fmt: skip
            if self.refused:
                log.warning("limit connections: %d refused in the last minute", self.refused)
            if self.evicted:
                log.warning("limit connections: %d closed for newcomers", self.evicted)
        self._last_report = now
        self.opened = self.closed = self.refused = self.evicted = 0
