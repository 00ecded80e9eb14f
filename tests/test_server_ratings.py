"""Rated games over the wire on a real server and store: refusals, the rated ``state`` and
``game_over``, then the leaderboard and profile read back (accounts made by ``register``)."""

from __future__ import annotations

from typing import Any

from support.stores import both_dbs

db = both_dbs
BLITZ = {"initial_s": 180, "increment_s": 2}


async def make_account(server: Any, client: Any) -> None:
    """Register ``client``'s name as an account (it stays logged in)."""
    player = server.arena.players[client.player]
    name = player.name
    logged = await client.request(type="register", name=name, password="this is not weak")
    assert logged["type"] == "logged_in", logged
    assert logged["ratings"] == {}


async def test_rated_refusals_over_the_wire(client_factory: Any, server: Any) -> None:
    guest, alice = await client_factory("guest"), await client_factory("alice")
    await make_account(server, alice)
    ask = {"type": "create_room", "game": "gomoku", "rated": True, "clock": BLITZ}
    await guest.error("rated_needs_account", **ask)
    await alice.error("rated_needs_clock", **{**ask, "clock": None})
    await alice.error("unrated_game", **{**ask, "game": "mnk", "options": {"width": 9, "k": 4}})
    await alice.error("rated_position", **{**ask, "options": {"position": {"black": [[7, 7]]}}})
    await guest.error("unknown_pool", type="leaderboard", pool="gomoku")
    await guest.error("bad_page", type="leaderboard", pool="gomoku-blitz", page=99)
    await guest.error("bad_message", type="leaderboard", pool="gomoku-blitz", bots="yes")
    room = (await alice.request(**ask))["room"]
    await guest.error("rated_needs_account", type="join_room", room=room)
    await guest.alive()


async def test_a_rated_game_end_to_end(client_factory: Any, server: Any) -> None:
    alice, bob = await client_factory("alice"), await client_factory("bob")
    await make_account(server, alice)
    await make_account(server, bob)
    ask = {"type": "create_room", "game": "tictactoe", "seat": 0, "rated": True, "clock": BLITZ}
    room = (await alice.request(**ask))["room"]
    await bob.request(type="join_room", room=room)
    state = await bob.expect("state", status="playing")
    assert state["rated"] is True and state["pool"] == "tictactoe-blitz"
    assert state["ratings"] == [{"rating": 1500, "rd": 500, "provisional": True}] * 2
    for seat, (x, y) in enumerate([(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)]):
        await (alice if seat % 2 == 0 else bob).request(type="move", room=room, x=x, y=y)
    over = await bob.expect("game_over")
    assert over["winner"] == 0 and [c["seat"] for c in over["ratings"]] == [0, 1]
    won, lost = over["ratings"]
    assert won["before"] == lost["before"] == 1500 and won["after"] > 1500 > lost["after"]
    profile = await bob.request(type="profile", name="ALICE")
    assert profile["type"] == "profile" and profile["bot"] is False and profile["exists"] is True
    nobody = await bob.request(type="profile", name="nobody-here")
    assert nobody["exists"] is False and nobody["ratings"] == {}  # the page: "no such player"
    assert profile["ratings"]["tictactoe-blitz"]["rating"] == won["after"]
    assert profile["record"] == {"played": 1, "won": 1, "drawn": 0, "lost": 0}
    assert profile["games"]["games"][0]["game_id"] == over["game_id"]
    assert len(profile["history"]["tictactoe-blitz"]) == 1
    again = await client_factory("alice-again")
    logged = await again.request(type="login", name="alice", password="this is not weak")
    assert logged["ratings"]["tictactoe-blitz"]["rating"] == won["after"]
    assert logged["ratings"]["tictactoe-blitz"]["games"] == 1
    nobody = await bob.request(type="profile", name="carol")
    assert nobody["ratings"] == {} and nobody["games"]["games"] == []
    board = await bob.request(type="leaderboard", pool="tictactoe-blitz")
    assert board["type"] == "leaderboard" and board["pool"] == "tictactoe-blitz"
    # nobody is settled after one game: both are listed, provisional, best first
    assert [(p["rank"], p["name"], p["rating"], p["provisional"]) for p in board["players"]] == [
        (1, "alice", won["after"], True),
        (2, "bob", lost["after"], True),
    ]
