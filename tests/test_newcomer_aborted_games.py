"""An aborted game is not a draw anywhere (issue 44.3): the server says each finished game's
``outcome`` (``none`` for aborted), and the lists, the exports and the browser's pages show it."""

from __future__ import annotations

from typing import Any

from protocol.records import (
    PsqRecord,
    TextRecord,
    outcome,
    read_psq,
    read_text,
    write_psq,
    write_text,
)
from protocol.rules import Move


def test_the_outcome_of_an_aborted_game_is_none_not_a_draw() -> None:
    assert outcome(None, "aborted") == "none"
    assert outcome(None, "draw_agreed") == "draw"
    assert outcome(None, "draw") == "draw"
    assert outcome(1, "line") == "win"


def test_an_aborted_game_s_text_record_says_no_result_and_reads_back() -> None:
    record = TextRecord("g_1", "gomoku", 15, 15, 5, "freestyle", ("alice", "bob"), (), (), None,
                        "aborted")  # fmt: skip
    text = write_text(record)
    assert text.endswith("# result: no result (aborted)\n")
    assert "draw" not in text
    back = read_text(text)
    assert back.winner is None and back.reason == "aborted"


def test_an_aborted_game_s_psq_says_no_result_and_reads_back() -> None:
    psq = write_psq(PsqRecord(15, 15, (Move(7, 7),), (900,), ("alice", "bob"), None,
                              no_result="aborted"))  # fmt: skip
    assert psq.endswith("0,Freestyle\nno result (aborted)\n")
    assert read_psq(psq).no_result == "aborted"
    assert read_psq(write_psq(PsqRecord(15, 15, (), (), ("a", "b"), None))).no_result is None


async def test_list_games_and_get_game_say_an_aborted_game_has_no_result(
    client_factory: Any,
) -> None:
    alice = await client_factory("alice")
    bob = await client_factory("bob")
    room = (await alice.request(type="create_room", game="gomoku", seat=0))["room"]
    await bob.request(type="join_room", room=room)
    await alice.expect("state", status="playing")
    over = await alice.request(type="abort", room=room)  # no move at all
    assert over["reason"] == "aborted"
    room2 = (await alice.request(type="create_room", game="tictactoe", seat=0))["room"]
    await bob.request(type="join_room", room=room2)
    await alice.expect("state", room=room2, status="playing")
    await alice.request(type="move", room=room2, x=0, y=0)
    await alice.request(type="resign", room=room2)
    page = await bob.request(type="list_games", player="alice")
    by_reason = {g["reason"]: g for g in page["games"]}
    assert by_reason["aborted"]["outcome"] == "none"
    assert by_reason["resign"]["outcome"] == "win"
    game_id = by_reason["aborted"]["game_id"]
    reply = await bob.request(type="get_game", game_id=game_id, format="psq")
    assert reply["game"]["outcome"] == "none"
    assert reply["psq"].endswith("no result (aborted)\n")


async def test_a_rated_game_aborted_counts_in_no_record(client_factory: Any) -> None:
    """The profile's record (rated games: won, drawn, lost) leaves an aborted game out."""
    alice = await client_factory("guest-a")
    bob = await client_factory("guest-b")
    for client, name in ((alice, "alice"), (bob, "bob")):
        logged = await client.request(type="register", name=name, password="not guessable at all")
        assert logged["type"] == "logged_in", logged
    blitz = {"initial_s": 180, "increment_s": 2}
    ask = {"game": "tictactoe", "seat": 0, "rated": True, "clock": blitz}
    room = (await alice.request(type="create_room", **ask))["room"]
    await bob.request(type="join_room", room=room)
    await alice.expect("state", room=room, status="playing")
    assert (await alice.request(type="abort", room=room))["reason"] == "aborted"
    profile = await bob.request(type="profile", name="alice")
    assert profile["record"] == {"played": 0, "won": 0, "drawn": 0, "lost": 0}
    (game,) = profile["games"]["games"]
    assert game["outcome"] == "none"
