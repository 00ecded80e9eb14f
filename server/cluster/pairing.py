"""Quick pairing across a cluster: one pool of seeks for every node, paired one wave at a time,
each seek taken at most once (docs/CLUSTER.md, "Quick pairing over nodes").

The arena's pairing keeps its seeks in this node's :class:`~server.cluster.book.ClusterBook`;
this part keeps that book and the pool in Redis (``server/cluster/seekstore.py``) in step, and
carries out whatever takes a seek out of the pool, each by one atomic claim there (the first
wins): **rounds** (every ``ROUND`` s) write this node's seeks (and at once when placed), claim
its dead ones away, renew its hash and read every node's seeks into the book; **waves**: the
node that sets the wave lock (``WAVE`` s; while it holds it, also at each round a pool holds
``FULL_POOL``) pairs the whole pool with the arena's matcher, claiming a pair with a seek of its
own itself and proposing any other (:class:`~server.cluster.ops.Propose`) to its first seek's
node; ``accept_seek`` is claimed by the accepter's node, ``cancel_seek`` by the seeker's.

The claiming node makes the room (its own player seated, the other as a *remote member* routed
to its node, as ``server/cluster/forward.py`` seats a player of another node) and tells the
other seek's node (:class:`~server.cluster.ops.Taken`). While Redis is out of reach, ``seek``,
``accept_seek`` and ``cancel_seek`` get ``node_unavailable``, as other cross-node requests do.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from protocol import wire
from protocol.errors import ArenaError, NodeUnavailableError, NoSuchSeek
from protocol.wire import Message
from server.cluster.book import ClusterBook, decode, encode
from server.cluster.ops import Offline, Op, Propose, Taken
from server.cluster.ports import ClusterStore, Link, Lobbies, Outbox
from server.cluster.seekstore import SeekStore
from server.core.game.members import Send
from server.core.outputs import Out, Reply, address
from server.core.pairing.desk import Pairing
from server.core.pairing.matcher import wave
from server.core.pairing.seeks import Seek
from server.core.players.players import Player
from server.core.ports import Members

if TYPE_CHECKING:
    from collections.abc import Coroutine
    from typing import Any

    Done = Callable[[bool], list[Out]]

log = logging.getLogger("mnk.cluster")

#: Seconds between two rounds, and between two waves (the wave lock's length).
ROUND = 0.5
WAVE = 2.0
#: A pool this full is paired at the next round (by the node holding the wave lock).
FULL_POOL = 32
#: Seconds an own seek may be missing from the pool before it counts as lost there (a claim
#: whose :class:`Taken` never came: the claiming node failed, or the bus lost it).
GRACE = 10.0
TIMEOUT = 1.0


class ClusterPairing:
    """One node's side of the cluster's pool of seeks (see the module)."""

    def __init__(
        self,
        url: str,
        node: str,
        desk: Pairing,
        *,
        book: ClusterBook,
        seats: Link,
        outbox: Outbox,
        lobbies: Lobbies,
        lease: ClusterStore,
        lease_s: float,
        members: Members,
        elsewhere: Callable[[str], bool],
    ) -> None:
        #: Who is here (the arena's), and whether a player is connected to another node.
        self.members, self.elsewhere = members, elsewhere
        self.redis = aioredis.Redis.from_url(
            url, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT
        )
        db = self.redis.connection_pool.connection_kwargs.get("db", 0)
        self.store = SeekStore(self.redis, f"mnk:{db}:", node, expire_s=lease_s)
        self.node, self.book, self.seats = node, book, seats
        #: Who says whether this node still holds its lease (past it, it writes nothing).
        self.outbox, self.lobbies, self.lease = outbox, lobbies, lease
        #: The arena's pairing: its checks, its matcher's waves, its rooms started.
        self.desk = desk
        #: Whether the last round reached Redis.
        self._reached = False
        #: Own seeks missing from the pool since (monotonic), not yet given up on.
        self._missing: dict[str, float] = {}
        #: Seeks being claimed by this node now (a round does not count them as lost).
        self._claiming: set[str] = set()
        #: Until when (monotonic) this node holds the wave lock it set.
        self._holds_until = 0.0
        self._tasks: list[asyncio.Task[None]] = []
        #: Pairs claimed and rooms made here, and claims lost to another node (for the logs).
        self.paired = self.lost = 0

    @property
    def up(self) -> bool:
        """Whether the pool is within reach (seeks, accepts and cancels are served)."""
        return self._reached and self.lobbies.up

    async def connect(self) -> None:
        """Check that Redis answers, and write this node's empty hash."""
        await self._round()

    def start(self) -> None:
        """Start the rounds (with their waves) and the writer."""
        for work in (self._rounds(), self._writer()):
            self._tasks.append(asyncio.create_task(work))

    async def stop(self) -> None:
        """Stop, and take this node's seeks out of the pool (its players are gone with it)."""
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, RedisError, OSError):
                await task
        with contextlib.suppress(RedisError, OSError, TimeoutError):
            async with asyncio.timeout(TIMEOUT):
                await self.store.clear()
                await self.redis.aclose()

    def check(self) -> None:
        """Raise ``node_unavailable`` while the pool is out of reach (a seek placed then could
        not be taken exactly once)."""
        if not self.up:
            raise NodeUnavailableError("quick pairing is out of reach for a moment; try again")

    # -- requests (the arena hands them here on a cluster node) --------------------------------

    def cancel(self, player: Player, msg: Message) -> list[Out]:
        """Claim one of ``player``'s seeks (also one put back in its pool by another node after
        an abort there) out of the pool; ``seek_cancelled`` once done."""
        seek = self.book.get(msg["seek"])
        home = None if seek is None else self.book.node_of(seek.id)
        if seek is None or home is None or seek.pid != player.pid or seek.id in self._claiming:
            raise NoSuchSeek(f"you have no open seek {msg['seek'][:40]!r}")
        self.check()
        rid = msg.get("id")

        def done(ok: bool) -> list[Out]:
            if not ok:
                return _error(player.pid, NoSuchSeek("that seek was just taken"), rid)
            self.book.forget(seek.id)
            if home != self.node:
                self.seats.queue(home, Taken(seek.id, seek.pid, False))
            self.desk.changed()
            return _answer(player.pid, [Reply({"type": "seek_cancelled", "seek": seek.id})], rid)

        self._spawn(self._claim([(home, seek.id)], done, player.pid, rid))
        return []

    def accept(self, player: Player, msg: Message) -> list[Out]:
        """Claim someone's seek for ``player``: the room is made here once the claim holds."""
        seek = self.book.get(msg["seek"])
        home = None if seek is None else self.book.node_of(seek.id)
        if seek is None or home is None or seek.id in self._claiming:
            raise NoSuchSeek(f"no open seek {msg['seek'][:40]!r}: cancelled, or just taken")
        self.desk.check_accept(player, seek)
        self.check()
        rid = msg.get("id")

        def done(ok: bool) -> list[Out]:
            if not ok:
                self.book.forget(seek.id)
                return _error(player.pid, NoSuchSeek("that seek was just taken"), rid)
            return _answer(player.pid, self._made(seek, home, player, None), rid)

        self._spawn(self._claim([(home, seek.id)], done, player.pid, rid))
        return []

    def claim_own(self, seek: Seek, then: Callable[[], list[Out]]) -> None:
        """Claim own ``seek`` (a bot is seated for it), then send what ``then`` makes."""
        if self.book.own.get(seek.id) is not seek or seek.id in self._claiming or not self.up:
            return  # gone, being claimed, or out of reach: the next wave tries again

        def done(ok: bool) -> list[Out]:
            if not ok:
                return []
            self.book.forget(seek.id)
            self.desk.changed()
            return then()

        self._spawn(self._claim([(self.node, seek.id)], done, None, None))

    # -- the rounds and the waves ------------------------------------------------------------

    async def _rounds(self) -> None:
        while True:
            await asyncio.sleep(ROUND)
            try:
                await self._round()
                if await self._leads():
                    self._wave()
            except (RedisError, OSError) as exc:
                if self._reached:
                    log.warning("the pool of seeks is out of reach (%s); refusing seeks", exc)
                self._reached = False
            except Exception:  # a bug in one round never stops the next
                log.exception("a pairing round failed")

    async def _round(self) -> None:
        """Write what changed, renew, and read the whole pool into the book."""
        if not self.lease.holds_lease():  # woken past its lease: its seeks left with it
            raise OSError("this node's lease lapsed")
        book = self.book
        add = {seek_id: self._record(seek) for seek_id, seek in book.unwritten.items()}
        dying = set(book.dying)
        pool = await self.store.sync(add, dying)
        book.written(add, dying)
        if not self._reached:
            log.info("the pool of seeks is within reach")
        self._reached = True
        if pool.lost:  # Redis lost this node's seeks: they go in again at the next write
            log.warning("the pool lost this node's seeks (Redis restarted?): writing them again")
            book.write_again()
        else:
            self._lost_here(pool.own)
            self._strays(pool.own)
        version = book.version
        for seek_id in book.read(pool.seeks):
            log.warning("a malformed seek %r in the pool is ignored", seek_id[:40])
        if book.version != version:
            self.desk.changed()

    def _lost_here(self, present: set[str]) -> None:
        """Own seeks missing from the pool for ``GRACE`` seconds were taken by a node whose
        :class:`Taken` never came: they end here (``seek_ended``, ``cancelled``)."""
        now = time.monotonic()
        book = self.book
        missing = {
            s.id
            for s in book.own.listed(None)
            if s.id not in present and s.id not in book.unwritten and s.id not in self._claiming
        }
        self._missing = {s: self._missing.get(s, now) for s in missing}
        out: list[Out] = []
        for seek_id, since in list(self._missing.items()):
            if now - since >= GRACE:
                del self._missing[seek_id]
                seek = book.forget(seek_id)
                if seek is not None:
                    note = {"type": "seek_ended", "seek": seek_id, "reason": "cancelled"}
                    out.append(Send((seek.pid,), note))
        if out:
            self.outbox.emit(out)

    def _strays(self, present: set[str]) -> None:
        """Seeks in this node's hash that its book does not hold (a write that crossed the
        seek's end here): claimed away, so that no wave proposes them to a node without them."""
        book = self.book
        strays = {i for i in present if book.own.get(i) is None and i not in self._claiming}
        book.claim_strays(strays)

    async def _leads(self) -> bool:
        """Whether this node runs a wave now: it set the wave lock (which lapses by itself), or
        it holds it still and a pool is full (paired at every round meanwhile)."""
        now = time.monotonic()
        if await self.store.lead(WAVE):
            self._holds_until = now + WAVE - ROUND  # a margin: the lock's clock is Redis's
            return True
        book = self.book
        return now < self._holds_until and any(book.size(p) >= FULL_POOL for p in book.labels())

    def _wave(self) -> None:
        """Pair the whole cluster's pool (this node holds the wave lock)."""
        now = time.time()
        pools: dict[str, list[Seek]] = {}
        for seek in self.book.listed(None):
            if seek.id in self._claiming:
                continue
            seek.missed_since(int((now - seek.since) / WAVE))
            pools.setdefault(seek.pool, []).append(seek)
        for seeks in pools.values():
            for a, b in wave(seeks, self.desk.memory.blocked):
                self._propose(a, b)

    def _propose(self, a: Seek, b: Seek) -> None:
        """Claim the pair here if a seek is this node's; else ask the first seek's node."""
        node_a, node_b = self.book.node_of(a.id), self.book.node_of(b.id)
        if node_a is None or node_b is None:
            return
        if node_b == self.node and node_a != self.node:
            a, b, node_a, node_b = b, a, node_b, node_a
        if node_a == self.node:
            self._pair(a, node_b, b)
        else:
            self.seats.queue(node_a, Propose(a.id, node_b, b.id, self._line(b, node_b)))

    def _pair(self, a: Seek, node_b: str, b: Seek) -> None:
        """Claim own seek ``a`` with ``b`` (of ``node_b``) and make their room here."""
        seeker = self.members.player(a.pid)
        if self.book.own.get(a.id) is not a or seeker is None or not seeker.online:
            return  # its player left meanwhile: the other seek waits for the next wave
        try:
            self.desk.check_accept(seeker, b)  # one more game now, as a wave here checks
        except ArenaError as exc:  # it cannot play now: its seek ends (b waits on)
            self.book.take(a.id)
            self.desk.changed()
            note = {"type": "seek_ended", "seek": a.id, "reason": "cancelled"}
            self.outbox.emit([Send((a.pid,), note | {"message": exc.message})])
            return

        def done(ok: bool) -> list[Out]:
            if not ok:
                self.lost += 1
                return []
            self.book.forget(a.id)
            return self._made(b, node_b, seeker, a)

        self._spawn(self._claim([(self.node, a.id), (node_b, b.id)], done, None, None))

    def _made(self, seek: Seek, home: str, other: Player, other_seek: Seek | None) -> list[Out]:
        """The claim holds: ``seek`` (of node ``home``) is paired with ``other`` (a player here,
        by ``other_seek`` or by accepting): make the room here."""
        account = self.book.account_of(seek.id)
        self.book.forget(seek.id)
        out: list[Out] = []
        if home != self.node:  # the seeker is a remote member here, its outputs go home
            out += self.seats.attach(home, seek.pid, seek.name, seek.kind)
            remote = self.members.player(seek.pid)
            if remote is not None and account is not None and remote.account is None:
                remote.log_in(account)
            self.seats.queue(home, Taken(seek.id, seek.pid, True))
        seeker = self.members.player(seek.pid)
        if seeker is None:
            return out
        self.paired += 1
        out += self.desk.start(seek, other, other_seek, reply_to=other.pid)
        self.desk.changed()
        return out

    # -- the bus -----------------------------------------------------------------------------

    def handle(self, node: str, op: Op) -> None:
        """Carry out a pairing op from ``node``."""
        if isinstance(op, Propose):
            try:
                other, account = decode(op.other_seek, op.record)
            except ValueError:
                log.warning("a malformed seek was proposed by %s", node)
                return
            mine = self.book.own.get(op.seek)
            if mine is not None and mine.id not in self._claiming:
                if op.other != self.node:
                    self.book.learn(other, op.other, account)
                    self._pair(mine, op.other, other)
                elif (own := self.book.own.get(op.other_seek)) is not None:
                    self._pair(mine, self.node, own)
        elif isinstance(op, Taken):
            self.book.forget(op.seek)
            self.desk.changed()
            if op.paired:  # the player's outputs come from ``node`` from now on
                self._paired_there(node, op.pid)
        else:
            raise ValueError(f"not a pairing op: {op!r}")

    def _paired_there(self, node: str, pid: str) -> None:
        """Own player ``pid`` was paired into a room of ``node``: ``node`` hears when it goes
        offline (now, if it left meanwhile), and its other seeks here end."""
        if self.elsewhere(pid):
            return  # a remote member here (its seek was put back here): not this node's player
        self.seats.went_via(pid, node)
        player = self.members.player(pid)
        if player is None or not self.outbox.connected(pid):
            self.seats.queue(node, Offline(pid))
        else:  # a human plays one game at a time
            self.outbox.emit(self.desk.drop_others(player))

    # -- Redis -------------------------------------------------------------------------------

    async def _claim(
        self, seeks: list[tuple[str, str]], done: Done, pid: str | None, rid: Any
    ) -> None:
        ids = {seek_id for _, seek_id in seeks}
        self._claiming |= ids
        unwritten = {i: self._record(s) for i, s in self.book.unwritten.items() if i in ids}
        try:
            if unwritten:  # an own seek placed a moment ago: in the pool first, then claimed
                await self.store.put(unwritten)
                for seek_id in unwritten:
                    self.book.unwritten.pop(seek_id, None)
            ok = await self.store.claim(seeks)
        except (RedisError, OSError):
            self._claiming -= ids
            if pid is not None:
                exc = NodeUnavailableError("quick pairing is out of reach for a moment; try again")
                self.outbox.emit(_error(pid, exc, rid))
            return
        self._claiming -= ids
        try:
            self.outbox.emit(done(ok))
        except ArenaError as exc:
            if pid is not None:
                self.outbox.emit(_error(pid, exc, rid))

    async def _writer(self) -> None:
        """Write placed seeks and claim dead ones away at once (the rounds catch up on what
        fails here)."""
        book = self.book
        while True:
            await book.wake.wait()
            book.wake.clear()
            if not self.lease.holds_lease():
                continue
            add = {seek_id: self._record(seek) for seek_id, seek in book.unwritten.items()}
            dying = set(book.dying)
            try:
                if add:
                    await self.store.put(add)
                    for seek_id in add:
                        book.unwritten.pop(seek_id, None)
                for seek_id in dying:
                    await self.store.claim([(self.node, seek_id)])
                    book.dying.discard(seek_id)
            except (RedisError, OSError):
                continue  # the next round writes them

    def _record(self, seek: Seek) -> str:
        player = self.members.player(seek.pid)
        return encode(seek, None if player is None else player.account)

    def _line(self, seek: Seek, node: str) -> str:
        return self.book.line_of(seek.id) if node != self.node else self._record(seek)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        self.seats.spawn(work)


def _answer(pid: str, out: list[Out], rid: Any) -> list[Out]:
    """``out`` of a request answered later: its reply goes to ``pid`` carrying ``rid``."""
    return [
        Send((pid,), item.message) if isinstance(item, Reply) else item
        for item in address(pid, out, rid if isinstance(rid, int) else None)
    ]


def _error(pid: str, exc: ArenaError, rid: Any) -> list[Out]:
    return [Send((pid,), wire.error(exc.code, exc.message, rid))]
