"""What the parts of a cluster node ask of each other and of the server around them, as small
interfaces: each part imports these, never another part, so the parts import no circle."""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Iterable, Mapping
from typing import Any, Protocol

import redis.asyncio as aioredis
from redis.asyncio.client import Pipeline

from server.cluster.audience import Audience
from server.cluster.ops import Op
from server.core.journal.rows import Snapshot, TournamentRow
from server.core.outputs import Out


class Outbox(Protocol):
    """The server's way out for what a node does outside a request (the shell implements it)."""

    def emit(self, out: list[Out]) -> None:
        """Send ``out`` once everything the arena recorded so far is committed."""
        ...

    def after(self, callback: Callable[[], object]) -> None:
        """Run ``callback`` once everything emitted so far is committed and sent."""
        ...

    def connected(self, pid: str) -> bool:
        """Whether ``pid`` has a socket on this process."""
        ...

    def close_replaced(self, pid: str) -> None:
        """``pid`` said hello on another node: close its socket here with 4000."""
        ...


class ClusterStore(Protocol):
    """What a node asks of the shared PostgreSQL store, beyond the server's own ``Storage``."""

    @property
    def fenced(self) -> bool:
        """Whether this node lost its lease and stops."""
        ...

    def holds_lease(self) -> bool:
        """Whether this node's lease is still current (nothing is sent once it lapsed)."""
        ...

    def room_owner(self, room: str) -> str | None:
        """The node owning ``room``, or None (no such room)."""
        ...

    def room_owners(self, rooms: list[str]) -> dict[str, str]:
        """The nodes owning ``rooms`` (those that exist)."""
        ...

    def adopt_lapsed(self) -> list[tuple[str, Snapshot]]:
        """Take the rooms of every node whose lease lapsed: per node, what was taken."""
        ...

    def event_owners(self, events: list[str]) -> dict[str, str]:
        """The nodes running ``events`` (those that exist)."""
        ...

    def claim_occurrence(self, schedule: str, row: TournamentRow) -> bool:
        """Open the scheduled occurrence ``row`` here unless a node opened it already."""
        ...


class Adoption(Protocol):
    """What a bus adds to adopting a lapsed node's rooms (failover, for the node keeper)."""

    def started(self) -> None:
        """A look for lapsed nodes begins: requests that find no room wait for its end."""
        ...

    def finished(self) -> None:
        """The look ended, whatever it adopted: the requests that waited are handled."""
        ...

    async def audience_of(self, dead: str) -> Audience:
        """The members of ``dead``'s rooms connected to other nodes, as it last wrote them."""
        ...

    def attach_audience(self, dead: str, audience: Audience) -> None:
        """The adopted rooms (restored just now) hear ``audience`` from here."""
        ...

    def adopted(self, dead: str, pids: list[str]) -> None:
        """Done adopting ``dead``'s rooms, where ``pids`` sit or watch: tell the other nodes."""
        ...


class Lobbies(Protocol):
    """What the bus knows of the other nodes: who owns a room listed in the lobby, and who is
    alive."""

    @property
    def owners(self) -> Mapping[str, str]:
        """The node whose lobby lists each other node's room."""
        ...

    @property
    def up(self) -> bool:
        """Whether the bus reaches Redis now (requests may be sent to other nodes)."""
        ...

    async def nodes(self) -> list[str]:
        """Every node known to the bus (this one included)."""
        ...


class Link(Protocol):
    """The node's forwarder, as the bot seats and failover use it."""

    @property
    def node(self) -> str:
        """This node's name."""
        ...

    @property
    def prefix(self) -> str:
        """The Redis key prefix of this cluster's database."""
        ...

    @property
    def redis(self) -> aioredis.Redis:
        """The node's connection to the bus."""
        ...

    @property
    def remote(self) -> Mapping[str, str]:
        """Members of rooms here connected to another node, with that node."""
        ...

    def queue(self, node: str, op: Op) -> bool:
        """Queue ``op`` for ``node``'s inbox (in order); False when too much is waiting."""
        ...

    def attach(self, node: str, pid: str, name: str, kind: str) -> list[Out]:
        """``pid`` is connected to ``node``: its outputs go there from now on."""
        ...

    def went_via(self, pid: str, node: str) -> None:
        """Remember that ``node`` holds ``pid`` (connected here) as a remote member."""
        ...

    def on_request(
        self, node: str, pid: str, name: str, kind: str, frame: bytes, seq: int | None, retry: bool
    ) -> None:
        """Handle a request of ``pid`` connected to ``node``, then acknowledge ``seq``."""
        ...

    def run(self, pid: str, frame: bytes) -> list[Out]:
        """What the arena answers ``pid``'s ``frame`` (not forwarded again)."""
        ...

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` in a task cancelled at the stop."""
        ...

    def warn(self, what: str) -> None:
        """Log a bus trouble, at most once a minute."""
        ...


class BotDirectory(Protocol):
    """The bots' directory, written and read inside the bus's rounds."""

    def key_of(self, node: str) -> str:
        """The key of ``node``'s directory hash."""
        ...

    def write(self, p: Pipeline) -> None:
        """Queue this round's writes on the pipeline ``p`` (ending with the hash's size)."""
        ...

    def written(self, size: int) -> None:
        """The hash's size after the writes."""
        ...

    def failed(self) -> None:
        """The round did not reach Redis."""
        ...

    def read(self, tables: dict[str, dict[bytes, bytes]]) -> None:
        """Take the other nodes' directory hashes."""
        ...


class Remote(Protocol):
    """The players of rooms here whose sockets are on other nodes (the fan-out's)."""

    @property
    def remote(self) -> Mapping[str, str]:
        """Each such player's node."""
        ...

    def local(self, pids: Iterable[str], frame: bytes) -> None:
        """Send a frame to the listed players' sockets here."""
        ...
