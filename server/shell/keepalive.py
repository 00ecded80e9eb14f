"""One keepalive for every connection: pings in turn from one timer, not a task per connection.

websockets gives each open connection a keepalive task (ping every 20 s, close it if no pong
within 20 s): a task, its coroutine, a sleep's future and timer for every idle socket, made at
each handshake. A crowd of 4,000 idle connections carried 16,000 such objects for the cyclic
collector to walk while honest games waited. Here one timer walks the connections in the order
they opened (all share one interval, so that is the order they are due in), a bounded number
per turn of the loop, and does what websockets' keepalive does: ping, and close with 1011 a
connection that left a ping unanswered for ``timeout``. Its pongs set ``latency`` as websockets'
own pings' do (the lag probe, ``server/shell/lagprobe.py``, reads them).

Sending a ping without a coroutine uses three websockets internals (``pending_pings``,
``protocol.send_ping``, ``send_data``); :func:`can_ping` checks them, and without them each
connection keeps websockets' own keepalive task.
"""

from __future__ import annotations

import asyncio
import logging
import random
import struct
from collections import OrderedDict

from websockets.asyncio.connection import Connection
from websockets.protocol import OPEN

from protocol.vocab import CloseCode

log = logging.getLogger("mnk.server")

#: Seconds between a connection's pings, and without a pong before it is closed (websockets').
INTERVAL = 20.0
TIMEOUT = 20.0
#: Connections pinged per turn of the loop; the rest due wait for the next turn (a crowd that
#: arrived in one second is due in one second too: ~20 us each, never all in one turn).
PER_TURN = 50
#: How often the timer looks for due connections when none is due sooner.
TICK = 1.0


def can_ping(ws: Connection) -> bool:
    """Whether ``ws`` has the internals a ping without a coroutine needs."""
    return (
        isinstance(getattr(ws, "pending_pings", None), dict)
        and callable(getattr(ws, "send_data", None))
        and callable(getattr(getattr(ws, "protocol", None), "send_ping", None))
    )


class Keepalive:
    """Pings every joined connection each ``interval``; closes those silent past ``timeout``."""

    def __init__(
        self, interval: float = INTERVAL, timeout: float = TIMEOUT, per_turn: int = PER_TURN
    ) -> None:
        self.interval, self.timeout, self.per_turn = interval, timeout, per_turn
        #: Each joined connection and when it is due, oldest first.
        self._due: OrderedDict[Connection, float] = OrderedDict()
        self._timer: asyncio.Handle | None = None
        self._closing: set[asyncio.Task[None]] = set()
        #: Connections closed for a ping left unanswered (since the start).
        self.timed_out = 0

    def __len__(self) -> int:
        """Connections kept alive here."""
        return len(self._due)

    def join(self, ws: Connection) -> None:
        """Ping ``ws`` from now on, first in ``interval``."""
        loop = asyncio.get_running_loop()
        self._due[ws] = loop.time() + self.interval
        if self._timer is None:
            self._timer = loop.call_later(min(self.interval, TICK), self._sweep)

    def leave(self, ws: Connection) -> None:
        """``ws`` is gone: no more pings (nothing if it never joined)."""
        self._due.pop(ws, None)

    def close(self) -> None:
        """Stop pinging (the server is stopping)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._due.clear()

    def _sweep(self) -> None:
        """Ping up to ``per_turn`` due connections; come back next turn if more are due."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        due = self._due
        for _ in range(self.per_turn):
            if not due:
                break
            ws, at = next(iter(due.items()))
            if at > now:
                break
            if self._alive(ws, now):
                self._ping(ws, now)
                due[ws] = now + self.interval
                due.move_to_end(ws)
            else:
                del due[ws]
        if not due:
            self._timer = None
            return
        wait = next(iter(due.values())) - now
        if wait > 0:
            self._timer = loop.call_later(min(wait, TICK), self._sweep)
        else:  # more are due: the next turn, after what else waits
            self._timer = loop.call_soon(self._sweep)

    def _alive(self, ws: Connection, now: float) -> bool:
        """Whether ``ws`` is open and answered its pings; else it is closed (and left)."""
        if ws.protocol.state is not OPEN or ws.transport.is_closing():
            return False
        for _, sent in ws.pending_pings.values():
            if now - sent >= self.timeout:
                self.timed_out += 1
                task = asyncio.ensure_future(
                    ws.close(CloseCode.INTERNAL_ERROR, "keepalive ping timeout")
                )
                self._closing.add(task)
                task.add_done_callback(self._closing.discard)
                return False
        return True

    @staticmethod
    def _ping(ws: Connection, now: float) -> None:
        """Send ``ws`` a ping with a fresh payload, as ``Connection.ping`` would."""
        pending = ws.pending_pings
        data = struct.pack("!I", random.getrandbits(32))
        while data in pending:
            data = struct.pack("!I", random.getrandbits(32))
        pending[data] = (ws.loop.create_future(), now)
        try:
            ws.protocol.send_ping(data)
            ws.send_data()
        except Exception:  # a transport closing under it: its loss ends it
            log.debug("a keepalive ping failed", exc_info=True)
