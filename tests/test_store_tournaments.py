"""Tournaments in both SQL stores: each kind of row saved and read back as written, a pairing
and a result saved once however often the batch is written again, a header and an entrant
updated in place, and only the latest finished events taken back by a restart."""

from __future__ import annotations

from typing import Any

from support.stores import both_dbs

from server.core.journal.rows import EntrantRow, PairingRow, ResultRow, TournamentRow
from server.storage.factory import open_store
from server.storage.tournaments import KEEP_FINISHED

db = both_dbs

SETTINGS: dict[str, Any] = {"name": "Cup", "game": "gomoku", "format": "arena", "clock": None}


def header(tid: str, status: str = "running", ended: float | None = None) -> TournamentRow:
    return TournamentRow(tid, "Cup", "alice", SETTINGS, status, 1.0, None, 2.0, ended)


def test_rows_come_back_as_written_and_a_result_counts_once(db: str) -> None:
    rows = [
        header("t1", "open"),
        EntrantRow("t1", "p_a", "alice", "human", 1, 1500.0, "in"),
        EntrantRow("t1", "p_b", "bob", "bot", 2, 1612.5, "in"),
        header("t1"),
        PairingRow("t1", "a1", 1, "p_a", "p_b", None, "r1", "g1", 3.0),
        PairingRow("t1", "1.bye", 1, "p_a", None, None, None, None, 3.0),
        ResultRow("t1", "a1", "g1", 0, False, 4.0),
        EntrantRow("t1", "p_b", "bob", "bot", 2, 1612.5, "paused"),
    ]
    store = open_store(db)
    try:
        store.write(rows)
        store.write([*rows[4:7], ResultRow("t1", "a1", "g1", 1, True, 5.0)])  # written again
        back = store.load().tournaments
    finally:
        store.close()
    assert back == (
        header("t1"),
        EntrantRow("t1", "p_a", "alice", "human", 1, 1500.0, "in"),
        EntrantRow("t1", "p_b", "bob", "bot", 2, 1612.5, "paused"),
        PairingRow("t1", "1.bye", 1, "p_a", None, None, None, None, 3.0),
        PairingRow("t1", "a1", 1, "p_a", "p_b", None, "r1", "g1", 3.0),
        ResultRow("t1", "a1", "g1", 0, False, 4.0),
    )


def test_a_restart_takes_back_the_live_events_and_the_latest_finished(db: str) -> None:
    store = open_store(db)
    try:
        finished = [
            header(f"f{i:03}", "finished", ended=float(i)) for i in range(KEEP_FINISHED + 5)
        ]
        store.write([header("live"), *finished])
        back = {r.tournament for r in store.load().tournaments}
    finally:
        store.close()
    assert "live" in back and len(back) == KEEP_FINISHED + 1
    assert "f000" not in back and f"f{KEEP_FINISHED + 4:03}" in back
