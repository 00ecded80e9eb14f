"""Tournaments in the sans-I/O core on a fake clock: events created, joined, started and run
to their end in rooms the arena seats (round robin, swiss with a bye, arena with its pauses),
each result counted once, the coalesced pushes to watchers, and a restart from the journal's
rows that carries on where the event stood."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from support.clock import FakeClock
from support.pairing import Hub, error_code, of_type
from support.snapshots import snapshot_of

from protocol.rules import Termination
from server.core.arena import Arena
from server.core.journal.rows import (
    ResultRow,
    Snapshot,
)
from server.core.limits import Limits
from server.core.tournament.desk import MAX_CREATED_PER_DAY, MAX_WATCHING, PUSH_INTERVAL, event_id

CLOCK = {"initial_s": 180, "increment_s": 2}


@pytest.fixture
def hub() -> Hub:
    hub = Hub(FakeClock())
    hub.tick(0)
    return hub


def create(hub: Hub, peer: Any, **fields: Any) -> dict[str, Any]:
    """``peer`` creates an event (a gomoku round robin on 3+2 unless told); its message."""
    fields = {"name": "Cup", "game": "gomoku", "format": "round_robin", "clock": CLOCK} | fields
    reply = hub.do(peer, type="create_tournament", id=1, **fields)
    assert reply[0]["type"] == "tournament", reply
    return reply[0]


def entered(hub: Hub, tid: str, names: list[str], account: bool = True) -> list[Any]:
    """Peers (accounts) that joined event ``tid``."""
    peers = []
    for name in names:
        peer = hub.peer(name, account=account)
        reply = hub.do(peer, type="join_tournament", tournament=tid)
        assert reply[0]["type"] == "tournament", reply
        peers.append(peer)
    return peers


def live_rooms(hub: Hub, tid: str) -> dict[str, tuple[str, str]]:
    """The event's rooms now being played: room -> (seat 0's pid, seat 1's pid)."""
    event = hub.arena.tournaments.events[tid]
    return {s.room: s.game.players for s in event.live() if s.room is not None}


def play_out(hub: Hub, tid: str, loser: Any = None) -> int:
    """End every live game of the event: seat 1 resigns (or ``loser(players)`` picks who);
    the number of games ended."""
    rooms = live_rooms(hub, tid)
    for room, players in rooms.items():
        who = players[1] if loser is None else loser(players)
        assert hub.do(hub.peers[who], type="resign", room=room)[0]["type"] == "game_over"
    return len(rooms)


def test_a_round_robin_runs_to_its_end_and_every_pair_meets_n_times(hub: Hub) -> None:
    alice = hub.peer("alice", account=True)
    event = create(hub, alice, games_per_pair=2)
    tid = event["tournament"]
    assert event["status"] == "open" and event["format"] == "round_robin"
    peers = entered(hub, tid, ["bob", "carol", "dave"])
    assert error_code(hub.do(peers[0], type="start_tournament", tournament=tid)) == (
        "not_tournament_creator"
    )
    hub.do(alice, type="join_tournament", tournament=tid)
    started = hub.do(alice, type="start_tournament", tournament=tid)
    assert started[0]["status"] == "running" and started[0]["rounds"] == 6
    joined = of_type(peers[0], "joined")
    assert joined and joined[-1]["tournament"] == tid
    rounds = 0
    while hub.arena.tournaments.events[tid].status == "running":
        assert play_out(hub, tid) == 2  # four players: two games a round, nobody twice
        hub.tick(0.05)
        rounds += 1
    assert rounds == 6
    final = hub.do(alice, type="get_tournament", tournament=tid)[0]
    assert final["status"] == "finished"
    meetings = Counter(frozenset(g["players"]) for g in final["games"])
    assert set(meetings.values()) == {2} and len(meetings) == 6
    assert all(g["result"] is not None and g["room"] for g in final["games"])
    assert sum(line["points"] for line in final["standings"]) == 12  # a point a game


def test_a_round_robin_game_starts_once_its_two_players_are_free(hub: Hub) -> None:
    """A fixed schedule does not wait for a round's slowest game: a game starts as soon as
    both its players are free, and the players of a long game play theirs after it; nobody
    plays two games at once, and the schedule is played whole, each game once."""
    alice = hub.peer("alice", account=True)
    tid = create(hub, alice, games_per_pair=2)["tournament"]
    entered(hub, tid, ["bob", "carol", "dave", "erin", "fay", "gus"])
    hub.do(alice, type="start_tournament", tournament=tid)
    event = hub.arena.tournaments.events[tid]
    first = sorted(live_rooms(hub, tid).items())
    assert len(first) == 3 and {s.game.round for s in event.live()} == {1}
    for room, players in first[:2]:  # two of round 1's three games end
        hub.do(hub.peers[players[1]], type="resign", room=room)
    hub.tick(0.05)
    rounds_live = sorted(s.game.round for s in event.live())
    assert rounds_live[0] == 1 and 2 in rounds_live  # round 2 began beside round 1's last game
    slow, held = first[2]
    while len(event.live()) > 1:  # every game but the slow one, as long as any can start
        playing = [p for s in event.live() for p in s.game.players]
        assert len(playing) == len(set(playing))  # one game at a time each
        for room, players in live_rooms(hub, tid).items():
            if room != slow:
                hub.do(hub.peers[players[1]], type="resign", room=room)
        hub.tick(0.05)
    others = [s for s in event.slots.values() if set(s.game.players).isdisjoint(held)]
    assert len(others) == 12 and all(s.result for s in others)  # the four others played on
    while event.status == "running":
        for room, players in live_rooms(hub, tid).items():
            hub.do(hub.peers[players[1]], type="resign", room=room)
        hub.tick(0.05)
    final = hub.do(alice, type="get_tournament", tournament=tid)[0]
    meetings = Counter(frozenset(g["players"]) for g in final["games"])
    assert set(meetings.values()) == {2} and len(meetings) == 15  # the whole schedule, once
    assert sorted(g["key"] for g in final["games"]) == sorted(
        f"{r}.{b}" for r in range(1, 11) for b in range(1, 4)
    )


def test_a_swiss_with_an_odd_field_gives_a_rotating_bye_and_no_repeat(hub: Hub) -> None:
    alice = hub.peer("alice", account=True)
    tid = create(hub, alice, format="swiss", rounds=3, game="tictactoe", clock=None)["tournament"]
    entered(hub, tid, ["bob", "carol", "dave", "erin", "fay"])
    hub.do(alice, type="start_tournament", tournament=tid)
    while hub.arena.tournaments.events[tid].status == "running":
        play_out(hub, tid, loser=lambda players: max(players))
        hub.tick(0.05)
    final = hub.do(alice, type="get_tournament", tournament=tid)[0]
    assert len(final["byes"]) == 3 and len({b["player"] for b in final["byes"]}) == 3
    pairs = [frozenset(g["players"]) for g in final["games"]]
    assert len(pairs) == 6 and len(set(pairs)) == 6
    top = final["standings"][0]
    assert {"buchholz", "sonneborn_berger", "byes"} <= set(top)


def test_a_swiss_of_two_games_a_pairing_plays_both_colours_of_its_rounds_opening(
    hub: Hub,
) -> None:
    """Each pairing of a round plays games_per_pair games one after another, the seats
    swapped and one opening to the pair; a bye scores the round's two games."""
    alice = hub.peer("alice", account=True)
    openings = [[[1, 1]], [[0, 0]]]
    tid = create(
        hub, alice, format="swiss", rounds=3, game="tictactoe", clock=None, games_per_pair=2,
        openings=openings,
    )["tournament"]  # fmt: skip
    entered(hub, tid, ["bob", "carol", "dave", "erin", "fay"])
    started = hub.do(alice, type="start_tournament", tournament=tid)[0]
    assert started["games_per_pair"] == 2
    event = hub.arena.tournaments.events[tid]
    while event.status == "running":
        playing = [p for s in event.live() for p in s.game.players]
        assert len(playing) == len(set(playing)) == 4  # two pairings, a game each at a time
        play_out(hub, tid, loser=lambda players: max(players))
        hub.tick(0.05)
    final = hub.do(alice, type="get_tournament", tournament=tid)[0]
    assert len(final["games"]) == 3 * 2 * 2 and len(final["byes"]) == 3
    by_pair: dict[tuple[int, frozenset[str]], list[dict[str, Any]]] = {}
    for game in final["games"]:
        by_pair.setdefault((game["round"], frozenset(game["players"])), []).append(game)
    assert len({pair for _, pair in by_pair}) == 6  # no pairing twice
    for (number, _), games in by_pair.items():
        first, second = sorted(games, key=lambda g: g["key"])
        assert first["players"] == second["players"][::-1]
        assert first["opening"] == second["opening"] == (number - 1) % 2
    lines = {line["player"]: line for line in final["standings"]}
    for bye in final["byes"]:
        assert lines[bye["player"]]["byes"] == 1
    assert sum(line["points"] for line in final["standings"]) == 12 + 3 * 2  # games + byes


def test_an_arena_repairs_at_once_avoids_the_last_opponent_and_pauses(hub: Hub) -> None:
    alice = hub.peer("alice", account=True)
    tid = create(hub, alice, format="arena", duration_s=60)["tournament"]
    peers = entered(hub, tid, ["bob", "carol", "dave", "erin"])
    hub.do(alice, type="start_tournament", tournament=tid)
    event = hub.arena.tournaments.events[tid]
    assert len(event.live()) == 2
    first = {frozenset(s.game.players) for s in event.live()}
    play_out(hub, tid)
    hub.tick(0.05)  # the next sweep pairs the four again, with other opponents
    second = {frozenset(s.game.players) for s in event.live()}
    assert len(second) == 2 and not first & second
    pause = hub.do(peers[0], type="leave_tournament", tournament=tid)[0]
    assert {e["name"]: e["state"] for e in pause["entrants"]}["bob"] == "paused"
    play_out(hub, tid)
    hub.tick(0.05)
    assert peers[0].pid not in event.busy() and len(event.live()) == 1  # three free: one waits
    hub.do(peers[0], type="join_tournament", tournament=tid)
    hub.tick(1.0)
    assert peers[0].pid in event.busy()
    counted = len(event.results)
    hub.tick(60)  # the end, and the games' first moves late (aborted) in the same sweep
    assert event.status == "finished"
    assert len(event.results) == counted  # games still going at the end count for nothing
    standings = hub.do(alice, type="get_tournament", tournament=tid)[0]["standings"]
    assert {"points", "streak", "performance", "sheet"} <= set(standings[0])


def test_a_result_counts_once_and_a_tournament_game_has_no_rematch_nor_abort(hub: Hub) -> None:
    alice = hub.peer("alice", account=True)
    tid = create(hub, alice)["tournament"]
    bob = entered(hub, tid, ["bob"])[0]
    hub.do(alice, type="join_tournament", tournament=tid)
    hub.do(alice, type="start_tournament", tournament=tid)
    (room,) = live_rooms(hub, tid)
    assert error_code(hub.do(alice, type="abort", room=room)) == "too_late"
    play_out(hub, tid)
    over = of_type(bob, "game_over")[-1]
    assert over["tournament"] == tid
    assert error_code(hub.do(alice, type="rematch", room=room)) == "rematch_unavailable"
    event = hub.arena.tournaments.events[tid]
    assert len(event.results) == 1
    hub.arena.tournaments.ended(hub.arena.rooms.get(room), {})  # reported again: ignored
    assert len(event.results) == 1


def test_requests_are_checked_and_bounded(hub: Hub) -> None:
    guest, alice = hub.peer("guest"), hub.peer("alice", account=True)
    form = {"name": "x", "game": "gomoku", "format": "round_robin", "clock": CLOCK}
    assert error_code(hub.do(guest, type="create_tournament", **form)) == "not_logged_in"
    assert error_code(hub.do(alice, type="create_tournament", **form | {"format": "ko"})) == (
        "bad_options"
    )
    bad_clock = form | {"clock": {"initial_s": 0.01}}
    assert error_code(hub.do(alice, type="create_tournament", **bad_clock)) == "bad_options"
    unrated = form | {"rated": True, "clock": None}
    assert error_code(hub.do(alice, type="create_tournament", **unrated)) == "rated_needs_clock"
    off_board = form | {"openings": [[[20, 20]]]}
    assert error_code(hub.do(alice, type="create_tournament", **off_board)) == "bad_options"
    rated = create(hub, alice, rated=True, max_players=2)["tournament"]
    assert error_code(hub.do(guest, type="join_tournament", tournament=rated)) == (
        "rated_needs_account"
    )
    entered(hub, rated, ["bob", "carol"])
    late = hub.peer("dave", account=True)
    assert error_code(hub.do(late, type="join_tournament", tournament=rated)) == "tournament_full"
    assert error_code(hub.do(late, type="get_tournament", tournament="nope")) == (
        "no_such_tournament"
    )
    for _ in range(MAX_CREATED_PER_DAY - 1):
        create(hub, alice)
    assert error_code(hub.do(alice, type="create_tournament", **form)) == "too_many_tournaments"
    hub.clock.advance(86400)
    create(hub, alice)  # a day later: again


def test_an_event_starts_on_its_clock_or_ends_when_too_few_came(hub: Hub) -> None:
    alice = hub.peer("alice", account=True)
    soon = create(hub, alice, starts_in_s=30)["tournament"]
    empty = create(hub, alice, starts_in_s=30)["tournament"]
    entered(hub, soon, ["bob", "carol"])
    hub.tick(29)
    assert hub.arena.tournaments.events[soon].status == "open"
    hub.tick(2)
    assert hub.arena.tournaments.events[soon].status == "running"
    assert hub.arena.tournaments.events[empty].status == "finished"
    listed = hub.do(alice, type="list_tournaments", limit=1)[0]
    assert listed["tournaments"][0]["tournament"] == soon and listed["next"] == soon
    rest = hub.do(alice, type="list_tournaments", cursor=listed["next"])[0]
    assert [t["tournament"] for t in rest["tournaments"]] == [empty] and rest["next"] is None
    closed = hub.do(alice, type="join_tournament", tournament=empty)
    assert error_code(closed) == "tournament_closed"


def test_watchers_get_the_latest_state_at_most_every_push_interval(hub: Hub) -> None:
    alice = hub.peer("alice", account=True)
    tid = create(hub, alice, format="arena", duration_s=600)["tournament"]
    watcher = hub.peer("watcher")
    hub.do(watcher, type="watch_tournament", tournament=tid)
    entered(hub, tid, [f"p{i}" for i in range(6)])  # six changes in one instant
    hub.tick(0.01)
    pushed = of_type(watcher, "tournament")
    assert len(pushed) == 2 and len(pushed[-1]["entrants"]) == 6  # the reply, one push
    entered(hub, tid, ["late"])
    hub.tick(PUSH_INTERVAL / 2)
    assert len(of_type(watcher, "tournament")) == 2  # too soon: held
    hub.tick(PUSH_INTERVAL / 2)
    assert len(of_type(watcher, "tournament")[-1]["entrants"]) == 7
    hub.do(watcher, type="watch_tournament", tournament=tid, watch=False)
    entered(hub, tid, ["later"])
    hub.tick(1)
    assert len(of_type(watcher, "tournament")) == 4  # the unwatch's reply, nothing since


def test_a_restart_from_the_rows_keeps_every_pairing_and_result_once() -> None:
    clock = FakeClock()
    hub = Hub(clock)
    limits = Limits(full_sweep_interval=0.0)
    hub.arena = Arena(limits=limits, clock=clock, durable=True)  # journals its rows
    alice = hub.peer("alice", account=True)
    tid = create(hub, alice, format="swiss", rounds=2, game="tictactoe", clock=None)["tournament"]
    entered(hub, tid, ["bob", "carol", "dave"])
    hub.do(alice, type="join_tournament", tournament=tid)
    hub.do(alice, type="start_tournament", tournament=tid)
    play_out(hub, tid)
    hub.tick(0.05)  # round two paired
    records = hub.arena.drain()
    before = hub.arena.tournaments.events[tid]
    again = Arena(limits=limits, clock=clock, durable=True)
    again.restore(snapshot_of(records))
    event = again.tournaments.events[tid]
    assert event.status == "running" and len(event.results) == 2
    assert set(event.slots) == set(before.slots) and len(event.live()) == 2
    again.sweep()
    assert set(event.slots) == set(before.slots), "nothing paired twice"
    for slot in event.live():
        room = again.rooms.get(slot.room)
        assert again.tournaments.owns(room)
        room.end(Termination.RESIGN, 0)  # the restored room reports its end
        again.tournaments.ended(room, {})  # and once more: counted once
    assert len(event.results) == 4
    again.sweep()
    assert event.status == "finished"
    results = [r for r in again.drain() if isinstance(r, ResultRow)]
    assert len(results) == 2 and {r.winner for r in results} == {0}


def test_a_swiss_pairings_next_game_is_made_once_across_a_restart() -> None:
    clock = FakeClock()
    hub = Hub(clock)
    limits = Limits(full_sweep_interval=0.0)
    hub.arena = Arena(limits=limits, clock=clock, durable=True)
    alice = hub.peer("alice", account=True)
    tid = create(
        hub, alice, format="swiss", rounds=2, game="tictactoe", clock=None, games_per_pair=2
    )["tournament"]
    entered(hub, tid, ["bob", "carol", "dave"])
    hub.do(alice, type="join_tournament", tournament=tid)
    hub.do(alice, type="start_tournament", tournament=tid)
    play_out(hub, tid)
    hub.tick(0.05)  # each pairing's second game made
    before = hub.arena.tournaments.events[tid]
    assert sorted(before.slots) == ["1.1.1", "1.1.2", "1.2.1", "1.2.2"]
    again = Arena(limits=limits, clock=clock, durable=True)
    again.restore(snapshot_of(hub.arena.drain()))
    event = again.tournaments.events[tid]
    assert event.settings.games_per_pair == 2 and len(event.live()) == 2
    again.sweep()
    assert set(event.slots) == set(before.slots), "nothing paired twice"
    for _ in range(3):  # the rest of round 1, then round 2's two games a pairing
        for slot in event.live():
            room = again.rooms.get(slot.room)
            room.end(Termination.RESIGN, 0)
            again.tournaments.ended(room, {})
        again.sweep()
    assert event.status == "finished" and len(event.results) == 8
    pairs = Counter(frozenset(s.game.players) for s in event.slots.values())
    assert len(pairs) == 4 and set(pairs.values()) == {2}


def test_a_bot_that_crashes_loses_its_game_and_the_event_goes_on() -> None:
    hub = Hub(FakeClock(), reconnect_grace=5.0)
    hub.tick(0)
    alice = hub.peer("alice", account=True)
    tid = create(hub, alice, game="tictactoe", clock=None, games_per_pair=1)["tournament"]
    bots = [hub.peer(name, kind="bot", games=["tictactoe"]) for name in ("b1", "b2", "b3")]
    for bot in bots:
        assert hub.do(bot, type="join_tournament", tournament=tid)[0]["type"] == "tournament"
    hub.do(alice, type="start_tournament", tournament=tid)
    event = hub.arena.tournaments.events[tid]
    (slot,) = event.live()
    crashed = hub.peers[slot.game.second]
    hub.close(crashed)  # its process died: its connection is gone
    for _ in range(7):
        hub.tick(1.0)
    assert slot.result is not None and slot.result.winner == 0  # lost on the grace
    assert event.round == 2 and len(event.live()) == 1  # the next round is under way


def test_a_bot_entrant_is_sent_its_games_not_every_change_of_the_event(hub: Hub) -> None:
    alice = hub.peer("alice", account=True)
    tid = create(hub, alice, game="tictactoe", clock=None, games_per_pair=1)["tournament"]
    bots = [hub.peer(name, kind="bot", games=["tictactoe"]) for name in ("b1", "b2", "b3")]
    person = entered(hub, tid, ["carol"])[0]
    for bot in bots:
        assert hub.do(bot, type="join_tournament", tournament=tid)[0]["type"] == "tournament"
    hub.do(alice, type="start_tournament", tournament=tid)
    hub.tick(1.0)
    assert play_out(hub, tid) == 2
    hub.tick(1.0)
    assert all(len(of_type(bot, "tournament")) == 1 for bot in bots)  # the join's reply only
    assert any(of_type(bot, "joined") for bot in bots)  # seated all the same
    assert len(of_type(person, "tournament")) > 2  # a person follows the event it entered
    hub.do(bots[0], type="watch_tournament", tournament=tid)
    play_out(hub, tid)
    hub.tick(1.0)
    assert len(of_type(bots[0], "tournament")) > 2  # pushed once it asked


def test_watching_is_bounded_but_an_entrant_past_the_bound_still_enters(hub: Hub) -> None:
    creators = [hub.peer(f"c{i}", account=True) for i in range(2)]
    tids = [
        create(hub, creators[i % 2], name=f"E{i}")["tournament"] for i in range(MAX_WATCHING + 1)
    ]
    fan = hub.peer("fan", account=True)
    for tid in tids[:MAX_WATCHING]:
        assert hub.do(fan, type="watch_tournament", tournament=tid)[0]["type"] == "tournament"
    full = hub.do(fan, type="watch_tournament", tournament=tids[-1])
    assert error_code(full) == "tournament_full"
    joined = hub.do(fan, type="join_tournament", tournament=tids[-1])
    assert joined[0]["type"] == "tournament" and joined[0]["players"] == 1
    hub.do(fan, type="watch_tournament", tournament=tids[0], watch=False)
    assert hub.do(fan, type="watch_tournament", tournament=tids[-1])[0]["type"] == "tournament"


def test_restoring_more_rooms_later_keeps_the_events_held(hub: Hub) -> None:
    alice = hub.peer("alice", account=True)
    tid = create(hub, alice)["tournament"]
    hub.arena.restore(Snapshot([], [], None))  # a cluster node adopting a lapsed node's rooms
    assert tid in hub.arena.tournaments.events


def test_a_rated_events_games_are_rated_once_as_rated_rooms_are(hub: Hub) -> None:
    alice = hub.peer("alice", account=True)
    tid = create(hub, alice, rated=True, games_per_pair=1)["tournament"]
    bob = entered(hub, tid, ["bob"])[0]
    hub.do(alice, type="join_tournament", tournament=tid)
    hub.do(alice, type="start_tournament", tournament=tid)
    ((room, (first, second)),) = live_rooms(hub, tid).items()
    for ply, (x, y) in enumerate([(7, 7), (8, 8), (7, 8), (9, 9)]):
        mover = hub.peers[(first, second)[ply % 2]]
        assert hub.do(mover, type="move", room=room, x=x, y=y, ply=ply)[0]["type"] == "moved"
    over = hub.do(hub.peers[second], type="resign", room=room)[0]
    assert over["tournament"] == tid and len(over["ratings"]) == 2
    assert over["ratings"][0]["after"] > over["ratings"][0]["before"]
    assert of_type(bob, "game_over")[-1] == over
    assert len(hub.arena.tournaments.events[tid].results) == 1


def test_a_bot_events_standings_carry_each_bots_elo_as_mnk_tournament_prints_it(hub: Hub) -> None:
    from protocol.elo import elo_estimate

    alice = hub.peer("alice", account=True)
    tid = create(hub, alice, game="tictactoe", clock=None, games_per_pair=2)["tournament"]
    bots = [hub.peer(name, kind="bot", games=["tictactoe"]) for name in ("b1", "b2", "b3")]
    for bot in bots:
        hub.do(bot, type="join_tournament", tournament=tid)
    shown = hub.do(alice, type="start_tournament", tournament=tid)[0]
    assert [line["elo"] for line in shown["standings"]] == [None, None, None]  # no game yet
    while hub.arena.tournaments.events[tid].status == "running":
        play_out(hub, tid)
        hub.tick(0.05)
    final = hub.do(alice, type="get_tournament", tournament=tid)[0]
    for line in final["standings"]:
        expected = elo_estimate(line["wins"], line["draws"], line["losses"])
        assert line["elo"] == {"elo": round(expected.elo, 1), "error": round(expected.error, 1)}
    assert sum(line["elo"]["elo"] for line in final["standings"]) == pytest.approx(0, abs=0.2)
    people = create(hub, alice, game="tictactoe", clock=None)["tournament"]
    entered(hub, people, ["bob", "carol"])
    started = hub.do(alice, type="start_tournament", tournament=people)[0]
    assert all("elo" not in line for line in started["standings"])  # not a bot event


def test_an_event_id_never_reads_as_a_command_line_option(monkeypatch: pytest.MonkeyPatch) -> None:
    """``mnk-bot --tournament -RqcxUOd`` is an argparse error: the bots of a swiss exited with
    status 2 until the run gave up. Ids that begin with ``-`` are drawn again."""
    drawn = iter(["-RqcxUOd", "-_abcdef", "Rqcx-UOd"])
    monkeypatch.setattr("server.core.tournament.desk.secrets.token_urlsafe", lambda n: next(drawn))
    assert event_id() == "Rqcx-UOd"


def test_the_progress_field_says_each_leaders_points_after_every_round(hub: Hub) -> None:
    alice = hub.peer("alice", account=True)
    tid = create(hub, alice, format="swiss", rounds=3, game="tictactoe", clock=None)["tournament"]
    entered(hub, tid, ["bob", "carol", "dave", "erin", "fay"])
    started = hub.do(alice, type="start_tournament", tournament=tid)[0]
    assert all(line["at"] == [] for line in started["progress"]["lines"])  # round 1 is on
    play_out(hub, tid, loser=lambda players: max(players))
    hub.tick(0.05)
    during = hub.do(alice, type="get_tournament", tournament=tid)[0]
    assert during["round"] == 2 and all(line["at"] == [1] for line in during["progress"]["lines"])
    while hub.arena.tournaments.events[tid].status == "running":
        play_out(hub, tid, loser=lambda players: max(players))
        hub.tick(0.05)
    final = hub.do(alice, type="get_tournament", tournament=tid)[0]
    chart = final["progress"]
    assert chart["axis"] == "round"
    assert [line["player"] for line in chart["lines"]] == [s["player"] for s in final["standings"]]
    by_player = {s["player"]: s for s in final["standings"]}
    for line in chart["lines"]:
        assert line["at"] == [1, 2, 3] and line["points"][-1] == by_player[line["player"]]["points"]
        assert line["points"] == sorted(line["points"])  # points only grow
        mine = [g for g in final["games"] if line["player"] in g["players"]]
        byes = [b["round"] for b in final["byes"] if b["player"] == line["player"]]
        for number, after in zip(line["at"], line["points"], strict=True):
            won = sum(
                1.0
                for g in mine
                if g["round"] <= number and g["players"][g["result"]["winner"]] == line["player"]
            )
            assert after == won + sum(1.0 for r in byes if r <= number)  # a bye scores a win


def test_an_arenas_progress_follows_each_players_games_streaks_included(hub: Hub) -> None:
    alice = hub.peer("alice", account=True)
    tid = create(hub, alice, format="arena", duration_s=600)["tournament"]
    entered(hub, tid, ["bob", "carol", "dave", "erin"])
    hub.do(alice, type="start_tournament", tournament=tid)
    for _ in range(4):  # the lower pid loses every game: the other wins on, doubled on a streak
        play_out(hub, tid, loser=lambda players: min(players))
        hub.tick(1.0)
    shown = hub.do(alice, type="get_tournament", tournament=tid)[0]
    chart = shown["progress"]
    assert chart["axis"] == "game"
    for line, standing in zip(chart["lines"], shown["standings"], strict=True):
        assert line["player"] == standing["player"]
        assert line["at"] == list(range(1, standing["games"] + 1))
        assert line["points"][-1] == standing["points"]
        steps = [b - a for a, b in zip([0, *line["points"]], line["points"], strict=False)]
        assert steps[-len(standing["sheet"]) :] == standing["sheet"]


def test_the_progress_field_is_bounded_in_lines_and_points() -> None:
    from protocol.wire import encode
    from server.core.tournament.progress import PROGRESS_LINES, PROGRESS_POINTS, progress
    from server.core.tournament.values import Finished, Game

    players = [f"p{i}" for i in range(20)]
    games = [Game(f"a{n}", n, "p0", "p1") for n in range(1, 1000)]
    chart = progress(players, [Finished(g, 0) for g in games], arena=True)
    assert len(chart["lines"]) == PROGRESS_LINES
    first = chart["lines"][0]
    assert len(first["at"]) <= PROGRESS_POINTS and first["at"][-1] == 999
    assert first["points"][-1] == 2 * 2 + 4 * 997  # two wins, then every one doubled
    assert chart["lines"][2] == {"player": "p2", "at": [], "points": []}
    draws = [Finished(Game(f"{r}.{b}", r, f"p{2 * b}", f"p{2 * b + 1}"), None)
             for r in range(1, 630) for b in range(4)]  # fmt: skip
    halves = progress(players, draws, arena=False, rounds=629)  # an odd count: halves
    assert len(encode(halves)) < 2500  # half points are floats on the wire: the worst case
    assert halves["lines"][0]["points"][-1] == 314.5 and 0.5 in {
        p % 1 for p in halves["lines"][0]["points"]
    }


def test_an_untimed_events_players_must_move_in_time_or_lose(hub: Hub) -> None:
    """An untimed event: a first move not made in ``first_move_timeout`` aborts the game, lost
    by the late seat; a later move not made in ``event_move_timeout`` loses on time. A player
    online who never moves holds no round up for good."""
    limits = hub.arena.limits
    alice = hub.peer("alice", account=True)
    tid = create(hub, alice, game="tictactoe", clock=None, games_per_pair=2)["tournament"]
    bob = entered(hub, tid, ["bob"])[0]
    hub.do(alice, type="join_tournament", tournament=tid)
    hub.do(alice, type="start_tournament", tournament=tid)
    event = hub.arena.tournaments.events[tid]
    ((room, (first, second)),) = live_rooms(hub, tid).items()
    hub.tick(limits.first_move_timeout - 1)
    assert not event.results  # still time
    hub.tick(1.5)
    (late,) = event.results
    assert late.winner == 1 and not late.void  # seat 0 never moved: it loses
    assert of_type(bob, "game_over")[-1]["reason"] == "aborted"
    hub.tick(0.05)  # the return game
    ((room, (first, second)),) = live_rooms(hub, tid).items()
    assert hub.do(hub.peers[first], type="move", room=room, x=1, y=1, ply=0)[0]["type"] == "moved"
    assert hub.do(hub.peers[second], type="move", room=room, x=0, y=0, ply=1)[0]["type"] == (
        "moved"
    )
    hub.tick(limits.event_move_timeout - 1)
    assert len(event.results) == 1  # seat 0 thinks: still time
    hub.tick(1.5)
    assert event.results[-1].winner == 1  # seat 0 sat on its move: lost on time
    assert of_type(hub.peers[second], "game_over")[-1]["reason"] == "timeout"
    hub.tick(0.05)
    assert event.status == "finished"


def test_a_long_rated_round_robin_is_rated_through_past_the_pairs_daily_limit(hub: Hub) -> None:
    """The daily bound on rated games between two people is for games they choose; an event's
    pairings are the server's, so its games are all rated (as lichess's tournaments are)."""
    from server.core.rating.desk import MAX_PAIR_RATED_PER_DAY

    alice = hub.peer("alice", account=True)
    per_pair = MAX_PAIR_RATED_PER_DAY + 2
    tid = create(hub, alice, rated=True, games_per_pair=per_pair)["tournament"]
    entered(hub, tid, ["bob"])
    hub.do(alice, type="join_tournament", tournament=tid)
    hub.do(alice, type="start_tournament", tournament=tid)
    overs = []
    while hub.arena.tournaments.events[tid].status == "running":
        ((room, (first, second)),) = live_rooms(hub, tid).items()
        for ply, (x, y) in enumerate([(7, 7), (8, 8)]):
            mover = hub.peers[(first, second)[ply % 2]]
            assert hub.do(mover, type="move", room=room, x=x, y=y, ply=ply)[0]["type"] == "moved"
        overs.append(hub.do(hub.peers[second], type="resign", room=room)[0])
        hub.tick(0.05)
    assert len(overs) == per_pair
    assert all("unrated" not in over and len(over["ratings"]) == 2 for over in overs)


def test_a_match_restarted_from_its_rows_keeps_its_test_and_stops_once_it_decides() -> None:
    clock = FakeClock()
    hub = Hub(clock)
    limits = Limits(full_sweep_interval=0.0)
    hub.arena = Arena(limits=limits, clock=clock, durable=True)
    alice = hub.peer("alice", account=True)
    sprt = {"elo0": 0, "elo1": 200}
    made = create(hub, alice, format="match", sprt=sprt, max_games=40, game="tictactoe", clock=None)
    tid = made["tournament"]
    hub.do(alice, type="join_tournament", tournament=tid)  # first in: the test is about alice
    (bob,) = entered(hub, tid, ["bob"])
    hub.do(alice, type="start_tournament", tournament=tid)
    for _ in range(3):  # bob loses each game, whatever his seat
        assert play_out(hub, tid, loser=lambda players: bob.pid) == 1
        hub.tick(0.05)
    records = hub.arena.drain()
    again = Arena(limits=limits, clock=clock, durable=True)
    again.restore(snapshot_of(records))
    event = again.tournaments.events[tid]
    assert event.settings.sprt is not None and event.settings.sprt.elo1 == 200.0
    assert len(event.results) == 3 and len(event.live()) == 1
    hub.arena = again
    for _ in range(40):
        if event.status == "finished":
            break
        again.sweep()
        for slot in event.live():
            room = again.rooms.get(slot.room)
            room.end(Termination.RESIGN, 1 - slot.game.players.index(bob.pid))  # alice wins
            again.tournaments.ended(room, {})
        clock.advance(0.05)
        again.sweep()
    assert event.status == "finished" and len(event.results) == 8  # H1 after 8 wins: 0/200
    assert event.message()["sprt"]["verdict"] == "H1"
    assert len(set(event.slots)) == 8 and [s.game.round for s in event.slots.values()] == list(
        range(1, 9)
    )
