"""Jobs for worker-pool tests: module-level, so a ``spawn`` worker can unpickle them."""

from __future__ import annotations

import os
import time

from bots.priority import DEMOTED_NICE as DEMOTED


def burn_until_demoted(limit_s: float) -> tuple[int, float]:
    """Spin until this thread's niceness is ``DEMOTED`` or it has used ``limit_s`` of CPU; say
    its niceness then and the CPU it had used (Linux: niceness is per thread)."""
    while os.getpriority(os.PRIO_PROCESS, 0) != DEMOTED and time.thread_time() < limit_s:
        pass
    return os.getpriority(os.PRIO_PROCESS, 0), time.thread_time()


def affinity() -> list[int]:
    """The CPUs this worker may run on."""
    return sorted(os.sched_getaffinity(0))


def fail(message: str) -> None:
    """Raise, as a broken engine would."""
    raise ValueError(message)


#: The jobs this worker process has run, in order (``remember``).
_SEEN: list[str] = []


def remember(name: str, hang_s: float = 0.0) -> list[str]:
    """Note ``name`` as run here, sleep ``hang_s`` (an engine that hangs), and say every job
    this worker has run so far."""
    _SEEN.append(name)
    time.sleep(hang_s)
    return list(_SEEN)
