"""Hostile round three: misannounced frames, junk options, renju's cost, look-alike names,
bot seats held by idle sockets, rematch loops."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.arena import Peer, arena_with, sweep_until
from support.clock import FakeClock

from protocol.errors import BadOptions
from protocol.renju import FoulMap, fouls, star
from server.core.arena import Arena
from server.core.game.position import MAX_POINTS, points
from server.core.journal.recovery import record_options
from server.core.players.keys import new_key
from server.core.players.names import name_key
from server.core.ratelimit import frame_cost


@pytest.fixture
def clock() -> FakeClock:
    """A fake wall clock."""
    return FakeClock()


def _frame(*pairs: object) -> bytes:
    """A msgpack map of ``pairs`` in order, duplicate keys kept (a dict cannot say that)."""
    assert len(pairs) % 2 == 0 and len(pairs) < 32
    return bytes([0x80 + len(pairs) // 2]) + b"".join(msgpack.packb(p) for p in pairs)


def test_a_frame_announcing_a_move_that_decodes_as_another_type_is_bad_message(
    clock: FakeClock,
) -> None:
    arena = arena_with(clock)
    alice = Peer(arena, "alice")
    frame = _frame("type", "move", "game", "gomoku", "id", 3, "type", "create_room")
    out = arena.receive(alice.conn, frame)
    assert [o.message["code"] for o in out] == ["bad_message"]  # type: ignore[attr-defined]
    assert not list(arena.rooms), "no room may be made by a frame that took the move lane"
    pinged = arena.receive(alice.conn, _frame("type", "ping", "type", "list_rooms"))
    assert pinged[0].message["code"] == "bad_message"  # type: ignore[attr-defined]
    # the honest forms still work: type first, or a lobby request with type elsewhere
    assert alice.do(type="create_room", game="gomoku")[0]["type"] == "joined"
    assert arena.receive(alice.conn, _frame("id", 4, "type", "ping"))[0].message["type"] == "pong"  # type: ignore[attr-defined]


def _code(replies: list[dict[str, Any]]) -> str:
    """The code of the one error among ``replies``."""
    return next(m["code"] for m in replies if m["type"] == "error")


def test_junk_in_options_is_refused_and_a_valid_position_round_trips(clock: FakeClock) -> None:
    arena = arena_with(clock)
    alice, bob = Peer(arena, "alice"), Peer(arena, "bob")
    junk = {"black": [[7, 7]], "white": [], "to_move": 0, "pad": [[]] * 64_917}
    frame = msgpack.packb({"type": "create_room", "game": "renju", "options": {"position": junk}})
    assert 60_000 < len(frame) < 65_536
    out = arena.receive(alice.conn, frame)
    assert [o.message["code"] for o in out] == ["bad_options"]  # type: ignore[attr-defined]
    for options in (
        {"junk": 1},
        {"opening": [[7, 7]], "note": "x" * 100},
        {"width": 15},  # gomoku is 15x15 whatever it is told: not an option of it
        {"position": {"black": [[7, 7]], "extra": []}},
        {"position": {"black": [[7, 7, 0]]}},
        {"position": {"to_move": True}},
        {"max_moves": "9"},
    ):
        refused = alice.do(type="create_room", game="gomoku", options=options)
        assert _code(refused) == "bad_options", options
    assert _code(alice.do(type="create_room", game="mnk", options={"k": 4, "width": 7, "hue": 1}))
    assert not list(arena.rooms)
    position = {"black": [[7, 7], [8, 8], [6, 6]], "white": [[7, 8]], "to_move": 1}
    room = alice.do(type="create_room", game="renju", seat=0, options={"position": position})
    bob.do(type="join_room", room=room[0]["room"])
    state = next(m for m in bob.inbox if m["type"] == "state")
    assert state["options"] == {"opponent": "human", "position": position}
    (made,) = arena.rooms
    assert record_options(made) == {"opponent": "human", "position": position}  # journaled


def test_a_stone_list_longer_than_any_board_is_refused_before_it_is_walked(
    clock: FakeClock,
) -> None:
    """5,000 copies of a valid cell took ~2 ms to check, twice per create_room, on the loop: a
    list longer than the biggest board's cells is refused by its length alone."""
    assert points([[0, 0]] * MAX_POINTS, "position.black")  # as long as a 25x25 board: read
    with pytest.raises(BadOptions, match="more stones than any board"):
        points([[0, 0]] * (MAX_POINTS + 1), "position.black")
    arena = arena_with(clock)
    alice = Peer(arena, "alice")
    junk = {"position": {"black": [[0, 0]] * 5000, "white": []}}
    refused = alice.do(type="create_room", game="gomoku", options=junk)
    assert _code(refused) == "bad_options"
    assert "more stones" in refused[0]["message"]
    assert not list(arena.rooms)


def test_a_big_frame_costs_its_sender_one_message_per_4_kib(clock: FakeClock) -> None:
    """Decoding is paid by the object (a 64 KB frame of empty lists: ~6 ms), so a frame is
    charged by its size: a human's burst of 40 holds two such frames, not forty."""
    arena = arena_with(clock)
    alice = Peer(arena, "alice")
    junk = {"black": [[7, 7]], "white": [], "to_move": 0, "pad": [[]] * 64_917}
    frame = msgpack.packb({"type": "create_room", "game": "renju", "options": {"position": junk}})
    assert frame_cost(frame) == 16
    codes = [arena.receive(alice.conn, frame)[0].message["code"] for _ in range(3)]  # type: ignore[attr-defined]
    assert codes == ["bad_options", "bad_options", "rate_limited"]
    clock.advance(16 / arena.limits.human_rate)  # the bucket refills at the human rate
    assert _code(alice.do(type="create_room", game="gomoku", options={"junk": 1})) == "bad_options"
    assert frame_cost(msgpack.packb({"type": "move", "room": "k7m2qx", "x": 7, "y": 7})) == 1


def test_renju_is_refused_off_fifteen_by_fifteen(clock: FakeClock) -> None:
    arena = arena_with(clock)
    alice = Peer(arena, "alice")
    pairs = [[x, y] for x in range(25) for y in range(25) if x % 3 < 2 and (x // 3 + y) % 2]
    options = {"width": 25, "k": 5, "rule": "renju", "position": {"black": pairs[:153]}}
    assert _code(alice.do(type="create_room", game="mnk", options=options)) == "bad_options"
    options = {"width": 15, "k": 5, "rule": "renju"}
    assert alice.do(type="create_room", game="mnk", options=options)[0]["type"] == "joined"


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 224), st.sampled_from([0, 1, 1, 1, 2])), max_size=90))
def test_the_kept_foul_map_always_agrees_with_a_full_look(changes: list[tuple[int, int]]) -> None:
    kept = FoulMap(15, 15)
    cells = [0] * 225
    for index, colour in changes:
        cells[index] = colour
        assert kept.update(cells) == list(fouls(cells, 15, 15))


def test_a_move_looks_again_only_near_where_it_was_played() -> None:
    kept = FoulMap(15, 15)
    cells = [0] * 225
    kept.update(cells)
    assert kept.looks == 225  # the first look is at every cell
    for index, colour in ((7 * 15 + 7, 1), (8 * 15 + 8, 2), (0, 1), (224, 2)):
        kept.looks = 0
        cells[index] = colour
        kept.update(cells)
        assert 0 < kept.looks <= len(star(15, 15, index)) <= 41  # the windows through it only


LOOK_ALIKES = ("minim\u0430x", "m\u0456n\u0456max", "\u13b7inimax", "rninimax", "minimax\u0307")


@pytest.mark.parametrize("name", LOOK_ALIKES)
def test_a_look_alike_of_a_bot_name_is_refused_to_a_human(clock: FakeClock, name: str) -> None:
    arena = arena_with(clock)
    arena.keys.add("minimax", new_key())
    human = Peer(arena, name)
    assert human.pid is None and _code(human.inbox) == "bad_message"


def test_names_that_only_resemble_a_bot_name_still_pass(clock: FakeClock) -> None:
    arena = arena_with(clock)
    arena.keys.add("minimax", new_key())
    for name in ("minimal", "maximin", "alice", "José", "Ωmega", "東京"):
        assert Peer(arena, name).pid is not None, name
    # spaces fold into the key since round four ("a l i c e" is "alice"): "mini max" is taken
    assert Peer(arena, "mini max").pid is None
    assert name_key("bob") != name_key("b0") and name_key("b0b") == name_key("bob")


def test_a_rematch_loop_is_bounded_per_hour(clock: FakeClock) -> None:
    arena = arena_with(clock, max_guest_games_per_hour=5)
    alice, bob = Peer(arena, "alice"), Peer(arena, "bob")
    room = alice.do(type="create_room", game="tictactoe", seat=0)[0]["room"]  # alice: game 1
    bob.do(type="join_room", room=room)
    for game in range(2, 6):  # four rematches: alice and bob each start games 2..5
        alice.do(type="resign", room=room)
        clock.now += 60.0
        assert alice.do(type="rematch", room=room)[0]["type"] == "rematch_offered", game
        assert bob.do(type="rematch", room=room)[0]["type"] == "rematch_offered", game
    alice.do(type="resign", room=room)
    assert _code(alice.do(type="rematch", room=room)) == "too_many_games"
    assert _code(alice.do(type="create_room", game="gomoku")) == "too_many_games"
    assert bob.do(type="rematch", room=room)[0]["type"] == "rematch_offered"  # bob's 5th
    clock.now += 3600.0 - 4 * 60.0  # alice's first game is an hour old: one more is allowed
    assert alice.do(type="rematch", room=room)[0]["type"] == "rematch_offered"
    assert _code(alice.do(type="create_room", game="gomoku")) == "too_many_games"
    carol = Peer(arena, "carol")
    assert carol.do(type="create_room", game="gomoku")[0]["type"] == "joined"


def _at(arena: Arena, name: str, address: str) -> Peer:
    """A human whose connection the shell counted under ``address``."""
    connect = arena.connect
    arena.connect = lambda: connect(address)  # type: ignore[method-assign]
    try:
        return Peer(arena, name)
    finally:
        arena.connect = connect  # type: ignore[method-assign]


def _overs(sent: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {m["room"]: m for m in sent if m["type"] == "game_over"}


def test_one_address_gets_half_of_a_bots_seats(clock: FakeClock) -> None:
    arena = arena_with(clock)
    Peer(arena, "robo", "bot", games=["*"], capacity=4)
    idle = [_at(arena, f"idle{i}", "2001:db8::/64") for i in range(3)]
    for peer in idle[:2]:  # two sockets, one address: half of robo's four seats
        assert peer.do(type="create_room", game="gomoku", opponent="bot")[0]["type"] == "joined"
    assert _code(idle[2].do(type="create_room", game="gomoku", opponent="bot")) == (
        "no_bot_available"
    )
    assert _code(idle[2].do(type="create_room", game="gomoku", bot="robo")) == "no_bot_available"
    other = _at(arena, "other", "192.0.2.7")
    assert other.do(type="create_room", game="gomoku", opponent="bot")[0]["type"] == "joined"
    director = _at(arena, "director", "2001:db8::/64")  # a director's bots play each other
    Peer(arena, "robo2", "bot", games=["*"], capacity=4)
    made = director.do(type="create_room", game="gomoku", bots=["robo", "robo2"])
    assert made[0]["type"] == "joined"


def test_a_game_against_a_bot_whose_first_move_never_comes_is_aborted(
    clock: FakeClock,
) -> None:
    arena = arena_with(clock, first_move_timeout=30.0)
    bot = Peer(arena, "robo", "bot", games=["*"], capacity=4)
    human = Peer(arena, "human")
    silent = human.do(type="create_room", game="gomoku", opponent="bot", seat=0)[0]["room"]
    second = human.do(type="create_room", game="gomoku", opponent="bot", seat=1)[0]["room"]
    bot.do(type="move", room=second, x=7, y=7)  # the bot opens; the human never answers
    played = human.do(type="create_room", game="gomoku", opponent="bot", seat=0)[0]["room"]
    human.do(type="move", room=played, x=7, y=7)
    clock.now += 20.0
    bot.do(type="move", room=played, x=8, y=8)
    assert not _overs(sweep_until(arena, clock, 9))  # 29 s after the games began
    overs = _overs(sweep_until(arena, clock, 2) + sweep_until(arena, clock, 60))
    assert set(overs) == {silent, second}, "both seats' first moves came in the third game"
    assert all(o["reason"] == "aborted" and o["winner"] is None for o in overs.values())


def test_an_untimed_bot_game_ends_when_its_human_stops_moving(clock: FakeClock) -> None:
    arena = arena_with(clock, human_idle_timeout=600.0)
    bot = Peer(arena, "robo", "bot", games=["*"], capacity=4)
    human = Peer(arena, "human")
    room = human.do(type="create_room", game="gomoku", opponent="bot", seat=0)[0]["room"]
    human.do(type="move", room=room, x=7, y=7)
    bot.do(type="move", room=room, x=8, y=8)
    clock.now += 500.0
    human.do(type="move", room=room, x=6, y=6)  # a move starts the ten minutes over
    bot.do(type="move", room=room, x=9, y=9)
    assert not _overs(sweep_until(arena, clock, 599))
    (over,) = _overs(sweep_until(arena, clock, 2)).values()
    assert over["reason"] == "timeout" and over["winner"] == 1  # the bot's seat wins
