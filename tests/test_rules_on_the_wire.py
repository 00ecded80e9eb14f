"""Rules the server says once so that no client computes its own copy: the rating pool of a
seek, of a Quick pairing tile and of a rated room's lobby line, and ``welcome.rating_pools``
(the pool of every form clock). The clock 15+10 with 5 s a move is the one where the clients'
old copies (``initial + 40 x increment``, not capped by the time per move) named "rapid" while
the server rates the game "blitz"."""

from __future__ import annotations

from typing import Any

import pytest

from protocol.variants import FIXED
from server.core.game.clock import ClockSpec
from server.core.rating.pools import FORM_CLOCKS, POOLS, pool_of

pytestmark = pytest.mark.slow

CAPPED = {"initial_s": 900, "increment_s": 10, "move_s": 5}


async def test_welcome_names_the_pool_of_every_form_clock(client_factory: Any) -> None:
    client = await client_factory()
    welcome = await client.hello("alice")
    pools = welcome["rating_pools"]
    assert set(pools) == {f"{i}+{inc}" for i, inc in FORM_CLOCKS}
    for initial, increment in FORM_CLOCKS:
        clock = ClockSpec(float(initial), float(increment))
        for game, variant in FIXED.items():
            assert pools[f"{initial}+{increment}"][game] == pool_of(variant, clock)
    assert pools["180+2"]["gomoku-standard"] == "exact-blitz"
    assert pools["900+10"]["renju"] == "renju-rapid"
    form = welcome["seek_form"]  # the custom seek form's choices, said once for both clients
    assert form["clocks"][0] is None and form["clocks"][form["clock"]] == {
        "initial_s": 180,
        "increment_s": 2,
        "label": "3+2",  # what the clients show for it
    }
    assert [f"{c['initial_s']}+{c['increment_s']}" for c in form["clocks"][1:]] == list(pools)
    assert form["ranges"] == [0, 100, 200, 300, 500]


async def test_welcome_says_the_labels_of_the_games_and_pools(client_factory: Any) -> None:
    welcome = await (await client_factory()).hello("alice")
    labels = welcome["labels"]  # said once here: the clients keep no list of their own
    assert list(labels["games"]) == [*FIXED, "mnk"]
    assert labels["games"]["gomoku-standard"] == "Gomoku (exact five)"
    assert labels["short"]["gomoku-standard"] == "Exact five"
    assert list(labels["pools"]) == list(POOLS) and labels["pools"]["exact-blitz"] == (
        "Gomoku (exact five) blitz"
    )
    assert list(labels["pool_games"]) == ["tictactoe", "gomoku", "exact", "renju"]
    assert labels["speeds"] == ["bullet", "blitz", "rapid", "classical"]
    assert labels["formats"] == {
        "round_robin": "Round robin", "swiss": "Swiss", "arena": "Arena",
        "gauntlet": "Gauntlet", "match": "Match",
    }  # fmt: skip


async def test_a_seek_and_its_tile_carry_the_rating_pool_the_server_rates_in(
    client_factory: Any,
) -> None:
    alice, bob = await client_factory("alice"), await client_factory("bob")
    placed = (await alice.request(type="seek", game="gomoku", clock=CAPPED))["seek"]
    assert placed["rating_pool"] == "gomoku-blitz"  # 40 moves of 5 s: 200 s, not 1300
    untimed = (await alice.request(type="seek", game="renju"))["seek"]
    assert untimed["rating_pool"] is None
    page = await bob.request(type="list_seeks")
    rows = {s["seek"]: s for s in page["seeks"]}
    assert rows[placed["seek"]]["rating_pool"] == "gomoku-blitz"
    tiles = {p["pool"]: p for p in page["pools"]}
    assert tiles[placed["pool"]]["rating_pool"] == "gomoku-blitz"
    assert tiles["gomoku 3+2 rated"]["rating_pool"] == "gomoku-blitz"
    assert tiles["tictactoe 1+0 casual"]["rating_pool"] == "tictactoe-bullet"


async def test_a_rated_rooms_lobby_line_names_its_pool(client_factory: Any) -> None:
    alice = await client_factory("guest-alice")
    reply = await alice.request(type="register", name="alice", password="correct horse battery")
    assert reply["type"] == "logged_in", reply
    made = await alice.request(
        type="create_room", game="renju", opponent="human", rated=True, clock=CAPPED
    )
    assert made["type"] == "joined", made
    casual = await alice.request(type="create_room", game="gomoku", opponent="human")
    assert casual["type"] == "joined", casual
    lines = {r["room"]: r for r in (await alice.request(type="list_rooms"))["rooms"]}
    assert lines[made["room"]]["rated"] and lines[made["room"]]["pool"] == "renju-blitz"
    assert "pool" not in lines[casual["room"]] and "rated" not in lines[casual["room"]]


#: The scores a hand-driven bot gives the positions 0..4 of ``finished_tictactoe`` (side to
#: move's view): white's second move (ply 1) throws a level game (50 %) away (95 % for black).
SCORES = [0, 0, 3000, -3000, None]


async def test_the_server_marks_each_move_of_a_game_it_analysed(client_factory: Any) -> None:
    from support.analysis import analyser, finished_tictactoe

    bot = await analyser(client_factory)
    _alice, _bob, _room, game_id = await finished_tictactoe(client_factory)
    carol = await client_factory("carol")
    got = []
    for ply, score in enumerate(SCORES):
        await carol.send(type="analyse", id=ply + 1, game_id=game_id, ply=ply)
        job = await bot.expect("analyse_job")
        line = {"move": [2, 2], "pv": [], "depth": 3}
        line |= {"score": score} if score is not None else {"mate": 1}
        await bot.send(type="analysed", job=job["job"], lines=[line])
        got.append((await carol.expect("analysis", id=ply + 1))["marks"])
    assert got == [
        [],  # the position after it is not known yet
        [{"ply": 0, "drop": 0, "verdict": None}],
        [{"ply": 1, "drop": 45, "verdict": "blunder"}],  # 50 % to 5 %
        [{"ply": 2, "drop": 0, "verdict": None}],
        [{"ply": 3, "drop": 5, "verdict": None}, {"ply": 4, "drop": 0, "verdict": None}],
    ]
    again = await carol.request(type="analyse", game_id=game_id, ply=2)  # from the cache
    assert [m["ply"] for m in again["marks"]] == [1, 2]
    board = await carol.request(type="analyse", game="tictactoe", moves=[[0, 0], [1, 0]])
    assert "marks" not in board  # an analysis board has no game to mark


def test_a_proven_result_played_away_is_a_blunder_or_a_mistake() -> None:
    from protocol.rules import Move
    from server.core.analysis.marks import mark

    def solved(*values: tuple[int, str]) -> dict[str, Any]:
        cells = [{"move": [x, 0], "value": v, "plies": 3} for x, v in values]
        return {"lines": [{"move": [0, 0], "win": 99}], "values": cells}

    won = solved((0, "win"), (1, "draw"), (2, "loss"))
    assert mark(3, won, Move(1, 0), None) == {"ply": 3, "drop": 50, "verdict": "mistake"}
    assert mark(3, won, Move(2, 0), None) == {"ply": 3, "drop": 100, "verdict": "blunder"}
    drawn = solved((1, "draw"), (2, "loss"))
    assert mark(3, drawn, Move(2, 0), None)["verdict"] == "blunder"
    assert mark(3, drawn, Move(1, 0), 0)["verdict"] is None  # the proven value counts
    level = {"lines": [{"move": [0, 0], "win": 50}]}
    assert mark(0, level, Move(0, 0), 20) == {"ply": 0, "drop": 30, "verdict": None}
    assert mark(0, level, Move(0, 0), 19)["verdict"] == "blunder"
    assert mark(0, level, Move(0, 0), None) is None


async def test_the_pygame_client_marks_the_moves_the_server_marks(client_factory: Any) -> None:
    from support.analysis import analyser, finished_tictactoe
    from support.marks import EDGE, blunders_said, edge_replies

    from client.analysis import Analysis
    from client.analyst import GameWalk
    from client.values import FinishedGame, GameInfo, Result

    bot = await analyser(client_factory)
    _alice, _bob, _room, game_id = await finished_tictactoe(client_factory)
    carol = await client_factory("carol")
    replies = []
    for ply, score in enumerate(EDGE):
        await carol.send(type="analyse", id=ply + 1, game_id=game_id, ply=ply)
        job = await bot.expect("analyse_job")
        line = {"move": [2, 2], "pv": [], "depth": 3}
        line |= {"score": score} if score is not None else {"mate": 1}
        await bot.send(type="analysed", job=job["job"], lines=[line])
        replies.append(await carol.expect("analysis", id=ply + 1))
    assert blunders_said(replies) == [2, 3]
    assert [r["marks"] for r in replies] == [r["marks"] for r in edge_replies()]
    info = GameInfo("tictactoe", 3, 3, 3)
    moves = ((0, 0), (1, 0), (1, 1), (2, 0), (2, 2))
    game = FinishedGame(game_id, "r", info, ("alice", "bob"), moves, Result(0, "line"))
    walk = GameWalk(game)
    for reply in replies:
        walk.by_ply[reply["ply"]] = Analysis.from_wire(reply)
    assert [m.ply for m in walk.blunders()] == [2, 3]
