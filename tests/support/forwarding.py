"""A cluster node's forwarder on a real arena without processes: the shell and bus it reads."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from protocol import wire
from server.cluster.forward import Forwarder
from server.core.arena import Arena
from server.core.peers import Conn, Out


class Pipeline:
    """Delivers at once (nothing waits for a commit in these tests)."""

    def submit(self, records: list[Any], deliver: Callable[[], None], urgent: bool = False) -> None:
        """Deliver now: there is no store to wait for."""
        deliver()


class Shell:
    """What the forwarder uses of the asyncio shell: ``_emit`` (here: keep the outputs)."""

    def __init__(self) -> None:
        self.sent: list[Out] = []
        self.pipeline = Pipeline()

    def _emit(self, peer: object, out: list[Out], records: list[Any]) -> None:
        """Keep what the forwarder would send, for the test to look at."""
        self.sent.extend(out)


class Bus:
    """The lobby's owners (what the forwarder reads of the Redis bus)."""

    def __init__(self, owners: dict[str, str]) -> None:
        self.owners = owners


def node(owners: dict[str, str] | None = None, name: str = "b") -> tuple[Forwarder, Arena, Shell]:
    """Node b: an arena whose forwarder is not started (nothing leaves for Redis)."""
    arena, shell = Arena(durable=False), Shell()
    fwd = Forwarder("redis://127.0.0.1:1/0", name, arena, shell, None, Bus(owners or {}))  # type: ignore[arg-type]
    arena.forward = fwd
    return fwd, arena, shell


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
