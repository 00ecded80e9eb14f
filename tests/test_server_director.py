"""A tournament director's room: two named bots seated, openings, adjudication and forfeits."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from server.storage.sqlite import MIGRATIONS, Store


@pytest.fixture
def limits_override() -> dict[str, float]:
    """Raw clients here play as fast as they can."""
    return {"human_rate": 1000.0, "human_burst": 1000.0}


async def director_room(client_factory: Any, **create: Any) -> tuple[Any, Any, Any, str]:
    """Two raw clients that say they are bots, and a director who seats them by name."""
    alpha = await client_factory("alpha", kind="bot", games=["gomoku"], capacity=2)
    beta = await client_factory("beta", kind="bot", games=["*"], capacity=1)
    director = await client_factory("director")
    joined = await director.request(
        type="create_room", game="gomoku", bots=["alpha", "beta"], **create
    )
    assert joined["seat"] is None
    room = joined["room"]
    for bot, seat in ((alpha, 0), (beta, 1)):
        assert (await bot.expect("joined", room=room))["seat"] == seat
    return director, alpha, beta, room


async def test_director_watches_two_named_bots(client_factory: Any) -> None:
    director, alpha, _beta, room = await director_room(client_factory)
    state = await director.expect("state", status="playing")
    assert state["players"] == ["alpha", "beta"] and state["kinds"] == ["bot", "bot"]
    assert state["options"]["bots"] == ["alpha", "beta"]
    await alpha.request(type="move", room=room, x=7, y=7)
    assert (await director.expect("moved"))["seat"] == 0
    bots = await director.request(type="list_bots")
    listed = {b["name"]: b for b in bots["bots"]}
    assert listed["alpha"]["games"] == ["gomoku"] and listed["alpha"]["active"] == 1
    assert listed["beta"]["capacity"] == 1 and listed["beta"]["online"] is True
    await director.error(
        "no_bot_available", type="create_room", game="gomoku", bots=["alpha", "beta"]
    )
    await director.error(
        "no_bot_available", type="create_room", game="tictactoe", bots=["alpha", "x"]
    )
    await director.error("bad_options", type="create_room", game="gomoku", bots=["alpha", "alpha"])
    await director.error("bad_options", type="create_room", game="gomoku", bots=["alpha"])


async def test_opening_and_adjudication(client_factory: Any) -> None:
    opening = [[7, 7], [8, 8], [7, 8]]
    director, alpha, beta, room = await director_room(
        client_factory, options={"opening": opening, "max_moves": 5}
    )
    state = await beta.expect("state", status="playing")
    assert state["moves"] == opening and state["to_move"] == 1 and state["ply"] == 3
    await beta.request(type="move", room=room, x=0, y=0, ply=3)
    await alpha.request(type="move", room=room, x=14, y=14, ply=4)
    over = await director.expect("game_over")
    assert over["winner"] is None and over["reason"] == "adjudicated"
    games = await director.request(type="list_games")
    assert games["games"][0]["reason"] == "adjudicated" and games["games"][0]["opening"] == 3


async def test_bad_openings_are_refused(client_factory: Any) -> None:
    await client_factory("alpha", kind="bot", games=["*"], capacity=4)
    await client_factory("beta", kind="bot", games=["*"], capacity=4)
    director = await client_factory("director")
    for options in (
        {"opening": [[0, 0], [0, 0]]},  # occupied
        {"opening": [[20, 0]]},  # off the board
        {"opening": [[0, 0], [5, 5], [1, 0], [5, 6], [2, 0]]},  # tic-tac-toe: it already won
        {"opening": "e4"},
        {"max_moves": 2, "opening": [[0, 0], [1, 1]]},
    ):
        await director.error(
            "bad_options",
            type="create_room",
            game="tictactoe",
            bots=["alpha", "beta"],
            options=options,
        )


async def test_forfeit_carries_the_fault_into_the_record(client_factory: Any) -> None:
    director, alpha, beta, room = await director_room(client_factory)
    await alpha.request(type="move", room=room, x=7, y=7)
    await beta.request(type="resign", room=room, fault="illegal_move")
    over = await director.expect("game_over")
    assert over["reason"] == "forfeit" and over["fault"] == "illegal_move" and over["winner"] == 0
    record = (await director.request(type="list_games", player="beta"))["games"][0]
    assert record["reason"] == "forfeit" and record["fault"] == "illegal_move"
    await alpha.error("bad_message", type="resign", room=room, fault="bored")


async def test_version_1_database_upgrades_in_place(tmp_path: Path) -> None:
    path = tmp_path / "v1.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(f"BEGIN; {MIGRATIONS[0]} PRAGMA user_version=1; COMMIT;")
    db.execute(
        "INSERT INTO games (game_id, room, game_no, variant, options, status, line, created_at) "
        "VALUES ('g_old', 'r', 1, '{}', '{}', 'over', '[]', 0)"
    )
    db.commit()
    db.close()
    Store(path).close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS) >= 7
    assert db.execute("SELECT game_id, fault FROM games").fetchall() == [("g_old", None)]
    assert db.execute("SELECT * FROM bot_keys").fetchall() == []


@pytest.mark.parametrize("limits_override", [{"human_rate": 1000.0, "max_page": 1}])
async def test_the_referee_reads_every_page_of_bots(client_factory: Any, server: Any) -> None:
    from bots.tournament.referee import ServerReferee

    for name in ("alpha", "beta", "gamma"):
        await client_factory(name, kind="bot", games=["gomoku"])
    referee = ServerReferee(server.url, "gomoku")
    try:  # one bot per page: on a single page only the first would be seen
        await referee.wait_for_bots(["alpha", "beta", "gamma"], timeout=10)
    finally:
        await referee.close()
