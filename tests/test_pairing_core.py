"""Quick pairing in the sans-I/O core on a fake clock: waves, the widening gap, ranges, colours,
blocks after an abort, the priority re-seek, expiry, disconnects, floods, the bot fallback and
every error code a seek request can get."""

from __future__ import annotations

from typing import Any

import pytest
from support.clock import FakeClock
from support.pairing import CLOCK_3_2, Hub, error_code, of_type

from protocol.errors import NodeUnavailableError
from server.core.pairing.desk import FULL_POOL, SEEK_TTL


@pytest.fixture
def hub() -> Hub:
    """An arena on a fake clock whose first wave has run (the next is due in 2 s)."""
    hub = Hub(FakeClock())
    hub.tick(0)
    return hub


def seek(hub: Hub, peer: Any, **fields: Any) -> dict[str, Any]:
    """Place a seek (gomoku 3+2 unless told); the seek."""
    fields = {"game": "gomoku", "clock": CLOCK_3_2} | fields
    replies = hub.do(peer, type="seek", id=1, **fields)
    assert replies[0]["type"] == "seeking", replies
    return replies[0]["seek"]


def rated(hub: Hub, name: str, rating: float) -> Any:
    """An account rated ``rating`` at gomoku blitz (the 3+2 pool's speed)."""
    peer = hub.peer(name, account=True)
    hub.rate(peer, "gomoku-blitz", rating)
    return peer


def joined(peer: Any) -> list[dict[str, Any]]:
    return of_type(peer, "joined")


def waves_until_paired(hub: Hub, peer: Any, most: int) -> int | None:
    """Waves run until ``peer`` is paired again (None: not within ``most``)."""
    before = len(joined(peer))
    for n in range(1, most + 1):
        hub.tick()
        if len(joined(peer)) > before:
            return n
    return None


def test_a_wave_every_two_seconds_pairs_two_seekers(hub: Hub) -> None:
    alice, bob = hub.peer("alice"), hub.peer("bob")
    mine, theirs = seek(hub, alice), seek(hub, bob)
    assert mine["pool"] == "gomoku 3+2 casual" and mine["rating"] is None
    hub.tick(1.0)
    assert not joined(alice)  # no wave yet
    hub.tick(1.0)
    a, b = joined(alice), joined(bob)
    assert a[0]["room"] == b[0]["room"] and {a[0]["seat"], b[0]["seat"]} == {0, 1}
    assert a[0]["seek"] == mine["seek"] and b[0]["seek"] == theirs["seek"]
    assert of_type(alice, "state")[-1]["status"] == "playing"
    assert of_type(alice, "state")[-1]["clock"]["initial_s"] == 180
    assert len(hub.arena.pairing.book) == 0


def test_a_full_pool_pairs_at_the_next_sweep_without_waiting_for_the_wave(hub: Hub) -> None:
    peers = [hub.peer(f"p{i}") for i in range(FULL_POOL)]
    for peer in peers[:-1]:
        seek(hub, peer)
    hub.tick(0.05)
    assert not any(joined(p) for p in peers)  # 31 wait for the wave
    seek(hub, peers[-1])
    hub.tick(0.05)
    assert all(len(joined(p)) == 1 for p in peers)


def test_the_accepted_gap_widens_each_wave_and_never_past_500(hub: Hub) -> None:
    a, b = rated(hub, "a", 1500), rated(hub, "b", 1700)
    seek(hub, a, rated=True)
    seek(hub, b, rated=True)
    # gap 200: accepted once each side missed two waves (100, 150, 200)
    assert waves_until_paired(hub, a, 10) == 3
    c, d = rated(hub, "c", 1000), rated(hub, "d", 1501)
    seek(hub, c, rated=True)
    seek(hub, d, rated=True)
    assert waves_until_paired(hub, c, 30) is None  # 501 apart: never
    assert hub.arena.pairing.book.get(of_type(c, "seeking")[0]["seek"].get("seek")).waves == 30


def test_closest_ratings_are_paired_first(hub: Hub) -> None:
    peers = {r: rated(hub, f"r{r}", r) for r in (1500, 1510, 1590, 1600)}
    for peer in peers.values():
        seek(hub, peer, rated=True)
    hub.tick()
    room = {r: joined(p)[0]["room"] for r, p in peers.items()}
    assert room[1500] == room[1510] and room[1590] == room[1600] and room[1500] != room[1600]


def test_a_seeks_range_is_always_kept(hub: Hub) -> None:
    a = rated(hub, "a", 1500)
    seek(hub, a, rated=True, range=[1450, 1550])
    b = rated(hub, "b", 1560)
    seek(hub, b, rated=True, range=[1545, 1800])
    assert waves_until_paired(hub, a, 12) is None  # each is outside the other's range
    c = rated(hub, "c", 1540)  # in a's range, not in b's
    seek(hub, c, rated=True)
    hub.tick()
    assert joined(a)[0]["room"] == joined(c)[0]["room"] and not joined(b)


def test_a_guest_counts_as_1500_and_accepts_the_widest_gap(hub: Hub) -> None:
    guest = hub.peer("guest")
    strong = hub.peer("strong", account=True)
    hub.rate(strong, "gomoku-blitz", 1900)
    seek(hub, guest)
    seek(hub, strong)  # casual: its rating still places it
    # the guest accepts 400 at once, the account's gap must widen to 400: six missed waves
    assert waves_until_paired(hub, guest, 10) == 7


def test_colours_alternate_from_each_players_last_game(hub: Hub) -> None:
    alice = hub.peer("alice")
    for i in range(6):
        other = hub.peer(f"new{i}")  # no last game: alice's wish decides
        seek(hub, alice)
        seek(hub, other)
        hub.tick()
        mine, theirs = joined(alice)[-1], joined(other)[-1]
        assert mine["room"] == theirs["room"]
        if i:
            assert mine["seat"] == 1 - joined(alice)[-2]["seat"]


def test_an_aborted_pairing_blocks_the_pair_until_one_plays_someone_else(hub: Hub) -> None:
    alice, bob = hub.peer("alice"), hub.peer("bob")
    seek(hub, alice)
    seek(hub, bob)
    hub.tick()
    room = joined(alice)[0]["room"]
    assert hub.do(alice, type="abort", room=room)[0]["reason"] == "aborted"
    hub.tick()  # the wave sees the aborted game
    seek(hub, alice)
    seek(hub, bob)
    assert waves_until_paired(hub, alice, 5) is None
    carol = hub.peer("carol")
    seek(hub, carol)
    hub.tick()
    assert len(joined(carol)) == 1 and len(joined(alice)) + len(joined(bob)) == 3
    dave = hub.peer("dave")
    seek(hub, dave)
    hub.tick()
    # whoever of alice and bob waited got dave; the blocks are gone with carol's game
    assert len(joined(dave)) == 1 and len(joined(alice)) == len(joined(bob)) == 2
    direct = hub.peer("erin")
    assert not hub.arena.pairing.memory.blocked(alice.pid, bob.pid)
    assert not hub.arena.pairing.memory.blocked(alice.pid, direct.pid)


def test_a_first_move_abort_reseeks_the_player_not_at_fault_first_in_line(hub: Hub) -> None:
    alice, bob = hub.peer("alice"), hub.peer("bob")
    seek(hub, alice)
    placed = {alice.pid: of_type(alice, "seeking")[0]["seek"]}
    placed[bob.pid] = seek(hub, bob)
    hub.tick()
    first = alice if joined(alice)[0]["seat"] == 0 else bob
    second = bob if first is alice else alice
    hub.tick(26.0)  # 3+2: 25 s for the first move; first never moved
    over = of_type(second, "game_over")
    assert over and over[0]["reason"] == "aborted"
    hub.tick()  # the next wave puts the innocent one back
    again = of_type(second, "seeking")
    assert len(again) == 2 and "id" not in again[-1]
    assert again[-1]["seek"]["seek"] == placed[second.pid]["seek"]
    assert len(of_type(first, "seeking")) == 1  # the one at fault seeks no more
    others = [hub.peer(f"x{i}") for i in range(3)]
    for peer in others:
        seek(hub, peer)
    hub.tick()
    assert len(joined(second)) == 2  # paired first, out of four waiting


def test_a_seek_expires_after_30_minutes(hub: Hub) -> None:
    alice = hub.peer("alice")
    placed = seek(hub, alice)
    hub.tick(SEEK_TTL - 2.0)
    assert not of_type(alice, "seek_ended")
    hub.tick(2.0)
    assert of_type(alice, "seek_ended") == [
        {"type": "seek_ended", "seek": placed["seek"], "reason": "expired"}
    ]
    assert len(hub.arena.pairing.book) == 0


def test_a_seek_dies_with_its_players_last_connection(hub: Hub) -> None:
    alice, bob = hub.peer("alice"), hub.peer("bob")
    placed = seek(hub, alice)
    hub.do(bob, type="list_seeks", subscribe=True)
    hub.close(alice)
    assert hub.arena.pairing.book.get(placed["seek"]) is None
    hub.tick()
    assert of_type(bob, "seeks")[-1]["seeks"] == []
    assert error_code(hub.do(bob, type="accept_seek", seek=placed["seek"])) == "no_such_seek"


def test_a_paired_humans_other_seeks_end(hub: Hub) -> None:
    alice, bob = hub.peer("alice"), hub.peer("bob")
    other = seek(hub, alice, game="renju")
    placed = seek(hub, alice)
    assert hub.do(bob, type="accept_seek", seek=placed["seek"], id=3)[0]["type"] == "joined"
    assert of_type(alice, "seek_ended") == [
        {"type": "seek_ended", "seek": other["seek"], "reason": "cancelled"}
    ]
    assert len(hub.arena.pairing.book) == 0


def test_a_seek_flood_is_bounded_per_player_and_in_all(clock: Any = None) -> None:
    hub = Hub(FakeClock(), max_seeks=4)
    alice = hub.peer("alice")
    for _ in range(30):
        placed = seek(hub, alice)
        hub.do(alice, type="cancel_seek", seek=placed["seek"])
        hub.clock.advance(0.1)  # within the message rate
    assert error_code(hub.do(alice, type="seek", game="gomoku")) == "too_many_seeks"
    hub.tick(61)
    seek(hub, alice)
    for game in ("renju", "tictactoe"):
        seek(hub, alice, game=game)
    assert error_code(hub.do(alice, type="seek", game="gomoku-standard")) == "too_many_seeks"
    bob, carol = hub.peer("bob"), hub.peer("carol")
    seek(hub, bob, game="renju", clock={"initial_s": 60})
    assert error_code(hub.do(carol, type="seek", game="gomoku")) == "busy"


def test_list_seeks_pages_oldest_first_with_every_standard_pool(hub: Hub) -> None:
    peers = [hub.peer(f"p{i}") for i in range(5)]
    placed = [
        seek(hub, p, game="renju", clock={"initial_s": 60 * (i + 1)}) for i, p in enumerate(peers)
    ]
    page = hub.do(peers[0], type="list_seeks", limit=2, id=2)[0]
    assert [s["seek"] for s in page["seeks"]] == [p["seek"] for p in placed[:2]]
    rest = hub.do(peers[0], type="list_seeks", limit=2, cursor=page["next"], id=3)[0]
    assert [s["seek"] for s in rest["seeks"]] == [p["seek"] for p in placed[2:4]]
    pools = {p["pool"]: p["waiting"] for p in page["pools"]}
    assert (
        len(
            [p for p in pools if p.startswith(("tictactoe", "gomoku ", "gomoku-standard", "renju"))]
        )
        == 38
    )
    assert pools["renju 1+0 casual"] == 1 and pools["renju 2+0 casual"] == 1
    assert pools["gomoku 3+2 rated"] == 0
    only = hub.do(peers[0], type="list_seeks", game="tictactoe", id=4)[0]
    assert only["seeks"] == [] and {p["game"] for p in only["pools"]} == {"tictactoe"}
    assert error_code(hub.do(peers[0], type="list_seeks", cursor="x")) == "bad_message"


def test_a_bot_is_seated_after_bot_after_s_nearest_in_rating(hub: Hub) -> None:
    far = hub.peer("far", kind="bot", games=["gomoku"], capacity=1)
    near = hub.peer("near", kind="bot", games=["gomoku"], capacity=1)
    other = hub.peer("other", kind="bot", games=["renju"], capacity=4)
    hub.rate(far, "gomoku-blitz", 2200)
    hub.rate(near, "gomoku-blitz", 1450)
    hub.rate(other, "gomoku-blitz", 1500)
    alice = rated(hub, "alice", 1500)
    placed = seek(hub, alice, bot_after_s=5)
    hub.tick(4.0)
    assert not joined(alice)
    hub.tick(2.0)
    mine = joined(alice)
    assert len(mine) == 1 and mine[0]["seek"] == placed["seek"]
    state = of_type(alice, "state")[-1]
    assert state["players"][1 - mine[0]["seat"]] == "near" and state["status"] == "playing"
    assert joined(near) and not joined(far) and not joined(other)
    # near is busy now; a range that leaves far out leaves the seek waiting
    bob = rated(hub, "bob", 1500)
    seek(hub, bob, bot_after_s=5, range=[1300, 1700], rated=True)
    hub.tick(6)
    assert not joined(bob) and not joined(far)


def test_every_error_code_of_the_seek_requests(hub: Hub) -> None:
    guest, alice, bob = hub.peer("guest"), rated(hub, "alice", 1500), rated(hub, "bob", 1800)
    asks = {
        "bad_options": [
            {"game": "mnk"},
            {"game": "gomoku", "clock": {"initial_s": 0}},
            {"game": "gomoku", "range": [1600, 1400]},
            {"game": "gomoku", "range": [1, 5000]},
            {"game": "gomoku", "range": [1, "2"]},
            {"game": "gomoku", "bot_after_s": 4},
            {"game": "gomoku", "bot_after_s": 601},
        ],
        "bad_message": [
            {"game": "gomoku", "rated": 1},
            {"game": 3},
            {"game": "gomoku", "range": 5},
        ],
        "rated_needs_account": [{"game": "gomoku", "clock": CLOCK_3_2, "rated": True}],
    }
    for code, requests in asks.items():
        for fields in requests:
            assert error_code(hub.do(guest, type="seek", **fields)) == code, fields
    assert error_code(hub.do(guest, type="seek", game="gomoku", range=[0, 4000])) == "bad_options"
    assert error_code(hub.do(alice, type="seek", game="gomoku", rated=True)) == "rated_needs_clock"
    ask = {"type": "seek", "game": "gomoku", "clock": CLOCK_3_2, "rated": True}
    assert error_code(hub.do(alice, **ask, range=[1600, 1700])) == "bad_options"  # not hers
    placed = seek(hub, bob, rated=True, range=[1700, 1900])
    assert error_code(hub.do(bob, **ask)) == "bad_options"  # already seeking that
    assert error_code(hub.do(bob, type="accept_seek", seek=placed["seek"])) == "own_seek"
    assert error_code(hub.do(alice, type="accept_seek", seek=placed["seek"])) == "out_of_range"
    assert (
        error_code(hub.do(guest, type="accept_seek", seek=placed["seek"])) == "rated_needs_account"
    )
    assert error_code(hub.do(alice, type="cancel_seek", seek=placed["seek"])) == "no_such_seek"
    assert error_code(hub.do(alice, type="accept_seek", seek="s_none")) == "no_such_seek"
    assert hub.arena.pairing.book.get(placed["seek"]) is not None  # nothing changed
    hub.arena.pairing.node = OutOfReach()  # a cluster node whose pool (Redis) is away
    assert error_code(hub.do(guest, type="seek", game="gomoku")) == "node_unavailable"


class OutOfReach:
    """A cluster node whose pool of seeks is out of reach."""

    def check_seeks(self) -> None:
        """Always out of reach."""
        raise NodeUnavailableError("the pool is out of reach")


def test_a_seekers_quota_ends_its_seek_when_accepted(hub: Hub) -> None:
    hub = Hub(FakeClock(), max_guest_games_per_hour=1)
    alice, bob, carol = hub.peer("alice"), hub.peer("bob"), hub.peer("carol")
    placed = seek(hub, alice)
    assert hub.do(bob, type="accept_seek", seek=placed["seek"], id=2)[0]["type"] == "joined"
    assert error_code(hub.do(alice, type="seek", game="gomoku")) == "too_many_games"
    placed = seek(hub, carol)
    assert error_code(hub.do(bob, type="accept_seek", seek=placed["seek"])) == "too_many_games"


def test_a_human_with_two_bot_fallback_seeks_gets_one_bot_game(hub: Hub) -> None:
    for name in ("b1", "b2"):
        hub.peer(name, kind="bot", games=["*"], capacity=2)
    alice = hub.peer("alice")
    seek(hub, alice, bot_after_s=5)
    other = seek(hub, alice, game="renju", bot_after_s=5)
    hub.tick(6)
    assert len(joined(alice)) == 1
    assert of_type(alice, "seek_ended") == [
        {"type": "seek_ended", "seek": other["seek"], "reason": "cancelled"}
    ]
    assert len(hub.arena.pairing.book) == 0
