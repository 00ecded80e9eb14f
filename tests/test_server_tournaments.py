"""Tournaments over the wire, against a real server on loopback: an event created, entered,
started and played to its end by real clients; every tournament error code provoked; and a
server process killed with -9 at several points of a swiss that comes back with every pairing
made once and every result counted once (its final standings those of the results replayed)."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest
from support.clients import RawClient, registered
from support.servers import ServerProcess
from support.waiting import TIMEOUT

from server.core.tournament.standings import standings
from server.core.tournament.values import Bye, Finished, Game

EVENT = {"type": "create_tournament", "name": "Cup", "game": "tictactoe"}


async def resign_as_seat_one(client: RawClient, tid: str) -> dict[str, Any]:
    """Play ``client``'s games of event ``tid`` (resign each one it has the second seat of, as
    it starts) until the event's ``tournament`` push says it finished; that push."""
    resigned: set[str] = set()
    while True:
        message = await client.recv(TIMEOUT)
        room = message.get("room")
        if message["type"] == "joined":
            assert message["tournament"] == tid
        playing = message["type"] == "state" and message.get("status") == "playing"
        if playing and message.get("seat") == 1 and room not in resigned:
            resigned.add(room)
            await client.send(type="resign", room=room)
        if message["type"] == "tournament" and message["status"] == "finished":
            return message


async def test_a_round_robin_is_played_over_the_wire_to_its_end(client_factory: Any) -> None:
    alice, bob, carol = [await registered(client_factory, n) for n in ("alice", "bob", "carol")]
    event = await alice.request(**EVENT, format="round_robin", games_per_pair=2)
    tid = event["tournament"]
    assert event["type"] == "tournament" and event["status"] == "open"
    for c in (alice, bob, carol):
        assert (await c.request(type="join_tournament", tournament=tid))["type"] == "tournament"
    await bob.error("not_tournament_creator", type="start_tournament", tournament=tid)
    started = await alice.request(type="start_tournament", tournament=tid)
    assert started["status"] == "running" and started["rounds"] == 6
    finals = await asyncio.gather(*(resign_as_seat_one(c, tid) for c in (alice, bob, carol)))
    final = finals[0]
    meetings = Counter(frozenset(g["players"]) for g in final["games"])
    assert len(final["games"]) == 6 and set(meetings.values()) == {2} and len(meetings) == 3
    assert Counter(b["player"] for b in final["byes"]) == Counter(
        {c.player: 2 for c in (alice, bob, carol)}
    )
    assert [line["points"] for line in final["standings"]] == [2.0, 2.0, 2.0]  # seat 0 won all
    assert final["crosstable"] == [  # each pair won a game each: one in the first seat
        [None if i == j else [1.0, 2] for j in range(3)] for i in range(3)
    ]
    listed = await alice.request(type="list_tournaments", status="finished")
    assert [t["tournament"] for t in listed["tournaments"]] == [tid]
    history = await alice.request(type="list_games", player=bob.player)
    assert len(history["games"]) == 4


async def test_every_tournament_error_is_a_documented_code(client_factory: Any) -> None:
    alice, bob = await registered(client_factory, "alice"), await registered(client_factory, "bob")
    guest = await client_factory("guest")
    await guest.error("not_logged_in", **EVENT, format="swiss")
    await alice.error("bad_options", **EVENT, format="knockout")
    await alice.error("bad_options", **EVENT, format="arena", duration_s=1)
    gomoku = EVENT | {"game": "gomoku", "format": "swiss"}
    await alice.error("rated_needs_clock", **gomoku, rated=True)
    await alice.error("no_such_tournament", type="get_tournament", tournament="nope")
    clock = {"initial_s": 60, "increment_s": 1}
    rated = await alice.request(**gomoku, rated=True, clock=clock, max_players=2)
    tid = rated["tournament"]
    await guest.error("rated_needs_account", type="join_tournament", tournament=tid)
    await alice.request(type="join_tournament", tournament=tid)
    await bob.request(type="join_tournament", tournament=tid)
    carol = await registered(client_factory, "carol")
    await carol.error("tournament_full", type="join_tournament", tournament=tid)
    await alice.request(type="start_tournament", tournament=tid)
    await alice.error("tournament_closed", type="start_tournament", tournament=tid)
    await carol.error("tournament_closed", type="join_tournament", tournament=tid)
    for _ in range(4):  # five in a day
        await alice.request(**EVENT, format="swiss")
    await alice.error("too_many_tournaments", **EVENT, format="swiss")
    await alice.alive()


def table(final: dict[str, Any]) -> list[tuple[str, float, float, float]]:
    """The standings a ``tournament`` message shows."""
    return [
        (s["player"], s["points"], s["buchholz"], s["sonneborn_berger"]) for s in final["standings"]
    ]


def replayed(final: dict[str, Any]) -> list[tuple[str, float, float, float]]:
    """The standings of the same results, replayed by the format's pure functions."""
    done = [
        Finished(Game(g["key"], g["round"], *g["players"]), g["result"]["winner"])
        for g in final["games"]
    ]
    players = [e["id"] for e in final["entrants"]]
    return [(s.player, s.points, s.buchholz, s.sonneborn_berger) for s in standings(players, done)]


class Field:
    """Four accounts on a server process, reconnected by their sessions after each restart."""

    def __init__(self, proc: ServerProcess) -> None:
        self.proc = proc
        self.clients: dict[str, RawClient] = {}

    async def register(self, names: list[str]) -> None:
        for name in names:
            client = await registered(self.proc.client, name)
            self.clients[str(client.player)] = client

    async def restart(self) -> None:
        """SIGKILL the server, start it again, every client back by its session."""
        self.proc.kill()
        await self.proc.start()
        for pid, old in list(self.clients.items()):
            client = await self.proc.client("back", old.session)
            assert client.player == pid
            self.clients[pid] = client

    async def event(self, tid: str) -> dict[str, Any]:
        return await next(iter(self.clients.values())).request(
            type="get_tournament", tournament=tid
        )

    async def resign(self, game: dict[str, Any]) -> None:
        """Seat 1 of ``game`` resigns it; the ``game_over`` it gets was committed."""
        loser = self.clients[game["players"][1]]
        assert (await loser.request(type="resign", room=game["room"]))["type"] == "game_over"

    async def until(self, tid: str, check: Any) -> dict[str, Any]:
        """The event once ``check(event)`` holds (asked again as it changes)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + TIMEOUT
        while not check(event := await self.event(tid)):
            assert loop.time() < deadline, event
            await asyncio.sleep(0.05)
        return event


def open_games(event: dict[str, Any]) -> list[dict[str, Any]]:
    return [g for g in event["games"] if g["result"] is None]


@pytest.mark.slow
async def test_a_swiss_killed_at_every_stage_counts_each_pairing_and_result_once(
    proc: ServerProcess,
) -> None:
    await proc.start()
    field = Field(proc)
    await field.register(["alice", "bob", "carol", "dave"])
    alice = next(iter(field.clients.values()))
    tid = (await alice.request(**EVENT, format="swiss", rounds=3))["tournament"]
    for client in field.clients.values():
        await client.request(type="join_tournament", tournament=tid)
    first = await alice.request(type="start_tournament", tournament=tid)
    assert len(first["games"]) == 2  # round one, paired in the start's commit
    await field.restart()  # 1: killed with round one in play
    event = await field.event(tid)
    assert [g["key"] for g in event["games"]] == [g["key"] for g in first["games"]]
    for game in open_games(event):
        await field.resign(game)
    event = await field.until(tid, lambda e: e["round"] == 2)
    await field.restart()  # 2: killed with round two just paired
    event = await field.event(tid)
    assert len(event["games"]) == 4 and len(open_games(event)) == 2
    await field.resign(open_games(event)[0])
    await field.restart()  # 3: killed right after a result
    event = await field.event(tid)
    assert len(open_games(event)) == 1 and len(event["games"]) == 4
    await field.resign(open_games(event)[0])
    event = await field.until(tid, lambda e: e["round"] == 3)
    for game in open_games(event):
        await field.resign(game)
    final = await field.until(tid, lambda e: e["status"] == "finished")
    await field.restart()  # 4: killed once it finished
    again = await field.event(tid)
    assert again["status"] == "finished" and again["games"] == final["games"]
    pairs = [frozenset(g["players"]) for g in final["games"]]
    assert len(pairs) == 6 and len(set(pairs)) == 6, "no pairing twice"
    assert sum(s["points"] for s in final["standings"]) == 6.0, "every result once"
    assert table(final) == table(again) == replayed(final)


@pytest.mark.slow
async def test_a_swiss_of_two_games_a_pairing_killed_mid_pairing_plays_each_game_once(
    proc: ServerProcess,
) -> None:
    await proc.start()
    field = Field(proc)
    await field.register(["alice", "bob", "carol", "dave", "erin"])
    alice = next(iter(field.clients.values()))
    tid = (await alice.request(**EVENT, format="swiss", rounds=2, games_per_pair=2))["tournament"]
    for client in field.clients.values():
        await client.request(type="join_tournament", tournament=tid)
    first = await alice.request(type="start_tournament", tournament=tid)
    assert sorted(g["key"] for g in first["games"]) == ["1.1.1", "1.2.1"]
    await field.resign(open_games(first)[0])
    event = await field.until(tid, lambda e: len(e["games"]) == 3)  # that pairing's second
    await field.restart()  # 1: killed with a pairing's second game just made
    event = await field.event(tid)
    assert len(event["games"]) == 3 and len(open_games(event)) == 2
    restarts = 1
    while event["status"] != "finished":
        for game in open_games(event):
            await field.resign(game)
        if event["round"] == 2 and restarts == 1:
            await field.restart()  # 2: killed right after round two's results
            restarts += 1
        made = len(event["games"])

        def moved(e: dict[str, Any], made: int = made) -> bool:
            return e["status"] == "finished" or (len(e["games"]) > made and bool(open_games(e)))

        event = await field.until(tid, moved)
    final = event
    await field.restart()  # 3: killed once it finished
    again = await field.event(tid)
    assert again["status"] == "finished" and again["games"] == final["games"]
    keys = [g["key"] for g in final["games"]]
    assert len(keys) == len(set(keys)) == 8 and len(final["byes"]) == 2
    seated: dict[tuple[int, frozenset[str]], list[list[str]]] = {}
    for game in final["games"]:
        seated.setdefault((game["round"], frozenset(game["players"])), []).append(game["players"])
    assert all(len(s) == 2 and s[0] == s[1][::-1] for s in seated.values())
    assert len({pair for _, pair in seated}) == 4, "no pairing twice"
    assert sum(s["points"] for s in final["standings"]) == 8 + 2 * 2, "games and byes once"
    done = [
        Finished(Game(g["key"], g["round"], *g["players"]), g["result"]["winner"])
        for g in final["games"]
    ]
    byes = [Bye(b["round"], b["player"]) for b in final["byes"]]
    players = [e["id"] for e in final["entrants"]]
    lines = standings(players, done, byes, 2.0)
    assert (
        table(final)
        == table(again)
        == [(s.player, s.points, s.buchholz, s.sonneborn_berger) for s in lines]
    )


@pytest.mark.slow
async def test_an_arena_killed_mid_event_resumes_its_games_and_pairs_on(
    proc: ServerProcess,
) -> None:
    await proc.start()
    field = Field(proc)
    await field.register(["alice", "bob", "carol", "dave"])
    alice = next(iter(field.clients.values()))
    tid = (await alice.request(**EVENT, format="arena", duration_s=600))["tournament"]
    for client in field.clients.values():
        await client.request(type="join_tournament", tournament=tid)
    first = await alice.request(type="start_tournament", tournament=tid)
    assert len(open_games(first)) == 2
    await field.restart()  # killed with both games in play
    event = await field.event(tid)
    assert event["status"] == "running" and event["games"] == first["games"]
    await field.resign(open_games(event)[0])
    event = await field.until(tid, lambda e: len(e["games"]) == 3)  # its two paired again
    await field.restart()  # killed right after the new pairing
    again = await field.event(tid)
    assert again["games"] == event["games"], "every pairing once"
    assert [s["points"] for s in again["standings"]][:1] == [2]  # the one win, counted once
    await field.resign(open_games(again)[0])
    later = await field.until(tid, lambda e: len(e["games"]) == 4)
    assert sum(s["points"] for s in later["standings"]) == 4


async def test_balanced_openings_by_count_or_all_of_them(client_factory: Any) -> None:
    from protocol.openings import balanced_openings

    dana = await registered(client_factory, "dana")
    gomoku = EVENT | {"game": "gomoku", "format": "round_robin"}
    three = await dana.request(**gomoku, openings=3)
    assert three["openings"] == 3
    every = await dana.request(**gomoku, openings="balanced")
    assert every["openings"] == len(balanced_openings()) == 40
    for bad in (0, 41, "random"):
        await dana.error("bad_options", **gomoku, openings=bad)
    for bad in (True, 2.5):
        await dana.error("bad_message", **gomoku, openings=bad)
    await dana.error("bad_options", **EVENT, format="round_robin", openings=2)  # 3x3
    await dana.alive()


async def test_a_balanced_opening_is_what_the_game_starts_from(server: Any) -> None:
    from protocol.openings import balanced_openings
    from server.core.tournament.event import read_settings

    settings = read_settings(EVENT | {"game": "renju", "format": "round_robin", "openings": 2})
    assert settings.openings == balanced_openings()[:2]
    options = settings.room_options("t", 1)
    assert options["opening"] == [list(m) for m in balanced_openings()[1]]


async def test_a_gauntlet_is_played_over_the_wire_to_its_end(client_factory: Any) -> None:
    hero, bob, carol = [await registered(client_factory, n) for n in ("hero", "bob", "carol")]
    event = await hero.request(**EVENT, format="gauntlet", games_per_pair=2)
    tid = event["tournament"]
    assert event["seeds"] == 1 and event["games_per_pair"] == 2
    for c in (hero, bob, carol):  # the first to enter is the seed
        await c.request(type="join_tournament", tournament=tid)
    started = await hero.request(type="start_tournament", tournament=tid)
    assert started["rounds"] == 4
    finals = await asyncio.gather(*(resign_as_seat_one(c, tid) for c in (hero, bob, carol)))
    final = finals[0]
    meetings = Counter(frozenset(g["players"]) for g in final["games"])
    assert meetings == Counter(
        {frozenset((hero.player, bob.player)): 2, frozenset((hero.player, carol.player)): 2}
    )
    assert not final["byes"] and [line["points"] for line in final["standings"]] == [2.0, 1, 1]
    for bad in (0, 64):
        await hero.error("bad_options", **EVENT, format="gauntlet", seeds=bad)


async def resign_every_game(client: RawClient, tid: str) -> dict[str, Any]:
    """Resign each of ``client``'s games of event ``tid`` as it starts, until it finishes."""
    resigned: set[str] = set()
    while True:
        message = await client.recv(TIMEOUT)
        room = message.get("room")
        playing = message["type"] == "state" and message.get("status") == "playing"
        if playing and room not in resigned:
            resigned.add(room)
            await client.send(type="resign", room=room)
        if message["type"] == "tournament" and message["status"] == "finished":
            return message


async def finished(client: RawClient, tid: str) -> dict[str, Any]:
    """The push that says event ``tid`` finished (``client`` plays nothing meanwhile)."""
    while True:
        message = await client.recv(TIMEOUT)
        if message["type"] == "tournament" and message["status"] == "finished":
            return message


async def test_a_match_ends_when_its_sprt_decides(client_factory: Any) -> None:
    ann, ben = await registered(client_factory, "ann"), await registered(client_factory, "ben")
    sprt = {"elo0": 0, "elo1": 200}
    event = await ann.request(**EVENT, format="match", max_games=40, sprt=sprt)
    tid = event["tournament"]
    assert event["max_players"] == 2 and event["max_games"] == 40
    assert event["sprt"]["llr"] == 0.0 and event["sprt"]["verdict"] is None
    for c in (ann, ben):  # the first to enter is the one the test is about
        await c.request(type="join_tournament", tournament=tid)
    started = await ann.request(type="start_tournament", tournament=tid)
    assert started["rounds"] == 40
    finals = await asyncio.gather(finished(ann, tid), resign_every_game(ben, tid))
    final = finals[0]
    games = sorted(final["games"], key=lambda g: g["round"])
    assert len(games) == 8  # H1 after 8 straight wins, a whole pair: 0/200 needs 8
    assert [g["players"][0] for g in games] == [ann.player, ben.player] * 4
    assert final["sprt"] == {
        **{"elo0": 0.0, "elo1": 200.0, "alpha": 0.05, "beta": 0.05},
        **{"lower": -2.9444, "upper": 2.9444, "wins": 8, "draws": 0, "losses": 0},
        "llr": final["sprt"]["llr"],
        "verdict": "H1",
    }
    assert final["sprt"]["llr"] >= 2.9444 and final["standings"][0]["player"] == ann.player


async def test_a_match_with_a_bad_test_or_field_is_refused(client_factory: Any) -> None:
    eve = await registered(client_factory, "eve")
    for bad in (
        {"sprt": {"elo0": 10, "elo1": 0}},
        {"sprt": {"elo0": 0}},
        {"sprt": {"elo0": 0, "elo1": 10, "gamma": 1}},
        {"sprt": {"elo0": 0, "elo1": 10, "alpha": 0}},
        {"max_games": 7},
        {"max_games": 1002},
        {"max_players": 3},
    ):
        await eve.error("bad_options", **EVENT, format="match", **bad)
    await eve.error("bad_message", **EVENT, format="match", sprt=[0, 10])
    await eve.alive()


async def test_an_events_size_is_bounded_by_its_games_in_all(client_factory: Any) -> None:
    fay = await registered(client_factory, "fay")
    rr = EVENT | {"format": "round_robin"}
    await fay.error("bad_options", **rr, games_per_pair=11)  # 11 x 2016 pairs of 64
    await fay.error("bad_options", **rr, games_per_pair=201, max_players=2)
    await fay.error("bad_options", **rr, openings=[[[1, 1]]] * 65)
    big = await fay.request(**rr, games_per_pair=200, max_players=4, openings=[[[1, 1]]] * 64)
    assert (big["games_per_pair"], big["openings"]) == (200, 64)
    gauntlet = EVENT | {"format": "gauntlet"}
    await fay.request(**gauntlet, games_per_pair=200, seeds=1)  # 200 x 63
    await fay.error("bad_options", **gauntlet, games_per_pair=200, seeds=32)  # 200 x 32 x 32
    swiss = EVENT | {"format": "swiss"}
    await fay.error("bad_options", **swiss, games_per_pair=91, rounds=7)  # 91 x 7 x 32 boards
    pairs = await fay.request(**swiss, games_per_pair=90, rounds=7)  # 20,160 games
    assert pairs["games_per_pair"] == 90
    await fay.alive()


async def test_a_match_plays_games_at_once_a_round(client_factory: Any) -> None:
    gil, hal = await registered(client_factory, "gil"), await registered(client_factory, "hal")
    event = await gil.request(**EVENT, format="match", max_games=10, games_at_once=4)
    tid = event["tournament"]
    assert event["games_at_once"] == 4 and event["sprt"] is None
    for c in (gil, hal):
        await c.request(type="join_tournament", tournament=tid)
    started = await gil.request(type="start_tournament", tournament=tid)
    assert started["rounds"] == 3 and len(started["games"]) == 4  # four rooms at once
    final, _ = await asyncio.gather(finished(gil, tid), resign_every_game(hal, tid))
    rounds = Counter(g["round"] for g in final["games"])
    assert rounds == Counter({1: 4, 2: 4, 3: 2})  # the last round: the two games left
    firsts = Counter(g["players"][0] for g in final["games"])
    assert firsts == Counter({gil.player: 5, hal.player: 5})
    await gil.error("bad_options", **EVENT, format="match", games_at_once=17)


async def test_each_event_says_its_rating_pool_as_a_seek_of_its_game_and_clock_does(
    client_factory: Any,
) -> None:
    alice = await registered(client_factory, "alice")
    bob = await registered(client_factory, "bob")
    cases = [  # (game, clock, the pool its games are rated in)
        ("gomoku", {"initial_s": 180, "increment_s": 2}, "gomoku-blitz"),
        ("gomoku", {"initial_s": 60, "increment_s": 0}, "gomoku-bullet"),
        ("renju", {"initial_s": 600, "increment_s": 5}, "renju-rapid"),
        ("tictactoe", {"initial_s": 180, "increment_s": 2}, "tictactoe-blitz"),
        ("gomoku", None, None),
    ]
    made = {}
    for game, clock, pool in cases:
        event = await alice.request(**EVENT | {"game": game}, format="arena", clock=clock)
        assert event["rating_pool"] == pool, (game, clock)
        made[event["tournament"]] = pool
        if clock is not None:  # a seek of the same game and clock: the same pool, said alike
            seeking = await bob.request(type="seek", game=game, clock=clock)
            assert seeking["seek"]["rating_pool"] == pool
            await bob.send(type="cancel_seek", seek=seeking["seek"]["seek"])
            await bob.expect("seek_cancelled", timeout=TIMEOUT)
    listed = await alice.request(type="list_tournaments", status="open")
    assert {t["tournament"]: t["rating_pool"] for t in listed["tournaments"]} == made
