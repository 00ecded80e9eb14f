"""Commits on the loop: small batches go there when the lock is free, the rest to the thread.

On the event loop's own thread a batch of moves costs ~25 µs and no GIL hand-over; what must
wait (another process holding the write lock, the writer thread busy with the same
connection) or would hold the loop for long (a batch of many game ends) goes to the thread.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

from server.core.journal.rows import GameRow, JournalRow, MoveRow
from server.shell.pipeline import INLINE_MAX_US, Pipeline
from server.storage.sqlite import Store

VARIANT = {"name": "gomoku", "width": 15, "height": 15, "k": 5, "rule": "freestyle"}


def header(game_id: str) -> GameRow:
    """A game between two players, in progress."""
    return GameRow(
        game_id, "r" + game_id, 1, VARIANT, {}, None, ("p_a", "p_b"), ("a", "b"),
        ("human", "human"), "playing", None, None, (), 1.7e9, 1.7e9, None,
    )  # fmt: skip


def move(game_id: str, ply: int) -> MoveRow:
    return MoveRow(game_id, ply, ply % 15, ply // 15, 1.7e9 + ply, None)


async def until(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    """Wait for ``condition`` (checked each turn of the loop), failing after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        await asyncio.sleep(0.001)


def played(path: Path, game_id: str) -> list[int]:
    """The plies of a game as the next run's store reads them back."""
    store = Store(path)
    try:
        return [m.ply for m in store._moves(store.db, store._game_row(store.db, game_id))]
    finally:
        store.close()


async def test_small_batches_are_committed_on_the_loop_and_survive(tmp_path: Path) -> None:
    path = tmp_path / "inline.db"
    store = Store(path)
    pipeline = Pipeline(store, inline=True)
    sent: list[int] = []
    try:
        pipeline.submit([header("g_1")], lambda: sent.append(-1))
        for ply in range(30):
            pipeline.submit([move("g_1", ply)], lambda ply=ply: sent.append(ply))
            if ply % 4 == 0:
                await asyncio.sleep(0)
        await asyncio.wait_for(pipeline.flush(), 30)
        assert sent == [-1, *range(30)]
        assert pipeline.inlined > 0 and pipeline.threaded == 0
    finally:
        await pipeline.close()
        store.close()
    assert played(path, "g_1") == list(range(30))  # what the next run reads back


async def test_a_locked_file_sends_the_batch_to_the_thread_which_waits(tmp_path: Path) -> None:
    """Another process's write lock: the loop does not wait for it (the batch is refused at
    once, nothing written, the store still good); the thread waits, then commits it."""
    path = tmp_path / "locked.db"
    store = Store(path)
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    pipeline = Pipeline(store, inline=True)
    sent: list[int] = []
    try:
        pipeline.submit([header("g_2")], lambda: sent.append(-1))
        await asyncio.wait_for(pipeline.flush(), 30)
        other.execute("BEGIN IMMEDIATE")  # the lock, as the keys CLI would hold it
        started = time.monotonic()
        assert store.write_now([move("g_2", 0)]) is False  # refused, not waited for
        assert time.monotonic() - started < 2.0 and not store.failed  # its timeout is 10 s
        pipeline.submit([move("g_2", 0)], lambda: sent.append(0))
        await until(lambda: pipeline.threaded == 1)  # the loop runs on; the thread waits
        assert sent == [-1]
        other.execute("COMMIT")
        await asyncio.wait_for(pipeline.flush(), 30)
        assert sent == [-1, 0] and not store.failed
    finally:
        other.close()
        await pipeline.close()
        store.close()
    assert played(path, "g_2") == [0]


async def test_one_submission_over_the_budget_is_committed_on_the_thread(tmp_path: Path) -> None:
    """A submission is committed whole: one estimated over the loop's budget goes to the
    thread; one of half as many records stays on the loop."""
    store = Store(tmp_path / "big.db")
    pipeline = Pipeline(store, inline=True)
    try:
        many = INLINE_MAX_US // 20 + 1  # a header is ~20 µs of SQLite
        headers: list[JournalRow] = [header(f"g_{i}") for i in range(many)]
        pipeline.submit(headers, lambda: None)
        await asyncio.wait_for(pipeline.flush(), 30)
        assert (pipeline.inlined, pipeline.threaded) == (0, 1)
        pipeline.submit(headers[: many // 2], lambda: None)
        await asyncio.wait_for(pipeline.flush(), 30)
        assert (pipeline.inlined, pipeline.threaded) == (1, 1)
    finally:
        await pipeline.close()
        store.close()


async def test_nothing_is_committed_on_the_loop_while_the_thread_has_work(
    tmp_path: Path,
) -> None:
    """The log's trim runs on the thread; while it does, the connection is the thread's: the
    next batches queue behind it there, in order, and nothing is sent before its commit."""
    trimming = threading.Event()
    release = threading.Event()
    commits: list[list[int]] = []

    class SlowTrim(Store):
        def upkeep(self) -> None:
            trimming.set()
            assert release.wait(30)
            super().upkeep()

        def write(self, records: list[JournalRow]) -> None:
            super().write(records)
            commits.append([r.ply for r in records if type(r) is MoveRow])

    path = tmp_path / "trim.db"
    store = SlowTrim(path)
    store.moves.trim_every = 2  # due after the second batch
    pipeline = Pipeline(store, inline=True)
    sent: list[int] = []
    try:
        for ply in range(2):
            first: list[JournalRow] = [header("g_3")] if ply == 0 else []
            pipeline.submit([*first, move("g_3", ply)], lambda ply=ply: sent.append(ply))
            await asyncio.wait_for(pipeline.flush(), 30)
        assert await asyncio.to_thread(trimming.wait, 30)
        assert pipeline.inlined == 2
        pipeline.submit([move("g_3", 2)], lambda: sent.append(2))
        await until(lambda: pipeline.threaded == 1)  # queued behind the trim
        assert sent == [0, 1] and pipeline.inlined == 2
        release.set()
        await asyncio.wait_for(pipeline.flush(), 30)
        assert sent == [0, 1, 2] and commits == [[2]]
    finally:
        release.set()
        await pipeline.close()
        store.close()
    assert played(path, "g_3") == [0, 1, 2]


async def test_a_batch_over_the_budget_is_committed_on_the_loop_in_parts(tmp_path: Path) -> None:
    """Many small submissions at once (games ending together): taken a budget's worth at a
    time, the loop turning between the parts, each delivered after its own part's commit."""
    log: list[tuple[str, object]] = []

    class Noting(Store):
        def write_now(self, records: list[JournalRow]) -> bool:
            written = super().write_now(records)
            log.append(("commit", sorted(r.game_id for r in records if type(r) is GameRow)))
            return written

    store = Noting(tmp_path / "parts.db")
    pipeline = Pipeline(store, inline=True)
    games = [f"g_{i:03d}" for i in range(3 * INLINE_MAX_US // 20)]  # three budgets of headers
    try:
        for game_id in games:
            pipeline.submit([header(game_id)], lambda g=game_id: log.append(("deliver", g)))
        await asyncio.wait_for(pipeline.flush(), 30)
        assert pipeline.threaded == 0 and pipeline.inlined >= 3
    finally:
        await pipeline.close()
        store.close()
    committed: set[object] = set()
    delivered = []
    for kind, what in log:
        if kind == "commit":
            assert len(what) <= INLINE_MAX_US // 20  # type: ignore[arg-type]
            committed.update(what)  # type: ignore[arg-type]
        else:
            assert what in committed, f"{what} was delivered before it was committed"
            delivered.append(what)
    assert delivered == games
