"""The node side of a cluster: adopt the rooms of nodes whose lease lapsed, off the event loop."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from server.cluster.background import Background
from server.cluster.ports import ClusterStore
from server.core.arena import Arena
from server.core.outputs import Out

log = logging.getLogger("mnk.cluster")

#: Seconds between looks for lapsed nodes.
SCAN_INTERVAL = 1.0


class NodeKeeper(Background):
    """Looks for lapsed nodes every ``interval`` seconds (between ``start`` and ``stop``) and
    restores their rooms here."""

    def __init__(
        self,
        arena: Arena,
        store: ClusterStore,
        interval: float = SCAN_INTERVAL,
        emit: Callable[[list[Out]], None] | None = None,
        adopted: Callable[[str, list[str]], None] | None = None,
    ) -> None:
        self.arena, self.store, self.interval = arena, store, interval
        #: Delivers what adopting says to players connected here (seated in adopted rooms).
        self.emit = emit
        #: Told of each adopted node and the players seated in its rooms (the forwarder: other
        #: nodes holding their sockets re-attach them here).
        self.adopted = adopted

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            await self.adopt()

    async def adopt(self) -> int:
        """One look: restore every lapsed node's rooms into the arena; how many were taken."""
        if self.store.fenced:
            return 0  # this node is stopping: it adopts nothing
        try:
            # Cancelled by a stop, a look loses nothing: what it took is this node's in the
            # database, and survivors adopt it when this node gives its lease up.
            adopted = await asyncio.to_thread(self.store.adopt_lapsed)
        except Exception:
            log.exception("looking for lapsed nodes failed; trying again")
            return 0
        count = 0
        for node, snapshot in adopted:
            self.arena.restore(snapshot)
            count += len(snapshot.rooms)
            if self.emit is not None:
                rooms = (row.room for row, _, _ in snapshot.rooms)
                self.emit(self.arena.presence.welcome_back(rooms))
            if self.adopted is not None:
                seated = (pid for _, game, _ in snapshot.rooms for pid in game.seats if pid)
                self.adopted(node, list(dict.fromkeys(seated)))
            log.info("adopted %d rooms of the lapsed node %s", len(snapshot.rooms), node)
        return count
