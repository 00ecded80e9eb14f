"""The sans-I/O arena in process, on a fake clock: peers that collect what they are sent."""

from __future__ import annotations

from typing import Any

import msgpack

from server.core.arena import Arena
from server.core.game.members import Send
from server.core.limits import Limits
from server.core.outputs import Reply
from server.core.players.keys import new_key
from support.clock import FakeClock


class Peer:
    """One connection to an in-process arena; collects what it is sent."""

    def __init__(self, arena: Arena, name: str, kind: str = "human", **hello: Any) -> None:
        self.arena, self.conn = arena, arena.connect()
        if kind == "bot" and "key" not in hello:  # the operator made this bot a key
            hello["key"] = new_key()
            arena.keys.add(name, hello["key"])
        self.inbox: list[dict[str, Any]] = []
        self.do(type="hello", protocol=1, name=name, kind=kind, **hello)
        self.pid = self.conn.pid

    def do(self, **message: Any) -> list[dict[str, Any]]:
        """Send a request; return the replies to this connection (also kept in the inbox)."""
        out = self.arena.receive(self.conn, msgpack.packb(message))
        replies = [o.message for o in out if isinstance(o, Reply)]
        replies += [o.message for o in out if isinstance(o, Send) and self.conn.pid in o.to]
        self.inbox += replies
        return replies


def sweep_until(arena: Arena, clock: FakeClock, seconds: float) -> list[dict[str, Any]]:
    """Advance the clock second by second, sweeping; every message sent."""
    sent = []
    for _ in range(int(seconds)):
        clock.now += 1.0
        sent += [o.message for o in arena.sweep() if isinstance(o, Send)]
    return sent


def arena_with(clock: FakeClock, **limits: Any) -> Arena:
    """An arena without a store, on the fake clock."""
    return Arena(limits=Limits(full_sweep_interval=0.0, **limits), clock=clock, durable=False)
