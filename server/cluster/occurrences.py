"""Scheduled events in a cluster: every node may run the same ``--event`` schedules, and each
occurrence is opened by one node only.

A node's calendar (``server/core/tournament/schedule.py``) finds an occurrence due as a single
server's does; instead of opening it at once, the node claims it in PostgreSQL on a worker
thread: the claim row, keyed by (schedule, start), and the event's row (owned by this node) in
one transaction fenced by the node's lease. The node that inserted the claim opens the event;
every other node finds the claim taken and opens nothing. Should the claiming node die, its
event is adopted with its rooms (the event's row names it as the owner).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from server.cluster.ports import ClusterStore
from server.core.journal.rows import TournamentRow

log = logging.getLogger("mnk.cluster")


class Occurrences:
    """A node's claims of scheduled occurrences (the tournament desk's ``Occurrences``)."""

    def __init__(self, store: ClusterStore) -> None:
        self.store = store
        #: Claims under way (a task is kept until it is done).
        self._tasks: set[asyncio.Task[None]] = set()

    def claim(self, schedule: str, row: TournamentRow, then: Callable[[], None]) -> None:
        """Claim ``row`` (of ``schedule``) off the loop; ``then`` opens it here if this node won."""
        task = asyncio.get_running_loop().create_task(self._claim(schedule, row, then))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _claim(self, schedule: str, row: TournamentRow, then: Callable[[], None]) -> None:
        try:
            won = await asyncio.to_thread(self.store.claim_occurrence, schedule, row)
        except Exception:  # PostgreSQL away, or this node fenced: another node opens it
            log.exception("claiming the occurrence of %r at %s failed", schedule, row.starts_at)
            return
        if not won:
            log.info("occurrence of %r at %s was opened by another node", schedule, row.starts_at)
            return
        then()
