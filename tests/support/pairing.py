"""Quick pairing in the sans-I/O arena on a fake clock: peers that get every message sent to
them (a pairing made by one player's request or by a wave reaches the other player too)."""

from __future__ import annotations

from typing import Any

import msgpack

from server.core.arena import Arena
from server.core.game.members import Send
from server.core.limits import Limits
from server.core.outputs import Reply
from server.core.rating.desk import Entry
from server.core.rating.glicko2 import Rating
from support.arena import Peer
from support.clock import FakeClock

CLOCK_3_2 = {"initial_s": 180, "increment_s": 2}


class Hub:
    """An arena and its peers: every output is delivered to the inboxes it is addressed to."""

    def __init__(self, clock: FakeClock, **limits: Any) -> None:
        self.clock = clock
        self.arena = Arena(
            limits=Limits(full_sweep_interval=0.0, **limits), clock=clock, durable=False
        )
        self.peers: dict[str, Peer] = {}

    def peer(self, name: str, kind: str = "human", account: bool = False, **hello: Any) -> Peer:
        """A connected peer (an account if ``account``: what logging in does)."""
        peer = Peer(self.arena, name, kind, **hello)
        self.peers[peer.pid] = peer
        if account:
            self.arena.players[peer.pid].account = name
        return peer

    def rate(self, peer: Peer, pool: str, rating: float, rd: float = 60.0) -> None:
        """Give ``peer``'s account ``rating`` in the rating pool ``pool``."""
        account = self.arena.players[peer.pid].account
        assert account is not None
        self.arena.ratings.book[(account, pool)] = Entry(Rating(rating, rd), 10, self.clock())

    def deliver(self, out: list[Any], sender: Peer | None = None) -> list[dict[str, Any]]:
        """Put ``out`` in the inboxes; the messages for ``sender`` (its replies)."""
        mine: list[dict[str, Any]] = []
        for item in out:
            if isinstance(item, Reply) and sender is not None:
                sender.inbox.append(item.message)
                mine.append(item.message)
            elif isinstance(item, Send):
                for pid in item.to:
                    peer = self.peers.get(pid)
                    if peer is not None:
                        peer.inbox.append(item.message)
                        if peer is sender:
                            mine.append(item.message)
        return mine

    def do(self, peer: Peer, **message: Any) -> list[dict[str, Any]]:
        """``peer`` sends a request; its replies (every other output is delivered)."""
        return self.deliver(self.arena.receive(peer.conn, msgpack.packb(message)), peer)

    def tick(self, seconds: float = 2.0) -> None:
        """Let ``seconds`` pass and sweep (a wave is due every 2 s)."""
        self.clock.advance(seconds)
        self.deliver(self.arena.sweep())

    def close(self, peer: Peer) -> None:
        """``peer``'s connection closes."""
        self.deliver(self.arena.disconnect(peer.conn))
        self.peers.pop(peer.pid, None)


def of_type(peer: Peer, kind: str) -> list[dict[str, Any]]:
    """The messages of type ``kind`` in ``peer``'s inbox."""
    return [m for m in peer.inbox if m.get("type") == kind]


def error_code(replies: list[dict[str, Any]]) -> str | None:
    """The code of the error among ``replies`` (None: none)."""
    return next((r["code"] for r in replies if r.get("type") == "error"), None)
