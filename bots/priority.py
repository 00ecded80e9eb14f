"""Where and how urgently a worker pool's jobs run (:class:`Placement`): a niceness, a floor of
CPU after which a job drops to the lowest niceness in a thread of its own, and the CPUs.

Linux sets niceness per thread, and an unprivileged thread can lower its own but never raise it
again, so a demoted job runs in a new thread (:func:`run_demoted`), watched by the worker's main
thread, which keeps its priority for the next job. Niceness 19 gives the job about 1/70 of a
contended core (niceness 10: about 1/10). ``SCHED_IDLE`` was tried instead: on a saturated
machine its thread waited up to 1.4 s between turns and missed its deadlines, and where the
machine has room it cost the games no less (docs/PERFORMANCE-LOG.md, issue 32).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")

#: The niceness a demoted job drops to, and how often the watching thread looks at the job's
#: CPU time (seconds).
DEMOTED_NICE = 19
POLL_S = 0.005
#: The highest CPU number :func:`parse_cpus` reads (Linux's own limit is 8,191).
MAX_CPU = 8191


@dataclass(frozen=True)
class Placement:
    """How a pool's workers run: ``nice`` added to their niceness, ``demote_after`` CPU seconds
    of each job before it drops to ``DEMOTED_NICE`` (None: never), ``cpus`` the only CPUs they
    use (None: any)."""

    nice: int = 0
    demote_after: float | None = None
    cpus: frozenset[int] | None = None


def run_demoted(call: Callable[[], T], floor_s: float) -> T:
    """``call()`` in a new thread, dropped to ``DEMOTED_NICE`` once it has used ``floor_s``
    seconds of CPU; the calling thread watches and keeps its own priority. ``call`` must not
    raise."""
    result: list[T] = []
    clock: list[int] = []
    started = threading.Event()

    def run() -> None:
        clock.append(time.pthread_getcpuclockid(threading.get_ident()))
        started.set()
        result.append(call())

    thread = threading.Thread(target=run, name="demotable", daemon=True)
    thread.start()
    started.wait()
    while thread.is_alive():
        thread.join(POLL_S)
        try:
            used = time.clock_gettime(clock[0])
        except OSError:  # the thread has ended
            break
        if used >= floor_s and thread.native_id is not None and thread.is_alive():
            with contextlib.suppress(OSError):
                os.setpriority(os.PRIO_PROCESS, thread.native_id, DEMOTED_NICE)
            break
    thread.join()
    return result[0]


def parse_cpus(text: str) -> frozenset[int]:
    """``"1"``, ``"2-3"`` or ``"0,2-3"`` as a set of CPU numbers; ValueError if malformed or
    beyond this machine's CPUs (not only this process's: a server kept to CPUs 0-5 may give its
    bot's analyses 6-7)."""
    cpus: set[int] = set()
    for part in text.split(","):
        first, dash, last = part.strip().partition("-")
        if not first.isdigit() or not (last if dash else first).isdigit():
            raise ValueError(f"bad CPU range {part.strip()!r} (CPU numbers: 2, 0-3, 0,2-3)")
        low, high = int(first), int(last or first)
        if high < low or high > MAX_CPU:
            raise ValueError(f"bad CPU range {part.strip()!r}")
        cpus.update(range(low, high + 1))
    count = os.cpu_count() or 1
    if max(cpus) >= count:
        raise ValueError(f"this machine's CPUs are 0-{count - 1}")
    return frozenset(cpus)
