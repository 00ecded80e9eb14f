"""``mnk-tournament`` as a client of the server's tournaments: a round robin is the server's
event (its pairings, its standings), and a rerun after a kill follows the same event."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from support.servers import bot_key

pytestmark = pytest.mark.slow  # director and bot processes

BOTS = {"perfect": "minimax:level=10", "mid": "minimax:level=3", "rnd": "random"}


def command(out: Path, *args: str) -> list[str]:
    """``python -m bots.tournament`` writing to ``out``."""
    return [sys.executable, "-m", "bots.tournament", "--out", str(out), "--no-chart", *args]


async def run(cmd: list[str], env: dict[str, str] | None = None) -> str:
    """Run the director to its end; its output (fails the test on a non-zero exit)."""
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    )
    output, _ = await asyncio.to_thread(proc.communicate, timeout=150)
    assert proc.returncode == 0, output
    return output


async def test_a_round_robin_is_the_servers_event(server: Any, tmp_path: Path) -> None:
    out = tmp_path / "rr"
    args = ["--server", server.url, "--game", "tictactoe", "--games", "1", "--plain"]
    for name, spec in BOTS.items():
        args += ["--bot", f"{name}={spec}", "--key", f"{name}={bot_key(server, name)}"]
    args += ["--key", f"director={bot_key(server, 'director')}"]
    output = await run(command(out, *args))
    tid = json.loads((out / "event.json").read_text())["tournament"]
    assert f"/t/{tid}" in output
    desk = server.arena.tournaments
    event = desk.events[tid].message()
    assert event["status"] == "finished" and event["format"] == "round_robin"
    assert event["creator"] == "director"
    names = {e["id"]: e["name"] for e in event["entrants"]}
    doc = json.loads((out / "results.json").read_text())
    assert doc["complete"] and doc["server"]["tournament"] == tid
    # the standings are the server's: its order, its points
    assert [names[s["player"]] for s in event["standings"]] == [s["name"] for s in doc["standings"]]
    points = {names[s["player"]]: s["points"] for s in event["standings"]}
    assert points == {s["name"]: s["score"] for s in doc["standings"]}
    assert {g["game_id"] for g in event["games"]} == {g["game_id"] for g in doc["games"]}
    assert len(doc["games"]) == 6 and len(list((out / "games").glob("*.psq"))) == 6
    # a rerun follows the finished event: no second one
    before = len(desk.events)
    await run(command(out, *args))
    assert len(desk.events) == before
    assert json.loads((out / "event.json").read_text())["tournament"] == tid


SLOW_BOT = """
import time
from collections import Counter
from bots.sdk import RandomBot


class SlowBot(RandomBot):
    \"\"\"A random player that takes a tenth of a second per move.\"\"\"

    def choose(self, variant, moves, limit):
        time.sleep(0.1)
        return super().choose(variant, moves, limit)
"""


async def test_a_rerun_after_a_kill_follows_the_same_event(tmp_path: Path) -> None:
    (tmp_path / "slowbot.py").write_text(SLOW_BOT)
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    out = tmp_path / "killed"
    args = ["--game", "gomoku", "--games", "1", "--max-moves", "16", "--plain"]
    for name in ("a", "b", "c"):
        args += ["--bot", f"{name}=slowbot:SlowBot"]
    proc = subprocess.Popen(command(out, *args), stdout=subprocess.PIPE, text=True, env=env)
    journal = out / "journal.jsonl"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:  # a game or two recorded, the event under way
        if journal.exists() and len(journal.read_text().splitlines()) >= 2:
            break
        await asyncio.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    await asyncio.to_thread(proc.communicate, timeout=10)
    tid = json.loads((out / "event.json").read_text())["tournament"]
    assert 2 <= len(journal.read_text().splitlines()) < 6
    await run(command(out, *args), env=env)
    assert json.loads((out / "event.json").read_text())["tournament"] == tid
    doc = json.loads((out / "results.json").read_text())
    assert doc["complete"] and doc["server"]["status"] == "finished"
    keys = [g["key"] for g in doc["games"]]
    assert len(keys) == len(set(keys)) == 6  # each pairing once, each result once
    assert sum(s["games"] for s in doc["standings"]) == 2 * 6
    with sqlite3.connect(out / "arena.sqlite3") as db:
        events = db.execute("SELECT tournament FROM tournaments").fetchall()
        results = db.execute("SELECT COUNT(*) FROM tournament_results").fetchone()[0]
    assert events == [(tid,)] and results == 6


CRASH_BOT = """
import os
from bots.sdk import Bot, RandomBot

_moves = 0


class CrashBot(Bot):
    \"\"\"Its engine dies on its third move.\"\"\"

    def choose(self, variant, moves, limit):
        global _moves
        _moves += 1
        if _moves == 3:
            os._exit(1)
        return RandomBot().choose(variant, moves, limit)


class KillerBot(Bot):
    \"\"\"Kills the bot process it serves on its third move.\"\"\"

    def choose(self, variant, moves, limit):
        global _moves
        _moves += 1
        if _moves == 3:
            os.kill(os.getppid(), 9)
        return RandomBot().choose(variant, moves, limit)
"""


async def test_faulty_bots_lose_their_games_and_the_event_goes_on(tmp_path: Path) -> None:
    (tmp_path / "crashbot.py").write_text(CRASH_BOT)
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    out = tmp_path / "faults"
    args = ["--game", "gomoku", "--games", "1", "--clock", "20+0.2", "--max-moves", "40"]
    args += ["--grace", "2", "--plain", "--bot", "hero=minimax:level=2"]
    args += ["--bot", "crasher=crashbot:CrashBot", "--bot", "killer=crashbot:KillerBot"]
    await run(command(out, *args), env=env)
    doc = json.loads((out / "results.json").read_text())
    table = {s["name"]: s for s in doc["standings"]}
    assert doc["complete"] and len(doc["games"]) == 6 and doc["server"]["status"] == "finished"
    assert table["crasher"]["faults"]["crash"] >= 1
    assert table["killer"]["faults"]["disconnect"] >= 1 and doc["restarts"]["killer"] >= 1
    assert table["hero"]["losses"] == 0


async def test_a_swiss_is_the_servers_event_with_its_byes(tmp_path: Path) -> None:
    out = tmp_path / "swiss"
    args = ["--game", "tictactoe", "--format", "swiss", "--plain"]
    for name, spec in {**BOTS, "nov": "novice", "rnd2": "random"}.items():
        args += ["--bot", f"{name}={spec}"]
    output = await run(command(out, *args))
    doc = json.loads((out / "results.json").read_text())
    assert doc["complete"] and doc["server"]["status"] == "finished"
    # 5 bots: 4 rounds of 2 pairings, each a colour-swapped pair of games (--games 1)
    assert len(doc["games"]) == 4 * 2 * 2 and "[16/16]" in output
    assert len(doc["server"]["byes"]) == 4
    points = {s["player"]: s["points"] for s in doc["server"]["standings"]}
    assert points == {s["name"]: s["score"] for s in doc["standings"]}  # a bye's 2 points too
    seated: dict[tuple[int, frozenset[str]], list[list[str]]] = {}
    for game in doc["games"]:
        seated.setdefault((game["round"], frozenset(game["players"])), []).append(game["players"])
    assert all(sorted(s) == sorted([s[0], s[0][::-1]]) for s in seated.values())  # both colours
    pairs = [pair for _, pair in seated]
    # No repeat while a round without one exists (the formats' property test proves it); with 5
    # players in 4 rounds the results can leave the last round none, and then one repeat is the
    # format's answer (a CI run drew it), never more.
    assert len(pairs) == 8 and len(set(pairs)) >= len(pairs) - 1


async def test_a_swiss_of_pairs_and_openings_plays_the_own_schedules_games(
    tmp_path: Path,
) -> None:
    """--games 1 over 2 openings: each pairing of a round plays both colours of each opening
    (4 games) on the server's event, as on the own schedule (the server's swiss once played
    one game a pairing: a quarter of these)."""
    args = ["--game", "tictactoe", "--format", "swiss", "--rounds", "2", "--games", "1"]
    args += ["--openings", "random:1:2", "--seed", "5", "--plain"]
    for name, spec in {**BOTS, "rnd2": "random"}.items():
        args += ["--bot", f"{name}={spec}"]
    docs = {}
    for path, extra in (("own", ["--own-schedule"]), ("server", [])):
        output = await run(command(tmp_path / path, *args, *extra))
        assert ("pairs this run itself" in output) == (path == "own"), output
        docs[path] = json.loads((tmp_path / path / "results.json").read_text())
    assert (tmp_path / "server" / "event.json").exists()
    own, hosted = docs["own"], docs["server"]
    assert own["complete"] and hosted["complete"]
    assert len(hosted["games"]) == len(own["games"]) == 2 * 2 * 4  # rounds x pairings x 4
    for doc in (own, hosted):
        seats = Counter(
            (g["round"], tuple(g["players"]), json.dumps(g["opening"])) for g in doc["games"]
        )
        assert set(seats.values()) == {1}  # each colour of each opening once a pairing
        openings = Counter(json.dumps(g["opening"]) for g in doc["games"])
        assert sorted(openings.values()) == [8, 8]


async def test_random_openings_are_drawn_by_the_director_and_played_by_the_server(
    server: Any, tmp_path: Path
) -> None:
    out = tmp_path / "random"
    args = ["--server", server.url, "--game", "tictactoe", "--openings", "random:1:2", "--plain"]
    args += ["--seed", "5", "--key", f"director={bot_key(server, 'director')}"]
    for name, spec in BOTS.items():
        args += ["--bot", f"{name}={spec}", "--key", f"{name}={bot_key(server, name)}"]
    output = await run(command(out, *args))
    assert "pairs this run itself" not in output
    drawn = json.loads((out / "tournament.json").read_text())["opening_list"]
    assert len(drawn) == 2 and all(len(o) == 1 for o in drawn) and drawn[0] != drawn[1]
    tid = json.loads((out / "event.json").read_text())["tournament"]
    event = server.arena.tournaments.events[tid]
    assert [[list(m) for m in o] for o in event.settings.openings] == drawn  # sent as the list
    doc = json.loads((out / "results.json").read_text())
    assert doc["complete"] and len(doc["games"]) == 3 * 4  # 2 openings x 2 colours a pair
    seats = Counter((tuple(g["players"]), json.dumps(g["opening"])) for g in doc["games"])
    assert set(seats.values()) == {1} and len(seats) == 12  # each colour of each opening once
    for game in doc["games"]:
        assert game["opening"] in drawn and game["moves"][:1] == game["opening"]


async def test_balanced_openings_are_the_servers_own_list(server: Any, tmp_path: Path) -> None:
    from protocol.openings import balanced_openings

    out = tmp_path / "balanced"
    args = ["--server", server.url, "--game", "gomoku", "--openings", "balanced:2", "--plain"]
    args += ["--max-moves", "12", "--key", f"director={bot_key(server, 'director')}"]
    for name in ("r1", "r2"):
        args += ["--bot", f"{name}=random", "--key", f"{name}={bot_key(server, name)}"]
    await run(command(out, *args))
    tid = json.loads((out / "event.json").read_text())["tournament"]
    assert server.arena.tournaments.events[tid].settings.openings == balanced_openings()[:2]
    doc = json.loads((out / "results.json").read_text())
    assert doc["complete"] and len(doc["games"]) == 4
    played = Counter(json.dumps(g["opening"]) for g in doc["games"])
    assert played == Counter({json.dumps([list(m) for m in o]): 2 for o in balanced_openings()[:2]})
    for game in doc["games"]:
        assert game["moves"][:5] == game["opening"]


async def test_a_gauntlet_is_the_servers_event_its_seed_the_first_bot(
    server: Any, tmp_path: Path
) -> None:
    out = tmp_path / "gauntlet"
    args = ["--server", server.url, "--game", "tictactoe", "--format", "gauntlet", "--plain"]
    args += ["--games", "2", "--key", f"director={bot_key(server, 'director')}"]
    bots = {"rnd": "random", **{k: v for k, v in BOTS.items() if k != "rnd"}, "nov": "novice"}
    for name, spec in bots.items():
        args += ["--bot", f"{name}={spec}", "--key", f"{name}={bot_key(server, name)}"]
    output = await run(command(out, *args))
    assert "pairs this run itself" not in output and "[12/12]" in output
    tid = json.loads((out / "event.json").read_text())["tournament"]
    event = server.arena.tournaments.events[tid].message()
    assert event["format"] == "gauntlet" and event["seeds"] == 1 and event["status"] == "finished"
    assert event["entrants"][0]["name"] == "rnd"  # the seed entered first
    doc = json.loads((out / "results.json").read_text())
    assert doc["complete"] and len(doc["games"]) == 3 * 4
    meetings = Counter(frozenset(g["players"]) for g in doc["games"])
    assert meetings == Counter({frozenset(("rnd", b)): 4 for b in ("perfect", "mid", "nov")})
    firsts = Counter(g["players"][0] for g in doc["games"])
    assert firsts["rnd"] == 6  # colours balanced


async def test_an_sprt_is_the_servers_match_and_stops_when_it_decides(
    server: Any, tmp_path: Path
) -> None:
    out = tmp_path / "sprt"
    args = ["--server", server.url, "--game", "tictactoe", "--sprt", "0,400", "--plain"]
    args += ["--sprt-max-games", "60", "--key", f"director={bot_key(server, 'director')}"]
    args += ["--concurrency", "2"]  # two games at once, as the old schedule played them
    for name in ("perfect", "rnd"):  # perfect first: the test is about it
        spec = BOTS[name]
        args += ["--bot", f"{name}={spec}", "--key", f"{name}={bot_key(server, name)}"]
    output = await run(command(out, *args))
    assert "pairs this run itself" not in output
    tid = json.loads((out / "event.json").read_text())["tournament"]
    event = server.arena.tournaments.events[tid].message()
    assert event["format"] == "match" and event["status"] == "finished"
    assert event["entrants"][0]["name"] == "perfect" and event["max_games"] == 60
    assert event["games_at_once"] == 2 and all(
        n == 2 for n in Counter(g["round"] for g in event["games"]).values()
    )
    doc = json.loads((out / "results.json").read_text())
    assert doc["complete"] and doc["sprt"] == event["sprt"]  # the server's figures
    sprt = doc["sprt"]
    assert sprt["verdict"] == "H1" and sprt["llr"] >= sprt["upper"] == 2.9444
    assert len(doc["games"]) % 2 == 0 and len(doc["games"]) < 60  # whole pairs, stopped early
    assert sprt["wins"] + sprt["draws"] + sprt["losses"] == len(doc["games"])
    line = f"W-D-L {sprt['wins']}-{sprt['draws']}-{sprt['losses']}, LLR {sprt['llr']:+.3f}"
    assert f"SPRT elo0=0 elo1=400 alpha=0.05 beta=0.05: {line}" in output  # as printed before
    assert "-> H1" in output and f"[{len(doc['games'])}/60]" in output
    assert output.count(" [-2.94, +2.94]") == len(doc["games"])  # each game's line: its LLR


async def test_a_remote_bot_enters_the_event_as_the_run_tells_it(tmp_path: Path) -> None:
    out = tmp_path / "remote"
    args = ["--game", "tictactoe", "--plain", "--bot", "far=remote", "--bot", "near=random"]
    proc = subprocess.Popen(
        command(out, *args), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    remote: subprocess.Popen | None = None
    try:
        assert proc.stdout is not None
        lines: list[str] = []
        while not any("waiting for the remote bot far: " in line for line in lines):
            line = await asyncio.to_thread(proc.stdout.readline)
            assert line, "".join(lines)
            lines.append(line)
        said = lines[-1].split("waiting for the remote bot far: ", 1)[1].strip()
        tid = json.loads((out / "event.json").read_text())["tournament"]
        assert f"--tournament={tid}" in said and "mnk-bot " in said
        # the instruction as printed, with this checkout's mnk-bot and an engine
        runnable = said.replace("mnk-bot", f"{sys.executable} -m bots").replace("ENGINE", "random")
        remote = subprocess.Popen(["bash", "-c", runnable], stdout=subprocess.DEVNULL)
        rest, _ = await asyncio.to_thread(proc.communicate, timeout=150)
        assert proc.returncode == 0, "".join(lines) + rest
    finally:
        for child in (proc, remote):
            if child is not None and child.poll() is None:
                child.kill()
                child.wait()
    assert "pairs this run itself" not in "".join(lines)
    doc = json.loads((out / "results.json").read_text())
    assert doc["complete"] and doc["server"]["status"] == "finished" and len(doc["games"]) == 2
    assert {s["name"] for s in doc["standings"]} == {"far", "near"}
    assert all(sorted(g["players"]) == ["far", "near"] for g in doc["games"])


async def test_more_than_ten_games_a_pairing_is_the_servers_event(
    server: Any, tmp_path: Path
) -> None:
    out = tmp_path / "many"
    args = ["--server", server.url, "--game", "tictactoe", "--games", "6", "--plain"]
    args += ["--key", f"director={bot_key(server, 'director')}"]
    for name in ("r1", "r2"):
        args += ["--bot", f"{name}=random", "--key", f"{name}={bot_key(server, name)}"]
    output = await run(command(out, *args))
    assert "pairs this run itself" not in output  # 12 games a pairing: the old path before
    tid = json.loads((out / "event.json").read_text())["tournament"]
    event = server.arena.tournaments.events[tid].message()
    assert event["games_per_pair"] == 12 and event["status"] == "finished"
    doc = json.loads((out / "results.json").read_text())
    assert doc["complete"] and len(doc["games"]) == 12
    assert Counter(g["players"][0] for g in doc["games"]) == Counter({"r1": 6, "r2": 6})
