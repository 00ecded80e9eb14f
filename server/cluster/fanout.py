"""Delivery on a cluster node: to sockets here, and to remote members through their node."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from server.cluster.ops import Deliver, Op
from server.shell.fanout import LocalFanOut


class Relay(Protocol):
    """Where a frame for a player on another node goes: that node's inbox."""

    def queue(self, node: str, op: Op) -> bool:
        """Queue ``op`` for ``node``'s inbox (in order); False when too much is waiting."""
        ...

    def delivered(self, pids: list[str]) -> None:
        """Outputs went to these remote members (a seat lent for a game now over goes back)."""
        ...


class ClusterFanOut(LocalFanOut):
    """Delivers to sockets here, and to remote members through their node's inbox."""

    def __init__(self, relay: Relay) -> None:
        super().__init__()
        self.relay = relay
        #: Players of rooms here connected to another node, with that node.
        self.remote: dict[str, str] = {}

    def deliver(self, pids: Iterable[str], frame: bytes) -> None:
        """Send a frame to every listed player: here on its socket, else through its node."""
        remote = self.remote
        if not remote:
            super().deliver(pids, frame)
            return
        here: list[str] = []
        away: dict[str, list[str]] = {}
        for pid in pids:
            node = remote.get(pid)
            if node is None:
                here.append(pid)
            else:
                away.setdefault(node, []).append(pid)
        if here:
            super().deliver(here, frame)
        for node, who in away.items():
            self.relay.queue(node, Deliver(who, frame))
            self.relay.delivered(who)

    def local(self, pids: Iterable[str], frame: bytes) -> None:
        """Send a frame to the listed players' sockets here (a forwarded output)."""
        super().deliver(pids, frame)
