"""The WAL bound keeps commits cheap: the file is cut back to its limit, not emptied."""

from __future__ import annotations

from pathlib import Path

from server.core.journal.rows import PlayerRow
from server.storage.sqlite import Store


def test_the_wal_bound_cuts_the_file_back_to_its_limit_and_keeps_it(tmp_path: Path) -> None:
    limit = 256 * 1024
    store = Store(tmp_path / "w.sqlite3", wal_limit=limit)
    rows = [PlayerRow(f"p_{i}", "x" * 32, "human", f"{i}-" + "h" * 60, 0.0) for i in range(200)]
    for batch in range(20):
        store.write([PlayerRow(f"{r.pid}_{batch}", r.name, r.kind, f"{batch}:{r.token_hash}", 0.0)
                     for r in rows])  # fmt: skip
    assert store.wal_size() > limit
    store.checkpoint(True)
    # Emptying the file (TRUNCATE) waits for the writeback of every page while moves wait
    # behind it; the file is reused from its start instead, cut back to the limit.
    assert store.wal_size() == limit
    store.write([PlayerRow("late", "late", "human", "late-hash", 0.0)])
    assert store.wal_size() == limit
    store.close()
    again = Store(tmp_path / "w.sqlite3", wal_limit=limit)
    assert len(again.load().players) == 20 * 200 + 1  # nothing was lost
    again.close()
