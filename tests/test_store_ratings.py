"""Ratings in both stores: a change is saved once per (game, account) however often its batch
is written, and the leaderboard and profile read them back within their bounds."""

from __future__ import annotations

import pytest
from support.stores import both_dbs

from protocol.errors import BadPage, UnknownPool
from server.core.journal.rows import AccountRow, GameRow, RatingChange
from server.core.players.names import name_key
from server.storage.factory import open_store

db = both_dbs
NOW = 1_800_000_000.0


def change(
    game: str,
    account: str,
    score: float,
    rating: float,
    rd: float,
    at: float = NOW,
    before: float = 1500.0,
) -> RatingChange:
    """A rated game's change for ``account`` in gomoku-blitz."""
    return RatingChange(
        game, account.title(), f"p_{account}", account.title(), account.startswith("bot"),
        "gomoku-blitz", score, before, rating, rd, 0.09, at,
    )  # fmt: skip


def header(game: str, a: str, b: str, winner: int | None, at: float = NOW) -> GameRow:
    """The finished game's header (its players by the pids :func:`change` gives)."""
    return GameRow(
        game, "r1", 1, {"name": "gomoku", "width": 15, "height": 15, "k": 5, "rule": "freestyle"},
        {"opponent": "human", "rated": True}, {"initial_s": 180.0, "increment_s": 2.0,
        "move_s": None}, (f"p_{a}", f"p_{b}"), (a.title(), b.title()), ("human", "human"),
        "over", winner, "resign", (), at - 60, at - 50, at,
    )  # fmt: skip


def test_a_batch_written_twice_rates_once(db: str) -> None:
    store = open_store(db)
    try:
        batch = [
            AccountRow("Alice", name_key("Alice"), "p_alice", "human", "hash", NOW - 100),
            header("g1", "alice", "bob", 0),
            change("g1", "alice", 1.0, 1700, 300),
            change("g1", "bob", 0.0, 1300, 300),
        ]
        store.write(batch)
        store.write(batch)  # a retried commit, a failover's re-applied batch
        snap = store.load()
        rows = {r.account: r for r in snap.ratings}
        assert (rows["Alice"].rating, rows["Alice"].games) == (1700, 1)
        assert (rows["Bob"].rating, rows["Bob"].games) == (1300, 1)
        second = [change("g2", "alice", 0.5, 1690, 250, NOW + 86400, before=1700)]
        store.write(second)
        store.write(second)
        profile = store.profile("ALICE")  # found by its look-alike form
        assert profile["ratings"] == {
            "gomoku-blitz": {"rating": 1690, "rd": 250, "provisional": True, "games": 2}
        }
        assert profile["record"] == {"played": 2, "won": 1, "drawn": 1, "lost": 0}
        assert profile["name"] == "Alice" and profile["bot"] is False
        assert [p[1] for p in profile["history"]["gomoku-blitz"]] == [1700, 1690]
        assert [g["game_id"] for g in profile["games"]["games"]] == ["g1"]
    finally:
        store.close()


def test_a_change_moves_the_stored_rating_by_its_difference(db: str) -> None:
    """Another node rated the account meanwhile (this node's book is behind): both count."""
    store = open_store(db)
    try:
        store.write([change("g1", "alice", 1, 1600, 300)])  # 1500 -> 1600 on node a
        store.write([change("g2", "alice", 1, 1580, 300, NOW + 1)])  # 1500 -> 1580 on node b
        (row,) = store.load().ratings
        assert (row.rating, row.games) == (1680, 2)
    finally:
        store.close()


def test_a_name_without_ratings_gets_an_empty_profile(db: str) -> None:
    store = open_store(db)
    try:
        profile = store.profile("nobody")
        assert profile["exists"] is False  # said as such: the page says "no such player"
        assert profile["ratings"] == {} and profile["history"] == {}
        assert profile["record"]["played"] == 0 and profile["games"]["games"] == []
    finally:
        store.close()


def test_the_leaderboard_shows_settled_recent_players_best_first_bots_apart(db: str) -> None:
    store = open_store(db)
    try:
        store.write(
            [
                change("g1", "alice", 1, 1800, 60),
                change("g1", "bob", 0, 1700, 70),
                change("g2", "carol", 1, 2000, 200),  # provisional: under the settled ones
                change("g3", "dave", 1, 2100, 50, NOW - 40 * 86400),  # idle for 40 days
                change("g4", "bot1", 1, 1900, 50),
            ]
        )
        board = store.leaderboard("gomoku-blitz", now=NOW)
        assert [
            (p["rank"], p["name"], p["rating"], p["provisional"]) for p in board["players"]
        ] == [
            (1, "Alice", 1800, False),
            (2, "Bob", 1700, False),
            (3, "Carol", 2000, True),
        ]
        bots = store.leaderboard("gomoku-blitz", bots=True, now=NOW)
        assert [p["name"] for p in bots["players"]] == ["Bot1"] and bots["bots"] is True
        assert store.leaderboard("gomoku-blitz", page=1, now=NOW)["players"] == []
        with pytest.raises(UnknownPool):
            store.leaderboard("chess-blitz")
        with pytest.raises(BadPage):
            store.leaderboard("gomoku-blitz", page=10)
    finally:
        store.close()
