"""Connections' ends take a bounded share of each turn of the event loop, players' in a room
first.

An attacker's process that exits closes thousands of idle connections at once. Each end costs
the loop ~30 us in all (websockets' EOF and loss, the handler's ``finally``, the arena's
``disconnect``, two tasks), and 3,900 of them handled in one stretch held every honest move for
~130 ms. So the guard hands each end here: run now while this turn has spent less than
:data:`BUDGET` on ends and nobody waits, else queued for later turns, first come first served.
The ends of a connection whose player sits in a room (or is a bot, or sent a frame lately) go
in a queue of their own that is served first: a real player's opponents hear it left without
waiting behind a crowd.

Sans-I/O apart from the loop's ``call_soon``; the caller keeps each connection's ends in one
queue (so they stay in order).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable

log = logging.getLogger("mnk.server")

#: Seconds of ends handled per turn of the loop before the rest wait. What they wake (their
#: handlers, their tasks) runs on the next turn and costs about five times as much again.
BUDGET = 0.00025


class Ends:
    """Runs connections' ends now while this turn has budget left, else on later turns."""

    def __init__(self, budget: float = BUDGET, clock: Callable[[], float] = time.perf_counter):
        self.budget = budget
        #: Seconds, monotonic (a test's fake clock, if given).
        self.clock = clock
        #: Seconds spent on ends in this turn of the loop.
        self.spent = 0.0
        self._first: deque[Callable[[], None]] = deque()
        self._rest: deque[Callable[[], None]] = deque()
        self._armed = False
        #: Ends that had to wait for a later turn (for tests and the bench).
        self.deferred = 0

    def __len__(self) -> int:
        """Ends waiting for a turn."""
        return len(self._first) + len(self._rest)

    def run(self, job: Callable[[], None], first: bool = False) -> None:
        """Run ``job`` now if this turn has room and nothing waits before it, else later (in
        the first queue if ``first``)."""
        queue = self._first if first else self._rest
        if self.spent < self.budget and not self._first and not queue:
            self._time(job)
        else:
            queue.append(job)
            self.deferred += 1
        self._arm()

    def _arm(self) -> None:
        """Start the next turn's budget (and run what waits then) once the loop turns."""
        if not self._armed:
            self._armed = True
            asyncio.get_running_loop().call_soon(self._turn)

    def _turn(self) -> None:
        """A new turn: the budget starts over; waiting ends run, at least one, within it."""
        self._armed = False
        self.spent = 0.0
        first, rest = self._first, self._rest
        while first or rest:
            self._time((first or rest).popleft())
            if self.spent >= self.budget:
                break
        if first or rest or self.spent:
            self._arm()

    def _time(self, job: Callable[[], None]) -> None:
        """Run ``job``, adding the time it took to this turn's."""
        clock = self.clock
        start = clock()
        try:
            job()
        except Exception:  # one connection's end is its own: the others still get theirs
            log.exception("ending a connection failed")
        finally:
            self.spent += clock() - start
