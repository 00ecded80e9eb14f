"""The thin asyncio shell: WebSocket connections in, the arena's outputs delivered to sockets."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from protocol import wire
from protocol.vocab import CloseCode
from server.core.arena import Arena
from server.core.game.members import Send
from server.core.journal.rows import Heartbeat, JournalRow
from server.core.limits import Limits
from server.core.outputs import Auth, Close, Lookup, Out, Reply, Resolve
from server.core.ports import Members
from server.shell import lagprobe
from server.shell.archive import GameArchives
from server.shell.conn import ArenaConnection
from server.shell.fanout import FanOut, LocalFanOut, send_frame
from server.shell.front import PageLimits
from server.shell.guard import ConnectionGuard, client_key
from server.shell.keepalive import Keepalive
from server.shell.lane import LobbyLane, is_play
from server.shell.lookups import Lookups
from server.shell.peer import Peer, ServerConfig
from server.shell.pipeline import Pipeline
from server.shell.web import HostCheck, WebDoor
from server.storage.base import Storage
from server.storage.memory import MEMORY

log = logging.getLogger("mnk.server")


def guard_of(lim: Limits, trust_proxy: bool) -> ConnectionGuard:
    """The guard of every request before its handshake, bounded by the arena's limits."""
    return ConnectionGuard(
        lim.max_connections,
        lim.max_connections_per_address,
        trust_proxy,
        max_pending=lim.max_pending_per_address,
        refusal_rate=lim.refusal_rate,
        hello_rate=lim.hello_rate,
        hello_burst=lim.hello_burst,
        evict_after=lim.evict_after,
        pages=PageLimits(lim.page_rate, lim.page_burst, lim.max_page_requests_per_address),
    )


class ArenaServer:
    """Runs an :class:`Arena` behind ``websockets.asyncio.server``."""

    def __init__(
        self,
        arena: Arena,
        config: ServerConfig | None = None,
        store: Storage = MEMORY,
        *,
        inline_commits: bool = True,
        fanout: FanOut | None = None,
        on_hello: Callable[[str], None] | None = None,
    ) -> None:
        self.arena = arena
        #: Who is here (the arena's presence): a connection's worth, its player's lag.
        self.members: Members = arena.presence
        self.config = config or ServerConfig()
        self.store = store
        #: Set when the server cannot go on (a commit failed); its runner must stop it.
        self.failed = asyncio.Event()
        #: Set when the server stops: connections held unread are read again, to close them.
        self._stopping = asyncio.Event()
        self._unreading: set[asyncio.Future[None]] = set()
        #: Commits before deliveries; none where nothing is durable (a move goes out at once).
        self.pipeline: Pipeline | None = None
        if store.durable:  # small batches committed on the loop, if the store can
            self.pipeline = Pipeline(store, self._store_failed, inline=inline_commits)
        #: Bound once: each parked delivery is then a ``partial`` and its arguments (two objects
        #: for the cyclic collector to walk while they wait for a commit, where a closure was five).
        self._deliver_later = self._deliver
        self._broadcast_later = self._broadcast
        #: Requests other than moves and pings: a bounded share of each turn of the loop.
        self.lane = LobbyLane()
        #: Who is connected here (a cluster node's also routes to players on other nodes).
        self.fanout: FanOut = fanout if fanout is not None else LocalFanOut()
        #: Told of every player whose socket said hello here (a cluster's bus tells the others).
        self.on_hello = on_hello
        self.guard = guard_of(arena.limits, self.config.trust_proxy)
        #: Every request before its handshake: the guard's refusals, pages, the Origin check.
        hosts = HostCheck(self.config.served_names())
        #: An event's games in one archive, built off the loop (``GET /t/ID/games.zip``).
        self.archives = GameArchives(arena.tournament_export, store)
        self.door = WebDoor(
            self.guard.process_request, self.config.origins, hosts=hosts,
            archives=self.archives.games,
        )  # fmt: skip
        #: Pings every open connection (and closes the silent ones) from one timer.
        self.keepalive = Keepalive(self.config.ping_interval, self.config.ping_timeout)
        self.server: Server | None = None
        #: With TLS, a plain listener on loopback for the server's own built-in bots.
        self.internal: Server | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self._key_reader: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        #: History queries and session look-ups, answered off the event loop.
        self.lookups = Lookups(
            arena, store, self._answer, spawn=self._spawn,
            desk=arena.admission, games=arena.analysis, passwords=arena.accounts,
        )  # fmt: skip

    @property
    def port(self) -> int:
        """The port actually bound (useful when asked for port 0)."""
        assert self.server is not None
        return self.server.sockets[0].getsockname()[1]

    @property
    def local_url(self) -> str:
        """Where processes on this machine (the built-in bots) connect: plain ws on loopback."""
        if self.internal is not None:
            return f"ws://127.0.0.1:{self.internal.sockets[0].getsockname()[1]}"
        host = self.config.host
        host = "127.0.0.1" if host in ("", "0.0.0.0", "::") else host
        return f"ws://{host}:{self.port}"

    def _connections(self) -> list[ServerConnection]:
        servers = [s for s in (self.server, self.internal) if s is not None]
        return [ws for server in servers for ws in server.connections]

    async def start(self) -> None:
        """Restore saved games, bind the socket and start the periodic sweep."""
        cfg = self.config
        snapshot = self.store.load()
        self.arena.restore(snapshot)
        log.info("restored %d players and %d rooms", len(snapshot.players), len(snapshot.rooms))
        self.arena.load_keys(self.store.bot_keys())
        if self.pipeline is not None:
            self.pipeline.start()
        self._key_reader = asyncio.create_task(self._reload_keys_forever())
        factory = self.guard.connection_factory(self.keepalive)
        common: dict[str, Any] = {
            "compression": None,
            "max_size": cfg.max_frame,
            "server_header": None,
            "process_request": self.door,
            "create_connection": factory,
            # websockets' own keepalive, where a connection cannot join ours: the same rule
            "ping_interval": cfg.ping_interval,
            "ping_timeout": cfg.ping_timeout,
        }
        self.server = await serve(self.handle, cfg.host, cfg.port, ssl=cfg.ssl_context(), **common)
        if cfg.certfile is not None:
            self.internal = await serve(self.handle, "127.0.0.1", 0, **common)
        self._sweeper = asyncio.create_task(self._sweep_forever())

    async def stop(self) -> None:
        """Tell everyone, then close every connection with 1001 and stop listening."""
        self._stopping.set()
        for wake in list(self._unreading):
            _resolve(wake)
        for task in (self._sweeper, self._key_reader):
            if task is not None:
                task.cancel()
        if self.pipeline is None or not self.pipeline.failed:  # else they were told already
            self._emit(None, self.arena.shutdown(), self.arena.drain())
        if self.pipeline is not None:
            await self.pipeline.close()
        servers = [s for s in (self.server, self.internal) if s is not None]
        for server in servers:
            server.close(close_connections=False)
        closing = [
            ws.close(CloseCode.GOING_AWAY, "server shutting down") for ws in self._connections()
        ]
        await asyncio.gather(*closing, return_exceptions=True)
        for server in servers:
            await server.wait_closed()
        self.keepalive.close()
        self.lookups.close()
        self.archives.close()
        self.store.close()

    def _store_failed(self) -> None:
        """A commit failed for good: tell every client the server is going, then stop."""
        note = wire.encode({"type": "server_shutdown", "message": "the server is shutting down"})
        send_frame(self._connections(), note)
        self.failed.set()

    async def handle(self, ws: ServerConnection) -> None:
        """One connection: frames in order through the arena, outputs delivered at once."""
        arena = self.arena
        peer = Peer(ws, arena.connect(client_key(ws)))
        deadline = peer.watch_hello(
            asyncio.get_running_loop().call_later(arena.hello_timeout, self._hello_deadline, peer)
        )
        if isinstance(ws, ArenaConnection):  # messages are handled as soon as they are parsed
            receive, control = (functools.partial(f, peer) for f in (self._receive, self._control))
            quiet = functools.partial(peer.quiet, self.members, arena.clock)
            worth = functools.partial(peer.worth, self.members)
            ws.serve(receive, control, quiet, worth)
        try:
            async for frame in ws:  # what websockets queued: text, fragments, a held peer's
                if peer.waiting is not None:  # its request before this one waits in the lane
                    await peer.waiting
                wait = peer.resume_at - arena.clock()
                if wait > 0:
                    await self._unread(wait)
                self._receive(peer, frame)
        except ConnectionClosed:
            pass
        finally:
            if peer.deferred is not None:  # what it asked before it went comes first
                self._undefer(peer)
            if isinstance(ws, ArenaConnection):
                ws.unserve()
            deadline.cancel()
            peer.close()
            for task in list(peer.lookups):
                task.cancel()
            pid = peer.conn.pid
            if pid is not None and self.fanout.detach(pid, ws):
                self._emit(None, arena.disconnect(peer.conn), arena.drain())

    def _receive(self, peer: Peer, frame: bytes | str) -> None:
        """One message of ``peer``: a move or a ping at once, anything else through the lobby
        lane (now if this turn's budget allows, else on a later turn, ``peer`` held meanwhile).

        A held peer's next frames wait in websockets' queue (and, once that is full, in its
        socket) until ``handle`` reads them, each after the one before: a throttled peer's at
        the allowed pace, a deferred request's once it was handled.
        """
        if is_play(frame):
            self._handle(peer, frame)
        elif self.lane.has_room():
            self.lane.run(functools.partial(self._handle, peer, frame))
        else:
            peer.defer(frame, asyncio.get_running_loop().create_future())
            if isinstance(peer.ws, ArenaConnection) and not peer.ws.held:
                peer.ws.hold()
            self.lane.defer(functools.partial(self._undefer, peer))

    def _control(self, peer: Peer) -> None:
        """A ping or pong of ``peer``, charged to its rate; past it, closed (1008), unread."""
        now = self.arena.clock()
        ws = peer.ws
        if peer.control(now) and isinstance(ws, ArenaConnection):
            ws.mute()  # once: what it sends until the close times out is not read
            self.arena.note_limit(peer.conn, "control_frames", now)
            self._spawn(ws.close(CloseCode.POLICY, "too many pings"))

    def _handle(self, peer: Peer, frame: bytes | str) -> None:
        """One message of ``peer`` through the arena; its outputs leave once committed."""
        before = peer.conn.pid
        self._answer(peer, before, self.arena.receive(peer.conn, frame))

    def _undefer(self, peer: Peer) -> None:
        """Handle ``peer``'s request that waited in the lane (unless its closing did), then let
        its later frames through."""
        frame, waiting = peer.undefer()
        if frame is None:
            return
        try:
            self._handle(peer, frame)
        finally:
            if waiting is not None and not waiting.done():
                waiting.set_result(None)
            if isinstance(peer.ws, ArenaConnection):
                self._unthrottle(peer)

    def _answer(self, peer: Peer, before: str | None, out: list[Out]) -> None:
        """Deliver the arena's outputs for ``peer``'s message (a hello registers its socket)."""
        arena = self.arena
        conn = peer.conn
        if conn.pid is not None and before is None:
            if peer.deadline is not None:
                peer.deadline.cancel()
            self.guard.said_hello(peer.ws)
            self._register(conn.pid, peer.ws)
            lagprobe.watch(peer.ws, self.members, conn, self._spawn)
        elif before is not None and conn.pid is not None and conn.pid != before:  # logged in/out
            self.fanout.detach(before, peer.ws)
            self._register(conn.pid, peer.ws)
        self._emit(peer, out, arena.drain())
        if out and _rate_limited(out[0]):
            now = arena.clock()
            pause = peer.refused(now)
            if pause > 0:
                peer.pause_until(now + pause)
                if isinstance(peer.ws, ArenaConnection) and not peer.ws.held:
                    peer.ws.hold()  # later frames queue up for ``handle``
                    asyncio.get_running_loop().call_later(pause, self._unthrottle, peer)

    def _unthrottle(self, peer: Peer) -> None:
        """Put a held peer back on the direct path once nothing holds it: its throttle's pause
        is over and no request of its waits in the lobby lane.

        Frames it sent meanwhile are still in websockets' queue; the direct path takes none
        until ``handle`` has read them all, so the order holds.
        """
        if peer.closed or peer.deferred is not None:  # the lane lets it go once it has run
            return
        wait = peer.resume_at - self.arena.clock()
        if wait > 0:  # refused again meanwhile (from ``handle``'s reads): wait that out too
            asyncio.get_running_loop().call_later(wait, self._unthrottle, peer)
            return
        assert isinstance(peer.ws, ArenaConnection)
        peer.ws.resume()

    async def _unread(self, seconds: float) -> None:
        """Read nothing from this connection for ``seconds`` (its frames wait in its socket),
        unless the server stops first. One timer: a pause is at most one token's time."""
        loop = asyncio.get_running_loop()
        if self._stopping.is_set():
            return
        wake = loop.create_future()
        timer = loop.call_later(seconds, _resolve, wake)
        self._unreading.add(wake)
        try:
            await wake
        finally:
            timer.cancel()
            self._unreading.discard(wake)

    def _hello_deadline(self, peer: Peer) -> None:
        if peer.conn.pid is None and not peer.closed:
            self.arena.note_limit(peer.conn, "hello_timeout", self.arena.clock())
            self._spawn(peer.ws.close(CloseCode.POLICY, "say hello in time"))

    def _register(self, pid: str, ws: ServerConnection) -> None:
        old = self.fanout.attach(pid, ws)
        if old is not None and old is not ws:
            self._spawn(old.close(CloseCode.REPLACED, "session resumed elsewhere"))
        if self.on_hello is not None:
            self.on_hello(pid)

    def close_replaced(self, pid: str) -> None:
        """``pid`` said hello on another cluster node: close its socket here with 4000."""
        ws = self.fanout.socket(pid)
        if ws is not None:
            self._spawn(ws.close(CloseCode.REPLACED, "session resumed elsewhere"))

    # -- the outbox: what the server sends outside a request (a cluster node's) -----------------

    def emit(self, out: list[Out]) -> None:
        """Send ``out`` once everything the arena recorded so far is committed."""
        self._emit(None, out, self.arena.drain())

    def after(self, callback: Callable[[], object]) -> None:
        """Run ``callback`` once everything emitted so far is committed and sent."""
        if self.pipeline is None:
            callback()
        else:
            self.pipeline.submit([], callback)

    def connected(self, pid: str) -> bool:
        """Whether ``pid`` has a socket on this process."""
        return self.fanout.socket(pid) is not None

    def _spawn(self, coro: Any) -> asyncio.Task[None]:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _emit(self, peer: Peer | None, out: list[Out], records: list[JournalRow]) -> None:
        """Deliver ``out`` once ``records`` are durable (at once when there is no store)."""
        if self.pipeline is None:
            self._deliver(peer, out)
        elif out or records:
            urgent = not records and all(_stateless(item) for item in out)
            self.pipeline.submit(records, self._parked(peer, out), urgent)

    def _parked(self, peer: Peer | None, out: list[Out]) -> Callable[[], None]:
        """What delivers ``out`` after the commit, holding as few objects as it can meanwhile.

        What waits for a commit outlives young collections, and the cyclic collector walks it
        again in the older ones: a move's one broadcast waits as its encoded frame (bytes, not
        walked) instead of the list, the ``Send`` and the message dict it came as."""
        if len(out) == 1 and type(out[0]) is Send:
            item = out[0]
            try:
                frame = wire.encode(item.message)
            except Exception:  # delivered (and logged) as any other output
                return functools.partial(self._deliver_later, peer, out)
            return functools.partial(self._broadcast_later, item.to, frame)
        return functools.partial(self._deliver_later, peer, out)

    def _broadcast(self, to: tuple[str, ...], frame: bytes) -> None:
        """Send an encoded frame to players wherever they are (through the current fan-out)."""
        self.fanout.deliver(to, frame)

    def _deliver(self, peer: Peer | None, out: list[Out]) -> None:
        for item in out:
            if isinstance(item, Lookup | Resolve | Auth):  # answered off the loop, in a task
                if peer is not None:
                    self.lookups.start(peer, item)
                continue
            if isinstance(item, Close):
                if peer is not None:
                    self._spawn(peer.ws.close(item.code, item.reason))
                continue
            frame = wire.encode(item.message)
            if isinstance(item, Reply):
                if peer is not None:
                    send_frame([peer.ws], frame)
            else:
                self.fanout.deliver(item.to, frame)

    async def _reload_keys_forever(self) -> None:
        """Pick up keys added or revoked in the database; cut off bots whose key is gone."""
        while True:
            await asyncio.sleep(self.config.keys_interval)
            try:
                self.arena.load_keys(await asyncio.to_thread(self.store.bot_keys))
            except Exception:
                log.exception("reading the bot keys failed; keeping the ones known")
                continue
            for pid in self.arena.revoked_bots():
                ws = self.fanout.socket(pid)
                if ws is not None:
                    log.info("closing the connection of a bot whose key was revoked")
                    self._spawn(ws.close(CloseCode.KEY_REVOKED, "bot key revoked"))

    async def _sweep_forever(self) -> None:
        loop = asyncio.get_running_loop()
        next_beat = 0.0
        while True:
            await asyncio.sleep(self.config.sweep_interval)
            try:
                records = []
                if self.store.durable and loop.time() >= next_beat:
                    next_beat = loop.time() + self.config.heartbeat_interval
                    records.append(Heartbeat(self.arena.clock()))
                self.guard.report(loop.time())
                out = self.arena.sweep()
                self._emit(None, out, self.arena.drain() + records)
            except Exception:
                log.exception("sweep failed")


def _resolve(future: asyncio.Future[None]) -> None:
    """Wake whoever waits on ``future`` (once)."""
    if not future.done():
        future.set_result(None)


def _rate_limited(item: Out) -> bool:
    """Whether ``item`` refuses a frame for its connection's rate."""
    return isinstance(item, Reply) and item.message.get("code") == "rate_limited"


def _stateless(item: Out) -> bool:
    """Whether ``item`` reveals nothing a commit could take back (a pong, a refusal)."""
    if not isinstance(item, Reply):
        return isinstance(item, Close)
    kind = item.message["type"]
    return kind == "pong" or (kind == "error" and item.message["code"] in _STATELESS_ERRORS)


#: Errors about the frame itself, given before any state is looked at.
_STATELESS_ERRORS = frozenset({"rate_limited", "bad_frame", "bad_message", "not_hello"})
