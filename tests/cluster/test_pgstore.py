"""The PostgreSQL store on a real throwaway server: migrations, retried commits, fail-stop."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import psycopg
import pytest
from support.servers import free_port

from server.core.journal.rows import GameRow, Heartbeat, MoveRow, PlayerRow, RoomGone, RoomRow
from server.storage.base import StoreUnavailable
from server.storage.factory import open_store
from server.storage.pgschema import MIGRATIONS
from server.storage.postgres import PgStore

pytestmark = pytest.mark.slow  # a real PostgreSQL

VARIANT = {"name": "tictactoe", "width": 3, "height": 3, "k": 3, "rule": "freestyle"}


def game(game_id: str, status: str = "playing", ended: float | None = None) -> GameRow:
    """A game header between a and b."""
    return GameRow(game_id, "r1", 1, VARIANT, {}, None, ("a", "b"), ("a", "b"), ("human",) * 2,
                   status, None, None, (), 1.0, 2.0, ended)  # fmt: skip


def batch() -> list[Any]:
    """Two players, a room, its game and two moves."""
    return [
        PlayerRow("a", "alice", "human", "ha", 1.0),
        PlayerRow("b", "bob", "human", "hb", 1.0),
        game("g1"),
        RoomRow("r1", "g1"),
        MoveRow("g1", 0, 1, 1, 3.0, None),
        MoveRow("g1", 1, 0, 0, 4.0, None),
        Heartbeat(5.0),
    ]


def test_open_store_picks_the_backend_by_url(pg_url: str, tmp_path: Path) -> None:
    pg = open_store(pg_url)
    sqlite = open_store(str(tmp_path / "x.sqlite3"))
    assert type(pg).__name__ == "PgStore" and type(sqlite).__name__ == "Store"
    pg.close()
    sqlite.close()


def test_migrations_are_versioned(pg_url: str) -> None:
    PgStore(pg_url).close()
    with psycopg.connect(pg_url, autocommit=True) as db:
        assert db.execute("SELECT version FROM schema_version").fetchone() == (len(MIGRATIONS),)
        db.execute("UPDATE schema_version SET version = %s", (len(MIGRATIONS) + 1,))
    with pytest.raises(RuntimeError, match="newer"):
        PgStore(pg_url)


def test_nodes_starting_together_migrate_once(pg_url: str) -> None:
    """Without the advisory lock, concurrent CREATE TABLEs collide and some nodes fail."""
    errors: list[BaseException] = []
    go = threading.Barrier(6)

    def start() -> None:
        try:
            go.wait(10)
            PgStore(pg_url).close()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=start) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    with psycopg.connect(pg_url) as db:
        assert db.execute("SELECT count(*) FROM schema_version").fetchone() == (1,)


def test_a_batch_written_twice_leaves_what_one_write_leaves(pg_url: str) -> None:
    """A commit whose outcome was unknown is sent again: nothing is doubled or lost."""
    store = PgStore(pg_url)
    store.write(batch())
    once = store.load()
    store.write(batch())
    assert store.load() == once
    [(room, header, moves)] = once.rooms
    assert room == RoomRow("r1", "g1") and header == game("g1")
    assert [(m.ply, m.x, m.y) for m in moves] == [(0, 1, 1), (1, 0, 0)]
    assert once.alive_at == 5.0 and {p.name for p in once.players} == {"alice", "bob"}
    store.write([RoomGone("r1", discard_game="g1"), RoomGone("r1", discard_game="g1")])
    assert store.load().rooms == []
    assert store.list_games()["games"] == []
    store.close()


def test_a_run_of_moves_is_saved_as_statement_by_statement(pg_url: str) -> None:
    """Moves go in one statement per run: clocks or none (any double, exactly), a (game, ply)
    written twice in one batch keeps its last write, and a game discarded after its moves in
    the batch stays gone."""
    store = PgStore(pg_url)
    store.write([*batch()[:4], game("g2"), RoomRow("r2", "g2"),
                 MoveRow("g1", 0, 1, 1, 3.0, None), MoveRow("g2", 0, 2, 2, 3.0, (9.5, 10.0)),
                 MoveRow("g1", 0, 1, 2, 3.5, (8.0, 7.0)), MoveRow("g1", 1, 0, 0, 4.0, None),
                 RoomGone("r2", discard_game="g2"), MoveRow("g1", 2, 2, 2, 5.0, None),
                 MoveRow("g1", 3, 0, 1, 1763865600.123456, (float("inf"), 1e-07))])  # fmt: skip
    [(room, _, moves)] = store.load().rooms
    assert room == RoomRow("r1", "g1")
    assert [tuple(m) for m in moves] == [
        ("g1", 0, 1, 2, 3.5, (8.0, 7.0)),
        ("g1", 1, 0, 0, 4.0, None),
        ("g1", 2, 2, 2, 5.0, None),
        ("g1", 3, 0, 1, 1763865600.123456, (float("inf"), 1e-07)),
    ]
    with psycopg.connect(pg_url, autocommit=True) as db:
        assert db.execute("SELECT count(*) FROM moves WHERE game_id = 'g2'").fetchone() == (0,)
    store.close()


def test_rooms_come_back_in_the_order_they_got_their_game(pg_url: str) -> None:
    store = PgStore(pg_url)
    store.write([game("g1"), RoomRow("r1", "g1"), game("g2"), RoomRow("r2", "g2")])
    store.write([game("g3"), RoomRow("r1", "g3")])  # r1's next game: now the newest
    assert [r.room for r, _, _ in store.load().rooms] == ["r2", "r1"]
    store.close()


def test_a_lost_connection_is_retried_on_a_new_one(pg_url: str) -> None:
    store = PgStore(pg_url)
    store.write(batch())
    writer = store._writer
    assert writer is not None
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (writer.info.backend_pid,))
    store.write([MoveRow("g1", 2, 2, 2, 6.0, None)])
    assert store._writer is not writer
    assert [m.ply for m in store.load().rooms[0][2]] == [0, 1, 2]
    store.close()


def test_a_database_gone_for_longer_than_the_timeout_fails_the_commit(pg_url: str) -> None:
    """The pipeline stops the server on this error rather than send what is not saved."""
    store = PgStore(pg_url, commit_timeout=1.0)
    store.write(batch())
    name = pg_url.rpartition("/")[2]
    with psycopg.connect(pg_url.rpartition("/")[0] + "/postgres", autocommit=True) as admin:
        admin.execute(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,)
        )
        with pytest.raises(psycopg.OperationalError):
            store.write([MoveRow("g1", 2, 2, 2, 6.0, None)])
        admin.execute(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
    store.write([MoveRow("g1", 2, 2, 2, 6.0, None)])  # back: the same batch commits
    assert [m.ply for m in store.load().rooms[0][2]] == [0, 1, 2]
    store.close()


def test_an_unreachable_database_is_one_line_at_start(tmp_path: Path) -> None:
    url = f"postgresql://postgres@127.0.0.1:{free_port()}/nothere"
    with pytest.raises(StoreUnavailable):
        PgStore(url)
    done = subprocess.run(
        [sys.executable, "-m", "server", "--no-bots", "--port", str(free_port()), "--db", url],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode != 0 and "Traceback" not in done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("mnk-server: cannot connect to PostgreSQL") and "check --db" in line
