"""Games survive: SIGKILL and restart on the same SQLite file, clocks, and the game history."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from support.servers import ServerProcess
from support.stores import both_dbs

from protocol.records import read_psq
from server.storage.factory import is_pg_url, open_store
from server.storage.sqlite import MIGRATIONS, Store

#: Every test here that uses a database runs on SQLite and on PostgreSQL.
db = both_dbs


@pytest.mark.slow
async def test_sigkill_mid_game_then_finish_after_restart(proc: ServerProcess) -> None:
    await proc.start()
    alice, bob = await proc.client("alice"), await proc.client("bob")
    clock = {"initial_s": 60.0, "increment_s": 1.0}
    room = (await alice.request(type="create_room", game="gomoku", seat=0, clock=clock))["room"]
    await bob.request(type="join_room", room=room)
    moves = [(7, 7), (8, 8), (7, 8), (9, 9), (7, 9)]
    for ply, (x, y) in enumerate(moves):
        mover = (alice, bob)[ply % 2]
        await mover.request(type="move", room=room, x=x, y=y, ply=ply)
    seen = await bob.expect("moved", ply=4)  # bob has seen the last move: it must be durable
    before_kill = seen["clocks"]
    proc.kill()
    await asyncio.sleep(1.5)  # downtime is charged to nobody
    await proc.start()

    alice2 = await proc.client("alice", alice.session)
    bob2 = await proc.client("bob", bob.session)
    assert alice2.player == alice.player and bob2.player == bob.player
    state = await bob2.expect("state", room=room)
    assert state["moves"] == [list(m) for m in moves]
    assert state["seat"] == 1 and state["to_move"] == 1 and state["status"] == "playing"
    assert state["players"] == ["alice", "bob"]
    assert state["clocks"][0] == pytest.approx(before_kill[0], abs=0.01)
    assert before_kill[1] - 1.2 < state["clocks"][1] <= before_kill[1]  # not charged 1.5 s down
    await bob2.error("stale_ply", type="move", room=room, x=9, y=9, ply=3)
    await bob2.request(type="move", room=room, x=10, y=10, ply=5)
    await alice2.request(type="move", room=room, x=7, y=6, ply=6)
    await bob2.request(type="move", room=room, x=11, y=11, ply=7)
    await alice2.request(type="move", room=room, x=7, y=10, ply=8)
    over = await bob2.expect("game_over")
    assert over["winner"] == 0 and over["line"] == [[7, y] for y in range(6, 11)]

    games = await alice2.request(type="list_games", player="bob")
    assert [g["room"] for g in games["games"]] == [room]
    record = await alice2.request(type="get_game", game_id=games["games"][0]["game_id"])
    assert [(m["x"], m["y"]) for m in record["game"]["moves"]][:5] == moves
    for c in (alice, bob, alice2, bob2):
        await c.close()


@pytest.mark.slow
async def test_every_seen_move_survives_a_kill(proc: ServerProcess) -> None:
    """Kill right after a peer saw `moved`, several times: the move is always back."""
    await proc.start()
    alice, bob = await proc.client("alice"), await proc.client("bob")
    room = (await alice.request(type="create_room", game="gomoku", seat=0))["room"]
    await bob.request(type="join_room", room=room)
    played: list[list[int]] = []
    for ply in range(4):
        mover, other = ((alice, bob), (bob, alice))[ply % 2]
        await mover.send(type="move", room=room, x=ply, y=ply % 2 * 5, ply=ply)
        seen = await other.expect("moved", ply=ply)
        proc.kill()
        played.append([seen["x"], seen["y"]])
        await proc.start()
        alice = await proc.client("alice", alice.session)
        bob = await proc.client("bob", bob.session)
        state = await alice.expect("state", room=room)
        assert state["moves"] == played
        await bob.expect("state", room=room)


async def test_migrations_are_versioned(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite3"
    Store(path).close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    db.close()
    with pytest.raises(RuntimeError, match="newer"):
        Store(path)


@pytest.mark.slow
async def test_restart_upgrades_an_empty_file_and_keeps_waiting_rooms(proc: ServerProcess) -> None:
    if not is_pg_url(proc.db):  # a fresh PostgreSQL database is empty already
        sqlite3.connect(proc.db).close()  # a version-0 file, as an old deploy might leave
    await proc.start()
    alice = await proc.client("alice")
    room = (await alice.request(type="create_room", game="tictactoe", seat=1))["room"]
    proc.kill()
    await proc.start()
    bob = await proc.client("bob")
    rooms = (await bob.request(type="list_rooms"))["rooms"]
    assert [r["room"] for r in rooms] == [room] and rooms[0]["players"] == [None, "alice"]
    assert (await bob.request(type="join_room", room=room))["seat"] == 0


@pytest.fixture
def limits_override() -> dict[str, float]:
    """Fast moves for the in-process server tests below."""
    return {"human_rate": 1000.0, "human_burst": 1000.0}


async def test_clock_runs_out_with_nobody_sending(client_factory: Any) -> None:
    alice, bob = await client_factory("alice"), await client_factory("bob")
    clock = {"initial_s": 0.4, "increment_s": 0.0}
    room = (await alice.request(type="create_room", game="gomoku", seat=0, clock=clock))["room"]
    await bob.request(type="join_room", room=room)
    started = time.monotonic()
    over = await bob.expect("game_over", timeout=30)
    assert over["winner"] == 1 and over["reason"] == "timeout"
    assert over["clocks"][0] == 0.0 and over["clocks"][1] == 0.4
    assert time.monotonic() - started >= 0.35
    await alice.error("game_over", type="move", room=room, x=0, y=0)


async def test_fischer_increment_and_move_cap(client_factory: Any) -> None:
    alice, bob = await client_factory("alice"), await client_factory("bob")
    clock = {"initial_s": 30.0, "increment_s": 2.0, "move_s": 0.5}
    room = (await alice.request(type="create_room", game="gomoku", seat=0, clock=clock))["room"]
    await bob.request(type="join_room", room=room)
    state = await alice.expect("state", status="playing")
    assert state["clock"] == clock and state["clock_running"] == 0
    moved = await alice.request(type="move", room=room, x=7, y=7)
    assert 31.0 < moved["clocks"][0] <= 32.0 and moved["clocks"][1] == 30.0
    over = await alice.expect("game_over", timeout=30)  # bob sits past the 0.5 s cap
    assert over["winner"] == 0 and over["reason"] == "timeout"


async def test_bad_clocks_are_refused(client_factory: Any) -> None:
    alice = await client_factory("alice")
    for clock in ({"initial_s": 0}, {"increment_s": 1}, {"initial_s": "5"}, {"initial_s": 1e9}):
        await alice.error("bad_options", type="create_room", game="gomoku", clock=clock)


async def test_history_pages_filters_and_exports(client_factory: Any) -> None:
    alice, bob = await client_factory("alice"), await client_factory("bob")
    carol = await client_factory("carol")
    ids = []
    for opponent in (bob, carol, bob):
        room = (await alice.request(type="create_room", game="tictactoe", seat=0))["room"]
        await opponent.request(type="join_room", room=room)
        for ply, (x, y) in enumerate([(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)]):
            await (alice, opponent)[ply % 2].request(type="move", room=room, x=x, y=y)
        await alice.expect("game_over")
        ids.append((await alice.request(type="join_room", room=room))["room"])
    page = await carol.request(type="list_games", limit=2)
    assert [g["room"] for g in page["games"]] == ids[::-1][:2] and page["more"] is True
    last = page["games"][-1]
    rest = await carol.request(type="list_games", before=last["ended_at"])
    assert [g["room"] for g in rest["games"]] == ids[:1] and rest["more"] is False
    exact = await carol.request(
        type="list_games", before=last["ended_at"], before_id=last["game_id"], limit=5
    )
    assert [g["room"] for g in exact["games"]] == ids[:1]
    bobs = await carol.request(type="list_games", player=bob.player)
    assert [g["room"] for g in bobs["games"]] == [ids[2], ids[0]]
    game_id = bobs["games"][0]["game_id"]
    exported = await carol.request(type="get_game", game_id=game_id, format="psq")
    record = exported["game"]
    assert record["players"] == ["alice", "bob"] and record["winner"] == 0
    assert record["reason"] == "line" and len(record["moves"]) == 5
    assert all(m["ms"] >= 0 for m in record["moves"])
    psq = read_psq(exported["psq"])
    assert (psq.width, psq.height, psq.players, psq.winner) == (3, 3, ("alice", "bob"), 0)
    assert [(m.x, m.y) for m in psq.moves] == [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)]
    await carol.error("no_such_game", type="get_game", game_id="g_nope")
    await carol.error("bad_message", type="get_game", game_id="g_nope", format="pgn")


async def test_paging_never_skips_games_that_end_at_the_same_instant(db: str) -> None:
    from server.core.journal.rows import GameRow

    store = open_store(db)
    variant = {"name": "tictactoe", "width": 3, "height": 3, "k": 3, "rule": "freestyle"}
    rows = [
        GameRow(f"g_{i:02d}", "r", 1, variant, {}, None, ("a", "b"), ("a", "b"), ("human",) * 2,
                "over", None, "draw", (), 0.0, 0.0, 5.0 if i < 4 else float(i))
        for i in range(7)
    ]  # fmt: skip
    store.write(rows)
    seen: list[str] = []
    page = store.list_games(limit=2)
    while True:
        seen += [g["game_id"] for g in page["games"]]
        if not page["more"]:
            break
        last = page["games"][-1]
        page = store.list_games(limit=2, before=last["ended_at"], before_id=last["game_id"])
    assert seen == ["g_06", "g_05", "g_03", "g_02", "g_01", "g_00", "g_04"]  # 5.0 ties by id
    store.close()


async def test_a_failed_commit_stops_delivery_instead_of_lying(
    client_factory: Any, server: Any
) -> None:
    alice, bob = await client_factory("alice"), await client_factory("bob")
    room = (await alice.request(type="create_room", game="gomoku", seat=0))["room"]
    await bob.request(type="join_room", room=room)

    def broken_disk(records: list[Any]) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    server.store.write = broken_disk
    if server.store.commits_on_loop:  # SQLite: small batches commit on the loop
        server.store.write_now = broken_disk
    await alice.send(type="move", room=room, x=7, y=7)
    await asyncio.wait_for(server.failed.wait(), 30)
    with pytest.raises(TimeoutError):  # the move was not saved, so nobody may see it
        await bob.expect("moved", timeout=0.5)
