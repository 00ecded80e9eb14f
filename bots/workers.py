"""Search workers: one process per slot, so a hung engine is killed alone and nobody else's game.

A slot is a ``spawn`` process reading jobs from a pipe. The event loop waits on the pipe with
``add_reader``, so it never blocks; waiting for a free slot is not engine time, and a job that
overruns its deadline gets its own process killed and replaced, the other slots untouched.

A pool may run its jobs at a lower priority (its :class:`~bots.priority.Placement`): ``nice``
for the whole worker, and ``demote_after`` for each job, which then drops to the lowest
priority once it has used that much CPU. Every job so gets a floor of CPU however busy the
machine, and beyond it takes little from the games. ``cpus`` confines a pool's workers to CPUs
of their own (Linux affinity): where the games keep to the others, the jobs take no CPU time
from them.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import pickle
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from functools import partial
from multiprocessing.connection import Connection
from typing import Any

from bots.priority import Placement, run_demoted

Job = Callable[..., Any]


#: How long a replacement worker may take over its warm-up job.
WARM_UP_TIMEOUT_S = 60.0


class WorkerDied(RuntimeError):
    """The worker process exited in the middle of a job (the engine crashed it)."""


def _serve(conn: Connection, job: Job, placement: Placement) -> None:
    """Worker main loop: run ``job`` on every argument tuple received, answer (ok, value);
    placed first as ``placement`` says (module doc)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle, not ours
    if placement.cpus:
        with contextlib.suppress(OSError):  # (mnk-bot checked them; a changed cpuset: any CPU)
            os.sched_setaffinity(0, placement.cpus)
    if placement.nice:
        with contextlib.suppress(OSError):
            os.nice(placement.nice)
    demote_after = placement.demote_after
    if not sys.platform.startswith("linux"):  # niceness per process only: no demotion
        demote_after = None
    while True:
        try:
            args = conn.recv()
        except (EOFError, OSError):
            return
        if demote_after is None:
            answer = _answer(job, args)
        else:
            answer = run_demoted(partial(_answer, job, args), demote_after)
        conn.send(answer)


def _answer(job: Job, args: tuple[Any, ...]) -> tuple[bool, Any]:
    """``job(*args)`` as (True, value), or (False, a picklable exception)."""
    try:
        return True, job(*args)
    except BaseException as exc:  # report every failure; the worker itself carries on
        try:
            pickle.dumps(exc)
            return False, exc
        except Exception:
            return False, RuntimeError(f"{type(exc).__name__}: {exc}")


@contextlib.contextmanager
def _ctrl_c_ignored() -> Iterator[None]:
    """SIGINT ignored while a worker is started: the new interpreter inherits it and so never
    dies of a Ctrl-C while it is still importing (``_serve`` ignores it from then on)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


class Worker:
    """One worker process and the parent's end of its pipe."""

    def __init__(self, job: Job, placement: Placement) -> None:
        context = multiprocessing.get_context("spawn")  # not fork: the parent runs a loop
        self.conn, child = context.Pipe()
        serving = (child, job, placement)
        self.proc = context.Process(target=_serve, args=serving, daemon=True)
        with _ctrl_c_ignored():
            self.proc.start()
        child.close()

    async def call(self, args: tuple[Any, ...], timeout: float) -> Any:
        """Run one job; TimeoutError past ``timeout`` (the worker is then unusable)."""
        loop = asyncio.get_running_loop()
        ready = loop.create_future()
        fd = self.conn.fileno()
        self.conn.send(args)
        loop.add_reader(fd, lambda: ready.done() or ready.set_result(None))
        try:
            await asyncio.wait_for(ready, timeout)
        finally:
            loop.remove_reader(fd)
        try:
            ok, value = self.conn.recv()
        except (EOFError, OSError) as exc:
            raise WorkerDied("the engine's worker process died") from exc
        if ok:
            return value
        raise value

    def kill(self) -> None:
        """Stop the process now, whatever it is doing."""
        with contextlib.suppress(Exception):
            self.proc.kill()
            self.proc.join(2)
        self.conn.close()


class WorkerPool:
    """``size`` slots; a caller waits for a free one, then has it to itself for one job."""

    def __init__(self, job: Job, size: int, placement: Placement | None = None) -> None:
        self.job = job
        self.size = size
        #: How the workers run (default: as this process, on any CPU; module doc).
        self.placement = placement or Placement()
        self._idle: asyncio.Queue[Worker] | None = None
        self._all: set[Worker] = set()
        #: The job every worker runs before its first real one (:meth:`warm_up`), if any.
        self._warm_args: tuple[Any, ...] | None = None
        #: Replacement workers warming up before they are handed out.
        self._warming: set[asyncio.Task[None]] = set()

    def _queue(self) -> asyncio.Queue[Worker]:
        if self._idle is None:
            self._idle = asyncio.Queue()
            for _ in range(self.size):
                self._release(self._spawn())
        return self._idle

    def _spawn(self) -> Worker:
        worker = Worker(self.job, self.placement)
        self._all.add(worker)
        return worker

    def _release(self, worker: Worker) -> None:
        assert self._idle is not None
        self._idle.put_nowait(worker)

    def _replace(self, worker: Worker) -> None:
        """A fresh worker for a hung or dead one, warmed up as the first ones were before it
        takes a job: a cold worker spends its first job's time on imports and tables (~1 s),
        so after one hang every game's first move hung in turn."""
        worker.kill()
        self._all.discard(worker)
        fresh = self._spawn()
        if self._warm_args is None:
            self._release(fresh)
            return
        task = asyncio.get_running_loop().create_task(self._warm(fresh, self._warm_args))
        self._warming.add(task)
        task.add_done_callback(self._warming.discard)

    async def _warm(self, worker: Worker, args: tuple[Any, ...]) -> None:
        """Run the warm-up job on ``worker``, then hand it out (or a fresh one if it failed)."""
        try:
            await worker.call(args, WARM_UP_TIMEOUT_S)
        except (TimeoutError, WorkerDied):
            worker.kill()
            self._all.discard(worker)
            worker = self._spawn()  # cold, but a worker: never one slot fewer
        except Exception:  # the engine raised on the warm-up position: the worker is fine
            pass
        self._release(worker)

    async def acquire(self) -> Worker:
        """Wait for a free worker (this wait is not the engine's time)."""
        return await self._queue().get()

    async def run(self, worker: Worker, args: tuple[Any, ...], timeout: float) -> Any:
        """Run a job on an acquired worker and give the worker back (or a fresh one)."""
        try:
            result = await worker.call(args, timeout)
        except (TimeoutError, WorkerDied, asyncio.CancelledError):
            self._replace(worker)  # hung, dead, or abandoned mid-job: never reuse it
            raise
        except BaseException:
            self._release(worker)  # the engine raised; the worker is fine
            raise
        self._release(worker)
        return result

    async def warm_up(self, args: tuple[Any, ...], timeout: float = 60.0) -> None:
        """Start every worker now and run one job on each (imports happen before any game);
        a worker that replaces a hung one runs it too before its first job."""
        self._warm_args = args
        workers = [await self.acquire() for _ in range(self.size)]
        await asyncio.gather(*(self.run(w, args, timeout) for w in workers))

    def close(self) -> None:
        """Kill every worker (and stop warming the replacements)."""
        for task in list(self._warming):
            task.cancel()
        for worker in list(self._all):
            worker.kill()
        self._all.clear()
