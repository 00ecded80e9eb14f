"""A tournament over a cluster (the issue's test 7): ``mnk-tournament --servers a,b,c`` spreads
its bots over three nodes, one node is killed with -9 mid-run, and every scheduled game is
accounted for exactly once, in the journal and in PostgreSQL's games table: on the director's
own schedule, and as the server's event (made on a, entered from every node, adopted by a
survivor when a dies).

Real processes throughout: three ``python -m server --node`` on a throwaway PostgreSQL and
Redis, the tournament director and one ``python -m bots`` per bot.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest
from support.cluster import running
from support.servers import ServerProcess
from support.services import RedisServer
from support.waiting import wait_for

from bots.tournament.schedule import fixed_schedule
from server.admin import add_key

pytestmark = pytest.mark.slow  # real node processes on PostgreSQL (and Redis)

#: A random player that takes a tenth of a second a move: a game lasts one or two seconds, so
#: several are always under way when the node dies.
SLOW_BOT = """
import time
from bots.sdk import RandomBot


class SlowBot(RandomBot):
    \"\"\"A random player thinking 0.1 s a move.\"\"\"

    def choose(self, variant, moves, limit):
        time.sleep(0.1)
        return super().choose(variant, moves, limit)
"""
BOTS = ["b0", "b1", "b2", "b3"]
#: 4 bots, round robin, 2 colour-swapped pairs per pairing: 24 games.
GAMES = "2"


def connections_to(port: int) -> int:
    """Established loopback TCP connections whose far end is ``port`` (clients of a node)."""
    count = 0
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        remote, state = fields[2], fields[3]
        if state == "01" and int(remote.split(":")[1], 16) == port:
            count += 1
    return count


def playing_rooms(pg_url: str, node: str) -> set[str]:
    """Rooms ``node`` owns whose game is under way."""
    with psycopg.connect(pg_url) as db:
        rows = db.execute(
            "SELECT r.room FROM rooms r JOIN games g USING (game_id) "
            "WHERE r.owner = %s AND g.status = 'playing'",
            (node,),
        ).fetchall()
    return {room for (room,) in rows}


def finished_games(pg_url: str) -> dict[str, tuple[Any, ...]]:
    """Every finished game in PostgreSQL: id -> (room, names, winner, reason)."""
    with psycopg.connect(pg_url) as db:
        rows = db.execute(
            "SELECT game_id, room, name0, name1, winner, reason FROM games WHERE status = 'over'"
        ).fetchall()
    return {g: (room, (n0, n1), winner, reason) for g, room, n0, n1, winner, reason in rows}


def journal(out: Path) -> list[dict[str, Any]]:
    """The journal's lines (the games the director recorded, in order)."""
    path = out / "journal.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


async def test_a_three_node_tournament_with_a_node_killed_accounts_for_every_game_once(
    pg_url: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    no_openings: list[Any] = [()]
    schedule = fixed_schedule("round-robin", BOTS, no_openings, int(GAMES))
    keys = "".join(f"{name}={add_key(pg_url, name)}\n" for name in BOTS)
    (tmp_path / "keys").write_text(keys)
    (tmp_path / "slowbot.py").write_text(SLOW_BOT)
    extra = ("--lease", "3", "--redis", redis_server.url())
    nodes = {n: ServerProcess(pg_url, grace=20.0, extra=("--node", n, *extra)) for n in "abc"}
    async with running(nodes):
        out = tmp_path / "run"
        urls = ",".join(nodes[n].url for n in "abc")
        args = ["--out", str(out), "--no-chart", "--plain", "--servers", urls]
        args += ["--key-file", str(tmp_path / "keys"), "--game", "mnk:width=5,height=5,k=4"]
        args += [arg for name in BOTS for arg in ("--bot", f"{name}=slowbot:SlowBot")]
        args += ["--games", GAMES, "--concurrency", "3", "--seed", "7", "--log-level", "INFO"]
        args += ["--own-schedule"]  # the director's own accounting under test
        path = os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])
        director = subprocess.Popen(
            [sys.executable, "-m", "bots.tournament", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "PYTHONPATH": path},
        )
        try:
            # a holds the director and bots b0 and b3 (i mod 3), b and c one bot each; kill a
            # once it owns games under way and a few games are already recorded
            ports = {n: nodes[n].port for n in "abc"}

            def mid_run() -> bool:
                return (
                    len(journal(out)) >= 3
                    and bool(playing_rooms(pg_url, "a"))
                    and connections_to(ports["a"]) >= 3
                    and connections_to(ports["b"]) >= 1
                    and connections_to(ports["c"]) >= 1
                )

            await wait_for(mid_run, timeout=60)
            dying = playing_rooms(pg_url, "a")
            nodes["a"].kill()
            assert len(journal(out)) < len(schedule), "the run ended before the node died"
            output, _ = director.communicate(timeout=90)
        finally:
            if director.poll() is None:
                director.kill()
                output = director.communicate()[0]
        assert director.returncode == 0, output
    lines = journal(out)
    keys_played = [g["key"] for g in lines]
    assert sorted(keys_played) == sorted(s.key for s in schedule)  # each game exactly once
    doc = json.loads((out / "results.json").read_text())
    assert doc["complete"] and not doc["unplayed"] and len(doc["games"]) == len(schedule)
    table = finished_games(pg_url)
    ids = [g["game_id"] for g in lines]
    assert None not in ids and len(set(ids)) == len(ids)
    for game in lines:  # the journal agrees with PostgreSQL, game by game
        room, names, winner, reason = table[game["game_id"]]
        assert (room, list(names), winner, reason) == (
            game["room"], game["players"], game["winner"], game["reason"]
        )  # fmt: skip
    # no game ended twice in PostgreSQL: every result there is the journal's (an abandoned
    # game, which has none, was played again)
    results = {g: row for g, row in table.items() if row[3] != "abandoned"}
    assert set(results) == set(ids), output
    # the games a's death interrupted: finished by a survivor and counted once each, or
    # (abandoned, no result) played again
    rooms = {g["room"]: g["reason"] for g in lines}
    abandoned = {row[0] for row in table.values() if row[3] == "abandoned"}
    assert dying and dying <= set(rooms) | abandoned, output
    played_out = {r for r in dying if rooms.get(r) in ("line", "draw")}
    print(f"interrupted {len(dying)}: {len(played_out)} played out on a survivor, "
          f"{sorted(rooms.get(r, 'abandoned') for r in dying)}")  # fmt: skip
    assert played_out, "no interrupted game was played out on a survivor"


def event_rows(pg_url: str, tid: str) -> tuple[str | None, int, list[str]]:
    """Event ``tid`` in PostgreSQL: its owner node, its pairings, its results' keys."""
    with psycopg.connect(pg_url) as db:
        (owner,) = db.execute(
            "SELECT owner FROM tournaments WHERE tournament = %s", (tid,)
        ).fetchone()
        (pairings,) = db.execute(
            "SELECT count(*) FROM tournament_pairings WHERE tournament = %s", (tid,)
        ).fetchone()
        results = db.execute(
            "SELECT key FROM tournament_results WHERE tournament = %s", (tid,)
        ).fetchall()
    return owner, pairings, [key for (key,) in results]


def hosted_run(
    pg_url: str, redis_url: str, tmp_path: Path, bot: str
) -> tuple[dict[str, ServerProcess], list[str]]:
    """Three nodes and the director's command over them (a director key and a key a bot)."""
    keys = "".join(f"{name}={add_key(pg_url, name)}\n" for name in ["director", *BOTS])
    (tmp_path / "keys").write_text(keys)
    (tmp_path / "slowbot.py").write_text(SLOW_BOT)
    extra = ("--lease", "3", "--redis", redis_url)
    nodes = {n: ServerProcess(pg_url, grace=20.0, extra=("--node", n, *extra)) for n in "abc"}
    urls = ",".join(nodes[n].url for n in "abc")
    args = ["--out", str(tmp_path / "run"), "--no-chart", "--plain", "--servers", urls]
    args += ["--key-file", str(tmp_path / "keys"), "--game", "tictactoe"]  # a server's game
    args += [arg for name in BOTS for arg in ("--bot", f"{name}={bot}")]
    args += ["--games", "1", "--seed", "7", "--log-level", "INFO"]
    return nodes, [sys.executable, "-m", "bots.tournament", *args]


def director_process(cmd: list[str], tmp_path: Path) -> subprocess.Popen[str]:
    """The director, with ``tmp_path`` (the slow bot's module) on its path."""
    path = os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])
    return subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONPATH": path},
    )


def event_of(out: Path) -> str | None:
    """The event the run made (its ``event.json``), once it has one."""
    path = out / "event.json"
    return json.loads(path.read_text()).get("tournament") if path.exists() else None


async def test_a_cluster_run_is_the_servers_event_on_the_first_node(
    pg_url: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    """--servers a,b,c: the event lives on a, the bots enter it from a, b, c (forwarded) and
    it plays the own schedule's games (4 bots, --games 1: 12), each result once."""
    nodes, cmd = hosted_run(pg_url, redis_server.url(), tmp_path, "slowbot:SlowBot")
    out = tmp_path / "run"
    async with running(nodes):
        director = director_process(cmd, tmp_path)
        try:
            ports = {n: nodes[n].port for n in "abc"}

            def spread_out() -> bool:  # a: the director, b0 and b3; b and c a bot each
                return director.poll() is not None or (
                    len(journal(out)) >= 1
                    and connections_to(ports["a"]) >= 3
                    and connections_to(ports["b"]) >= 1
                    and connections_to(ports["c"]) >= 1
                )

            await wait_for(spread_out, timeout=60)
            output, _ = director.communicate(timeout=120)
        finally:
            if director.poll() is None:
                director.kill()
                output = director.communicate()[0]
        assert director.returncode == 0, output
    assert "pairs this run itself" not in output, output
    tid = event_of(out)
    assert tid is not None and f"/t/{tid}" in output
    schedule = fixed_schedule("round-robin", BOTS, [()], 1)
    doc = json.loads((out / "results.json").read_text())
    assert doc["complete"] and doc["server"]["status"] == "finished"
    assert len(doc["games"]) == len(schedule) == 12
    owner, pairings, results = event_rows(pg_url, tid)
    assert owner == "a" and pairings == 12 and len(results) == len(set(results)) == 12
    assert sorted(g["key"] for g in journal(out)) == sorted(results)  # each game once


async def test_a_cluster_runs_event_survives_its_node_killed_each_game_once(
    pg_url: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    """The event's node a killed with -9 mid-run: a survivor adopts the event, the director
    and a's bots fail over, and the run ends with every game of the schedule once."""
    nodes, cmd = hosted_run(pg_url, redis_server.url(), tmp_path, "slowbot:SlowBot")
    out = tmp_path / "run"
    async with running(nodes):
        director = director_process(cmd, tmp_path)
        try:

            def mid_run() -> bool:
                return director.poll() is not None or (
                    len(journal(out)) >= 2 and bool(playing_rooms(pg_url, "a"))
                )

            await wait_for(mid_run, timeout=60)
            assert director.poll() is None, director.communicate()[0]
            nodes["a"].kill()
            assert len(journal(out)) < 12, "the run ended before the node died"
            output, _ = director.communicate(timeout=150)
        finally:
            if director.poll() is None:
                director.kill()
                output = director.communicate()[0]
        assert director.returncode == 0, output
    tid = event_of(out)
    assert tid is not None
    doc = json.loads((out / "results.json").read_text())
    assert doc["complete"] and len(doc["games"]) == 12, output
    owner, pairings, results = event_rows(pg_url, tid)
    assert owner in ("b", "c") and len(results) == len(set(results)) == pairings == 12, output
    assert sorted(g["key"] for g in journal(out)) == sorted(results)  # each game once
