"""The thin asyncio shell: WebSocket connections in, the arena's outputs delivered to sockets."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from websockets.asyncio.server import Server, ServerConnection, broadcast, serve
from websockets.exceptions import ConnectionClosed

from protocol import wire
from server.arena import Arena, Out, Reply
from server.room import Send

log = logging.getLogger("mnk.server")

#: Close codes: 1001 going away (shutdown); 4000 this session was resumed on another connection.
CLOSE_GOING_AWAY = 1001
CLOSE_REPLACED = 4000
#: A peer that lets this much pile up unread in its socket buffer is cut off.
MAX_BACKLOG = 1 << 20


class FanOut(Protocol):
    """Delivers a message to players wherever they are connected (Redis later spans processes)."""

    def deliver(self, pids: Iterable[str], frame: bytes) -> None:
        """Send an encoded frame to every listed player that is online."""
        ...


class LocalFanOut:
    """The embedded default: every player is connected to this process or offline."""

    def __init__(self) -> None:
        self.sockets: dict[str, ServerConnection] = {}

    def deliver(self, pids: Iterable[str], frame: bytes) -> None:
        """Send an encoded frame to every listed player connected here."""
        sockets = self.sockets
        targets = [ws for pid in pids if (ws := sockets.get(pid)) is not None]
        if targets:
            broadcast(targets, frame)
            for ws in targets:
                if ws.transport.get_write_buffer_size() > MAX_BACKLOG:
                    log.warning("closing a connection that does not read its messages")
                    ws.transport.abort()


@dataclass
class ServerConfig:
    """Where to listen and how the transport behaves."""

    host: str = "127.0.0.1"
    port: int = 8765
    max_frame: int = wire.MAX_FRAME
    sweep_interval: float = 0.1


class ArenaServer:
    """Runs an :class:`Arena` behind ``websockets.asyncio.server``."""

    def __init__(self, arena: Arena, config: ServerConfig | None = None) -> None:
        self.arena = arena
        self.config = config or ServerConfig()
        self.fanout = LocalFanOut()
        self.server: Server | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self._closing: set[asyncio.Task[None]] = set()

    @property
    def port(self) -> int:
        """The port actually bound (useful when asked for port 0)."""
        assert self.server is not None
        return self.server.sockets[0].getsockname()[1]

    async def start(self) -> None:
        """Bind the socket and start the periodic sweep."""
        cfg = self.config
        self.server = await serve(
            self.handle,
            cfg.host,
            cfg.port,
            compression=None,
            max_size=cfg.max_frame,
            server_header=None,
        )
        self._sweeper = asyncio.create_task(self._sweep_forever())

    async def stop(self) -> None:
        """Tell everyone, then close every connection with 1001 and stop listening."""
        if self._sweeper is not None:
            self._sweeper.cancel()
        self._deliver(None, self.arena.shutdown())
        if self.server is not None:
            self.server.close(close_connections=False)
            closing = [
                ws.close(CLOSE_GOING_AWAY, "server shutting down")
                for ws in list(self.server.connections)
            ]
            await asyncio.gather(*closing, return_exceptions=True)
            await self.server.wait_closed()

    async def handle(self, ws: ServerConnection) -> None:
        """One connection: frames in order through the arena, outputs delivered at once."""
        arena = self.arena
        conn = arena.connect()
        try:
            async for frame in ws:
                before = conn.pid
                out = arena.receive(conn, frame)
                if conn.pid is not None and before is None:
                    self._register(conn.pid, ws)
                self._deliver(ws, out)
        except ConnectionClosed:
            pass
        finally:
            if conn.pid is not None and self.fanout.sockets.get(conn.pid) is ws:
                del self.fanout.sockets[conn.pid]
                self._deliver(None, arena.disconnect(conn))

    def _register(self, pid: str, ws: ServerConnection) -> None:
        old = self.fanout.sockets.get(pid)
        self.fanout.sockets[pid] = ws
        if old is not None and old is not ws:
            task = asyncio.create_task(old.close(CLOSE_REPLACED, "session resumed elsewhere"))
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)

    def _deliver(self, ws: ServerConnection | None, out: list[Out]) -> None:
        for item in out:
            frame = wire.encode(item.message)
            if isinstance(item, Reply):
                if ws is not None:
                    broadcast((ws,), frame)
            elif isinstance(item, Send):
                self.fanout.deliver(item.to, frame)

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(self.config.sweep_interval)
            try:
                self._deliver(None, self.arena.sweep())
            except Exception:
                log.exception("sweep failed")


async def run_until(server: ArenaServer, stop: asyncio.Event) -> None:
    """Serve until ``stop`` is set, then shut down cleanly."""
    await server.start()
    log.info("mnk-server listening on ws://%s:%d", server.config.host, server.port)
    try:
        await stop.wait()
    finally:
        with contextlib.suppress(Exception):
            await server.stop()
