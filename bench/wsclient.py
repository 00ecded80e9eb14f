"""A minimal WebSocket client for the load generator: binary messages over a bare asyncio protocol.

In a closed-loop benchmark on 2 cores the generator's own CPU per move caps what any target can
show (at 100 games it took a whole core with websockets' client, whose per-message path runs a
generator-based parser, a queue and an asyncio task switch). This client does only what the
benchmark needs, the same for every target: one HTTP/1.1 upgrade, binary messages sent as one
masked frame each (the mask key is zero: legal framing, and XOR with zeros needs no copy),
unmasked final frames from the target parsed in place, pings answered. Anything else (a
fragmented or masked frame from the target, a close) ends the connection.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
from collections import deque
from urllib.parse import urlsplit

_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
_ZERO_MASK = b"\0\0\0\0"
_BINARY, _CLOSE, _PING, _PONG = 0x2, 0x8, 0x9, 0xA


class ConnectionClosed(Exception):
    """The connection ended (closed by the target, lost, or a frame this client does not take)."""


def _frame(opcode: int, payload: bytes) -> bytes:
    """One final, masked (with a zero key) client frame."""
    n = len(payload)
    if n < 126:
        head = bytes((0x80 | opcode, 0x80 | n))
    elif n < 1 << 16:
        head = bytes((0x80 | opcode, 0x80 | 126)) + n.to_bytes(2, "big")
    else:
        head = bytes((0x80 | opcode, 0x80 | 127)) + n.to_bytes(8, "big")
    return head + _ZERO_MASK + payload


class WsClient(asyncio.Protocol):
    """One client connection: ``send``/``recv`` whole binary messages, ``close``."""

    def __init__(self, host: str, path: str, max_size: int) -> None:
        self.max_size = max_size
        self.transport: asyncio.Transport | None = None
        self._buf = bytearray()
        self._messages: deque[bytes] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._closed: ConnectionClosed | None = None
        self._key = base64.b64encode(os.urandom(16))
        self._request = (
            f"GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n".encode()
            + b"Sec-WebSocket-Key: "
            + self._key
            + b"\r\n\r\n"
        )
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    # -- asyncio.Protocol --------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Send the upgrade request."""
        self.transport = transport  # type: ignore[assignment]  # uvloop's is not a subclass
        transport.write(self._request)

    def data_received(self, data: bytes) -> None:
        """Take the upgrade response, then whole frames; keep a partial frame for later."""
        buf = self._buf
        buf += data
        if not self.opened.done():
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(buf[:end])
            del buf[: end + 4]
            accept = base64.b64encode(hashlib.sha1(self._key + _GUID).digest())
            if not head.startswith(b"HTTP/1.1 101") or accept not in head:
                self._end(f"handshake refused: {head[:80]!r}")
                return
            self.opened.set_result(None)
        self._parse()

    def connection_lost(self, exc: Exception | None) -> None:
        """Wake a reader: nothing more will come."""
        self._end(f"connection lost: {exc}")

    # -- frames ------------------------------------------------------------------------------

    def _parse(self) -> None:
        buf = self._buf
        size = len(buf)
        pos = 0
        got = False
        while size - pos >= 2:
            b0, b1 = buf[pos], buf[pos + 1]
            length = b1 & 0x7F
            head = 2
            if length == 126:
                if size - pos < 4:
                    break
                length = int.from_bytes(buf[pos + 2 : pos + 4], "big")
                head = 4
            elif length == 127:
                if size - pos < 10:
                    break
                length = int.from_bytes(buf[pos + 2 : pos + 10], "big")
                head = 10
            if b0 & 0xF0 != 0x80 or b1 & 0x80 or length > self.max_size:
                self._end(f"unexpected frame header {b0:#x} {b1:#x} ({length} bytes)")
                return
            end = pos + head + length
            if end > size:
                break
            opcode = b0 & 0x0F
            if opcode == _BINARY:
                self._messages.append(bytes(buf[pos + head : end]))
                got = True
            elif opcode == _PING:
                self.transport.write(_frame(_PONG, bytes(buf[pos + head : end])))  # type: ignore[union-attr]
            elif opcode != _PONG:
                self._end(f"frame with opcode {opcode}")
                return
            pos = end
        del buf[:pos]
        waiter = self._waiter
        if got and waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _end(self, why: str) -> None:
        if self._closed is None:
            self._closed = ConnectionClosed(why)
        if not self.opened.done():
            self.opened.set_exception(self._closed)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)
        if self.transport is not None:
            self.transport.close()

    # -- the client's API (the part of websockets' ClientConnection the generator uses) --------

    async def send(self, message: bytes) -> None:
        """Send one binary message as one frame."""
        if self._closed is not None:
            raise self._closed
        self.transport.write(_frame(_BINARY, message))  # type: ignore[union-attr]

    async def recv(self) -> bytes:
        """The next whole message (raises ConnectionClosed once the connection ended)."""
        messages = self._messages
        if not messages:
            if self._closed is not None:
                raise self._closed
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
            if not messages:
                raise self._closed or ConnectionClosed("woken without a message")
        return messages.popleft()

    async def close(self) -> None:
        """Send a normal close frame and drop the connection."""
        if self._closed is None and self.transport is not None:
            self.transport.write(_frame(_CLOSE, (1000).to_bytes(2, "big")))
        self._end("closed by the client")


async def connect(
    url: str,
    max_size: int,
    open_timeout: float,
) -> WsClient:
    """Open a ``ws://`` connection and complete the upgrade."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    loop = asyncio.get_running_loop()
    async with asyncio.timeout(open_timeout):
        _, client = await loop.create_connection(
            lambda: WsClient(parts.netloc, parts.path or "/", max_size),
            host,
            port,
        )
        await client.opened
    return client
