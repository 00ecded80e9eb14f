"""A websockets server connection that hands each message to the arena as soon as it is parsed.

websockets queues every incoming message and wakes the connection's handler task to read it:
a future, a task step and four nested awaits per message. The arena never awaits, so a complete
binary message can be handled right where websockets parsed it, in order, with the same result.
Anything else (text, fragmented messages, frames behind queued ones, a closing connection) takes
websockets' usual path and reaches the handler's ``async for`` in order.

While nothing is queued and websockets' parser waits at a frame boundary, the connection also
parses the incoming bytes itself (the "direct" mode): a complete, final, masked binary frame
within the size limit is unmasked and handed over without websockets' generator-based parser
(a dozen Python calls per frame). The first byte of anything else (a ping's pong, a close, a
text or fragmented frame, an oversized header, a frame cut short by the end of a read) goes,
with all that follows, to websockets' parser, which is exactly where it would have gone; direct
mode resumes once that parser is back at a frame boundary with nothing queued.

Both shortcuts lean on websockets' internals (its parser's generators, ``process_event``, the
message queue's ``frames``), which no release promises to keep: at import, :func:`self_check`
runs a sans-I/O websockets connection through a handshake and a frame and checks each internal
used here. If one is missing or changed, the connection logs that once and takes websockets'
usual path for everything (slower, never wrong). pyproject.toml bounds websockets to the
versions this was tested with.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from types import CodeType
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.frames import Frame, Opcode
from websockets.protocol import OPEN

from server.shell.keepalive import Keepalive, can_ping

try:
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover  (websockets without its C extension)
    from websockets.utils import apply_mask

log = logging.getLogger("mnk.server")

BINARY = Opcode.BINARY
#: Control frames a client may send: each is charged like a message (a ping costs a pong),
#: but a pong that answers one of the server's own pings (the keepalive's, the lag probe's).
CONTROL = frozenset((Opcode.PING, Opcode.PONG))
PONG = Opcode.PONG
#: A peer that lets this much pile up unread in its socket buffer is cut off (whatever was
#: written: the arena's frames, or the pongs websockets answers pings with).
MAX_BACKLOG = 1 << 20
#: What a served connection's handshake keeps as headers (shared; nothing writes to it).
_NO_HEADERS = Headers()
#: The first byte of a final binary frame with no extension bits (all the direct mode takes).
FIN_BINARY = 0x82
#: A client's opening handshake, for :func:`self_check`.
_HANDSHAKE = (
    b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)


def _innermost(parser: Any) -> Any:
    """The generator a websockets parser is suspended in, through its ``yield from`` chain."""
    while getattr(parser, "gi_yieldfrom", None) is not None:
        parser = parser.gi_yieldfrom
    return parser


def self_check() -> tuple[CodeType | None, str]:
    """The code websockets' parser waits in at a frame boundary, if every internal the direct
    paths use is there and behaves as expected on the installed websockets; else None and why.
    """
    try:
        from websockets.asyncio import connection, messages
        from websockets.http11 import Request
        from websockets.server import ServerProtocol
        from websockets.streams import StreamReader

        at_boundary = StreamReader.at_eof.__code__
        if "recv_messages" not in connection.Connection.connection_made.__code__.co_names:
            return None, "Connection.connection_made no longer makes recv_messages"
        if "frames" not in messages.Assembler.__init__.__code__.co_names:
            return None, "Assembler keeps no frames queue"
        if not hasattr(messages.SimpleQueue, "__len__"):
            return None, "the frames queue has no length"
        for method in ("data_received", "process_event"):
            if not callable(getattr(ServerConnection, method, None)):
                return None, f"ServerConnection has no {method}"
        if "send_in_progress" not in connection.Connection.__init__.__code__.co_names:
            return None, "Connection keeps no send_in_progress (the frames' direct write)"
        protocol = ServerProtocol(max_size=1 << 16)
        protocol.receive_data(_HANDSHAKE)
        [request] = protocol.events_received()
        if not isinstance(request, Request):
            return None, "a handshake is not parsed into a Request"
        protocol.send_response(protocol.accept(request))
        if not hasattr(protocol, "expect_continuation_frame"):
            return None, "the protocol keeps no expect_continuation_frame (the direct write)"
        shape = (protocol.state, bytes(protocol.reader.buffer), protocol.current_size)
        if shape != (OPEN, b"", None) or protocol.extensions or protocol.max_message_size is None:
            return None, "an open connection's parser state looks different"
        for _ in range(2):  # at a boundary once open, and again after a frame
            if getattr(_innermost(protocol.parser), "gi_code", None) is not at_boundary:
                return None, "the parser does not wait in StreamReader.at_eof at a frame boundary"
            protocol.receive_data(Frame(BINARY, b"\x81\xa1x", True).serialize(mask=True))
            [event] = protocol.events_received()
            if type(event) is not Frame or (event.opcode, event.data) != (BINARY, b"\x81\xa1x"):
                return None, "a binary frame is not parsed into a Frame"
    except Exception as exc:  # anything missing or changed: the usual path
        return None, f"{type(exc).__name__}: {exc}"
    return at_boundary, ""


#: The code websockets' parser waits in when it is at a frame boundary with no data, and why
#: the direct paths are off when it is None (see :func:`self_check`).
_AT_BOUNDARY, WHY_NOT_DIRECT = self_check()
#: Whether connections take messages directly (tests turn it off to try the usual path).
DIRECT = _AT_BOUNDARY is not None
_warned = False


def _direct_allowed() -> bool:
    """:data:`DIRECT`, and when it is off, a warning the first time a connection asks."""
    global _warned
    if not DIRECT and not _warned:
        _warned = True
        log.warning(
            "websockets' internals changed (%s): messages take its usual path",
            WHY_NOT_DIRECT or "turned off",
        )
    return DIRECT


class ArenaConnection(ServerConnection):
    """A :class:`ServerConnection` with ``on_message``: called with each binary message at once."""

    #: Called with each round trip websockets measures (a pong answering a ping of ours sets
    #: ``latency``): the player's lag (server/shell/lagprobe.py). A class default: websockets'
    #: ``__init__`` sets ``latency`` before this class's own attributes exist.
    on_latency: Callable[[float], None] | None = None
    _latency: float = 0.0

    def report_latency(self, to: Callable[[float], None]) -> None:
        """Call ``to`` with each round trip measured from now on."""
        self.on_latency = to

    def __init__(self, *args: object, keepalive: Keepalive | None = None, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        #: The server's one keepalive for every connection (None: websockets' task of its own).
        self.keepalive = keepalive if keepalive is not None and can_ping(self) else None
        #: Set by the handler once it is ready for messages; None queues them as websockets does.
        self.on_message: Callable[[bytes], None] | None = None
        #: Called with each ping the client sends (after websockets answered it) and each pong
        #: the server did not ask for.
        self.on_control: Callable[[], None] | None = None
        #: Seconds the connection has been idle (see ``Peer.quiet``), once it is served.
        self.quiet: Callable[[], float] | None = None
        #: What keeping it is worth to a full server (see ``Presence.worth``), once it is served.
        self.worth: Callable[[], int] | None = None
        #: What :meth:`serve` was given, for :meth:`resume` after a :meth:`hold`.
        self._served: Callable[[bytes], None] | None = None
        #: Whether incoming bytes are parsed here (see the module's docstring).
        self.direct = False
        #: Read no more (see :meth:`mute`).
        self.muted = False

    def serve(
        self,
        on_message: Callable[[bytes], None],
        on_control: Callable[[], None] | None = None,
        quiet: Callable[[], float] | None = None,
        worth: Callable[[], int] | None = None,
    ) -> None:
        """Hand messages to ``on_message`` from now on; let the handshake's headers go.

        Call it once the handler has read what it needs from the request (the client's address):
        at 10,000 idle connections, the two header sets kept for nothing are over 2 KB each.
        Without the direct paths (see :func:`self_check`) messages stay queued for the handler.
        ``on_control`` is told of every ping and unasked pong either way (websockets never queues
        them);
        ``quiet`` says how long the connection has been idle (its end goes first if it is not),
        ``worth`` what keeping it is worth (a full guard closes the least worth for a newcomer).
        """
        self.on_control, self.quiet, self.worth = on_control, quiet, worth
        if _direct_allowed():
            self.on_message = self._served = on_message
        for message in (self.request, self.response):
            if message is not None:
                message.headers = _NO_HEADERS

    def hold(self) -> None:
        """Queue messages as websockets does (the handler reads them at its own pace)."""
        self.on_message = None

    def resume(self) -> None:
        """Back to the direct path; queued messages still go first, so the order holds."""
        if self._served is not None:
            self.on_message = self._served

    def unserve(self) -> None:
        """The handler is done: hold, and keep no reference to it (it refers to this socket)."""
        self.on_message = self._served = self.on_control = self.quiet = self.on_latency = None
        self.worth = None

    def start_keepalive(self) -> None:
        """Join the server's keepalive (websockets calls this once the handshake is done)."""
        if self.keepalive is None:
            super().start_keepalive()
        else:
            self.keepalive.join(self)

    def connection_lost(self, exc: Exception | None) -> None:
        """Gone: leave the keepalive too."""
        if self.keepalive is not None:
            self.keepalive.leave(self)
        super().connection_lost(exc)

    @property
    def latency(self) -> float:
        """The last round trip a ping measured (websockets' ``latency``), 0 before any."""
        return self._latency

    @latency.setter
    def latency(self, value: float) -> None:
        self._latency = value
        on_latency = self.on_latency
        if on_latency is not None:
            try:
                on_latency(value)
            except Exception:  # never into websockets' reader
                log.exception("noting a round trip failed")

    def mute(self) -> None:
        """Read nothing more from this connection (it is being closed for what it sent)."""
        self.on_control = None
        self.muted = True
        self.transport.pause_reading()

    async def close(self, code: int = 1000, reason: str = "") -> None:
        """Perform the closing handshake; nothing at all once the connection is gone.

        websockets closes every connection again once its handler returns; on one already
        lost, its ``close`` does nothing but costs a context manager, a timeout, two shields and
        an exception built and caught (a quarter of what a closed connection cost the loop).
        A connection whose transport is closing (the guard may hand its loss to websockets a
        few loop turns later) can send nothing more: this waits for its end, as ``close`` would.
        """
        lost = getattr(self, "connection_lost_waiter", None)  # a websockets internal
        if lost is not None:
            if lost.done():
                return
            if self.transport.is_closing():  # nothing can be sent: what close would wait for
                await asyncio.shield(lost)
                return
        await super().close(code, reason)

    @property
    def held(self) -> bool:
        """Whether messages are queued instead of handled at once."""
        return self.on_message is None

    def data_received(self, data: bytes) -> None:
        """Take complete binary frames directly when possible; the rest goes to websockets."""
        if self.direct:
            rest = self._take(data)
            if rest is None:
                return
            self.direct = False
            super().data_received(rest)
        else:
            super().data_received(data)
        if self.transport.get_write_buffer_size() > MAX_BACKLOG:  # pongs websockets just wrote
            log.warning("closing a connection that does not read its pongs")
            self.transport.abort()
            return
        self._enter_direct()

    def _take(self, data: bytes) -> bytes | None:
        """Handle each complete binary frame in ``data``, in order.

        Returns None when all of ``data`` was taken, else the bytes from the first frame that
        websockets must parse: one it alone handles, one cut short by the end of ``data`` (its
        reader gathers the rest without copying the start again for every piece), or the first
        after the handler asked to hold.
        """
        size = len(data)
        limit = self.protocol.max_message_size or 1 << 62
        pos = 0
        while pos < size:
            on_message = self.on_message
            if on_message is None or self.protocol.state is not OPEN:
                return data[pos:]
            if size - pos < 2:
                return data[pos:]
            length = data[pos + 1] ^ 0x80  # the mask bit must be set: a client's frame
            if data[pos] != FIN_BINARY or length > 127:
                return data[pos:]
            if length < 126:
                start = pos + 6
            elif length == 126:
                if size - pos < 4:
                    return data[pos:]
                length = int.from_bytes(data[pos + 2 : pos + 4], "big")
                start = pos + 8
            else:
                return data[pos:]  # 64-bit lengths: only above the limit on this server
            if length > limit:
                return data[pos:]  # websockets refuses it (1009) as it always did
            end = start + length
            if end > size:
                return data[pos:]
            payload = apply_mask(data[start:end], data[start - 4 : start])
            pos = end
            try:
                on_message(payload)
            except Exception:  # never into the transport's callback
                log.exception("handling a message failed")
        return None

    def _enter_direct(self) -> None:
        """Parse here from now on, if websockets' parser is idle at a frame boundary."""
        protocol = self.protocol
        if (
            self.on_message is None
            or protocol.state is not OPEN
            or self.recv_messages.frames
            or protocol.reader.buffer
            or protocol.current_size is not None
        ):
            return
        inner: Any = protocol.parser  # inlined _innermost: once per read outside direct mode
        while getattr(inner, "gi_yieldfrom", None) is not None:
            inner = inner.gi_yieldfrom
        if _AT_BOUNDARY is not None and getattr(inner, "gi_code", None) is _AT_BOUNDARY:
            self.direct = True

    def asked(self, data: bytes | bytearray | memoryview) -> bool:
        """Whether a pong with ``data`` answers a ping of the server's own (websockets keeps
        them in ``pending_pings`` until their pong): it is measured, not charged."""
        return bytes(data) in getattr(self, "pending_pings", ())

    def process_event(self, event: object) -> None:
        """Hand a complete binary message to ``on_message`` when nothing is queued before it."""
        on_message = self.on_message
        if (
            on_message is not None
            and type(event) is Frame
            and event.fin
            and event.opcode is BINARY
            and not self.recv_messages.frames
            and self.protocol.state is OPEN
        ):
            data = event.data
            try:
                on_message(data if type(data) is bytes else bytes(data))
            except Exception:  # never into websockets' reader: it would drop the connection
                log.exception("handling a message failed")
            return
        on_control = self.on_control
        if (
            on_control is not None
            and type(event) is Frame
            and event.opcode in CONTROL
            and not (event.opcode is PONG and self.asked(event.data))
        ):
            try:
                on_control()
            except Exception:
                log.exception("charging a control frame failed")
        super().process_event(event)  # type: ignore[arg-type]
