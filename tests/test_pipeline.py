"""Group commit: nothing leaves before its records are committed; a lone move is never held."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.core.journal.rows import JournalRow, MoveRow
from server.shell.pipeline import MAX_HOLD, Pacer, Pipeline
from server.storage.sqlite import Store


class LoggingStore(Store):
    """A real SQLite store that also notes each commit's moves (on the writer thread)."""

    def __init__(self, path: Path, log: list[tuple[str, object]]) -> None:
        super().__init__(path)
        self.log = log

    def write(self, records: list[JournalRow]) -> None:
        super().write(records)
        self.log.append(("commit", sorted(r.ply for r in records if isinstance(r, MoveRow))))


def move(ply: int) -> list[JournalRow]:
    return [MoveRow("g_test", ply, ply % 15, ply // 15, 1.0, None)]


def test_a_lone_submission_is_not_held() -> None:
    pacer = Pacer()
    pacer.arrived(100.0)
    assert pacer.hold(1, 100.0, 100.0) == 0.0  # nothing came before it: no company expected
    pacer.arrived(105.0)  # rare submissions (one every 5 s) are never held either
    assert pacer.hold(1, 105.0, 105.0) == 0.0


def test_frequent_submissions_wait_for_company_up_to_the_bound() -> None:
    pacer = Pacer(max_hold=0.001, full=4)
    for i in range(20):
        pacer.arrived(i * 0.0001)  # ten a millisecond
    first = 20 * 0.0001
    assert pacer.hold(1, first, first) == 0.001
    assert pacer.hold(1, first, first + 0.0004) == pytest.approx(0.0006)
    assert pacer.hold(1, first, first + 0.002) == 0.0  # past the bound: go
    assert pacer.hold(4, first, first) == 0.0  # full: go


@given(
    st.lists(st.floats(0.0, 0.01), min_size=1, max_size=30),
    st.integers(1, 40),
    st.floats(0.0, 0.01),
)
def test_no_batch_waits_past_the_bound(gaps: list[float], pending: int, late: float) -> None:
    pacer = Pacer()
    now = 0.0
    for gap in gaps:
        now += gap
        pacer.arrived(now)
    first = now
    delay = pacer.hold(pending, first, now + late)
    assert 0.0 <= delay <= MAX_HOLD
    if delay > 0:  # the wait ends by the bound, counted from the batch's first submission
        assert now + late + delay <= first + MAX_HOLD + 1e-12


async def test_nothing_is_delivered_before_its_commit(tmp_path: Path) -> None:
    log: list[tuple[str, object]] = []
    store = LoggingStore(tmp_path / "p.db", log)
    pipeline = Pipeline(store)
    pipeline.start()
    try:
        for ply in range(60):
            pipeline.submit(move(ply), lambda ply=ply: log.append(("deliver", ply)))
            if ply % 7 == 0:
                await asyncio.sleep(0)  # let some batches start while others are forming
        await pipeline.flush()
    finally:
        await pipeline.close()
    committed: set[object] = set()
    delivered = []
    for kind, what in log:
        if kind == "commit":
            committed.update(what)  # type: ignore[arg-type]
        else:
            assert what in committed, f"move {what} was delivered before it was committed"
            delivered.append(what)
    assert delivered == list(range(60))  # in order, every one


async def test_a_lone_move_is_committed_without_waiting(tmp_path: Path) -> None:
    log: list[tuple[str, object]] = []
    pipeline = Pipeline(LoggingStore(tmp_path / "p.db", log))
    try:
        pipeline.submit(move(0), lambda: log.append(("deliver", 0)))
        await pipeline.flush()
        assert pipeline.held == 0
        assert log == [("commit", [0]), ("deliver", 0)]
    finally:
        await pipeline.close()


async def test_a_held_batch_goes_as_soon_as_it_is_full(tmp_path: Path) -> None:
    """Held for company (a bound so long only fullness can end it): full, it goes at once."""
    log: list[tuple[str, object]] = []
    pacer = Pacer(max_hold=3600.0, full=3)
    pacer.arrived(0.0)
    pacer.arrived(0.0)  # submissions came thick and fast: company is expected
    pipeline = Pipeline(LoggingStore(tmp_path / "p.db", log), pacer=pacer)
    try:
        pipeline.submit(move(0), lambda: log.append(("deliver", 0)))
        for _ in range(5):
            await asyncio.sleep(0)
        assert pipeline.held == 1 and log == []  # waiting, nothing committed or sent
        pipeline.submit(move(1), lambda: log.append(("deliver", 1)))
        await asyncio.sleep(0)
        assert log == []
        pipeline.submit(move(2), lambda: log.append(("deliver", 2)))
        await asyncio.wait_for(pipeline.flush(), 30)
        assert log == [("commit", [0, 1, 2]), ("deliver", 0), ("deliver", 1), ("deliver", 2)]
    finally:
        await pipeline.close()


def test_waiting_stops_when_it_gathers_nothing_and_is_tried_again() -> None:
    """A closed loop: the players wait for this very commit, so waits gather nobody."""
    pacer = Pacer(max_hold=0.001, full=16, probe=4)
    for i in range(10):
        pacer.arrived(i * 0.0001)
    first = 0.001
    holds = []
    for _ in range(30):
        delay = pacer.hold(1, first, first)
        holds.append(delay > 0)
        if delay > 0:
            pacer.gathered(0)
    assert holds[:3] == [True, True, True]  # optimistic at first
    assert sum(holds[-16:]) == 4  # then only the probes, one batch in four
    for _ in range(12):  # the probes find company again: waiting resumes for every batch
        if pacer.hold(1, first, first) > 0:
            pacer.gathered(5)
    assert all(pacer.hold(1, first, first) > 0 for _ in range(5))


async def test_the_next_commit_runs_while_a_batch_is_delivered(tmp_path: Path) -> None:
    """Pipelined: batch 1's commit starts before batch 0's deliveries, which still go first.

    Batch 0's commit waits until move 1 is pending; batch 0's delivery blocks the loop until
    the writer thread has begun committing batch 1: without pipelining that never happens."""
    log: list[tuple[str, object]] = []
    entered = threading.Event()  # the writer began committing batch 0
    pending = threading.Event()  # move 1 was submitted while batch 0 was being committed
    begun = threading.Event()  # the writer began committing batch 1

    class NotingStore(LoggingStore):
        def write(self, records: list[JournalRow]) -> None:
            plies = [r.ply for r in records if isinstance(r, MoveRow)]
            if plies == [0]:
                entered.set()
                assert pending.wait(30)
            elif 1 in plies:
                begun.set()
            super().write(records)

    def deliver_first() -> None:
        log.append(("deliver", 0 if begun.wait(30) else "the next commit had not begun"))

    pipeline = Pipeline(NotingStore(tmp_path / "p.db", log))
    try:
        pipeline.submit(move(0), deliver_first)
        assert await asyncio.to_thread(entered.wait, 30)  # batch 0 is being committed
        pipeline.submit(move(1), lambda: log.append(("deliver", 1)))
        pending.set()
        await asyncio.wait_for(pipeline.flush(), 90)
        assert [e for e in log if e[0] == "deliver"] == [("deliver", 0), ("deliver", 1)]
        assert log.index(("commit", [0])) < log.index(("deliver", 0))
        assert log.index(("commit", [1])) < log.index(("deliver", 1))
    finally:
        await pipeline.close()
