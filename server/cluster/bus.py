"""The cluster's bus on Redis: one lobby of every node's rooms, and sessions resumed elsewhere.

Redis holds only what can be rebuilt. Each node keeps the lobby lines of the rooms it owns (its
rows of PostgreSQL's rooms table, which it holds in memory) and of the events it runs (``t:ID``:
``list_tournaments`` lines) in a hash of its own, writes only
what changed, and writes it whole again whenever Redis comes back without it (restarted
empty). The hash expires unless renewed, so a dead node's rooms leave the lobby by themselves
and come back under their adopter. Every node reads the others' hashes each round into the
arena's lobby. A hello on one node is published on a channel; the node holding an older socket
of that player closes it with 4000. Pub/sub is at-most-once, and redis-py's asyncio PubSub does
not subscribe again after a reconnect, so the listener is made anew after every outage. A
node's lease does not depend on Redis (PostgreSQL alone renews it): a node cut off from Redis
keeps its rooms and rejoins when Redis answers again (docs/CLUSTER.md says why).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from server.cluster.hashes import kept, queue_lines
from server.cluster.ports import BotDirectory, Outbox
from server.cluster.targets import EVENT, event_of
from server.core.ports import EventsFeed, LobbyFeed

log = logging.getLogger("mnk.cluster")

#: Seconds between two rounds (the lobby written and read, Redis known to be reachable).
ROUND = 0.5
#: Seconds any one Redis command may take before Redis counts as unreachable.
TIMEOUT = 1.0
#: Seconds a stop may spend tidying Redis up.
STOP_TIMEOUT = 2.0
#: Hello announcements on their way out at once; past this, Redis is too slow to tell anyone.
MAX_PUBLISHING = 256


class RedisBus:
    """One node's link to Redis: its lobby hash, the others' rooms, and the hello channel."""

    def __init__(
        self,
        *,
        url: str,
        node: str,
        lobby: LobbyFeed,
        outbox: Outbox,
        lease_s: float,
        directory: BotDirectory,
        on_remote_hello: Callable[[str, str], None],
        on_back: Callable[[], None],
        events: EventsFeed | None = None,
    ) -> None:
        self.redis = aioredis.Redis.from_url(
            url, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT
        )
        db = self.redis.connection_pool.connection_kwargs.get("db", 0)
        #: Channels are shared by every database of a Redis server: they carry its number.
        self.prefix = f"mnk:{db}:"
        self.node, self.lobby, self.outbox, self.lease_s = node, lobby, outbox, lease_s
        self.lobby_key = self.lobby_of(node)
        self.nodes_key = f"{self.prefix}nodes"
        self.channel = f"{self.prefix}hello"
        #: The lines last written to this node's hash; None: write it whole next round.
        self._written: dict[str, str] | None = None
        #: This node's lobby lines, rendered at the arena's ``lobby_version`` ``_version``.
        self._lines: dict[str, str] = {}
        self._version: Any = -1
        #: Set while rounds fail: requests for other nodes' rooms are refused meanwhile.
        self._down = False
        #: Wall-clock time each player's socket here said hello (older sockets are closed).
        self._hello_at: dict[str, float] = {}
        self._kept = 0
        self._rounds: asyncio.Task[None] | None = None
        self._listener: asyncio.Task[None] | None = None
        self._publishing: set[asyncio.Task[Any]] = set()
        #: Told of a hello on another node (player, node): a forwarder routes its rooms there.
        self.on_remote_hello = on_remote_hello
        #: Told when a round reaches Redis again after an outage (what was lost is re-sent).
        self.on_back = on_back
        #: The node whose lobby hash lists each other node's room (where requests are forwarded).
        self.owners: dict[str, str] = {}
        #: The directory of bots, written and read in the same round trips as the lobby.
        self.bots = directory
        #: The events (tournaments) this node runs: lines ``t:ID`` of its lobby hash.
        self.events = events

    def lobby_of(self, node: str) -> str:
        """The key of ``node``'s lobby hash."""
        return f"{self.prefix}lobby:{node}"

    async def connect(self) -> None:
        """Check that Redis answers (a node does not start without it)."""
        await self.redis.ping()

    def start(self) -> None:
        """Start the rounds (which start the listener)."""
        self._rounds = asyncio.create_task(self._run())

    async def stop(self) -> None:
        """Stop, and take this node's rooms out of the lobby (their adopter lists them)."""
        for task in (self._rounds, self._listener, *self._publishing):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, RedisError, OSError):
                    await task
        try:  # a slow or absent Redis never holds a stop up: the hash expires by itself
            async with asyncio.timeout(STOP_TIMEOUT):
                await self.redis.delete(self.lobby_key)
                await self.redis.aclose()
        except (RedisError, OSError, TimeoutError):
            log.warning("could not take this node's rooms out of the lobby; they expire")

    @property
    def up(self) -> bool:
        """Whether the last round reached Redis (the bus carries requests to other nodes)."""
        return not self._down

    async def nodes(self) -> list[str]:
        """Every node that joined the bus (this one included)."""
        return [member.decode() for member in await self.redis.smembers(self.nodes_key)]

    # -- sessions ----------------------------------------------------------------------------

    def hello(self, pid: str) -> None:
        """A socket of ``pid`` said hello here: tell the other nodes to close theirs."""
        now = time.time()
        self._hello_at[pid] = now
        if len(self._hello_at) > 2 * self._kept + 1024:  # forget players gone from here
            connected = self.outbox.connected
            self._hello_at = {p: at for p, at in self._hello_at.items() if connected(p)}
            self._kept = len(self._hello_at)
        if len(self._publishing) >= MAX_PUBLISHING:
            log.warning("Redis is too slow: a hello is not announced to the other nodes")
            return
        note = json.dumps({"player": pid, "node": self.node, "at": now})
        task = asyncio.create_task(self._publish(note))
        self._publishing.add(task)
        task.add_done_callback(self._publishing.discard)

    async def _publish(self, note: str) -> None:
        with contextlib.suppress(RedisError, OSError):  # at most once, like pub/sub itself
            await self.redis.publish(self.channel, note)

    def _on_hello(self, data: bytes) -> None:
        """Another node's hello: close this node's socket of that player if it is older."""
        try:
            note = json.loads(data)
            pid, node, at = note["player"], note["node"], float(note["at"])
        except (ValueError, KeyError, TypeError):
            log.warning("ignoring a malformed hello note on %s", self.channel)
            return
        if node == self.node:
            return
        here = self._hello_at.get(pid)
        if here is not None and here >= at:
            return  # the socket here is the newer one
        if here is not None:
            del self._hello_at[pid]
            self.outbox.close_replaced(pid)
        self.on_remote_hello(pid, node)

    async def _listen(self) -> None:
        """Hand every hello note to ``_on_hello`` until the connection fails."""
        pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        try:
            await pubsub.subscribe(self.channel)
            async for message in pubsub.listen():
                if message.get("type") == "message":
                    self._on_hello(message["data"])
        except (RedisError, OSError) as exc:
            log.warning("the hello channel failed (%s); listening again when Redis is back", exc)
        finally:
            with contextlib.suppress(RedisError, OSError):
                await pubsub.aclose()

    def _relisten(self) -> None:
        """Subscribe anew on a new connection (after an outage the old one may be deaf)."""
        if self._listener is not None:
            self._listener.cancel()
        self._listener = asyncio.create_task(self._listen())

    # -- the lobby ---------------------------------------------------------------------------

    async def _run(self) -> None:
        while True:
            try:
                await self.round()
            except (RedisError, OSError) as exc:
                self._written = None  # Redis may come back empty: write everything again
                self.bots.failed()
                if not self._down:
                    log.warning("Redis is unreachable (%s); the lobby waits for it", exc)
                self._down = True
            else:
                if self._down or self._listener is None or self._listener.done():
                    self._relisten()
                if self._down:
                    self._down = False
                    log.info("Redis is back: lobby written again, hello channel resubscribed")
                    self._back()
            await asyncio.sleep(ROUND)

    def _back(self) -> None:
        """Tell the node the bus is back (a failure there never stops the rounds)."""
        try:
            self.on_back()
        except Exception:
            log.exception("catching up after Redis came back failed")

    async def round(self) -> None:
        """Write this node's lobby lines (what changed, or all), then read every other node's."""
        events = self.events
        version = (self.lobby.version, events.lines_version() if events is not None else None)
        if version != self._version:  # render the lines only when the lobby changed
            self._lines = {room.id: json.dumps(room.summary()) for room in self.lobby.own()}
            if events is not None:
                lines = events.lines()
                self._lines |= {EVENT + tid: json.dumps(line) for tid, line in lines.items()}
            self._version = version
        lines = self._lines
        written, key = self._written, self.lobby_key
        async with self.redis.pipeline(transaction=True) as p:
            queue_lines(p, key, lines, written, int(max(self.lease_s, 2 * ROUND) * 1000))
            p.sadd(self.nodes_key, self.node)
            self.bots.write(p)  # ends with its hash's size
            p.hlen(key)
            p.smembers(self.nodes_key)
            *rest, size, members = await p.execute()
        self.bots.written(rest[-1])
        self._written = kept(lines, size)
        others = sorted(n for m in members if (n := m.decode()) != self.node)
        async with self.redis.pipeline(transaction=False) as p:
            for other in others:
                p.hgetall(self.lobby_of(other))
            for other in others:
                p.hgetall(self.bots.key_of(other))
            tables = await p.execute()
        self.bots.read(dict(zip(others, tables[len(others) :], strict=True)))
        remote: dict[str, Any] = {}
        remote_events: dict[str, Any] = {}
        owners: dict[str, str] = {}
        for other, table in zip(others, tables[: len(others)], strict=True):
            for room, line in table.items():
                room_id = room.decode()
                if room_id not in owners:
                    owners[room_id] = other
                    event = event_of(room_id)
                    if event is None:
                        remote[room_id] = json.loads(line)
                    else:
                        remote_events[event] = json.loads(line)
        self.owners = owners
        self.lobby.set_remote(remote)
        if events is not None:
            events.set_remote(remote_events)
