"""Exactly once under kill -9: a server killed at random moments around rated games' ends keeps
every finished rated game with both rating changes and every unfinished one with none, and a
game_over a client saw is in the file with its ratings."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from support.servers import ServerProcess

BLITZ = {"initial_s": 180, "increment_s": 2}
#: Alice wins on the top row; Bob plays the middle row.
WIN = [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)]
ROUNDS = 8


async def register(proc: ServerProcess, name: str) -> tuple[Any, str]:
    """A new account on ``proc``: its client (logged in) and its session."""
    client = await proc.client(f"guest-{name}")
    logged = await client.request(type="register", name=name, password="quite-not-guessable")
    assert logged["type"] == "logged_in", logged
    return client, logged["session"]


@pytest.fixture
def db(tmp_path: Path) -> str:
    """A SQLite file of the test's own."""
    return str(tmp_path / "arena.sqlite3")


@pytest.mark.slow
async def test_kill_around_rated_game_ends_rates_each_finished_game_exactly_once(
    proc: ServerProcess, db: str
) -> None:
    rng = random.Random(28)
    await proc.start()
    (alice, alice_session), (bob, bob_session) = [await register(proc, n) for n in ("alice", "bob")]
    seen: dict[str, list[dict[str, Any]]] = {}
    for _ in range(ROUNDS):
        ask = {"type": "create_room", "game": "tictactoe", "seat": 0, "rated": True}
        room = (await alice.request(**ask, clock=BLITZ))["room"]
        await bob.request(type="join_room", room=room)
        for ply, (x, y) in enumerate(WIN[:-1]):
            await (alice, bob)[ply % 2].request(type="move", room=room, x=x, y=y, ply=ply)
        await alice.send(type="move", room=room, x=2, y=0, ply=4)
        if rng.random() < 0.3:  # after the end was seen, or at a random moment around it
            over = await bob.expect("game_over")
            seen[over["game_id"]] = over["ratings"]
        elif rng.random() < 0.5:  # at once: the move may not even be read yet
            pass
        else:
            await asyncio.sleep(rng.uniform(0, 0.002))
        proc.kill()
        await proc.start()
        alice = await proc.client("alice", alice_session)
        bob = await proc.client("bob", bob_session)
        # the end not committed, the game goes on (alice resigns it); else it is over
        ended = await alice.request(type="resign", room=room)
        assert ended["type"] == "game_over" or ended["code"] == "game_over", ended
        for c in (alice, bob):
            await c.request(type="leave_room", room=room)
    proc.kill()

    db_ = sqlite3.connect(db)
    games = db_.execute("SELECT game_id, status, reason, options FROM games").fetchall()
    changes = db_.execute("SELECT game_id, account, before, rating FROM rating_changes").fetchall()
    by_game: dict[str, list[tuple[Any, ...]]] = {}
    for row in changes:
        by_game.setdefault(row[0], []).append(row)
    finished = [g for g, status, _, _ in games if status == "over"]
    assert len(finished) == ROUNDS
    assert all(len(by_game.get(g, [])) == 2 for g in finished)
    assert set(by_game) <= set(finished)  # an unfinished game has no change
    for game_id, ratings in seen.items():  # what a client saw is what the file holds
        saved = {r[1]: round(r[3]) for r in by_game[game_id]}
        assert saved == {"alice": ratings[0]["after"], "bob": ratings[1]["after"]}
    rated = dict(db_.execute("SELECT account, games FROM ratings").fetchall())
    assert rated == {"alice": ROUNDS, "bob": ROUNDS}
    # each change starts where the previous one of that account ended: none lost, none twice
    for account in ("alice", "bob"):
        chain = db_.execute(
            "SELECT before, rating FROM rating_changes WHERE account = ? ORDER BY at", (account,)
        ).fetchall()
        assert chain[0][0] == 1500
        assert all(b == pytest.approx(a[1]) for a, (b, _) in pairwise(chain))
