"""Quick pairing over the wire on the real server: a wave pairs two seekers who then play,
``accept_seek`` directly, refusals with their codes, a race for one seek, a seek dying with its
connection, a rated pairing of two accounts, and the bot fallback with a real ``mnk-bot``."""

from __future__ import annotations

import time
from typing import Any

import pytest
from support.waiting import until

pytestmark = pytest.mark.slow

CLOCK = {"initial_s": 180, "increment_s": 2}


async def seek(client: Any, **fields: Any) -> dict[str, Any]:
    """Place a seek; the ``seeking`` reply's seek."""
    reply = await client.request(type="seek", **fields)
    assert reply["type"] == "seeking", reply
    return reply["seek"]


async def test_two_seekers_are_paired_within_a_wave_and_play(client_factory: Any) -> None:
    alice, bob = await client_factory("alice"), await client_factory("bob")
    mine = await seek(alice, game="gomoku", clock=CLOCK)
    assert mine["pool"] == "gomoku 3+2 casual" and mine["name"] == "alice"
    assert mine["clock"] == {"initial_s": 180, "increment_s": 2, "label": "3+2"}
    assert mine["rating"] is None
    started = time.monotonic()
    theirs = await seek(bob, game="gomoku", clock=CLOCK)
    joined = [await c.expect("joined", timeout=10) for c in (alice, bob)]
    assert time.monotonic() - started < 6.0  # the next wave (every 2 s), room for a busy box
    assert joined[0]["seek"] == mine["seek"] and joined[1]["seek"] == theirs["seek"]
    room = joined[0]["room"]
    assert joined[1]["room"] == room and {j["seat"] for j in joined} == {0, 1}
    states = [await c.expect("state", status="playing") for c in (alice, bob)]
    assert states[0]["clocks"] is not None
    first, second = (alice, bob) if joined[0]["seat"] == 0 else (bob, alice)
    moved = await first.request(type="move", room=room, x=7, y=7)
    assert moved["type"] == "moved"
    moved = await second.request(type="move", room=room, x=8, y=8)
    assert moved["type"] == "moved" and moved["ply"] == 1
    listed = await alice.request(type="list_seeks")
    assert listed["seeks"] == []  # both seeks ended with the pairing


async def test_list_seeks_shows_pools_and_pushes_changes_to_subscribers(
    client_factory: Any,
) -> None:
    alice, bob = await client_factory("alice"), await client_factory("bob")
    page = await bob.request(type="list_seeks", subscribe=True, game="renju")
    tiles = {p["pool"]: p for p in page["pools"]}
    assert set(tiles) == {
        f"renju {c} {k}" for c in ("1+0", "3+2", "5+3", "10+5", "30+0") for k in ("rated", "casual")
    }
    assert all(t["waiting"] == 0 and t["game"] == "renju" for t in tiles.values())
    placed = await seek(alice, game="renju", clock={"initial_s": 600, "increment_s": 5})
    pushed = await bob.expect("seeks", timeout=10)
    assert "id" not in pushed and [s["seek"] for s in pushed["seeks"]] == [placed["seek"]]
    counts = {p["pool"]: p["waiting"] for p in pushed["pools"]}
    assert counts["renju 10+5 casual"] == 1
    odd = await seek(alice, game="renju", clock={"initial_s": 90, "increment_s": 1})
    pushed = await bob.expect("seeks", timeout=10)
    assert {p["pool"]: p["waiting"] for p in pushed["pools"]}["renju 1.5+1 casual"] == 1
    assert len(pushed["seeks"]) == 2
    cancelled = await alice.request(type="cancel_seek", seek=odd["seek"])
    assert cancelled == {"type": "seek_cancelled", "seek": odd["seek"], "id": cancelled["id"]}
    pushed = await bob.expect("seeks", timeout=10)
    assert [s["seek"] for s in pushed["seeks"]] == [placed["seek"]]
    await bob.request(type="list_seeks", subscribe=False)
    other = await seek(alice, game="renju", clock={"initial_s": 60, "increment_s": 0})
    await alice.request(type="cancel_seek", seek=other["seek"])
    await bob.alive()
    assert not [m for m in bob.pending if m["type"] == "seeks"]


async def test_accept_seek_pairs_at_once_and_refuses_your_own(client_factory: Any) -> None:
    alice, bob = await client_factory("alice"), await client_factory("bob")
    placed = await seek(alice, game="tictactoe", clock={"initial_s": 60, "increment_s": 0})
    await alice.error("own_seek", type="accept_seek", seek=placed["seek"])
    joined = await bob.request(type="accept_seek", seek=placed["seek"])
    assert joined["type"] == "joined" and joined["seek"] == placed["seek"]
    theirs = await alice.expect("joined")
    assert "id" not in theirs and theirs["room"] == joined["room"]
    assert theirs["seat"] == 1 - joined["seat"]
    await bob.expect("state", status="playing")
    await bob.error("no_such_seek", type="accept_seek", seek=placed["seek"])
    await bob.error("no_such_seek", type="cancel_seek", seek=placed["seek"])


async def test_two_accepters_race_for_one_seek_and_exactly_one_gets_it(
    client_factory: Any,
) -> None:
    alice = await client_factory("alice")
    accepters = [await client_factory(f"racer{i}") for i in range(4)]
    placed = await seek(alice, game="gomoku", clock=CLOCK)
    for c in accepters:
        await c.send(type="accept_seek", seek=placed["seek"], id=7)
    replies = [await _answer(c, 7) for c in accepters]
    kinds = sorted(r["type"] for r in replies)
    assert kinds == ["error", "error", "error", "joined"], replies
    assert {r["code"] for r in replies if r["type"] == "error"} == {"no_such_seek"}
    assert (await alice.expect("joined"))["seek"] == placed["seek"]


async def _answer(client: Any, rid: int) -> dict[str, Any]:
    """The message answering request ``rid``."""
    while True:
        message = await client.recv()
        if message.get("id") == rid:
            return message


async def test_a_seek_dies_with_its_players_connection(client_factory: Any, server: Any) -> None:
    alice, bob = await client_factory("alice"), await client_factory("bob")
    placed = await seek(alice, game="gomoku", clock=CLOCK)
    page = await bob.request(type="list_seeks")
    assert [s["seek"] for s in page["seeks"]] == [placed["seek"]]
    await alice.close()
    await until(lambda: server.arena.pairing.book.get(placed["seek"]) is None)
    assert (await bob.request(type="list_seeks"))["seeks"] == []
    await bob.error("no_such_seek", type="accept_seek", seek=placed["seek"])


async def test_bad_seeks_get_their_codes_and_change_nothing(client_factory: Any) -> None:
    alice = await client_factory("alice")
    await alice.error("bad_options", type="seek", game="mnk", clock=CLOCK)
    await alice.error("bad_options", type="seek", game="gomoku", clock={"initial_s": -1})
    await alice.error("rated_needs_account", type="seek", game="gomoku", clock=CLOCK, rated=True)
    await alice.error("bad_options", type="seek", game="gomoku", clock=CLOCK, range=[1, 2000])
    await alice.error("bad_options", type="seek", game="gomoku", clock=CLOCK, bot_after_s=1)
    await alice.error("bad_message", type="seek", game="gomoku", clock=CLOCK, rated="yes")
    await alice.error("no_such_seek", type="cancel_seek", seek="s_nothing")
    assert (await alice.request(type="list_seeks", game="gomoku"))["seeks"] == []
    await alice.alive()


async def test_too_many_seeks_of_one_player_are_refused(client_factory: Any) -> None:
    alice = await client_factory("alice")
    for minutes in (1, 3, 5):
        await seek(alice, game="renju", clock={"initial_s": 60 * minutes, "increment_s": 0})
    await alice.error("too_many_seeks", type="seek", game="renju", clock=CLOCK)
    page = await alice.request(type="list_seeks")
    assert len(page["seeks"]) == 3
    await alice.request(type="cancel_seek", seek=page["seeks"][2]["seek"])
    await alice.error("bad_options", type="seek", game="renju", clock={"initial_s": 60})


async def registered(client_factory: Any, name: str) -> Any:
    """A guest that registered ``name`` (and is logged in as it)."""
    c = await client_factory(f"guest-{name}")
    reply = await c.request(type="register", name=name, password="correct horse battery")
    assert reply["type"] == "logged_in", reply
    c.player = reply["player"]
    return c


async def test_a_rated_pairing_between_two_accounts(client_factory: Any, server: Any) -> None:
    alice, bob = await registered(client_factory, "alice"), await registered(client_factory, "bob")
    guest = await client_factory("guest")
    placed = await seek(alice, game="gomoku", clock=CLOCK, rated=True, range=[1400, 1600])
    assert placed["rating"] == 1500 and placed["provisional"] and placed["account"]
    assert placed["pool"] == "gomoku 3+2 rated" and placed["range"] == [1400, 1600]
    await guest.error("rated_needs_account", type="accept_seek", seek=placed["seek"])
    await alice.error("bad_options", type="seek", game="gomoku", clock=CLOCK, range=[1600, 1700])
    await seek(bob, game="gomoku", clock=CLOCK, rated=True)
    joined = [await c.expect("joined", timeout=10) for c in (alice, bob)]
    room = joined[0]["room"]
    state = await alice.expect("state", status="playing")
    assert state["rated"] and state["pool"] == "gomoku-blitz", state
    first = alice if joined[0]["seat"] == 0 else bob
    second = bob if first is alice else alice
    await first.request(type="move", room=room, x=7, y=7)  # a game of fewer is not rated
    await second.request(type="move", room=room, x=8, y=8)
    over = await first.request(type="resign", room=room)
    assert over["type"] == "game_over", over
    assert {c["seat"] for c in over["ratings"]} == {0, 1}
    # the winner is rated above 1500 now: a seek of the loser's up to 1500 is out of its range
    seat_of = {alice: joined[0]["seat"], bob: joined[1]["seat"]}
    after = {c["seat"]: c["after"] for c in over["ratings"]}
    winner = next(c for c in (alice, bob) if after[seat_of[c]] > 1500)
    loser = bob if winner is alice else alice
    low = after[seat_of[loser]]
    picky = await seek(loser, game="gomoku", clock=CLOCK, rated=True, range=[low - 10, 1500])
    assert picky["rating"] == low
    await winner.error("out_of_range", type="accept_seek", seek=picky["seek"])
    await loser.alive()


async def test_a_seek_with_bot_after_s_gets_a_real_bot(client_factory: Any, server: Any) -> None:
    from support.bots import bot_running

    async with bot_running(server, "random", "randy", "--capacity", "2", "--games", "gomoku"):
        alice = await client_factory("alice")
        started = time.monotonic()
        placed = await seek(alice, game="gomoku", clock=CLOCK, bot_after_s=5)
        joined = await alice.expect("joined", timeout=20)
        assert time.monotonic() - started >= 4.9  # not before bot_after_s
        assert joined["seek"] == placed["seek"]
        state = await alice.expect("state", status="playing")
        assert state["players"][1 - joined["seat"]] == "randy", state
        assert state["kinds"] == ["human", "bot"][:: 1 if joined["seat"] == 0 else -1]
        if joined["seat"] == 0:
            await alice.request(type="move", room=joined["room"], x=7, y=7)
        moved = await alice.expect("moved", seat=1 - joined["seat"], timeout=20)  # the bot plays
        assert moved["room"] == joined["room"]
        assert (await alice.request(type="list_seeks"))["seeks"] == []
