"""A cluster node: the arena's :class:`~server.core.node.Node` answered from a Redis bus, and the
parts that keep it (the lobby bus, forwarding and failover, bots lent across nodes, adoption of
lapsed nodes' rooms).

Built whole, in the order the parts need each other: first what the arena and the server are
given (the seek book, the fan-out, this node as the arena's ``Node``), then the arena and the
server (made by the callables given, which only keep what they are handed), then the parts,
each given the arena's ports (``server/core/ports.py``) and the server as its outbox. Once the
constructor returns every part exists: no method waits for a later step. Connected before the
server starts, started after. The parts talk to each other only through the small interfaces of
:mod:`server.cluster.ports`; this module routes what crosses between them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

from redis.asyncio.client import Pipeline
from redis.exceptions import RedisError

from protocol.errors import NodeUnavailableError
from protocol.wire import Message
from server.cluster.book import ClusterBook
from server.cluster.bots import ClusterBots
from server.cluster.bus import RedisBus
from server.cluster.fanout import ClusterFanOut
from server.cluster.forward import Forwarder
from server.cluster.keeper import NodeKeeper
from server.cluster.occurrences import Occurrences
from server.cluster.ops import Op, Propose, Taken
from server.cluster.pairing import ClusterPairing
from server.cluster.ports import ClusterStore, Outbox
from server.core.arena import Arena
from server.core.node import Node
from server.core.outputs import Out
from server.core.pairing.seeks import Seek, SeekBook
from server.core.players.players import Player

log = logging.getLogger("mnk.cluster")

#: The server a node sends through (the shell's ``ArenaServer``; a test's recording outbox).
S = TypeVar("S", bound=Outbox)


class BusUnreachable(Exception):
    """The cluster's bus (Redis) cannot be reached at start: the node does not start. Not the
    wire's ``node_unavailable`` (``protocol.errors.NodeUnavailableError``), which a running node
    answers a request with while the bus is out of reach."""


@dataclass(slots=True)
class Parts:
    """What a node runs."""

    bus: RedisBus
    forwarder: Forwarder
    bots: ClusterBots
    keeper: NodeKeeper
    pairing: ClusterPairing


class ClusterNode(Generic[S]):
    """One node of a cluster on a Redis bus and a shared PostgreSQL store, with its arena and
    server."""

    standalone = False
    shared_sessions = True

    def __init__(
        self,
        name: str,
        redis_url: str,
        store: ClusterStore,
        *,
        lease_s: float,
        adopts: bool = True,
        arena: Callable[[Node], Arena],
        server: Callable[[Arena, ClusterFanOut, Callable[[str], None]], S],
    ) -> None:
        """Make the node; ``arena(node)`` makes its arena, ``server(arena, fanout, on_hello)``
        the server around it (neither may call the node yet: its parts come after them)."""
        self.name, self.redis_url, self.store, self.lease_s = name, redis_url, store, lease_s
        #: Whether this node adopts lapsed nodes' rooms (``--no-adopt``: it never does).
        self.adopts = adopts
        #: The server's fan-out: sockets here, and remote members through their node.
        self.fanout = ClusterFanOut(self)
        #: The arena's seek book: this node's seeks and, as read each round, every other's.
        self.book = ClusterBook(name)
        self.arena = arena(self)
        #: The server around the arena: the parts' outbox.
        self.server = server(self.arena, self.fanout, self.hello)
        self.parts = self._parts(self.arena, self.server)

    def _parts(self, arena: Arena, outbox: Outbox) -> Parts:
        """The node's parts, each given the ports of ``arena`` it uses (``core/ports.py``: the
        arena itself only as :class:`~server.core.ports.Requests`), sending through ``outbox``
        (the server)."""
        members, rooms = arena.presence, arena.rooms  # the arena's ports (core/ports.py)
        events = arena.event_board
        bus = RedisBus(
            url=self.redis_url,
            node=self.name,
            lobby=arena.lobby,
            outbox=outbox,
            lease_s=self.lease_s,
            directory=self,
            on_remote_hello=self._remote_hello,
            on_back=self._bus_back,
            events=events,
        )
        forwarder = Forwarder(
            self.redis_url, self.name, arena, outbox=outbox, store=self.store, lobbies=bus,
            fanout=self.fanout, others=self._other_op, lease_s=self.lease_s, members=members,
            rooms=rooms, events=events,
        )  # fmt: skip
        bots = ClusterBots(
            arena, forwarder, outbox,
            lease_s=self.lease_s, members=members, rooms=rooms, lender=arena.bots,
        )  # fmt: skip
        events.claim_with(Occurrences(self.store))
        keeper = NodeKeeper(
            arena, self.store, emit=outbox.emit, adoption=forwarder.failover, members=members
        )
        pairing = ClusterPairing(
            self.redis_url, self.name, arena.pairing, book=self.book, seats=forwarder,
            outbox=outbox, lobbies=bus, lease=self.store, lease_s=self.lease_s, members=members,
            elsewhere=self.connected_elsewhere,
        )  # fmt: skip
        return Parts(bus, forwarder, bots, keeper, pairing)

    async def connect(self) -> None:
        """Reach Redis, or raise :class:`BusUnreachable` (a node does not start without it)."""
        parts = self.parts
        try:
            await parts.bus.connect()
            await parts.forwarder.connect()
            await parts.pairing.connect()
        except (RedisError, OSError) as exc:
            raise BusUnreachable(f"cannot reach Redis ({exc})") from exc

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
        parts = self.parts
        await parts.keeper.stop()
        await parts.pairing.stop()
        await parts.forwarder.stop()
        await parts.bus.stop()

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
        return self.parts.forwarder.request(player, msg)

    def offline(self, player: Player) -> None:
        """Tell the nodes ``player`` played through that it went offline."""
        self.parts.forwarder.offline(player)

    def connected_elsewhere(self, pid: str) -> bool:
        """Whether ``pid`` is a remote member here (connected to another node)."""
        return pid in self.fanout.remote

    def seats_lent(self, pid: str) -> int:
        """Seats of this node's bot ``pid`` lent to other nodes' rooms."""
        return self.parts.bots.lent_of(pid)

    def other_bots(self) -> Mapping[str, Message]:
        """The bots online on other nodes, as their ``list_bots`` entries."""
        return self.parts.bots.listing()

    def bot_elsewhere(self, name: str, game: str, asker: str) -> bool:
        """Whether the bot ``name`` plays ``game`` on another node."""
        return self.parts.bots.elsewhere(name, game, asker)

    def idle_bot_elsewhere(self, game: str, level: int, asker: str) -> str | None:
        """The least busy bot on another node for ``game`` at ``level``."""
        return self.parts.bots.idle(game, level, asker)

    def hold(self, player: Player, msg: Message, names: list[str], game: str) -> list[Out]:
        """Hold a ``create_room`` while the named bots' nodes lend seats."""
        if not self.parts.bus.up:
            raise NodeUnavailableError("that bot is on another node, out of reach now; try again")
        return self.parts.bots.hold(player, msg, names, game)

    # -- quick pairing: one pool for the cluster ----------------------------------------------

    def seek_book(self) -> SeekBook | None:
        """The arena's seek book: this node's seeks and every other node's."""
        return self.book

    def check_seeks(self) -> None:
        """Raise ``node_unavailable`` while the pool (Redis) is out of reach."""
        self.parts.pairing.check()

    def take_seek(self, player: Player, msg: Message) -> list[Out]:
        """A ``cancel_seek`` or ``accept_seek``: the seek is claimed out of the pool first (the
        answer comes once the claim is known)."""
        pairing = self.parts.pairing
        return (
            pairing.cancel(player, msg)
            if msg["type"] == "cancel_seek"
            else pairing.accept(player, msg)
        )

    def claim_seek(self, seek: Seek, then: Callable[[], list[Out]]) -> list[Out]:
        """Claim this node's ``seek`` out of the pool, then send what ``then`` makes."""
        self.parts.pairing.claim_own(seek, then)
        return []
