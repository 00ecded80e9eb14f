"""Commit first, then send: outputs leave in order, each after the records it depends on are saved.

While one batch commits on the writer thread, later outputs queue up behind it and their records
are committed together next time (group commit), so the event loop never waits on the disk and
nothing a peer sees can be lost by a crash.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from server.journal import Record
from server.store import Store

log = logging.getLogger("mnk.store")

Deliver = Callable[[], None]


class Pipeline:
    """Orders deliveries behind commits of the records that came with them."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._queue: deque[tuple[list[Record], Deliver]] = deque()
        self._wake = asyncio.Event()
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mnk-db")
        self._task: asyncio.Task[None] | None = None
        self._committing = False
        self._closing = False
        self.commits = 0
        self.records = 0

    def start(self) -> None:
        """Start the commit loop on the running event loop."""
        self._task = asyncio.create_task(self._run())

    def submit(self, records: list[Record], deliver: Deliver) -> None:
        """Run ``deliver`` once ``records`` are committed (at once when nothing is pending)."""
        if not records and not self._queue and not self._committing:
            deliver()
            return
        self._queue.append((records, deliver))
        self._wake.set()

    async def close(self) -> None:
        """Commit and deliver everything queued, then stop the writer."""
        self._closing = True
        self._wake.set()
        if self._task is not None:
            await self._task
        self._writer.shutdown(wait=True)

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            await self._drain()
            if self._closing and not self._queue:
                return

    async def _drain(self) -> None:
        loop = asyncio.get_running_loop()
        while self._queue:
            self._wake.clear()
            batch = list(self._queue)
            self._queue.clear()
            records = [r for recs, _ in batch for r in recs]
            self._committing = True
            try:
                if records:
                    await loop.run_in_executor(self._writer, self.store.write, records)
                    self.commits += 1
                    self.records += len(records)
            except Exception:
                log.exception("commit of %d records failed; delivering anyway", len(records))
            finally:
                self._committing = False
            for _, deliver in batch:
                try:
                    deliver()
                except Exception:
                    log.exception("delivery failed")
        self._wake.clear()
