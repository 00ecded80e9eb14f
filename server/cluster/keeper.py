"""The node side of a cluster: adopt the rooms of nodes whose lease lapsed, off the event loop."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from server.cluster.background import Background
from server.cluster.ports import Adoption, ClusterStore
from server.core.journal.rows import EntrantRow
from server.core.outputs import Out
from server.core.ports import Members, Requests

log = logging.getLogger("mnk.cluster")

#: Seconds between looks for lapsed nodes.
SCAN_INTERVAL = 1.0


class NodeKeeper(Background):
    """Looks for lapsed nodes every ``interval`` seconds (between ``start`` and ``stop``) and
    restores their rooms here."""

    def __init__(
        self,
        arena: Requests,
        store: ClusterStore,
        interval: float = SCAN_INTERVAL,
        *,
        emit: Callable[[list[Out]], None] | None = None,
        adoption: Adoption | None = None,
        members: Members,
    ) -> None:
        #: Who is here: members of adopted rooms online here come back (core/ports.py).
        self.members = members
        self.arena, self.store, self.interval = arena, store, interval
        #: Delivers what adopting says to players connected here (seated in adopted rooms).
        self.emit = emit
        #: A bus's side of adopting (failover): the rooms' members on other nodes, attached as
        #: the rooms appear, and the other nodes told.
        self.adoption = adoption

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            await self.adopt()

    async def adopt(self) -> int:
        """One look: restore every lapsed node's rooms into the arena; how many were taken."""
        if self.store.fenced:
            return 0  # this node is stopping: it adopts nothing
        adoption = self.adoption
        if adoption is None:
            return await self._adopt()
        # From the claim's commit to the last restore, PostgreSQL names this node the rooms'
        # owner while the arena does not hold them yet: requests for them wait till the end.
        adoption.started()
        try:
            return await self._adopt()
        finally:
            adoption.finished()

    async def _adopt(self) -> int:
        """The look itself (see :meth:`adopt`)."""
        try:
            # Cancelled by a stop, a look loses nothing: what it took is this node's in the
            # database, and survivors adopt it when this node gives its lease up.
            adopted = await asyncio.to_thread(self.store.adopt_lapsed)
        except Exception:
            log.exception("looking for lapsed nodes failed; trying again")
            return 0
        # Read before any room is restored: from here to the last restore nothing else runs, so
        # no move is played in an adopted room before its members are attached.
        adoption = self.adoption
        audiences = [await adoption.audience_of(node) if adoption else {} for node, _ in adopted]
        count = 0
        for (node, snapshot), audience in zip(adopted, audiences, strict=True):
            self.arena.restore(snapshot)
            count += len(snapshot.rooms)
            # Everyone seated here or listening elsewhere is back before any state is sent, so
            # that each state shows them all online.
            rooms = [row.room for row, _, _ in snapshot.rooms]
            marked, welcomed = self.members.back_online(rooms)
            if adoption is not None:
                adoption.attach_audience(node, audience)
            if self.emit is not None:
                self.emit(marked + self.members.states(welcomed))
            if adoption is not None:  # then what was sent to ``node`` from here comes here
                seated = (pid for _, game, _ in snapshot.rooms for pid in game.seats if pid)
                listening = (m.pid for members in audience.values() for m in members)
                entrants = (r.pid for r in snapshot.tournaments if isinstance(r, EntrantRow))
                pids = [*seated, *listening, *entrants]
                adoption.adopted(node, list(dict.fromkeys(pids)))
            log.info("adopted %d rooms of the lapsed node %s", len(snapshot.rooms), node)
        return count
