"""Room codes unique across a cluster: each node hands out codes it reserved in PostgreSQL.

A code is reserved by inserting it into ``room_codes`` (its primary key decides, so two nodes
never hold one code), and only when no live room has it. ``new_id`` is synchronous (it runs
on the event loop, inside a request), so each node keeps a small pool of reserved codes, filled
in the background on a worker thread. A reservation never used, or whose room is gone, is
collected after :data:`KEEP` seconds; a node uses a pooled code only within :data:`FRESH`
seconds of reserving it, so it never hands out a collected one. With the pool empty (PostgreSQL
unreachable, or rooms made faster than it refills) a node falls back to a random code free on
this node, and says so in the log.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from server.cluster.background import Background
from server.core.lobby.registry import MemoryRegistry, random_code
from server.storage.postgres import PgStore

log = logging.getLogger("mnk.cluster")

#: Codes reserved at once, and the pool size under which more are reserved: after the pool ran
#: dry the low mark grows by what was missing (at least doubling, up to ``MAX_LOW``), so a node
#: that makes rooms in bursts (a hundred games at once) keeps a pool as deep as its bursts.
BATCH = 32
LOW = 16
MAX_LOW = 1024
#: Seconds a pooled code may still be handed out, and a reservation is kept without its room.
FRESH = 1800.0
KEEP = 3600.0
#: Seconds between two collections of stale reservations (by each node).
COLLECT_INTERVAL = 600.0
#: Seconds between two warnings about an empty pool.
WARN_INTERVAL = 60.0


def reserve(db: Any, node: str, codes: list[str]) -> list[str]:
    """Reserve for ``node`` those of ``codes`` no node holds and no live room has."""
    rows = db.execute(
        "INSERT INTO room_codes (code, node, at) "
        "SELECT c, %s, extract(epoch FROM clock_timestamp()) FROM unnest(%s::text[]) AS c "
        "WHERE NOT EXISTS (SELECT 1 FROM rooms WHERE room = c) "
        "ON CONFLICT (code) DO NOTHING RETURNING code",
        (node, codes),
    ).fetchall()
    return [row["code"] for row in rows]


def collect(db: Any, keep: float = KEEP) -> int:
    """Forget reservations older than ``keep`` seconds whose code no live room has."""
    done = db.execute(
        "DELETE FROM room_codes WHERE at < extract(epoch FROM clock_timestamp()) - %s "
        "AND NOT EXISTS (SELECT 1 FROM rooms WHERE room = code)",
        (keep,),
    )
    return int(done.rowcount)


class CodeRegistry(MemoryRegistry, Background):
    """A node's rooms, whose new codes come from its pool of reservations (kept filled in the
    background between ``start`` and ``stop``)."""

    def __init__(
        self, store: PgStore, node: str, generate: Callable[[], str] = random_code
    ) -> None:
        super().__init__()
        self.store, self.node, self.generate = store, node, generate
        #: Reserved codes with when they were reserved (monotonic seconds), oldest first.
        self.pool: deque[tuple[str, float]] = deque()
        #: Codes handed out without a reservation (the pool was empty).
        self.unreserved = 0
        #: The pool size under which more codes are reserved (grows with the bursts seen).
        self.low = LOW
        #: Codes handed out without a reservation since the last refill.
        self._short = 0
        self._wake = asyncio.Event()
        self._warned = -WARN_INTERVAL

    def new_id(self) -> str:
        """A reserved code no room here has (a random free one if none is left)."""
        now = time.monotonic()
        pool = self.pool
        try:
            while pool:
                code, at = pool.popleft()
                if now - at < FRESH and self.get(code) is None:
                    return code
        finally:
            if len(pool) < self.low:
                self._wake.set()
        self.unreserved += 1
        self._short += 1
        if now - self._warned >= WARN_INTERVAL:
            self._warned = now
            log.warning("no reserved room code left: a random one is used (%d so far)",
                        self.unreserved)  # fmt: skip
        return super().new_id()

    def fill(self) -> int:
        """Reserve codes until the pool holds its low mark or more, up to twice that (on a
        worker thread)."""
        short, self._short = self._short, 0
        if short:
            self.low = min(max(2 * self.low, self.low + short), MAX_LOW)
        added = 0
        for _ in range(4):  # each batch is almost surely all free: a few rounds at most
            if len(self.pool) >= self.low:
                break
            want = max(BATCH, 2 * self.low - len(self.pool))
            codes = [self.generate() for _ in range(want)]
            got = reserve(self.store.connection(), self.node, codes)
            now = time.monotonic()
            self.pool.extend((code, now) for code in got)
            added += len(got)
        return added

    async def _run(self) -> None:
        """Keep the pool filled (and collect stale reservations now and then)."""
        collected = time.monotonic()
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(FRESH / 4):
                    await self._wake.wait()
            self._wake.clear()
            now = time.monotonic()
            while self.pool and now - self.pool[0][1] >= FRESH:
                self.pool.popleft()
            try:
                await asyncio.to_thread(self.fill)
                if now - collected >= COLLECT_INTERVAL:
                    collected = now
                    gone = await asyncio.to_thread(collect, self.store.connection())
                    log.info("forgot %d stale room code reservations", gone)
            except Exception as exc:
                log.warning("reserving room codes failed (%s); trying again", exc)
                await asyncio.sleep(1.0)
                self._wake.set()
