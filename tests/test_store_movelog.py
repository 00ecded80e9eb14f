"""The SQLite store's move log: moves are appended, folded into the moves table in bulk, and
read back the same whichever of the two holds them (history, restart, a discarded game)."""

from __future__ import annotations

import random
from pathlib import Path

from server.journal import GameRow, MoveRow, RoomGone, RoomRow
from server.store import Store

VARIANT = {"name": "gomoku", "width": 15, "height": 15, "k": 5, "rule": "freestyle"}


def header(game_id: str, room: str) -> GameRow:
    """A game in progress between two players."""
    return GameRow(
        game_id, room, 1, VARIANT, {}, None, ("p_a", "p_b"), ("a", "b"), ("human", "human"),
        "playing", None, None, (), 1.7e9, 1.7e9, None,
    )  # fmt: skip


def move(game_id: str, ply: int, x: int | None = None) -> MoveRow:
    """Move ``ply`` of a game (``x`` tells two versions of one move apart)."""
    x = ply % 15 if x is None else x
    return MoveRow(game_id, ply, x, ply // 15, 1.7e9 + ply, (60.0 - ply, 60.0) if ply % 2 else None)


def played(store: Store, game_id: str) -> list[MoveRow]:
    """A game's moves as the history reads them."""
    return store._moves(store._reader(), header(game_id, "r"))


def logged(store: Store) -> int:
    """Rows in the move log now."""
    return store.db.execute("SELECT count(*) FROM move_log").fetchone()[0]


def test_moves_read_back_the_same_before_and_after_folds_and_restarts(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite3"
    store = Store(path)
    store.fold_rows = 7  # fold often: moves of one game end up in both tables
    games = [f"g_{i:016x}" for i in range(3)]
    store.write([header(g, f"r{i}") for i, g in enumerate(games)])
    store.write([RoomRow(f"r{i}", g) for i, g in enumerate(games)])
    rng = random.Random(3)
    plies = dict.fromkeys(games, 0)
    folds = 0
    for _ in range(40):
        batch = []
        for _ in range(rng.randint(1, 5)):
            g = rng.choice(games)
            batch.append(move(g, plies[g]))
            plies[g] += 1
        before = logged(store)
        store.write(batch)
        folds += logged(store) < before + len(batch)
        for g in games:
            assert played(store, g) == [move(g, p) for p in range(plies[g])]
    assert folds >= 3 and sum(plies.values()) > 0
    crashed = Store(path)  # a second process on the same file, as after a kill: the log folds
    assert logged(crashed) == 0
    snapshot = crashed.load()
    assert {row.game_id: moves for row, _, moves in snapshot.rooms} == {
        g: [move(g, p) for p in range(plies[g])] for g in games
    }
    record = crashed.get_game(games[0])["game"]
    assert [(m["x"], m["y"]) for m in record["moves"]] == [
        (p % 15, p // 15) for p in range(plies[games[0]])
    ]
    crashed.close()
    store.close()


def test_a_rewritten_move_wins_over_the_earlier_one(tmp_path: Path) -> None:
    store = Store(tmp_path / "a.sqlite3")
    store.fold_rows = 3
    g = "g_0000000000000001"
    store.write([header(g, "r")])
    store.write([move(g, 0), move(g, 1), move(g, 2)])  # folded
    store.write([move(g, 1, x=9)])  # in the log, over the folded one
    assert played(store, g)[1] == move(g, 1, x=9)
    store.write([move(g, 1, x=10)])  # twins in the log: the later wins
    assert played(store, g) == [move(g, 0), move(g, 1, x=10), move(g, 2)]
    store.write([move(g, 1, x=11)])  # three in the log: this batch folds them, in order
    assert logged(store) == 0
    store.write([move(g, 3)])
    assert played(store, g) == [move(g, 0), move(g, 1, x=11), move(g, 2), move(g, 3)]
    store.close()


def test_a_discarded_game_leaves_no_move_in_either_table(tmp_path: Path) -> None:
    store = Store(tmp_path / "a.sqlite3")
    store.fold_rows = 4
    gone, kept = "g_0000000000000002", "g_0000000000000003"
    store.write([header(gone, "r1"), header(kept, "r2"), RoomRow("r1", gone), RoomRow("r2", kept)])
    store.write([move(gone, 0), move(gone, 1), move(kept, 0), move(gone, 2)])  # folded
    store.write([move(gone, 3), move(kept, 1)])  # logged
    store.write([RoomGone("r1", gone)])
    assert played(store, gone) == [] and played(store, kept) == [move(kept, 0), move(kept, 1)]
    assert logged(store) == 1
    store.write([move(kept, 2), move(kept, 3)])  # the count went down with the discard: 3 < 4
    assert logged(store) == 3
    store.close()


def test_a_batch_of_moves_alone_is_one_statement_and_durable(tmp_path: Path) -> None:
    """Moves alone commit as one autocommit INSERT (one SQLite call, not BEGIN/INSERT/COMMIT);
    a batch with anything else, or one that fills the log, still runs in one transaction."""
    path = tmp_path / "a.sqlite3"
    store = Store(path)
    store.fold_rows = 6
    g = "g_0000000000000004"
    statements: list[str] = []
    store.db.set_trace_callback(statements.append)
    store.write([header(g, "r"), move(g, 0)])
    assert statements[0] == "BEGIN IMMEDIATE" and statements[-1] == "COMMIT"
    statements.clear()
    store.write([])  # nothing: an empty transaction, as before
    assert statements == ["BEGIN IMMEDIATE", "COMMIT"]
    statements.clear()
    store.write([move(g, 1), move(g, 2), move(g, 3)])
    assert len(statements) == 1 and statements[0].startswith("INSERT INTO move_log")
    assert not store.db.in_transaction  # committed when execute returned
    seen = Store(path)  # another connection (as after a kill) sees the moves at once
    assert played(seen, g) == [move(g, p) for p in range(4)]
    seen.close()
    statements.clear()
    store.write([move(g, 4), move(g, 5)])  # 4 logged + 2 reach fold_rows: a transaction folds
    assert statements[0] == "BEGIN IMMEDIATE" and statements[-1] == "COMMIT"
    assert logged(store) == 0
    assert played(store, g) == [move(g, p) for p in range(6)]
    store.close()
