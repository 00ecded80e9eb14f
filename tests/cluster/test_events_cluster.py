"""Tournaments held by one node of a cluster (issue 47): an event made on node a is listed,
entered, watched and played from node b through forwarding; node a killed with -9 mid-event
is adopted by b, which carries the event on to its end with every pairing made once and every
result counted once (checked against PostgreSQL's rows); and two nodes given the same
``--event`` schedule open each occurrence once, which the other adopts when its node dies.

Real processes throughout: ``python -m server --node`` on a throwaway PostgreSQL and Redis.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import psycopg
import pytest
from support.clients import RawClient, registered
from support.cluster import LEASE, resume, running, start_nodes
from support.servers import ServerProcess
from support.services import RedisServer
from support.waiting import TIMEOUT, wait_for

from server.core.tournament.standings import standings
from server.core.tournament.values import Finished, Game

pytestmark = pytest.mark.slow  # real node processes on PostgreSQL and Redis

EVENT = {"type": "create_tournament", "name": "Cluster cup", "game": "tictactoe"}


class Field:
    """Accounts connected to the nodes of a cluster, by player id."""

    def __init__(self) -> None:
        self.clients: dict[str, RawClient] = {}
        self.node_of: dict[str, ServerProcess] = {}

    async def add(self, node: ServerProcess, name: str) -> RawClient:
        client = await registered(node.client, name)
        self.clients[str(client.player)] = client
        self.node_of[str(client.player)] = node
        return client

    async def move(self, dead: ServerProcess, to: ServerProcess) -> None:
        """The players connected to ``dead`` resume their sessions on ``to``."""
        for pid, node in self.node_of.items():
            if node is dead:
                self.clients[pid] = await resume(to, self.clients[pid])
                self.node_of[pid] = to

    async def resign(self, game: dict[str, Any]) -> None:
        """Seat 1 of ``game`` resigns it (forwarded when its room is on another node)."""
        loser = self.clients[game["players"][1]]
        reply = await loser.request(type="resign", room=game["room"])
        assert reply["type"] == "game_over", reply


async def until(asker: RawClient, tid: str, check: Any) -> dict[str, Any]:
    """Event ``tid`` as ``asker``'s node answers, once ``check(event)`` holds."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        event = await asker.request(type="get_tournament", tournament=tid)
        if event["type"] == "tournament" and check(event):
            return event
        assert time.monotonic() < deadline, event
        await asyncio.sleep(0.1)


def open_games(event: dict[str, Any]) -> list[dict[str, Any]]:
    return [g for g in event["games"] if g["result"] is None]


def stored(pg_url: str, tid: str) -> dict[str, Any]:
    """What PostgreSQL holds of event ``tid``: its owner and status, its pairings by key
    (players, room, game) and its results by key (game, winner, void)."""
    with psycopg.connect(pg_url) as db:
        owner, status = db.execute(
            "SELECT owner, status FROM tournaments WHERE tournament = %s", (tid,)
        ).fetchone()
        pairings = db.execute(
            "SELECT key, first, second, room, game_id FROM tournament_pairings "
            "WHERE tournament = %s",
            (tid,),
        ).fetchall()
        results = db.execute(
            "SELECT key, game_id, winner, void FROM tournament_results WHERE tournament = %s",
            (tid,),
        ).fetchall()
    return {
        "owner": owner,
        "status": status,
        "pairings": {k: (a, b, room, gid) for k, a, b, room, gid in pairings},
        "results": {k: (gid, winner, void) for k, gid, winner, void in results},
    }


def agrees(final: dict[str, Any], rows: dict[str, Any]) -> None:
    """Every game of the event's final state is one pairing row and one result row of
    PostgreSQL, and PostgreSQL holds no other; the standings are the results replayed."""
    games = {g["key"]: g for g in final["games"]}
    assert set(rows["pairings"]) == set(games) == set(rows["results"])
    for key, game in games.items():
        first, second, room, gid = rows["pairings"][key]
        assert [first, second] == game["players"] and room == game["room"]
        assert rows["results"][key] == (gid, game["result"]["winner"], False)
    pairs = [frozenset(g["players"]) for g in final["games"]]
    assert len(set(pairs)) == len(pairs), "no pairing twice"
    done = [
        Finished(Game(g["key"], g["round"], *g["players"]), g["result"]["winner"])
        for g in final["games"]
    ]
    players = [e["id"] for e in final["entrants"]]
    table = [(s["player"], s["points"]) for s in final["standings"]]
    assert table == [(s.player, s.points) for s in standings(players, done)]


async def entered(field: Field, a: ServerProcess, b: ServerProcess) -> tuple[str, RawClient]:
    """A three-round swiss made on a by alice, entered by alice and dave (on a) and by bob and
    carol (on b, forwarded), listed on b; started. Its id and bob."""
    alice, dave = await field.add(a, "alice"), await field.add(a, "dave")
    bob, carol = await field.add(b, "bob"), await field.add(b, "carol")
    made = await alice.request(**EVENT, format="swiss", rounds=3)
    tid = made["tournament"]
    for client in (alice, dave, bob, carol):
        joined = await client.request(type="join_tournament", tournament=tid)
        assert joined["type"] == "tournament", joined
    assert len((await until(carol, tid, lambda e: True))["entrants"]) == 4  # b asks a
    deadline = time.monotonic() + TIMEOUT
    while tid not in [
        t["tournament"] for t in (await bob.request(type="list_tournaments"))["tournaments"]
    ]:  # b lists a's event (read from a's lobby hash)
        assert time.monotonic() < deadline
        await asyncio.sleep(0.1)
    await carol.error("not_tournament_creator", type="start_tournament", tournament=tid)
    first = await alice.request(type="start_tournament", tournament=tid)
    assert first["status"] == "running" and len(first["games"]) == 2
    return tid, bob


async def rated_entry(field: Field, b: ServerProcess) -> None:
    """An account on b enters a rated event made on a (as that account), a guest on b cannot."""
    alice = next(iter(field.clients.values()))  # the event's creator, on a
    clock = {"initial_s": 60, "increment_s": 1}
    rated = await alice.request(
        **EVENT | {"game": "gomoku"}, format="swiss", rated=True, clock=clock
    )
    assert rated["type"] == "tournament", rated
    bob = next(c for pid, c in field.clients.items() if field.node_of[pid] is b)
    joined = await bob.request(type="join_tournament", tournament=rated["tournament"])
    assert joined["type"] == "tournament" and len(joined["entrants"]) == 1, joined
    guest = await b.client("guest")
    await guest.error("rated_needs_account", type="join_tournament", tournament=rated["tournament"])


async def test_an_event_on_one_node_is_entered_watched_and_played_from_another(
    pg_url: str, redis_server: RedisServer
) -> None:
    made = dict(zip("ab", start_nodes(pg_url, redis_server.url(), "ab", LEASE), strict=True))
    async with running(made):
        field = Field()
        tid, bob = await entered(field, made["a"], made["b"])
        await rated_entry(field, made["b"])
        for number in (1, 2, 3):
            event = await until(bob, tid, lambda e, n=number: e["round"] == n)
            for game in open_games(event):
                await field.resign(game)
        final = await until(bob, tid, lambda e: e["status"] == "finished")
        pushed = await bob.expect("tournament", status="finished")  # b's watcher, pushed by a
        assert pushed["tournament"] == tid and "id" not in pushed
    rows = stored(pg_url, tid)
    assert rows["owner"] == "a" and rows["status"] == "finished"
    assert len(final["games"]) == 6
    agrees(final, rows)


async def test_a_node_killed_mid_event_is_adopted_and_the_event_ends_once(
    pg_url: str, redis_server: RedisServer
) -> None:
    made = dict(zip("ab", start_nodes(pg_url, redis_server.url(), "ab", LEASE), strict=True))
    async with running(made):
        a, b = made["a"], made["b"]
        field = Field()
        tid, bob = await entered(field, a, b)
        for game in open_games(await until(bob, tid, lambda e: e["round"] == 1)):
            await field.resign(game)
        second = await until(bob, tid, lambda e: e["round"] == 2)
        await field.resign(open_games(second)[0])  # one result of round two in, one game on
        before = await until(bob, tid, lambda e: len(open_games(e)) == 1)
        a.kill()
        await wait_for(lambda: stored(pg_url, tid)["owner"] == "b", timeout=TIMEOUT)
        await field.move(a, b)  # alice and dave come back on b
        adopted = await until(bob, tid, lambda e: True)  # b holds it now: asked there
        assert adopted["status"] == "running"
        assert adopted["games"] == before["games"], "the adopter holds every pairing once"
        await field.resign(open_games(adopted)[0])  # the game in flight, re-attached on b
        watched = await bob.expect("tournament", round=3)  # b's watcher watches on, from b
        assert watched["tournament"] == tid and "id" not in watched
        for game in open_games(await until(bob, tid, lambda e: e["round"] == 3)):
            await field.resign(game)
        final = await until(bob, tid, lambda e: e["status"] == "finished")
    rows = stored(pg_url, tid)
    assert rows["owner"] == "b" and rows["status"] == "finished"
    assert len(final["games"]) == 6
    assert sum(s["points"] for s in final["standings"]) == 6.0, "every result once"
    agrees(final, rows)


async def test_two_nodes_given_one_schedule_open_each_occurrence_once(
    pg_url: str, redis_server: RedisServer
) -> None:
    # an occurrence about twelve hours ahead, open from now on: it stays open all the test
    at = (time.time() + 12 * 3600) % 86400
    spec = f"name=Nightly,game=tictactoe,format=swiss,every=1d,at={at:.0f},opens=1d"
    extra = ("--lease", LEASE, "--redis", redis_server.url(), "--event", spec)
    made = {n: ServerProcess(pg_url, extra=("--node", n, *extra)) for n in "ab"}
    async with running(made):
        a, b = await made["a"].client("x"), await made["b"].client("y")

        async def listed(client: RawClient) -> list[str]:
            reply = await client.request(type="list_tournaments")
            return sorted(t["tournament"] for t in reply["tournaments"] if t["schedule"])

        deadline = time.monotonic() + TIMEOUT
        while not (await listed(a) and await listed(a) == await listed(b)):
            assert time.monotonic() < deadline
            await asyncio.sleep(0.1)
        (tid,) = await listed(a)
        with psycopg.connect(pg_url) as db:
            claims = db.execute("SELECT tournament, node FROM tournament_occurrences").fetchall()
            events = db.execute("SELECT tournament FROM tournaments").fetchall()
        assert [c[0] for c in claims] == [tid] and events == [(tid,)]
        owner = claims[0][1]
        survivor = "b" if owner == "a" else "a"
        asker = b if owner == "a" else a
        entered = await asker.request(type="join_tournament", tournament=tid)
        assert entered["type"] == "tournament" and len(entered["entrants"]) == 1
        made[owner].kill()
        await wait_for(lambda: stored(pg_url, tid)["owner"] == survivor, timeout=TIMEOUT)
        adopted = await until(asker, tid, lambda e: True)
        assert adopted["status"] == "open" and [e["id"] for e in adopted["entrants"]] == [
            asker.player
        ]
        assert await listed(asker) == [tid]  # still one occurrence: the adopter's
    with psycopg.connect(pg_url) as db:
        assert db.execute("SELECT count(*) FROM tournaments").fetchone() == (1,)
