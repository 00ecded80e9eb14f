"""A cluster node: the arena's :class:`~server.core.node.Node` answered from a Redis bus, and the
parts that keep it (the lobby bus, forwarding and failover, bots lent across nodes, adoption of
lapsed nodes' rooms).

Made before the arena (which is given it), bound to the arena and the server's outbox once they
exist (:meth:`ClusterNode.bind`, which makes the parts, each given what it talks to), connected
before the server starts, started after. The parts talk to each other only through the small
interfaces of :mod:`server.cluster.ports`; this module routes what crosses between them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from redis.asyncio.client import Pipeline
from redis.exceptions import RedisError

from protocol.errors import NoBotAvailable, NodeUnavailableError, NoSuchRoom
from protocol.wire import MAX_ROOM_ID, Message
from server.cluster.book import ClusterBook
from server.cluster.bots import ClusterBots
from server.cluster.bus import RedisBus
from server.cluster.fanout import ClusterFanOut
from server.cluster.forward import Forwarder
from server.cluster.keeper import NodeKeeper
from server.cluster.ops import Op, Propose, Taken
from server.cluster.pairing import ClusterPairing
from server.cluster.ports import ClusterStore, Outbox
from server.core.arena import Arena
from server.core.outputs import Out
from server.core.pairing.seeks import Seek, SeekBook
from server.core.players.players import Player

log = logging.getLogger("mnk.cluster")


class NodeUnavailable(Exception):
    """The cluster's bus cannot be reached: the node does not start."""


@dataclass(slots=True)
class Parts:
    """What a bound node runs."""

    bus: RedisBus
    forwarder: Forwarder
    bots: ClusterBots
    keeper: NodeKeeper
    pairing: ClusterPairing


class ClusterNode:
    """One node of a cluster on a Redis bus and a shared PostgreSQL store."""

    standalone = False
    shared_sessions = True

    def __init__(
        self, name: str, redis_url: str, store: ClusterStore, *, lease_s: float, adopts: bool = True
    ) -> None:
        self.name, self.redis_url, self.store, self.lease_s = name, redis_url, store, lease_s
        #: Whether this node adopts lapsed nodes' rooms (``--no-adopt``: it never does).
        self.adopts = adopts
        #: The server's fan-out: sockets here, and remote members through their node.
        self.fanout = ClusterFanOut(self)
        #: The arena's seek book: this node's seeks and, as read each round, every other's.
        self.book = ClusterBook(name)
        self._parts: Parts | None = None

    def bind(self, arena: Arena, outbox: Outbox) -> None:
        """Make the node's parts for ``arena``, sending through ``outbox`` (the server)."""
        members, rooms = arena.presence, arena.rooms  # the arena's ports (core/ports.py)
        bus = RedisBus(
            url=self.redis_url,
            node=self.name,
            lobby=arena.lobby,
            outbox=outbox,
            lease_s=self.lease_s,
            directory=self,
            on_remote_hello=self._remote_hello,
            on_back=self._bus_back,
        )
        forwarder = Forwarder(
            self.redis_url, self.name, arena, outbox=outbox, store=self.store, lobbies=bus,
            fanout=self.fanout, others=self._other_op, lease_s=self.lease_s, members=members,
            rooms=rooms,
        )  # fmt: skip
        bots = ClusterBots(
            arena, forwarder, outbox,
            lease_s=self.lease_s, members=members, rooms=rooms, lender=arena.bots,
        )  # fmt: skip
        keeper = NodeKeeper(
            arena, self.store, emit=outbox.emit, adoption=forwarder.failover, members=members
        )
        pairing = ClusterPairing(
            self.redis_url, self.name, arena, book=self.book, seats=forwarder, outbox=outbox,
            lobbies=bus, lease=self.store, lease_s=self.lease_s, members=members,
            elsewhere=self.connected_elsewhere,
        )  # fmt: skip
        self._parts = Parts(bus, forwarder, bots, keeper, pairing)

    @property
    def parts(self) -> Parts:
        """The bound node's parts."""
        if self._parts is None:
            raise RuntimeError("the cluster node is not bound to an arena yet")
        return self._parts

    async def connect(self) -> None:
        """Reach Redis, or raise :class:`NodeUnavailable` (a node does not start without it)."""
        parts = self.parts
        try:
            await parts.bus.connect()
            await parts.forwarder.connect()
            await parts.pairing.connect()
        except (RedisError, OSError) as exc:
            raise NodeUnavailable(f"cannot reach Redis ({exc})") from exc

    def start(self) -> None:
        """Start the bus rounds, the inbox and outbox, and the look for lapsed nodes."""
        parts = self.parts
        parts.bus.start()
        parts.forwarder.start()
        if self.adopts:
            parts.keeper.start()
        parts.pairing.start()

    async def stop(self) -> None:
        """Stop every part (each within a bounded time)."""
        if self._parts is None:
            return
        await self._parts.keeper.stop()
        await self._parts.pairing.stop()
        await self._parts.forwarder.stop()
        await self._parts.bus.stop()

    # -- the shell's hooks -------------------------------------------------------------------

    def hello(self, pid: str) -> None:
        """A player said hello here: other nodes close its old sockets and route its rooms'
        outputs here."""
        parts = self.parts
        parts.bus.hello(pid)
        parts.forwarder.hello(pid)

    # -- what crosses between the parts ------------------------------------------------------

    def queue(self, node: str, op: Op) -> bool:
        """The fan-out's frames for remote members go to their node's inbox."""
        return self.parts.forwarder.queue(node, op)

    def delivered(self, pids: list[str]) -> None:
        """Outputs went to these remote members: seats lent for games now over go back."""
        self.parts.bots.delivered(pids)

    def _remote_hello(self, pid: str, node: str) -> None:
        self.parts.forwarder.remote_hello(pid, node)

    def _bus_back(self) -> None:
        self.parts.forwarder.rejoined()

    def _other_op(self, node: str, op: Op) -> None:
        if isinstance(op, Propose | Taken):
            self.parts.pairing.handle(node, op)
        else:
            self.parts.bots.handle(node, op)

    # -- the bot directory, inside the bus rounds --------------------------------------------

    def key_of(self, node: str) -> str:
        """The key of ``node``'s bot directory hash."""
        return self.parts.bots.key_of(node)

    def write(self, p: Pipeline) -> None:
        """This round's directory writes."""
        self.parts.bots.write(p)

    def written(self, size: int) -> None:
        """The directory hash's size after the writes."""
        self.parts.bots.written(size)

    def failed(self) -> None:
        """The round did not reach Redis."""
        self.parts.bots.failed()

    def read(self, tables: dict[str, dict[bytes, bytes]]) -> None:
        """The other nodes' directory hashes."""
        self.parts.bots.read(tables)

    # -- the arena's Node port ---------------------------------------------------------------

    def forward(self, player: Player, msg: Message) -> list[Out]:
        """Send ``msg`` to the owner of its room (held by another node)."""
        if self._parts is None:
            raise NoSuchRoom(f"no room {msg['room'][:MAX_ROOM_ID]!r}")
        return self._parts.forwarder.request(player, msg)

    def offline(self, player: Player) -> None:
        """Tell the nodes ``player`` played through that it went offline."""
        if self._parts is not None:
            self._parts.forwarder.offline(player)

    def connected_elsewhere(self, pid: str) -> bool:
        """Whether ``pid`` is a remote member here (connected to another node)."""
        return pid in self.fanout.remote

    def seats_lent(self, pid: str) -> int:
        """Seats of this node's bot ``pid`` lent to other nodes' rooms."""
        return 0 if self._parts is None else self._parts.bots.lent_of(pid)

    def other_bots(self) -> Mapping[str, Message]:
        """The bots online on other nodes, as their ``list_bots`` entries."""
        return {} if self._parts is None else self._parts.bots.listing()

    def bot_elsewhere(self, name: str, game: str, asker: str) -> bool:
        """Whether the bot ``name`` plays ``game`` on another node."""
        return self._parts is not None and self._parts.bots.elsewhere(name, game, asker)

    def idle_bot_elsewhere(self, game: str, level: int, asker: str) -> str | None:
        """The least busy bot on another node for ``game`` at ``level``."""
        return None if self._parts is None else self._parts.bots.idle(game, level, asker)

    def hold(self, player: Player, msg: Message, names: list[str], game: str) -> list[Out]:
        """Hold a ``create_room`` while the named bots' nodes lend seats."""
        if self._parts is None:
            raise NoBotAvailable("the bots named are not free right now")
        if not self._parts.bus.up:
            raise NodeUnavailableError("that bot is on another node, out of reach now; try again")
        return self._parts.bots.hold(player, msg, names, game)

    # -- quick pairing: one pool for the cluster ----------------------------------------------

    def seek_book(self) -> SeekBook | None:
        """The arena's seek book: this node's seeks and every other node's."""
        return self.book

    def check_seeks(self) -> None:
        """Raise ``node_unavailable`` while the pool (Redis) is out of reach."""
        if self._parts is None:
            raise NodeUnavailableError("quick pairing is not ready yet; try again")
        self._parts.pairing.check()

    def take_seek(self, player: Player, msg: Message) -> list[Out]:
        """A ``cancel_seek`` or ``accept_seek``: the seek is claimed out of the pool first (the
        answer comes once the claim is known)."""
        if self._parts is None:
            raise NodeUnavailableError("quick pairing is not ready yet; try again")
        pairing = self._parts.pairing
        return (
            pairing.cancel(player, msg)
            if msg["type"] == "cancel_seek"
            else pairing.accept(player, msg)
        )

    def claim_seek(self, seek: Seek, then: Callable[[], list[Out]]) -> list[Out]:
        """Claim this node's ``seek`` out of the pool, then send what ``then`` makes."""
        if self._parts is not None:
            self._parts.pairing.claim_own(seek, then)
        return []
