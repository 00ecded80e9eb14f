"""The thin asyncio shell: WebSocket connections in, the arena's outputs delivered to sockets."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from websockets.asyncio.server import Server, ServerConnection, broadcast, serve
from websockets.exceptions import ConnectionClosed

from protocol import wire
from protocol.errors import ArenaError, InternalError, NoHistory
from protocol.vocab import Close
from server.arena import Arena, Lookup, Out, Reply
from server.journal import Heartbeat, Record
from server.pipeline import Pipeline
from server.store import Store

log = logging.getLogger("mnk.server")

#: Close codes: going away (shutdown); this session was resumed on another connection.
CLOSE_GOING_AWAY = Close.GOING_AWAY
CLOSE_REPLACED = Close.REPLACED
#: A peer that lets this much pile up unread in its socket buffer is cut off.
MAX_BACKLOG = 1 << 20


class FanOut(Protocol):
    """Delivers a message to players wherever they are connected (Redis later spans processes)."""

    def deliver(self, pids: Iterable[str], frame: bytes) -> None:
        """Send an encoded frame to every listed player that is online."""
        ...


def send_frame(targets: list[ServerConnection], frame: bytes) -> None:
    """Write a frame to every target now; a peer that lets too much pile up unread is cut off.

    Every frame the server sends goes through here, so no peer can grow the server's memory by
    not reading (websockets' ``broadcast`` itself applies no backpressure).
    """
    broadcast(targets, frame)
    for ws in targets:
        if ws.transport.get_write_buffer_size() > MAX_BACKLOG:
            log.warning("closing a connection that does not read its messages")
            ws.transport.abort()


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


@dataclass
class ServerConfig:
    """Where to listen and how the transport behaves."""

    host: str = "127.0.0.1"
    port: int = 8765
    max_frame: int = wire.MAX_FRAME
    sweep_interval: float = 0.05
    heartbeat_interval: float = 1.0


class ArenaServer:
    """Runs an :class:`Arena` behind ``websockets.asyncio.server``."""

    def __init__(
        self, arena: Arena, config: ServerConfig | None = None, store: Store | None = None
    ) -> None:
        self.arena = arena
        self.config = config or ServerConfig()
        self.store = store
        #: Set when the server cannot go on (a commit failed); its runner must stop it.
        self.failed = asyncio.Event()
        self.pipeline = Pipeline(store, self.failed.set) if store is not None else None
        self.fanout = LocalFanOut()
        self.server: Server | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def port(self) -> int:
        """The port actually bound (useful when asked for port 0)."""
        assert self.server is not None
        return self.server.sockets[0].getsockname()[1]

    async def start(self) -> None:
        """Restore saved games, bind the socket and start the periodic sweep."""
        cfg = self.config
        if self.store is not None and self.pipeline is not None:
            snapshot = self.store.load()
            self.arena.restore(snapshot)
            log.info("restored %d players and %d rooms", len(snapshot.players), len(snapshot.rooms))
            self.pipeline.start()
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
        self._emit(None, self.arena.shutdown(), self.arena.drain())
        if self.pipeline is not None:
            await self.pipeline.close()
        if self.server is not None:
            self.server.close(close_connections=False)
            closing = [
                ws.close(CLOSE_GOING_AWAY, "server shutting down")
                for ws in list(self.server.connections)
            ]
            await asyncio.gather(*closing, return_exceptions=True)
            await self.server.wait_closed()
        if self.store is not None:
            self.store.close()

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
                self._emit(ws, out, arena.drain())
        except ConnectionClosed:
            pass
        finally:
            if conn.pid is not None and self.fanout.sockets.get(conn.pid) is ws:
                del self.fanout.sockets[conn.pid]
                self._emit(None, arena.disconnect(conn), arena.drain())

    def _register(self, pid: str, ws: ServerConnection) -> None:
        old = self.fanout.sockets.get(pid)
        self.fanout.sockets[pid] = ws
        if old is not None and old is not ws:
            self._spawn(old.close(CLOSE_REPLACED, "session resumed elsewhere"))

    def _spawn(self, coro: Any) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _emit(self, ws: ServerConnection | None, out: list[Out], records: list[Record]) -> None:
        """Deliver ``out`` once ``records`` are durable (at once when there is no store)."""
        if self.pipeline is None:
            self._deliver(ws, out)
        elif out or records:
            self.pipeline.submit(records, lambda: self._deliver(ws, out))

    def _deliver(self, ws: ServerConnection | None, out: list[Out]) -> None:
        for item in out:
            if isinstance(item, Lookup):
                if ws is not None:
                    self._spawn(self._lookup(ws, item))
                continue
            frame = wire.encode(item.message)
            if isinstance(item, Reply):
                if ws is not None:
                    send_frame([ws], frame)
            else:
                self.fanout.deliver(item.to, frame)

    async def _lookup(self, ws: ServerConnection, item: Lookup) -> None:
        """Answer a history query from the store on a worker thread."""
        try:
            if self.store is None:
                raise NoHistory("this server keeps no game history")
            query = getattr(self.store, item.query)
            reply = await asyncio.to_thread(query, **item.params)
        except ArenaError as exc:
            reply = wire.error(exc.code, exc.message)
        except Exception:
            log.exception("history query %s failed", item.query)
            exc = InternalError("the server failed on this request")
            reply = wire.error(exc.code, exc.message)
        if item.request_id is not None:
            reply["id"] = item.request_id
        send_frame([ws], wire.encode(reply))

    async def _sweep_forever(self) -> None:
        loop = asyncio.get_running_loop()
        next_beat = 0.0
        while True:
            await asyncio.sleep(self.config.sweep_interval)
            try:
                records = []
                if self.store is not None and loop.time() >= next_beat:
                    next_beat = loop.time() + self.config.heartbeat_interval
                    records.append(Heartbeat(self.arena.clock()))
                out = self.arena.sweep()
                self._emit(None, out, self.arena.drain() + records)
            except Exception:
                log.exception("sweep failed")
