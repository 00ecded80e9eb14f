"""The search workers' placement (bots/workers.py, bots/priority.py): a demotable job runs its
floor of CPU at the pool's niceness, then at the lowest; a pool keeps to its CPUs; the worker
itself carries on."""

from __future__ import annotations

import os
import sys
import threading

import pytest
from support.jobs import DEMOTED, affinity, burn_until_demoted, fail, remember

from bots.engine.fast import core_for, load_core
from bots.priority import Placement, parse_cpus
from bots.workers import WorkerPool
from protocol.rules import Move
from protocol.variants import make_variant

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice")
FLOOR_S = 0.05


async def test_a_job_past_its_floor_drops_to_the_lowest_priority_and_the_next_one_does_not() -> (
    None
):
    pool = WorkerPool(burn_until_demoted, 1, Placement(nice=5, demote_after=FLOOR_S))
    try:
        worker = await pool.acquire()
        nice, used = await pool.run(worker, (30.0,), 120)
        assert nice == DEMOTED
        assert used >= FLOOR_S  # not before its floor
        worker = await pool.acquire()  # the same worker, a new job: a new thread, not demoted
        nice, _ = await pool.run(worker, (0.0,), 60)
    finally:
        pool.close()
    assert 5 <= nice < DEMOTED


async def test_without_a_floor_jobs_are_never_demoted() -> None:
    pool = WorkerPool(burn_until_demoted, 1, Placement(nice=3))
    try:
        worker = await pool.acquire()
        nice, used = await pool.run(worker, (0.2,), 60)
    finally:
        pool.close()
    assert 3 <= nice < DEMOTED and used >= 0.2


async def test_a_demotable_job_that_raises_is_reported_and_the_worker_goes_on() -> None:
    pool = WorkerPool(fail, 1, Placement(demote_after=FLOOR_S))
    try:
        worker = await pool.acquire()
        with pytest.raises(ValueError, match="broken"):
            await pool.run(worker, ("broken",), 60)
        worker = await pool.acquire()
        with pytest.raises(ValueError, match="again"):
            await pool.run(worker, ("again",), 60)
    finally:
        pool.close()


async def test_a_worker_that_replaces_a_hung_one_is_warmed_up_before_its_first_job() -> None:
    """A cold worker spends its first job on imports and tables: after one hang, every game's
    first move hung in turn (mnk-tournament at 0.25 s a move). Its replacement warms first."""
    pool = WorkerPool(remember, 1)
    try:
        await pool.warm_up(("warm",))
        worker = await pool.acquire()
        assert await pool.run(worker, ("first",), 60) == ["warm", "first"]
        worker = await pool.acquire()
        with pytest.raises(TimeoutError):
            await pool.run(worker, ("hung", 30.0), 0.2)
        worker = await pool.acquire()  # the replacement, once it has run the warm-up
        assert await pool.run(worker, ("next",), 60) == ["warm", "next"]
    finally:
        pool.close()


def test_a_new_thread_takes_over_the_core_an_ended_thread_kept() -> None:
    variant = make_variant("gomoku")
    module = load_core()
    seen: list[object] = []

    def search_position() -> None:
        seen.append(core_for(variant, [Move(7, 7)], module))

    for _ in range(3):
        thread = threading.Thread(target=search_position)
        thread.start()
        thread.join()
    assert seen[0] is seen[1] is seen[2]


async def test_a_pool_given_cpus_runs_its_workers_on_those_only() -> None:
    one = min(os.sched_getaffinity(0))
    pool = WorkerPool(affinity, 1, Placement(cpus=frozenset({one})))
    try:
        worker = await pool.acquire()
        assert await pool.run(worker, (), 60) == [one]
    finally:
        pool.close()


def test_cpu_lists_parse_like_taskset_and_refuse_cpus_the_machine_lacks() -> None:
    allowed = list(range(os.cpu_count() or 1))
    first, last = allowed[0], allowed[-1]
    assert parse_cpus(str(first)) == {first}
    assert parse_cpus(",".join(map(str, allowed))) == set(allowed)
    assert parse_cpus(f"{first}-{last}") == set(allowed)
    assert parse_cpus(f" {first} , {first}") == {first}
    for bad in ("", "x", "1-", "-1", "3-1", "1;2", f"{last + 1}", "0-99999999"):
        with pytest.raises(ValueError):
            parse_cpus(bad)
