"""The lobby lane: requests other than moves get a bounded share of each turn of the event loop.

A game that ends and the next one that starts cost the server as much as a dozen moves (leave,
create, join: rooms, game headers, ``state`` snapshots, their commits), and games end together:
a tournament's round, or a benchmark's closed loop whose games all run the same length. Every
move in flight waited behind such a burst (at 100 games, the slowest 1 % of moves were the ones
around games' ends). So moves and pings are handled the moment they are read, and other requests
(lobby work) only while this turn of the loop has spent less than :data:`BUDGET` on them (or
:data:`SHARE` of the last turn's length, when more); the rest wait in a queue, first come first
served, and are handled a budget's worth per turn, after that turn's moves. With nothing else
to do the loop turns at once: the queue drains at full speed.

Sans-I/O apart from the loop's ``call_soon``: the caller says what to run and keeps each waiting
request's connection in order (:class:`server.shell.server.ArenaServer` holds its later
frames back).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable

from protocol.wire import PLAY

log = logging.getLogger("mnk.server")

#: Seconds of lobby work per turn of the event loop before lobby requests wait for the next...
BUDGET = 0.001
#: ... or this share of the last turn's length, when more: at 1,000 games a turn handles
#: hundreds of moves, and a fixed millisecond would leave lobby requests waiting for seconds.
SHARE = 0.25
#: A move or a ping whose first key is ``type`` (``protocol.wire.PLAY``) is handled at once.
#: Anything else (a ``type`` elsewhere too) goes through the lane: slower under load, never
#: wrong; a lobby request cannot pass itself off as a move this way (the arena refuses a frame
#: whose decoded ``type`` is not the one its first key announced).


def is_play(frame: bytes | str) -> bool:
    """Whether ``frame`` is a move or a ping (no decoding: the first key and its value)."""
    return type(frame) is bytes and frame.startswith(PLAY, 1)


class LobbyLane:
    """Runs lobby jobs now while the loop's turn has budget left and nobody waits, else later."""

    def __init__(
        self,
        budget: float = BUDGET,
        share: float = SHARE,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.budget = budget
        self.share = share
        #: Seconds, monotonic: what jobs and turns are timed with (a test's fake clock, if given).
        self.clock = clock
        #: Seconds of lobby work this turn may take (``budget``, or ``share`` of the last turn).
        self.allowed = budget
        #: Seconds of lobby work in this turn of the loop, and when the turn began (None: the
        #: lane was idle, so the last turn's length is not known).
        self.spent = 0.0
        self._began: float | None = None
        self._waiting: deque[Callable[[], None]] = deque()
        self._armed = False
        #: Jobs that had to wait for a later turn (for tests and the bench).
        self.deferred = 0

    def __len__(self) -> int:
        """Jobs waiting for a turn."""
        return len(self._waiting)

    def has_room(self) -> bool:
        """Whether a job may run now: nobody waits and this turn's budget is not spent."""
        return not self._waiting and self.spent < self.allowed

    def run(self, job: Callable[[], None]) -> None:
        """Run ``job`` now, counting its time against this turn's budget."""
        self._time(job)
        self._arm()

    def defer(self, job: Callable[[], None]) -> None:
        """Run ``job`` on a later turn, after the jobs already waiting."""
        self._waiting.append(job)
        self.deferred += 1
        self._arm()

    def _arm(self) -> None:
        """Start the next turn's accounting (and run what waits then) once the loop turns."""
        if not self._armed:
            self._armed = True
            asyncio.get_running_loop().call_soon(self._turn)

    def _turn(self) -> None:
        """A new turn: the budget starts over; waiting jobs run, at least one, within it."""
        self._armed = False
        now, began = self.clock(), self._began
        last = 0.0 if began is None else now - began
        self.allowed = max(self.budget, self.share * last)
        self._began = now
        self.spent = 0.0
        waiting = self._waiting
        if waiting:
            self._time(waiting.popleft())
            while waiting and self.spent < self.allowed:
                self._time(waiting.popleft())
        if waiting or self.spent:
            self._arm()
        else:
            self._began = None  # idle: an hour from now is not a turn's length

    def _time(self, job: Callable[[], None]) -> None:
        """Run ``job``, adding the time it took to this turn's lobby work."""
        clock = self.clock
        start = clock()
        try:
            job()
        except Exception:  # one request's failure is its own: the others still get their turn
            log.exception("a lobby request failed")
        finally:
            self.spent += clock() - start
