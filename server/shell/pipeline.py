"""Commit first, then send: outputs leave in order, each after the records it depends on are saved.

Everything handled while the previous batch was being committed is committed in one transaction
(group commit), then delivered in order. A batch that cannot be committed within the store's
timeout stops the server (fail-stop) rather than send what a crash could take back.

Where a batch is committed: on the event loop's own thread when the store can (its
``commits_on_loop``: SQLite's :meth:`~server.storage.sqlite.Store.write_now`), the batch is
small (:data:`INLINE_MAX_US`) and the write lock is free at once; otherwise on a dedicated
writer thread, which waits for the lock, so another process holding it stalls deliveries, never
the event loop. On the loop, a batch of moves costs ~25 µs of SQLite (page-cache writes, no
fsync: WAL with ``synchronous=NORMAL``); on the thread, each SQLite call lets go of the GIL and
takes it back from the busy loop, and those hand-overs cost more than the commit (8 against
~3 µs per move at 100 games).

A commit costs about the same for one record as for dozens, so at low concurrency (a commit per
move) a batch may wait for company: never when records are rare (a lone move goes at once), never
more than :data:`MAX_HOLD` after its first record, no longer once :data:`FULL` records are in,
and not while waiting gathers nothing (see :class:`Pacer`).

WAL checkpoints run on a second thread (``PASSIVE``: they never block the writer); when the WAL
outgrows its bound, a ``TRUNCATE`` checkpoint runs between two commits on the writer thread.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from protocol.vocab import Status
from server.core.journal.rows import GameRow, JournalRow, MoveRow
from server.storage.base import Storage

log = logging.getLogger("mnk.store")

Deliver = Callable[[], None]

#: Seconds between WAL checkpoints on the worker thread.
CHECKPOINT_INTERVAL = 2.0
#: The longest a batch waits for more records after its first (the most a move is delayed).
MAX_HOLD = 0.001
#: A batch with this many submissions goes without waiting: more would not make it cheaper.
FULL = 16
#: Weight of the newest sample in the running averages of gaps and of what waits gathered.
GAP_WEIGHT = 0.2
#: When waiting stopped paying, one batch in this many still waits, to notice when it pays again.
PROBE = 32
#: The most a commit on the loop may take, in estimated µs (a batch's moves ~1 µs each, a
#: header, room or player ~20, a game's end ~110 with its seal): a batch that would hold the
#: loop longer is committed in parts, or on the writer thread if one submission alone is over.
INLINE_MAX_US = 1000


class Pacer:
    """When a batch should be committed: at once, or after waiting a little for more records.

    Sans-I/O: told when submissions with records arrive and what each wait gathered, asked how
    long a batch may still wait. It waits only while submissions come faster than one per
    ``max_hold`` on average (so a lone move is never held), only while the batch is smaller
    than ``full``, never past ``max_hold`` after the batch's first submission, and only while
    waiting pays: when waits gather less than one submission on average (a closed loop whose
    players wait for this very commit), it stops, trying again once every ``probe`` batches.
    """

    __slots__ = ("full", "gain", "gap", "last", "max_hold", "probe", "skipped")

    def __init__(self, max_hold: float = MAX_HOLD, full: int = FULL, probe: int = PROBE) -> None:
        self.max_hold = max_hold
        self.full = full
        self.probe = probe
        #: Running average of the seconds between submissions (infinite: none seen yet).
        self.gap = math.inf
        self.last = -math.inf
        #: Running average of the submissions a wait gathered (optimistic until measured).
        self.gain = float(full)
        self.skipped = 0

    def arrived(self, now: float) -> None:
        """A submission with records came at ``now``."""
        last, self.last = self.last, now
        if math.isinf(last):
            return  # the first one: no gap yet
        gap = min(now - last, 1.0)  # one long pause must not weigh for ever
        self.gap = gap if math.isinf(self.gap) else self.gap + GAP_WEIGHT * (gap - self.gap)

    def hold(self, pending: int, first: float, now: float) -> float:
        """Seconds the batch of ``pending`` submissions, the first at ``first``, may still wait."""
        if pending >= self.full or self.gap >= self.max_hold:
            return 0.0
        if self.gain < 1.0:
            self.skipped += 1
            if self.skipped < self.probe:
                return 0.0
            self.skipped = 0  # once in a while, see whether waiting pays again
        return max(0.0, min(self.max_hold, first + self.max_hold - now))

    def gathered(self, count: int) -> None:
        """A wait ended with ``count`` more submissions in its batch than it started with."""
        self.gain += GAP_WEIGHT * (count - self.gain)


class Pipeline:
    """Orders deliveries behind commits of the records that came with them."""

    def __init__(
        self,
        store: Storage,
        on_failure: Callable[[], None] | None = None,
        pacer: Pacer | None = None,
        *,
        inline: bool = False,
    ) -> None:
        self.store = store
        #: Whether small batches may be committed on the loop (the store must be able to).
        self.inline = inline and store.commits_on_loop
        #: Batches committed on the loop and on the writer thread (for tests and the bench).
        self.inlined = 0
        self.threaded = 0
        #: Jobs given to the writer thread and not finished: the loop never uses the store's
        #: connection while the thread may.
        self._thread_jobs = 0
        self.pacer = pacer or Pacer()
        #: Batches that waited for company (for tests and the bench).
        self.held = 0
        self._first = 0.0
        self._wake: asyncio.Future[None] | None = None
        #: Called once when a commit fails: the server must stop rather than run undurably.
        self.on_failure = on_failure
        self.failed = False
        #: What waits for the next commit: its records, in order, and one delivery per
        #: submission. Flat lists, not a tuple per submission: what waits for a commit outlives
        #: young collections, and every object parked here is one the cyclic collector walks
        #: again in its older generations (at 1,000 games that was the durable server's GC).
        self._records: list[JournalRow] = []
        self._pending: list[Deliver] = []
        #: Per submission: its records, and their estimated cost on the loop (for a batch
        #: taken in parts).
        self._sizes: list[int] = []
        self._costs: list[float] = []
        self._busy = False
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mnk-writer")
        self._checkpointer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mnk-wal")
        self._task: asyncio.Task[None] | None = None
        #: The loop it runs on, known from the first submission: asking for the running loop
        #: is a system call (getpid) on Python 3.11, and submissions come once a move.
        self._loop: asyncio.AbstractEventLoop | None = None
        self._flusher: asyncio.Task[None] | None = None
        self._idle = asyncio.Event()
        self._idle.set()

    def start(self) -> None:
        """Start checkpointing in the background (commits need no task)."""
        self._task = asyncio.create_task(self._checkpoint_forever())

    def submit(self, records: list[JournalRow], deliver: Deliver, urgent: bool = False) -> None:
        """Run ``deliver`` once ``records`` are committed (at once when nothing is pending).

        ``urgent`` deliveries carry no state (a ``pong``): they never wait behind a commit.
        """
        if self.failed:
            return  # after a failed commit nothing more may leave: the server is stopping
        if not records and (urgent or (not self._pending and not self._busy)):
            deliver()
            return
        loop = self._loop
        if loop is None:
            loop = self._loop = asyncio.get_running_loop()
        if records:
            now = loop.time()
            self.pacer.arrived(now)
            if not self._pending:
                self._first = now
        self._records += records
        self._pending.append(deliver)
        self._sizes.append(len(records))
        if not self.inline:
            self._costs.append(0)
        elif len(records) == 1 and type(records[0]) is MoveRow:
            self._costs.append(1)  # a plain move: the usual submission, costed without a call
        else:
            self._costs.append(_cost(records))
        wake = self._wake
        if wake is not None and len(self._pending) >= self.pacer.full and not wake.done():
            wake.set_result(None)  # the batch is full: stop waiting for company
        if not self._busy:
            self._busy = True
            self._idle.clear()
            self._flusher = loop.create_task(self._flush_forever())

    async def _flush_forever(self) -> None:
        """Commit and deliver batches until nothing is pending (one commit at a time).

        Pipelined: once a batch is committed, a next one for the writer thread starts there
        before this one's deliveries go out on the loop, so the writer never waits for them.
        One for the loop is committed after them (it would only hold them up), once the loop
        has turned if a batch was just committed on it (the loop is never held for more than
        one budget). Deliveries leave in submission order, each after its own batch's commit.
        """
        loop = asyncio.get_running_loop()
        try:
            await asyncio.sleep(0)  # let this turn's other requests join the batch
            await self._hold(loop)
            batch, commit, count = self._start(loop)
            while True:
                if commit is not None:
                    try:
                        await commit
                    except Exception:
                        self._fail(count)
                        return
                following: list[Deliver] | None = None
                if self._pending and not self._inline_next():
                    following, commit, count = self._start(loop)
                for deliver in batch:
                    try:
                        deliver()
                    except Exception:
                        log.exception("delivery failed")
                if following is None:
                    if not self._pending or self.failed:
                        return
                    if self._inline_next():
                        await asyncio.sleep(0)  # the loop turns between two commits made on it
                        if self.failed:
                            return
                    following, commit, count = self._start(loop)
                batch = following
        finally:
            self._busy = False
            self._idle.set()

    def _loop_may_write(self) -> bool:
        """Whether a commit may be made on the loop now: the store can, and the writer thread
        has no job that may be using its connection."""
        return self.inline and not self._thread_jobs

    def _inline_next(self) -> bool:
        """Whether the next batch would be committed on the loop (all or its first part)."""
        return self._loop_may_write() and bool(self._costs) and self._costs[0] <= INLINE_MAX_US

    def _start(
        self, loop: asyncio.AbstractEventLoop
    ) -> tuple[list[Deliver], asyncio.Future[None] | None, int]:
        """Take what is pending as the next batch and start committing its records, if any.

        When it would be committed on the loop but is over the budget, only its first
        submissions are taken, as many as the budget holds (at least one); the rest wait for
        the next batch."""
        records, costs = self._records, self._costs
        cost = sum(costs)
        if cost > INLINE_MAX_US and self._loop_may_write():
            taken, cut, cost = _within_budget(self._sizes, costs)
            records, self._records = records[:cut], records[cut:]
            batch, self._pending = self._pending[:taken], self._pending[taken:]
            del self._sizes[:taken], self._costs[:taken]
        else:
            batch, self._pending, self._records = self._pending, [], []
            self._sizes, self._costs = [], []
        if not records:
            return batch, None, 0
        return batch, self._commit(loop, records, cost), len(records)

    def _commit(
        self, loop: asyncio.AbstractEventLoop, records: list[JournalRow], cost: float
    ) -> asyncio.Future[None]:
        """Commit ``records`` here if that is cheap (``cost``, estimated) and the lock is free,
        else on the thread."""
        if cost <= INLINE_MAX_US and self._loop_may_write():
            done = loop.create_future()
            try:
                written = self.store.write_now(records)
            except Exception as exc:
                done.set_exception(exc)
                return done
            if written:
                self.inlined += 1
                done.set_result(None)
                if self.store.upkeep_due():
                    self._on_thread(loop, self._upkeep)
                return done
        self.threaded += 1
        return self._on_thread(loop, self.store.write, records)

    def _on_thread(
        self, loop: asyncio.AbstractEventLoop, job: Callable[..., None], *args: object
    ) -> asyncio.Future[None]:
        """Run ``job`` on the writer thread, after what it was given before."""
        self._thread_jobs += 1
        future = loop.run_in_executor(self._writer, job, *args)
        future.add_done_callback(self._thread_job_done)
        return future

    def _thread_job_done(self, _: asyncio.Future[None]) -> None:
        """The writer thread is done with a job (and, when none is left, with the connection)."""
        self._thread_jobs -= 1

    def _upkeep(self) -> None:
        """The store's upkeep after batches committed on the loop (nobody awaits it)."""
        try:
            self.store.upkeep()
        except Exception:
            log.exception("store upkeep failed")

    async def _hold(self, loop: asyncio.AbstractEventLoop) -> None:
        """Let a small batch wait for company, as long as the pacer allows (usually not at all)."""
        delay = self.pacer.hold(len(self._pending), self._first, loop.time())
        if delay <= 0:
            return
        self.held += 1
        before = len(self._pending)
        wake = self._wake = loop.create_future()
        timer = loop.call_later(delay, _settle, wake)
        try:
            await wake
        finally:
            timer.cancel()
            self._wake = None
        self.pacer.gathered(len(self._pending) - before)

    def _fail(self, count: int) -> None:
        # Fail-stop: what was not saved must not be seen. Clients resume after a restart from
        # the last commit, which is exactly what they were shown.
        log.critical("commit of %d records failed; stopping the server", count)
        log.exception("commit failure")
        self.failed = True
        self._pending, self._records, self._sizes, self._costs = [], [], [], []
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
            await self._on_thread(loop, self.store.checkpoint, True)
        self._checkpointer.shutdown(wait=True)
        self._writer.shutdown(wait=True)

    async def _checkpoint_forever(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(CHECKPOINT_INTERVAL)
            try:
                await loop.run_in_executor(self._checkpointer, self.store.checkpoint)
                if self.store.wal_size() > self.store.wal_limit:
                    await self._on_thread(loop, self.store.checkpoint, True)
            except Exception:
                log.exception("WAL checkpoint failed")


def _cost(records: list[JournalRow]) -> float:
    """A commit's estimated µs on the loop (see :data:`INLINE_MAX_US`; infinite once over it)."""
    cost = 0
    for r in records:
        kind = type(r)
        if kind is MoveRow:
            cost += 1
        else:
            cost += 110 if kind is GameRow and r.status == Status.OVER else 20  # type: ignore[union-attr]
            if cost > INLINE_MAX_US:
                return math.inf
    return cost


def _within_budget(sizes: list[int], costs: list[float]) -> tuple[int, int, float]:
    """How many submissions (of ``sizes`` records, ``costs`` µs each) from the first fit in
    :data:`INLINE_MAX_US` (the first always counts, even alone over it), their records and cost.
    """
    taken = cut = 0
    total = 0.0
    for size, cost in zip(sizes, costs, strict=True):
        if taken and total + cost > INLINE_MAX_US:
            break
        total += cost
        taken += 1
        cut += size
    return taken, cut, total


def _settle(future: asyncio.Future[None]) -> None:
    """End a wait that nothing ended sooner."""
    if not future.done():
        future.set_result(None)
