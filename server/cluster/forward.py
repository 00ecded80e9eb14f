"""Forwarding between cluster nodes: a request about another node's room goes to its owner, and
the owner's outputs for that player come back to the node holding the player's socket.

Each node reads its inbox, a Redis Stream ``mnk:DB:node:NAME:in``, with ``XREAD BLOCK`` from the
last entry it read (a Stream keeps entries across a reader's reconnect, unlike pub/sub), trimmed
with ``MAXLEN ~``. An entry is ``[from_node, [op, …]]`` (``wire.encode_entry``), its ops the
typed values of :mod:`server.cluster.ops`: a player's ``Request`` (acknowledged with an ``Ack``
behind its outputs; a retry is sent again because the room's owner changed, see
``server/cluster/reroute.py``), its ``Attach`` and ``Offline``, the frames for the players
connected to the reader (``Deliver``), and failover's and the bot seats' ops, which this module
hands to them.

The owner treats a forwarded player as a *remote member*: a player of its arena whose outputs
(sent in commit order, after the commit, as for any player) are routed by :class:`ClusterFanOut`
to the player's node instead of a socket; replies (with the request's ``id``) travel the same
way. One sender task writes every op queued in a tick to each node as one entry, in order, so a
move among players on its owner costs no bus message and a forwarded one at most one entry per
node involved (request, reply, and the other node's broadcast: 3). Only nodes write to Redis:
clients never reach it. A Redis outage loses the entries of that time (at most once, as the
issue's Redis is allowed to): the clients resynchronise with the ``state`` they get on reconnect.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from protocol import wire
from protocol.errors import ArenaError, BadFrame, NodeUnavailableError, RateLimited
from protocol.wire import MAX_ROOM_ID, Message
from server.cluster.failover import Failover
from server.cluster.fanout import ClusterFanOut
from server.cluster.ops import Ack, Attach, Deliver, Offline, Op, Request, decode, encode
from server.cluster.ports import ClusterStore, Lobbies, Outbox
from server.cluster.targets import missing, owners, target_of
from server.core.game.members import Send
from server.core.outputs import Close, Lookup, Out, Reply
from server.core.players.players import Conn, Player
from server.core.ports import EventsFeed, Members, Requests, RoomsView
from server.core.ratelimit import TokenBucket

log = logging.getLogger("mnk.cluster")

#: Milliseconds one ``XREAD`` blocks for (the socket timeout is longer, else it would fail).
BLOCK_MS = 1000
TIMEOUT = 1.0
#: Entries read at once, and kept in an inbox (approximately) for a reader that reconnects.
READ_COUNT = 256
MAXLEN = 10_000
#: Ops waiting to be written, in all (past it ops are dropped: Redis cannot keep up), and per entry.
MAX_PENDING = 50_000
MAX_OPS = 512
#: Requests waiting for a room's owner to be looked up in PostgreSQL: rooms, and per room.
MAX_LOOKUPS = 256
MAX_WAITING = 64
#: Nodes remembered per player as holding it (they hear when the player comes or goes).
MAX_VIA = 64
MAX_VIA_PLAYERS = 65_536
#: Seconds between two INFO lines (and Redis ``mnk:DB:bus`` updates) with the counters.
LOG_INTERVAL = 60.0
STATS_INTERVAL = 0.5


class Forwarder:
    """One node's inbox and outbox on Redis, and both ends of forwarding (see the module)."""

    def __init__(
        self,
        url: str,
        node: str,
        arena: Requests,
        *,
        outbox: Outbox,
        store: ClusterStore,
        lobbies: Lobbies,
        fanout: ClusterFanOut,
        others: Callable[[str, Op], None],
        lease_s: float,
        members: Members,
        rooms: RoomsView,
        events: EventsFeed | None = None,
    ) -> None:
        #: Who is here, this node's rooms and events (the arena's, core/ports.py).
        self.members, self.rooms, self.events = members, rooms, events
        self.redis = aioredis.Redis.from_url(
            url, socket_timeout=BLOCK_MS / 1000 + TIMEOUT, socket_connect_timeout=TIMEOUT
        )
        db = self.redis.connection_pool.connection_kwargs.get("db", 0)
        self.prefix = f"mnk:{db}:"
        self.node, self.arena, self.outbox, self.store = node, arena, outbox, store
        self.lobbies, self.fanout = lobbies, fanout
        #: Carries out the ops this module does not (the bot seats').
        self.others = others
        self.inbox = self.inbox_of(node)
        self.remote = fanout.remote
        #: Remote members' connections here (their rate buckets; their node charged them first).
        self._conns: dict[str, Conn] = {}
        #: Players this node made for remote members (forgotten when they leave every room).
        self._made: set[str] = set()
        #: Per player connected here, the nodes holding it as a remote member (its requests
        #: went there, or their outputs for it came here): they hear when it comes and goes.
        self._via: dict[str, dict[str, None]] = {}
        #: Requests waiting for their room's owner to be read from PostgreSQL, per room.
        self._waiting: dict[str, list[tuple[Player, Message]]] = {}
        self._outbox: dict[str, list[list[Any]]] = {}
        self._pending = 0
        self._wake = asyncio.Event()
        #: Set while handling a remote member's request: nothing is forwarded again.
        self._inside = False
        #: Set when that request found no room or event here (an adoption may bring it).
        self._missed = False
        self._last_id = "0-0"
        #: Bus entries written and read, and ops dropped (Redis unreachable or too slow).
        self.sent = self.received = self.dropped = 0
        self._tasks: list[asyncio.Task[None]] = []
        self._lookups: set[asyncio.Task[None]] = set()
        self._warned = -LOG_INTERVAL
        #: Requests not answered yet and remote memberships, sent again to a room's adopter.
        self.failover = Failover(
            self, outbox, store=store, lobbies=lobbies, lease_s=lease_s, members=members,
            rooms=rooms,
        )  # fmt: skip
        self.rerouter = self.failover.rerouter

    def inbox_of(self, node: str) -> str:
        """The key of ``node``'s inbox stream."""
        return f"{self.prefix}node:{node}:in"

    async def connect(self) -> None:
        """Read on from the newest entry: what was sent to an earlier process of this node is
        about rooms and sockets that process had, so it is not replayed."""
        newest = await self.redis.xrevrange(self.inbox, count=1)
        if newest:
            self._last_id = newest[0][0].decode()

    def start(self) -> None:
        """Start reading the inbox and writing the outbox."""
        works = (self._read_forever(), self._send_forever(), self._stats_forever())
        for work in (*works, self.failover.run_forever()):
            self._tasks.append(asyncio.create_task(work))

    async def stop(self) -> None:
        """Stop reading and writing (within a bounded time) and close the connection."""
        for task in (*self._tasks, *self._lookups):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, RedisError, OSError):
                await task
        with contextlib.suppress(RedisError, OSError, TimeoutError):
            async with asyncio.timeout(TIMEOUT):
                await self.redis.aclose()

    # -- the node holding the socket ---------------------------------------------------------

    def request(self, player: Player, msg: Message) -> list[Out]:
        """Forward a request about a room (or an event) this node does not hold to its owner."""
        room = target_of(msg)
        if self._inside or len(room) > MAX_ROOM_ID:  # a forwarded request is never sent on
            self._missed = self._inside
            raise missing(room)
        waiting = self._waiting.get(room)
        owner = self.lobbies.owners.get(room)
        if waiting is None and owner is not None:
            self._send_request(owner, player, msg)
            return []
        if waiting is None:  # not in the lobby (yet): PostgreSQL knows its owner
            if len(self._waiting) >= MAX_LOOKUPS:
                raise RateLimited("too many rooms looked up at once; try again")
            waiting = self._waiting[room] = []
            self.spawn(self._look_up(room))
        if len(waiting) >= MAX_WAITING:
            raise RateLimited("too many requests for a room being looked up; slow down")
        waiting.append((player, msg))  # behind the others for that room: the order holds
        return []

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` in a task cancelled at the stop."""
        task = asyncio.get_running_loop().create_task(work)
        self._lookups.add(task)
        task.add_done_callback(self._lookups.discard)

    async def _look_up(self, room: str) -> None:
        try:
            owner = (await asyncio.to_thread(owners, self.store, [room])).get(room)
        except Exception:
            log.exception("looking up the owner of a room failed")
            owner = None
        finally:
            waiting = self._waiting.pop(room, [])
        for player, msg in waiting:
            try:
                if owner is None:
                    raise missing(room)
                if owner == self.node:  # adopted here: now, or at the end of the adoption
                    self._run_here(player, msg)
                    continue
                self._send_request(owner, player, msg)
            except ArenaError as exc:
                error = wire.error(exc.code, exc.message, msg.get("id"))
                self.outbox.emit([Send((player.pid,), error)])

    def _run_here(self, player: Player, msg: Message) -> None:
        """Handle ``msg`` of ``player`` (connected here) about a room PostgreSQL says this node
        holds: at once, or after the adoption under way that restores it."""
        frame = wire.encode(msg)
        args = (self.node, player.pid, player.name, player.kind, frame)
        later = functools.partial(self.on_request, *args)
        if not self.failover.park(later):
            later()

    def _send_request(self, owner: str, player: Player, msg: Message) -> None:
        if not self.lobbies.up:  # refused, never sent: it cannot arrive late, nor twice
            where = f"{target_of(msg)!r} is on another node"
            raise NodeUnavailableError(f"{where}, out of reach while the bus is down; try again")
        self.went_via(player.pid, owner)
        frame = wire.encode(msg)
        seq = self.rerouter.sent(owner, player.pid, msg, frame, time.monotonic())
        request = Request(player.pid, player.name, player.kind, frame, seq, False, player.account)
        if not self.queue(owner, request):
            self.rerouter.forget(seq)
            raise RateLimited("the cluster bus is overloaded; try again")

    def went_via(self, pid: str, node: str) -> None:
        """Remember that ``node`` holds ``pid`` (connected here) as a remote member."""
        via = self._via.get(pid)
        if via is None:
            if len(self._via) >= MAX_VIA_PLAYERS:
                self._via.pop(next(iter(self._via)))  # the oldest: its nodes learn on its request
            via = self._via[pid] = {}
        if node not in via:
            via[node] = None
            if len(via) > MAX_VIA:
                via.pop(next(iter(via)))

    def offline(self, player: Player) -> None:
        """``player``'s socket here closed: the nodes it played through see it go offline."""
        if self._inside:
            return
        self.rerouter.gone(player.pid)
        for node in self._via.get(player.pid, ()):
            self.queue(node, Offline(player.pid))

    def hello(self, pid: str) -> None:
        """``pid`` said hello here: it is nobody's remote member here any more, and the nodes
        it played through send it their rooms' state (it is online there again)."""
        if self.remote.pop(pid, None) is not None:
            self._conns.pop(pid, None)
        if pid in self._via:  # once the welcome is out (it is submitted right after this)
            loop = asyncio.get_running_loop()
            loop.call_soon(self.outbox.after, functools.partial(self._reattach, pid))

    def _reattach(self, pid: str) -> None:
        player = self.members.player(pid)
        if player is not None and player.online:
            for node in self._via.get(pid, ()):
                self.queue(node, Attach(pid, player.name, player.kind))

    # -- the owner ---------------------------------------------------------------------------

    def rejoined(self) -> None:
        """The bus is back after an outage: every remote member gets its rooms' state here
        again (their outputs of that time were lost), and plays on from it."""
        out: list[Out] = []
        for pid in list(self.remote):
            player = self.members.player(pid)
            if player is not None and player.rooms:
                out += self.members.attach_remote(pid, player.name, player.kind, True)
        if out:
            self.outbox.emit(out)

    def remote_hello(self, pid: str, node: str) -> None:
        """``pid`` said hello on ``node`` (the hello channel): if it has rooms here, its
        outputs go there from now on, starting with their state."""
        player = self.members.player(pid)
        if player is not None and player.rooms:
            self.outbox.emit(self.attach(node, pid, player.name, player.kind))

    def attach(self, node: str, pid: str, name: str, kind: str) -> list[Out]:
        """``pid`` is connected to ``node``: its outputs go there from now on."""
        moved = self.remote.get(pid) != node
        self.remote[pid] = node
        if self.members.player(pid) is None:
            self._made.add(pid)
        elif moved:  # an old socket of it here is closed by the hello channel: that changes
            self.fanout.forget(pid)  # nothing any more (it is not registered)
        out = self.members.attach_remote(pid, name, kind, resend=moved)
        if pid not in self._conns:
            self._conns[pid] = self._member_conn(pid)
        return out

    def _member_conn(self, pid: str) -> Conn:
        """A connection for a player whose own node charged its socket: a bot-sized bucket."""
        lim = self.arena.limits
        return Conn(TokenBucket(lim.bot_rate, lim.bot_burst), pid=pid)

    def on_request(
        self,
        node: str,
        pid: str,
        name: str,
        kind: str,
        frame: bytes,
        seq: int | None = None,
        retry: bool = False,
        account: str | None = None,
    ) -> None:
        """Handle a request of ``pid`` (connected to ``node``, logged in there as ``account``;
        this node: one sent again after this node adopted its room), then acknowledge ``seq``
        behind its outputs; one that finds no room while an adoption is under way here is
        handled at its end instead (PostgreSQL may have sent it ahead of the restore)."""
        here = node == self.node
        out = [] if here else self.attach(node, pid, name, kind)
        player = None if here else self.members.player(pid)
        if player is not None and player.account != account:
            player.log_in(account)  # as its node knows it: a rated room or event needs it
        self._missed = False
        got = (retry and self.failover.applied(pid, frame)) or self.run(pid, frame)
        if self._missed:  # its room may be in an adoption under way: answered at its end
            args = (node, pid, name, kind, frame, seq, retry, account)
            if self.failover.park(functools.partial(self.on_request, *args)):
                self.outbox.emit(out)
                return
        ok = True
        for item in got:
            if isinstance(item, Reply):  # the requester is on ``node``: it goes there too
                ok = ok and item.message["type"] != "error"
                out.append(Send((pid,), item.message))
            elif not isinstance(item, Lookup | Close):
                out.append(item)
        self.outbox.emit(out)
        if seq is not None and not here:  # in the same entry as the outputs, right behind them
            self.outbox.after(functools.partial(self.queue, node, Ack(seq, ok)))

    def run(self, pid: str, frame: bytes) -> list[Out]:
        """What the arena answers ``pid``'s ``frame`` (a remote member's, or a retry here)."""
        conn = self._conns.get(pid)
        if conn is None:  # a player connected here: its socket's bucket was charged already
            conn = self._member_conn(pid)
        self._inside = True
        try:
            return self.arena.receive(conn, frame)
        finally:
            self._inside = False

    def _on_offline(self, node: str, pid: str) -> None:
        if self.remote.get(pid) != node:
            return  # it connected elsewhere since: that node's word counts
        del self.remote[pid]
        conn = self._conns.pop(pid, None) or Conn(TokenBucket(1.0, 1.0), pid=pid)
        self._inside = True
        try:
            out = self.arena.disconnect(conn)
        finally:
            self._inside = False
        self.outbox.emit(out)
        player = self.members.player(pid)
        entered = self.events is not None and self.events.entered(pid)
        if pid in self._made and player is not None and not player.rooms and not entered:
            self.members.forget(pid)
            self._made.discard(pid)

    # -- the bus -----------------------------------------------------------------------------

    def queue(self, node: str, op: Op) -> bool:
        """Queue ``op`` for ``node``'s inbox (in order); False when too much is waiting."""
        if self._pending >= MAX_PENDING:
            self.dropped += 1
            self.warn("the cluster bus is too slow: dropping what it cannot take")
            return False
        self._outbox.setdefault(node, []).append(encode(op))
        self._pending += 1
        self._wake.set()
        return True

    async def _send_forever(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            outbox, self._outbox, self._pending = self._outbox, {}, 0
            if not self._holds_lease():  # stalled past the lease (SIGSTOP): adopted, fenced
                self.dropped += sum(len(ops) for ops in outbox.values())
                continue
            entries = [
                (node, wire.encode_entry(self.node, ops[i : i + MAX_OPS]))
                for node, ops in outbox.items()
                for i in range(0, len(ops), MAX_OPS)
            ]
            try:
                if len(entries) == 1:  # the common case: a pipeline costs more than it saves
                    node, data = entries[0]
                    await self.redis.xadd(self.inbox_of(node), {"d": data}, maxlen=MAXLEN)
                else:
                    async with self.redis.pipeline(transaction=False) as p:
                        for node, data in entries:
                            p.xadd(self.inbox_of(node), {"d": data}, maxlen=MAXLEN)
                        await p.execute()
                self.sent += len(entries)
            except (RedisError, OSError) as exc:
                self.dropped += sum(len(ops) for ops in outbox.values())
                self.warn(f"the cluster bus lost what it was sending ({exc})")

    def _holds_lease(self) -> bool:
        return self.store.holds_lease()

    async def _read_forever(self) -> None:
        while True:
            try:
                got = await self.redis.xread({self.inbox: self._last_id}, READ_COUNT, BLOCK_MS)
            except (RedisError, OSError) as exc:
                self.warn(f"the inbox cannot be read ({exc}); trying again")
                await asyncio.sleep(TIMEOUT)
                continue
            for _stream, entries in got or ():
                for entry_id, fields in entries:
                    self._last_id = entry_id.decode()
                    self.received += 1
                    self.handle(fields.get(b"d", b""))

    def handle(self, data: bytes) -> None:
        """Carry out the ops of one inbox entry (a malformed one is logged and skipped)."""
        try:
            node, ops = wire.decode_entry(data)
        except BadFrame as exc:
            log.warning("a bus entry was skipped: %s", exc)
            return
        failover = self.failover
        for op in ops:
            if failover.parked and failover.park(functools.partial(self._carry_out, node, op)):
                continue  # behind a request waiting for an adoption's end: the order holds
            self._carry_out(node, op)

    def _carry_out(self, node: str, raw: list[Any]) -> None:
        """Carry out one op (one that fails is logged: it loses itself only)."""
        try:
            self._do(node, raw)
        except Exception:
            log.exception("a bus op could not be carried out")

    def _do(self, node: str, raw: list[Any]) -> None:
        op = decode(raw)
        if isinstance(op, Deliver):
            for pid in op.pids:
                if self.outbox.connected(pid):
                    self.went_via(pid, node)
            # behind what this node has not sent yet (a welcome being committed)
            self.outbox.after(functools.partial(self.fanout.local, op.pids, op.frame))
        elif isinstance(op, Request):
            self.on_request(node, op.pid, op.name, op.kind, op.frame, op.seq, op.retry, op.account)
        elif isinstance(op, Ack):
            self.rerouter.answered(node, op.seq, op.ok)
        elif isinstance(op, Attach):
            self.outbox.emit(self.attach(node, op.pid, op.name, op.kind))
        elif isinstance(op, Offline):
            self._on_offline(node, op.pid)
        elif not self.failover.handle(node, op):
            self.others(node, op)

    async def _stats_forever(self) -> None:
        """Publish the counters in Redis (``mnk:DB:bus``, for benchmarks) and log them."""
        shown: tuple[int, int, int] | None = None
        logged = time.monotonic()
        while True:
            await asyncio.sleep(STATS_INTERVAL)
            counts = (self.sent, self.received, self.dropped)
            if time.monotonic() - logged >= LOG_INTERVAL:
                logged = time.monotonic()
                log.info("bus: %d entries sent, %d read, %d ops dropped", *counts)
            if counts != shown:
                with contextlib.suppress(RedisError, OSError):
                    line = " ".join(map(str, counts))
                    await self.redis.hset(f"{self.prefix}bus", self.node, line)
                    shown = counts

    def warn(self, what: str) -> None:
        """Log a bus trouble, at most once a minute."""
        now = time.monotonic()
        if now - self._warned >= LOG_INTERVAL:
            self._warned = now
            log.warning("%s (%d ops dropped so far)", what, self.dropped)
