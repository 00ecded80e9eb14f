"""A cluster node's forwarder on a real arena without processes: the server and store it sees."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from protocol import wire
from server.cluster.forward import Forwarder
from server.cluster.node import ClusterNode
from server.core.arena import Arena
from server.core.journal.rows import Snapshot
from server.core.outputs import Out
from server.core.players.players import Conn
from support.waiting import TIMEOUT


class Shell:
    """The server as the node sees it (its ``Outbox``): outputs kept, nothing waits for a
    commit, no socket is here."""

    def __init__(self) -> None:
        self.sent: list[Out] = []
        #: The players with a socket here.
        self.here: set[str] = set()

    def emit(self, out: list[Out]) -> None:
        """Keep what the node would send, for the test to look at."""
        self.sent.extend(out)

    def after(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` now: there is no commit to wait for."""
        callback()

    def connected(self, pid: str) -> bool:
        """Whether ``pid`` has a socket here (the test says, in ``here``)."""
        return pid in self.here

    def close_replaced(self, pid: str) -> None:
        """Never called: no socket is here to close."""
        raise AssertionError("no socket is here")


class Store:
    """The shared store as the node sees it: a lease held, the rooms' owners in ``owners``,
    and what a look for lapsed nodes takes in ``lapsed``."""

    fenced = False
    #: Whether the lease is still held (a node woken past it holds it no more).
    held = True

    def __init__(self) -> None:
        #: The node owning each room (PostgreSQL's rooms table); none by default.
        self.owners: dict[str, str] = {}
        #: What the next look for lapsed nodes takes: (node, snapshot) pairs.
        self.lapsed: list[tuple[str, Snapshot]] = []
        #: Set once a look is claiming; the look returns only when ``gate`` is set.
        self.claiming = threading.Event()
        self.gate = threading.Event()
        self.gate.set()

    def holds_lease(self) -> bool:
        """Whether the node's lease is held (``held``)."""
        return self.held

    def room_owner(self, room: str) -> str | None:
        """The owner ``owners`` gives."""
        return self.owners.get(room)

    def room_owners(self, rooms: Sequence[str]) -> dict[str, str]:
        """The owners ``owners`` gives for ``rooms``."""
        return {room: self.owners[room] for room in rooms if room in self.owners}

    def adopt_lapsed(self) -> list[tuple[str, Snapshot]]:
        """Take ``lapsed`` once ``gate`` is open (on a worker thread, as PostgreSQL's claim)."""
        self.claiming.set()
        assert self.gate.wait(TIMEOUT), "the test never opened the gate"
        taken, self.lapsed = self.lapsed, []
        return taken


def node(
    owners: dict[str, str] | None = None, name: str = "b", durable: bool = False
) -> tuple[Forwarder, Arena, Shell]:
    """Node ``name``: a real cluster node bound to an arena, never started (nothing leaves for
    Redis), its lobby listing ``owners``."""
    cluster = cluster_node(name, durable=durable)
    cluster.parts.bus.owners.update(owners or {})
    return cluster.parts.forwarder, cluster.arena, cluster.server


def cluster_node(
    name: str = "b", durable: bool = False, store: Store | None = None
) -> ClusterNode[Shell]:
    """A real cluster node ``name`` with its arena and a recording outbox, never started."""
    return ClusterNode(
        name, "redis://127.0.0.1:1/0", store or Store(), lease_s=10.0,
        arena=lambda node: Arena(durable=durable, node=node), server=lambda *_: Shell(),
    )  # fmt: skip


def say_hello(arena: Arena, name: str) -> Conn:
    """A connection of a new human player."""
    conn = arena.connect()
    arena.receive(
        conn, wire.encode({"type": "hello", "protocol": 1, "name": name, "kind": "human"})
    )
    return conn


def entry(sender: str, *ops: list[Any]) -> bytes:
    """One bus entry's payload."""
    return wire.encode_entry(sender, list(ops))
