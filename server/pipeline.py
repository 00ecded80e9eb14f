"""Commit first, then send: outputs leave in order, each after the records it depends on are saved.

Everything handled while the previous batch was being committed is committed in one transaction
(group commit), then delivered in order. Commits run on a dedicated writer thread, so another
process holding the SQLite write lock (or a slow disk) stalls deliveries, never the event loop:
pings are still answered while a batch waits. A batch that cannot be committed within the
store's timeout stops the server (fail-stop) rather than send what a crash could take back.

WAL checkpoints run on a second thread (``PASSIVE``: they never block the writer); when the WAL
outgrows its bound, a ``TRUNCATE`` checkpoint runs between two commits on the writer thread.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from server.journal import Record
from server.storage import Storage

log = logging.getLogger("mnk.store")

Deliver = Callable[[], None]

#: Seconds between WAL checkpoints on the worker thread.
CHECKPOINT_INTERVAL = 2.0


class Pipeline:
    """Orders deliveries behind commits of the records that came with them."""

    def __init__(self, store: Storage, on_failure: Callable[[], None] | None = None) -> None:
        self.store = store
        #: Called once when a commit fails: the server must stop rather than run undurably.
        self.on_failure = on_failure
        self.failed = False
        self._pending: list[tuple[list[Record], Deliver]] = []
        self._busy = False
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mnk-writer")
        self._checkpointer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mnk-wal")
        self._task: asyncio.Task[None] | None = None
        self._flusher: asyncio.Task[None] | None = None
        self._idle = asyncio.Event()
        self._idle.set()

    def start(self) -> None:
        """Start checkpointing in the background (commits need no task)."""
        self._task = asyncio.create_task(self._checkpoint_forever())

    def submit(self, records: list[Record], deliver: Deliver, urgent: bool = False) -> None:
        """Run ``deliver`` once ``records`` are committed (at once when nothing is pending).

        ``urgent`` deliveries carry no state (a ``pong``): they never wait behind a commit.
        """
        if self.failed:
            return  # after a failed commit nothing more may leave: the server is stopping
        if not records and (urgent or (not self._pending and not self._busy)):
            deliver()
            return
        self._pending.append((records, deliver))
        if not self._busy:
            self._busy = True
            self._idle.clear()
            self._flusher = asyncio.get_running_loop().create_task(self._flush_forever())

    async def _flush_forever(self) -> None:
        """Commit and deliver batches until nothing is pending (one commit at a time)."""
        loop = asyncio.get_running_loop()
        try:
            await asyncio.sleep(0)  # let this turn's other requests join the batch
            while self._pending and not self.failed:
                batch, self._pending = self._pending, []
                records = [r for recs, _ in batch for r in recs]
                if records:
                    try:
                        await loop.run_in_executor(self._writer, self.store.write, records)
                    except Exception:
                        self._fail(len(records))
                        return
                for _, deliver in batch:
                    try:
                        deliver()
                    except Exception:
                        log.exception("delivery failed")
        finally:
            self._busy = False
            self._idle.set()

    def _fail(self, count: int) -> None:
        # Fail-stop: what was not saved must not be seen. Clients resume after a restart from
        # the last commit, which is exactly what they were shown.
        log.critical("commit of %d records failed; stopping the server", count)
        log.exception("commit failure")
        self.failed = True
        self._pending = []
        if self.on_failure is not None:
            self.on_failure()

    async def flush(self) -> None:
        """Wait until everything submitted so far is committed and delivered (or failed)."""
        await self._idle.wait()

    async def close(self) -> None:
        """Commit and deliver what is pending, stop checkpointing, checkpoint one last time."""
        await self.flush()
        if self._task is not None:
            self._task.cancel()
        loop = asyncio.get_running_loop()
        if not self.failed:
            await loop.run_in_executor(self._writer, self.store.checkpoint, True)
        self._checkpointer.shutdown(wait=True)
        self._writer.shutdown(wait=True)

    async def _checkpoint_forever(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(CHECKPOINT_INTERVAL)
            try:
                await loop.run_in_executor(self._checkpointer, self.store.checkpoint)
                if self.store.wal_size() > self.store.wal_limit:
                    await loop.run_in_executor(self._writer, self.store.checkpoint, True)
            except Exception:
                log.exception("WAL checkpoint failed")
