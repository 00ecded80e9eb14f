"""The arena's port to the rest of a cluster (:class:`Node`), and its one-process default.

The sans-I/O arena asks a node, never a bus: who else holds a room, a player or a bot. A single
server passes :class:`Standalone` (nothing is anywhere else); a cluster node passes its
``server.cluster.ClusterNode``, which answers from its bus. The arena holds no cluster state of
its own and never branches on which one it was given, beyond :attr:`Node.standalone`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

from protocol.errors import NoBotAvailable, NodeUnavailableError, NoSuchRoom
from protocol.wire import MAX_ROOM_ID, Message
from server.core.outputs import Out
from server.core.pairing.seeks import Seek, SeekBook
from server.core.players.players import Player


class Elsewhere(Exception):
    """The named bots are not free here but online on other nodes: ask their nodes for seats."""

    def __init__(self, names: list[str]) -> None:
        super().__init__(names)
        self.names = names


class Node(Protocol):
    """What the arena asks of the other nodes of its cluster."""

    @property
    def standalone(self) -> bool:
        """Whether no request can concern another node (no bus): a move's fast path."""
        ...

    @property
    def shared_sessions(self) -> bool:
        """Whether the players table is shared: a session unknown here is looked up there."""
        ...

    def forward(self, player: Player, msg: Message) -> list[Out]:
        """Send ``msg`` (about a room not held here) to the room's owner, or raise."""
        ...

    def offline(self, player: Player) -> None:
        """``player``'s socket here closed: the nodes it played through see it go offline."""
        ...

    def connected_elsewhere(self, pid: str) -> bool:
        """Whether ``pid`` is a member here whose socket is on another node."""
        ...

    def seats_lent(self, pid: str) -> int:
        """Seats of this node's bot ``pid`` lent to rooms on other nodes (count to its load)."""
        ...

    def other_bots(self) -> Mapping[str, Message]:
        """The ``list_bots`` entries of the bots online on other nodes, by player id."""
        ...

    def bot_elsewhere(self, name: str, game: str, asker: str) -> bool:
        """Whether the bot ``name`` is online on another node and plays ``game``."""
        ...

    def idle_bot_elsewhere(self, game: str, level: int, asker: str) -> str | None:
        """The least busy bot online on another node that plays ``game`` at ``level``."""
        ...

    def hold(self, player: Player, msg: Message, names: list[str], game: str) -> list[Out]:
        """Hold ``player``'s ``create_room`` while the bots ``names``' nodes lend them a seat
        (it goes on with ``Arena.create_held``), or raise."""
        ...

    def seek_book(self) -> SeekBook | None:
        """The seek book of the cluster's one pool (None: the arena keeps its own)."""
        ...

    def check_seeks(self) -> None:
        """Raise ``node_unavailable`` while the cluster's pool is out of reach."""
        ...

    def take_seek(self, player: Player, msg: Message) -> list[Out]:
        """A ``cancel_seek`` or ``accept_seek`` in the cluster's pool: the seek is claimed out
        of it first, and the answer comes then."""
        ...

    def claim_seek(self, seek: Seek, then: Callable[[], list[Out]]) -> list[Out]:
        """Claim this node's ``seek`` out of the cluster's pool, then send what ``then`` makes
        (nothing if a pairing took it first)."""
        ...


class Standalone:
    """One process: no other node holds a room, a player or a bot."""

    standalone = True

    def __init__(self, shared_sessions: bool = False) -> None:
        #: A ``--node`` without a bus still shares PostgreSQL's players table.
        self.shared_sessions = shared_sessions

    def forward(self, player: Player, msg: Message) -> list[Out]:
        """No other node: the room does not exist."""
        raise NoSuchRoom(f"no room {msg['room'][:MAX_ROOM_ID]!r}")

    def offline(self, player: Player) -> None:
        """Nobody else to tell."""

    def connected_elsewhere(self, pid: str) -> bool:
        """Every player here is connected here."""
        return False

    def seats_lent(self, pid: str) -> int:
        """No seat is lent anywhere."""
        return 0

    def other_bots(self) -> Mapping[str, Message]:
        """No other node's bots."""
        return {}

    def bot_elsewhere(self, name: str, game: str, asker: str) -> bool:
        """No bot is anywhere else."""
        return False

    def idle_bot_elsewhere(self, game: str, level: int, asker: str) -> str | None:
        """No bot is anywhere else."""
        return None

    def hold(self, player: Player, msg: Message, names: list[str], game: str) -> list[Out]:
        """Nothing to wait for: the bots are not free."""
        raise NoBotAvailable("the bots named are not free right now")

    def seek_book(self) -> SeekBook | None:
        """No shared pool: the arena keeps its seeks itself."""
        return None

    def check_seeks(self) -> None:
        """This process's own pool is always within reach."""

    def take_seek(self, player: Player, msg: Message) -> list[Out]:
        """Never asked: without a shared pool the arena takes its seeks itself."""
        raise NodeUnavailableError("no cluster pool of seeks here")

    def claim_seek(self, seek: Seek, then: Callable[[], list[Out]]) -> list[Out]:
        """Never asked: without a shared pool the arena takes its seeks itself."""
        raise NodeUnavailableError("no cluster pool of seeks here")
