"""The SQLite store's moves: one log row per commit, one row per game once it ends, read back
the same (history, restart, a discarded game, a failed batch), with the log kept short."""

from __future__ import annotations

import gc
import random
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any
from unittest import mock

import msgpack
import pytest

from server.core.journal.rows import GameRow, JournalRow, MoveRow, RoomGone, RoomRow
from server.storage.sqlite import MIGRATIONS, Store

VARIANT = {"name": "gomoku", "width": 15, "height": 15, "k": 5, "rule": "freestyle"}


def header(game_id: str, room: str, status: str = "playing") -> GameRow:
    """A game between two players, in progress unless ``status`` says otherwise."""
    return GameRow(
        game_id, room, 1, VARIANT, {}, None, ("p_a", "p_b"), ("a", "b"), ("human", "human"),
        status, None, None, (), 1.7e9, 1.7e9, 1.7e9 + 99 if status == "over" else None,
    )  # fmt: skip


def move(game_id: str, ply: int, x: int | None = None) -> MoveRow:
    """Move ``ply`` of a game (``x`` tells two versions of one move apart)."""
    x = ply % 15 if x is None else x
    at = 1.7e9 + ply + 0.123456789  # all 17 digits must come back
    return MoveRow(game_id, ply, x, ply // 15, at, (60.0 - ply, 60.0) if ply % 2 else None)


def played(store: Store, game_id: str) -> list[MoveRow]:
    """A game's moves as a history request reads them (its own reader, one transaction)."""
    record = store.get_game(game_id)["game"]
    return [
        MoveRow(game_id, ply, m["x"], m["y"], m["at"], tuple(m["clocks"]) if m["clocks"] else None)
        for ply, m in enumerate(record["moves"])
    ]


def sealed(store: Store) -> list[str]:
    """The games with a row of moves."""
    return [r[0] for r in store.db.execute("SELECT game_id FROM game_moves")]


def in_log(store: Store) -> int:
    """Moves in the log now, counted from its rows (and as the writer counts them)."""
    blobs = store.db.execute("SELECT moves FROM move_batches").fetchall()
    moves = sum(len(msgpack.unpackb(b[0])) for b in blobs)
    assert moves == store.moves.logged
    return moves


def count(store: Store, table: str) -> int:
    """Rows in a table now."""
    return store.db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_moves_read_back_the_same_through_seals_trims_and_restarts(tmp_path: Path) -> None:
    """A random mix of moves, game ends and restarts against a model of what was played."""
    for seed in range(4):
        rng = random.Random(seed)
        path = tmp_path / f"{seed}.sqlite3"
        store = Store(path)
        store.moves.trim_every, store.moves.max_log = 3, 30  # trim and seal long games often
        model: dict[str, int] = {}  # game -> plies played
        over: set[str] = set()
        live: list[str] = []
        rooms = 0
        for step in range(120):
            batch: list[JournalRow] = []
            if len(live) < 4 or rng.random() < 0.05:
                gid, rooms = f"g_{seed}_{rooms:012x}", rooms + 1
                batch += [header(gid, f"r{rooms}"), RoomRow(f"r{rooms}", gid)]
                live.append(gid)
                model[gid] = 0
            for _ in range(rng.randint(1, 6)):
                gid = rng.choice(live)
                batch.append(move(gid, model[gid]))
                model[gid] += 1
            if rng.random() < 0.15:  # a game ends with this batch's moves
                gid = rng.choice(live)
                live.remove(gid)
                over.add(gid)
                batch.append(header(gid, "r", "over"))
            tail = batch[-2:]  # a header may come before or after the game's last moves
            batch[-2:] = rng.sample(tail, len(tail))
            store.write(batch)
            if step % 40 == 39:  # the server is killed (its lock dies with it); the next opens
                store.owner.release()
                store = Store(path)
                store.moves.trim_every, store.moves.max_log = 3, 30
                assert count(store, "move_batches") == 0
                rows = {row.game_id: moves for row, _, moves in store.load().rooms}
                assert all(rows[g] == [move(g, p) for p in range(model[g])] for g in live)
            assert in_log(store) <= 30 + 3 * 8
            for gid, plies in model.items():
                assert played(store, gid) == [move(gid, p) for p in range(plies)], (seed, step)
        assert over and sum(model.values()) > 300
        store.close()


def test_a_game_is_one_row_once_it_ends_and_the_log_empties_behind_it(tmp_path: Path) -> None:
    store = Store(tmp_path / "a.sqlite3")
    store.moves.trim_every = 1  # a trim with every batch
    g = "g_0000000000000001"
    store.write([header(g, "r"), RoomRow("r", g)])
    store.write([move(g, 0), move(g, 1)])
    store.write([move(g, 2)])
    assert count(store, "game_moves") == 0 and count(store, "move_batches") == 2
    store.write([move(g, 3), header(g, "r", "over")])
    (blob,) = store.db.execute("SELECT moves FROM game_moves WHERE game_id = ?", (g,)).fetchone()
    assert [m[0] for m in msgpack.unpackb(blob)] == [0, 1, 2, 3]
    assert count(store, "move_batches") == 0  # nothing running needs the log: trimmed
    assert played(store, g) == [move(g, p) for p in range(4)]
    store.close()


def test_a_rewritten_move_wins_over_the_earlier_one(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite3"
    store = Store(path)
    g = "g_0000000000000002"
    store.write([header(g, "r")])
    store.write([move(g, 0), move(g, 1), move(g, 2)])
    store.write([move(g, 1, x=9)])  # twins in the log: the later wins
    assert played(store, g)[1] == move(g, 1, x=9)
    store.close()
    store = Store(path)  # the log is merged into the game's row at open, in order
    assert played(store, g) == [move(g, 0), move(g, 1, x=9), move(g, 2)]
    store.write([move(g, 1, x=10)])  # the log's move over the row's
    assert played(store, g) == [move(g, 0), move(g, 1, x=10), move(g, 2)]
    store.write([move(g, 3), header(g, "r", "over")])  # sealed over the row
    assert played(store, g) == [move(g, 0), move(g, 1, x=10), move(g, 2), move(g, 3)]
    store.close()


def test_a_discarded_game_leaves_no_move_behind(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite3"
    store = Store(path)
    gone, kept = "g_0000000000000003", "g_0000000000000004"
    store.write([header(gone, "r1"), header(kept, "r2"), RoomRow("r1", gone), RoomRow("r2", kept)])
    store.write([move(gone, 0), move(gone, 1), move(kept, 0)])  # opening stones, say
    store.close()
    store = Store(path)  # the row of each is written at open
    store.write([move(gone, 2), move(kept, 1)])  # in the log
    store.write([RoomGone("r1", gone)])
    assert sealed(store) == [kept]
    with pytest.raises(Exception, match="no game"):
        store.get_game(gone)
    store.close()
    store = Store(path)  # the log still held a move of the discarded game: it is dropped
    assert sealed(store) == [kept]
    assert played(store, kept) == [move(kept, 0), move(kept, 1)]
    brief = "g_0000000000000006"  # made, given its opening stones and dropped in one batch
    store.write([header(brief, "r3"), RoomRow("r3", brief), move(brief, 0), RoomGone("r3", brief)])
    assert brief not in store.moves.pending and sealed(store) == [kept]
    store.close()


def test_a_batch_of_moves_alone_is_one_statement_and_durable(tmp_path: Path) -> None:
    """Moves alone commit as one autocommit INSERT (one SQLite call, not BEGIN/INSERT/COMMIT);
    a batch with anything else runs in one transaction; a trim of the log is its own, after."""
    path = tmp_path / "a.sqlite3"
    store = Store(path)
    store.moves.trim_every = 4
    g = "g_0000000000000005"
    statements: list[str] = []
    store.db.set_trace_callback(statements.append)
    store.write([header(g, "r"), move(g, 0)])
    assert statements[0] == "BEGIN IMMEDIATE" and statements[-1] == "COMMIT"
    statements.clear()
    store.write([])  # nothing: an empty transaction, as before
    assert statements == ["BEGIN IMMEDIATE", "COMMIT"]
    statements.clear()
    store.write([move(g, 1), move(g, 2), move(g, 3)])
    assert len(statements) == 1 and statements[0].startswith("INSERT INTO move_batches")
    assert not store.db.in_transaction  # committed when execute returned
    seen = sqlite3.connect(path)  # another connection (as after a kill) sees the moves at once
    rows = seen.execute("SELECT moves FROM move_batches ORDER BY seq").fetchall()
    assert [m[1] for blob in rows for m in msgpack.unpackb(blob[0])] == [0, 1, 2, 3]
    seen.close()
    store.write([move(g, 4)])  # the third batch of moves: no trim due yet
    statements.clear()
    store.write([move(g, 5)])  # the fourth: still one statement, then the trim's transaction
    assert statements[0].startswith("INSERT INTO move_batches")
    assert statements[1] == "BEGIN IMMEDIATE" and statements[-1] == "COMMIT"
    assert any(s.startswith("DELETE FROM move_batches") for s in statements[2:-1])
    assert played(store, g) == [move(g, p) for p in range(6)]
    store.close()


def test_a_game_that_never_ends_does_not_hold_the_log(tmp_path: Path) -> None:
    store = Store(tmp_path / "a.sqlite3")
    store.moves.trim_every, store.moves.max_log = 4, 20
    slow = "g_00000000000000ff"
    store.write([header(slow, "slow"), move(slow, 0)])
    for i in range(200):  # short games come and go; the slow one moves now and then
        g = f"g_{i:016x}"
        batch: list[JournalRow] = [
            header(g, f"r{i}"),
            move(g, 0),
            move(g, 1),
            header(g, "r", "over"),
        ]
        store.write(batch)
        store.write([move(g, 2)] if i % 50 else [move(slow, 1 + i // 50)])
        assert in_log(store) <= 20 + 4 * 3
    assert played(store, slow) == [move(slow, p) for p in range(5)]
    store.write([move(slow, 5), header(slow, "slow", "over")])
    assert played(store, slow) == [move(slow, p) for p in range(6)]
    store.close()


def test_a_file_of_schema_4_keeps_every_move(tmp_path: Path) -> None:
    """The moves table and its log (schema 4) become one row per game, exact floats kept."""
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path, isolation_level=None)
    for number, step in enumerate(MIGRATIONS[:4]):
        assert isinstance(step, str)
        db.executescript(f"BEGIN; {step} PRAGMA user_version={number + 1}; COMMIT;")
    finished, running = "g_0000000000000010", "g_0000000000000011"
    for g, status in ((finished, "over"), (running, "playing")):
        row = header(g, "r", status)
        db.execute(
            "INSERT INTO games VALUES (?, ?, ?, '{}', '{}', NULL, 'p_a', 'p_b', 'a', 'b', "
            "'human', 'human', ?, NULL, NULL, '[]', ?, ?, ?, NULL)",
            (g, row.room, 1, status, row.created_at, row.started_at, row.ended_at),
        )
    old = [move(finished, p) for p in range(3)] + [move(running, 0)]
    logged = [move(running, 1), move(finished, 3), move(running, 0, x=7)]  # a twin in the log
    for table, rows in (("moves", old), ("move_log", logged)):
        for m in rows:
            db.execute(
                f"INSERT INTO {table} VALUES (?, ?, ?, ?, ?, ?, ?)",
                (*m[:5], *(m[5] or (None, None))),
            )
    db.close()
    store = Store(path)
    assert store.db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS) >= 5
    tables = {r[0] for r in store.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"moves", "move_log"}.isdisjoint(tables)
    assert store._moves(store.db, replace(header(finished, "r", "over"))) == [
        move(finished, p) for p in range(4)
    ]
    assert played(store, running) == [move(running, 0, x=7), move(running, 1)]
    store.close()


def test_a_failed_batch_stops_the_store_and_loses_nothing_committed(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite3"
    store = Store(path, commit_timeout=0.05)
    g = "g_0000000000000020"
    store.write([header(g, "r"), move(g, 0)])
    store.write([move(g, 1)])
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    with pytest.raises(sqlite3.OperationalError):
        store.write([move(g, 2), header(g, "r", "over")])
    other.execute("ROLLBACK")
    other.close()
    assert played(store, g) == [move(g, 0), move(g, 1)]  # the failed batch's moves never show
    with pytest.raises(RuntimeError, match="writes no more"):
        store.write([move(g, 2)])
    store.close()
    store = Store(path)
    assert played(store, g) == [move(g, 0), move(g, 1)]
    store.close()


def test_a_header_written_again_updates_what_can_change(tmp_path: Path) -> None:
    store = Store(tmp_path / "a.sqlite3")
    g = "g_0000000000000030"
    first = replace(header(g, "r"), seats=("p_a", None), names=("a", None), status="waiting")
    store.write([first])
    ended = replace(
        header(g, "r", "over"),
        options={"opening_made": [[0, "swap"]]},
        winner=1,
        reason="five",
        line=((1, 1), (2, 2)),
        fault="hang",
    )
    store.write([replace(first, status="playing", seats=("p_a", "p_b"), names=("a", "b"))])
    store.write([ended])
    assert store._game_row(store.db, g) == ended
    assert count(store, "games") == 1
    store.close()


def test_a_running_game_is_read_without_the_log(tmp_path: Path) -> None:
    """History reads a running game from its row and the writer's committed moves: the log
    (a row per commit, every game's moves in each) is read only when the store opens."""
    store = Store(tmp_path / "a.sqlite3")
    games = [f"g_{i:016x}" for i in range(50)]
    store.write([header(g, f"r{i}") for i, g in enumerate(games)])
    for ply in range(30):
        store.write([move(g, ply) for g in games])
    statements: list[str] = []
    store._reader().set_trace_callback(statements.append)
    assert played(store, games[7]) == [move(games[7], p) for p in range(30)]
    assert statements and not any("move_batches" in s for s in statements)
    store.close()


def test_the_writers_unsealed_moves_are_not_tracked_by_the_cyclic_gc(tmp_path: Path) -> None:
    """A running game's committed moves wait in memory as plain tuples, which a collection
    stops tracking: at 1,000 games the records kept here were half of what every
    middle-generation collection walked (36-46 ms pauses)."""
    store = Store(tmp_path / "a.sqlite3")
    store.write([header("g_1", "r1")])
    for ply in range(5):
        store.write_now([move("g_1", ply)])
    gc.collect()
    gc.collect()  # a tuple holding a tuple (the clocks) may be untracked only on the second
    assert not any(map(gc.is_tracked, store.moves.pending["g_1"]))
    assert store.moves.unsealed("g_1") == [move("g_1", p) for p in range(5)]
    store.close()


def test_a_game_sealed_while_it_is_read_keeps_its_moves(tmp_path: Path) -> None:
    """A history read races the batch that ends the game: the writer seals it (and forgets its
    moves) after the reader's snapshot is taken. The read still has every move it could see."""
    store = Store(tmp_path / "a.sqlite3")
    g = "g_0000000000000040"
    store.write([header(g, "r"), RoomRow("r", g)])
    store.write([move(g, 0), move(g, 1)])
    read_header = Store._game_row

    def header_then_seal(db: Any, game_id: str) -> GameRow | None:
        row = read_header(db, game_id)  # the reader's snapshot is taken here
        store.write([move(g, 2), header(g, "r", "over")])  # sealed and forgotten meanwhile
        return row

    with mock.patch.object(store, "_game_row", header_then_seal):
        assert played(store, g) == [move(g, 0), move(g, 1)]
    assert played(store, g) == [move(g, p) for p in range(3)]
    store.close()


def test_a_trim_that_fails_does_not_fail_its_committed_batch(tmp_path: Path) -> None:
    """The log's trim is upkeep after the batch's commit: another process holding the file's
    write lock then makes it wait and give up, not the batch (which is saved) or the store."""
    path = tmp_path / "a.sqlite3"
    store = Store(path, commit_timeout=0.05)
    store.moves.trim_every = 2
    g = "g_0000000000000041"
    store.write([header(g, "r"), move(g, 0)])
    other = sqlite3.connect(path, isolation_level=None)
    committed = store.moves.committed

    def committed_then_locked(*args: Any) -> None:
        committed(*args)
        other.execute("BEGIN IMMEDIATE")  # between the batch's COMMIT and the trim

    with mock.patch.object(store.moves, "committed", committed_then_locked):
        store.write([move(g, 1), header(g, "r", "over")])  # seq 2: a trim is due, and fails
    other.execute("ROLLBACK")
    other.close()
    assert not store.failed and store.moves.trimmed_at == 0
    assert count(store, "move_batches") == 2  # nothing trimmed yet
    store.write([move("g_0000000000000042", 0)])  # the next batch trims
    assert store.moves.trimmed_at == store.moves.seq and count(store, "move_batches") == 1
    assert played(store, g) == [move(g, 0), move(g, 1)]
    store.close()


def test_a_batch_failing_after_its_log_row_leaves_nothing_of_it(tmp_path: Path) -> None:
    """A failure inside the batch's transaction, after its moves were logged (here: the seal
    fails as a full disk would): rolled back, nothing of it read, on disk or from memory."""
    path = tmp_path / "a.sqlite3"
    store = Store(path)
    g = "g_0000000000000050"
    store.write([header(g, "r"), move(g, 0)])
    with (
        mock.patch.object(store.moves, "seal", side_effect=sqlite3.OperationalError("full")),
        pytest.raises(sqlite3.OperationalError),
    ):
        store.write([move(g, 1), header(g, "r", "over")])
    assert store.failed and not store.db.in_transaction
    assert played(store, g) == [move(g, 0)] and store.moves.unsealed(g) == [move(g, 0)]
    store.close()
    store = Store(path)
    assert played(store, g) == [move(g, 0)] and store._game_row(store.db, g) == header(g, "r")
    store.close()
