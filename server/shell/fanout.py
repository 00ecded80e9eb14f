"""Frames out to sockets: each built once per broadcast, written without websockets'
per-connection copy, and a peer that does not read is cut off; and who is connected where."""

from __future__ import annotations

import logging
import struct
from collections.abc import Iterable
from typing import Protocol

from websockets.asyncio.server import ServerConnection, broadcast
from websockets.protocol import OPEN

from server.shell import conn
from server.shell.conn import MAX_BACKLOG

log = logging.getLogger("mnk.server")


class FanOut(Protocol):
    """Delivers a message to players wherever they are connected (a cluster's spans nodes), and
    keeps which socket of this process each player here is on."""

    def deliver(self, pids: Iterable[str], frame: bytes) -> None:
        """Send an encoded frame to every listed player that is online."""
        ...

    def socket(self, pid: str) -> ServerConnection | None:
        """``pid``'s socket on this process, if it has one."""
        ...

    def attach(self, pid: str, ws: ServerConnection) -> ServerConnection | None:
        """``pid`` is on ``ws`` here now: the socket it was on before, if any."""
        ...

    def detach(self, pid: str, ws: ServerConnection) -> bool:
        """``ws`` closed or changed player: ``pid`` is no longer on it here (False: it already
        was on another socket)."""
        ...


def ws_frame(payload: bytes) -> bytes:
    """The whole WebSocket frame a server sends for ``payload``: final, binary, unmasked.

    Built once per broadcast and written to every target as it is (websockets' ``broadcast``
    serializes the same frame again for each connection).
    """
    size = len(payload)
    if size < 126:
        return bytes((0x82, size)) + payload
    if size < 65536:
        return _HEAD16.pack(0x82, 126, size) + payload
    return _HEAD64.pack(0x82, 127, size) + payload


_HEAD16 = struct.Struct("!BBH")
_HEAD64 = struct.Struct("!BBQ")


def send_frame(targets: Iterable[ServerConnection], payload: bytes) -> None:
    """Write a message to every target now; a peer that lets too much pile up unread is cut off.

    Every frame the server sends goes through here, so no peer can grow the server's memory by
    not reading (websockets' ``broadcast`` itself applies no backpressure). An open connection
    with nothing half-sent and no extension gets the prebuilt frame on its transport directly,
    which is what websockets would write; any other goes through websockets' ``broadcast``.
    """
    frame = b""
    for ws in targets:
        transport = ws.transport
        if transport.is_closing():
            continue  # cut off or going: nothing more can reach it
        protocol = ws.protocol
        if (
            conn.DIRECT  # websockets' internals checked at import (server/shell/conn.py)
            and protocol.state is OPEN
            and ws.send_in_progress is None
            and not protocol.extensions
            and not protocol.expect_continuation_frame
        ):
            frame = frame or ws_frame(payload)
            transport.write(frame)
        else:
            broadcast((ws,), payload)
        if transport.get_write_buffer_size() > MAX_BACKLOG:
            log.warning("closing a connection that does not read its messages")
            transport.abort()


class LocalFanOut:
    """The embedded default: every player is connected to this process or offline."""

    def __init__(self) -> None:
        self.sockets: dict[str, ServerConnection] = {}

    def deliver(self, pids: Iterable[str], frame: bytes) -> None:
        """Send an encoded frame to every listed player connected here."""
        sockets = self.sockets
        targets = [ws for pid in pids if (ws := sockets.get(pid)) is not None]
        if targets:
            send_frame(targets, frame)

    def socket(self, pid: str) -> ServerConnection | None:
        """``pid``'s socket here, if it has one."""
        return self.sockets.get(pid)

    def attach(self, pid: str, ws: ServerConnection) -> ServerConnection | None:
        """``pid`` is on ``ws`` here now: the socket it was on before, if any."""
        old = self.sockets.get(pid)
        self.sockets[pid] = ws
        return old

    def detach(self, pid: str, ws: ServerConnection) -> bool:
        """``pid`` is no longer on ``ws`` here (False: it is on another socket, kept)."""
        if self.sockets.get(pid) is not ws:
            return False
        del self.sockets[pid]
        return True

    def forget(self, pid: str) -> None:
        """``pid``'s socket here no longer counts (it went to another node)."""
        self.sockets.pop(pid, None)
