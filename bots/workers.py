"""Search workers: one process per slot, so a hung engine is killed alone and nobody else's game.

A slot is a ``spawn`` process reading jobs from a pipe. The event loop waits on the pipe with
``add_reader``, so it never blocks; waiting for a free slot is not engine time, and a job that
overruns its deadline gets its own process killed and replaced, the other slots untouched.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import pickle
import signal
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

Job = Callable[..., Any]


class WorkerDied(RuntimeError):
    """The worker process exited in the middle of a job (the engine crashed it)."""


def _serve(conn: Connection, job: Job, nice: int = 0) -> None:
    """Worker main loop: run ``job`` on every argument tuple received, answer (ok, value);
    ``nice`` lowers the process's CPU priority first (analyses yield to games)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle, not ours
    if nice:
        with contextlib.suppress(OSError):
            os.nice(nice)
    while True:
        try:
            args = conn.recv()
        except (EOFError, OSError):
            return
        try:
            answer: tuple[bool, Any] = (True, job(*args))
        except BaseException as exc:  # report every failure; the worker itself carries on
            try:
                pickle.dumps(exc)
                answer = (False, exc)
            except Exception:
                answer = (False, RuntimeError(f"{type(exc).__name__}: {exc}"))
        conn.send(answer)


class Worker:
    """One worker process and the parent's end of its pipe."""

    def __init__(self, job: Job, nice: int = 0) -> None:
        context = multiprocessing.get_context("spawn")  # not fork: the parent runs a loop
        self.conn, child = context.Pipe()
        self.proc = context.Process(target=_serve, args=(child, job, nice), daemon=True)
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

    def __init__(self, job: Job, size: int, nice: int = 0) -> None:
        self.job = job
        self.size = size
        #: Added to the workers' niceness (their CPU priority below the games' workers).
        self.nice = nice
        self._idle: asyncio.Queue[Worker] | None = None
        self._all: set[Worker] = set()

    def _queue(self) -> asyncio.Queue[Worker]:
        if self._idle is None:
            self._idle = asyncio.Queue()
            for _ in range(self.size):
                self._release(self._spawn())
        return self._idle

    def _spawn(self) -> Worker:
        worker = Worker(self.job, self.nice)
        self._all.add(worker)
        return worker

    def _release(self, worker: Worker) -> None:
        assert self._idle is not None
        self._idle.put_nowait(worker)

    def _replace(self, worker: Worker) -> None:
        worker.kill()
        self._all.discard(worker)
        self._release(self._spawn())

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
        """Start every worker now and run one job on each (imports happen before any game)."""
        workers = [await self.acquire() for _ in range(self.size)]
        await asyncio.gather(*(self.run(w, args, timeout) for w in workers))

    def close(self) -> None:
        """Kill every worker."""
        for worker in list(self._all):
            worker.kill()
        self._all.clear()
