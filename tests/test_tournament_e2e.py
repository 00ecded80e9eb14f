"""mnk-tournament end to end: a real director process, embedded server and bot processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bots.tournament.schedule import fixed_schedule

pytestmark = pytest.mark.slow  # real server, bot and director processes

CRASH_BOT = '''
import os
from bots.sdk import Bot, RandomBot

_moves = 0


class CrashBot(Bot):
    """Dies (the whole engine process) on its third move."""

    def choose(self, variant, moves, limit):
        global _moves
        _moves += 1
        if _moves == 3:
            os._exit(1)
        return RandomBot().choose(variant, moves, limit)


class KillerBot(Bot):
    """Kills the bot process it serves (the runner) on its third move."""

    def choose(self, variant, moves, limit):
        global _moves
        _moves += 1
        if _moves == 3:
            os.kill(os.getppid(), 9)
        return RandomBot().choose(variant, moves, limit)
'''


def tournament(out: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    """Start ``python -m bots.tournament`` writing to ``out``."""
    cmd = [sys.executable, "-m", "bots.tournament", "--out", str(out), "--no-chart", *args]
    return subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    )


def finish(proc: subprocess.Popen, timeout: float = 120) -> str:
    """Wait for the director; its output (fails the test on a non-zero exit)."""
    output, _ = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, output
    return output


def test_round_robin_tictactoe(tmp_path: Path) -> None:
    out = tmp_path / "rr"
    # Level 5 searches every move (no noise): random never matched it in 10,000 simulated
    # round robins; level 3 (a careless move half the time) was matched in 1 of 6.
    bots = ["--bot", "perfect=minimax:level=10", "--bot", "mid=minimax:level=5"]
    bots += ["--bot", "rnd=random"]
    output = finish(
        tournament(
            out,
            "--game",
            "tictactoe",
            *bots,
            "--games",
            "2",
            "--seed",
            "4",
            "--concurrency",
            "3",
            "--plain",
        )
    )
    doc = json.loads((out / "results.json").read_text())
    table = {s["name"]: s for s in doc["standings"]}
    assert table["perfect"]["losses"] == 0
    assert doc["standings"][-1]["name"] == "rnd"
    assert table["rnd"]["score"] < table["mid"]["score"]
    assert len(doc["games"]) == 3 * 2 * 2 and doc["complete"]
    for game in doc["games"]:
        assert game["reason"] in ("line", "draw") and game["game_id"]
    assert len(list((out / "games").glob("*.psq"))) == 12
    psq = next((out / "games").glob("*.psq")).read_text()
    assert psq.startswith("Piskvorky 3x3")
    assert "Standings" in output and "Crosstable" in output and "LOS" in output
    assert "[12/12]" in output  # the plain progress lines


def test_gomoku_gauntlet_with_crashing_bots(tmp_path: Path) -> None:
    (tmp_path / "crashbot.py").write_text(CRASH_BOT)
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    out = tmp_path / "gauntlet"
    bots = ["--bot", "hero=minimax:level=2", "--bot", "crasher=crashbot:CrashBot"]
    bots += ["--bot", "killer=crashbot:KillerBot", "--bot", "rnd=random"]
    args = ["--game", "gomoku", "--format", "gauntlet", *bots, "--games", "2"]
    args += ["--concurrency", "4", "--clock", "20+0.2", "--max-moves", "60", "--grace", "2"]
    args += ["--openings", "random:2:1", "--seed", "9"]
    output = finish(tournament(out, *args, env=env), timeout=150)
    assert "pairs this run itself" not in output and (out / "event.json").exists()  # the server's
    doc = json.loads((out / "results.json").read_text())
    table = {s["name"]: s for s in doc["standings"]}
    assert doc["complete"] and len(doc["games"]) == 3 * 2 * 2
    assert table["crasher"]["faults"]["crash"] >= 1
    assert table["crasher"]["losses"] == 4 and table["hero"]["losses"] == 0
    assert table["killer"]["games"] == 4  # its later games were played by the restarted process
    assert table["killer"]["faults"]["disconnect"] >= 1
    assert doc["restarts"]["killer"] >= 1
    forfeits = [g for g in doc["games"] if g["reason"] == "forfeit"]
    assert forfeits and all(g["fault"] == "crash" for g in forfeits)
    for game in doc["games"]:
        assert game["moves"][:2] == game["opening"] and len(game["opening"]) == 2


def test_killed_director_resumes_to_the_same_totals(tmp_path: Path) -> None:
    out = tmp_path / "resume"
    bots = ["--bot", "a=minimax:level=2", "--bot", "b=minimax:level=1", "--bot", "c=random"]
    args = ["--game", "tictactoe", *bots, "--games", "2", "--openings", "random:1:2"]
    args += ["--seed", "11", "--concurrency", "2", "--plain", "--own-schedule"]  # its keys
    proc = tournament(out, *args)
    journal = out / "journal.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if journal.exists() and len(journal.read_text().splitlines()) >= 5:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=10)
    before = len(journal.read_text().splitlines())
    assert 5 <= before < 24
    output = finish(tournament(out, *args))
    assert f"{before}/24 games already played" in output or "already played" in output
    doc = json.loads((out / "results.json").read_text())
    openings = [tuple(tuple(m) for m in o) for o in doc["tournament"]["opening_list"]]
    expected = fixed_schedule("round-robin", ["a", "b", "c"], openings, 2)
    assert [g["key"] for g in doc["games"]] == [g.key for g in expected]
    assert [tuple(g["players"]) for g in doc["games"]] == [g.players for g in expected]
    assert [[tuple(m) for m in g["opening"]] for g in doc["games"]] == [
        list(g.opening) for g in expected
    ]
    assert sum(s["games"] for s in doc["standings"]) == 2 * 24
    assert doc["complete"]


SLOW_BOT = """
import time
from bots.sdk import RandomBot


class SlowBot(RandomBot):
    \"\"\"A random player that takes a quarter of a second per move.\"\"\"

    def choose(self, variant, moves, limit):
        time.sleep(0.25)
        return super().choose(variant, moves, limit)
"""


def test_resume_after_a_kill_mid_game_is_not_held_up_by_the_killed_games(tmp_path: Path) -> None:
    """The killed attempt's games must not come back and take the bots' capacity."""
    from server.storage.sqlite import Store

    (tmp_path / "slowbot.py").write_text(SLOW_BOT)
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    out = tmp_path / "killed"
    args = ["--game", "gomoku", "--bot", "a=slowbot:SlowBot", "--bot", "b=slowbot:SlowBot"]
    args += ["--games", "1", "--concurrency", "2", "--max-moves", "30", "--plain"]
    args += ["--log-level", "INFO", "--own-schedule"]  # the director's own path (moves the db)
    proc = tournament(out, *args, env=env)
    deadline = time.monotonic() + 60
    while not (out / "games").exists() and time.monotonic() < deadline:  # the games start now
        time.sleep(0.05)
    time.sleep(1.5)  # both games (about 8 s each) are under way
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=10)
    journal = out / "journal.jsonl"
    assert not journal.exists() or not journal.read_text().strip()  # killed mid-game
    output = finish(tournament(out, *args, env=env), timeout=120)
    doc = json.loads((out / "results.json").read_text())
    assert doc["complete"] and len(doc["games"]) == 2 and not doc["unplayed"]
    assert "no_bot_available" not in output  # the bots were free at once
    assert (out / "arena.prev.sqlite3").exists()
    store = Store(out / "arena.sqlite3")
    try:
        served = {g["game_id"] for g in store.list_games(limit=50)["games"]}
    finally:
        store.close()
    assert served == {g["game_id"] for g in doc["games"]}  # no game of the killed attempt


@pytest.mark.parametrize(
    "bad",
    [
        ["--bot", "x=random"],  # the same name twice
        ["--bot", "y=random", "--bot", "z=random", "--sprt", "0,10"],  # SPRT needs two bots
        ["--bot", "y=nonsense"],
        ["--bot", "y=random", "--openings", "FILE"],  # 9,9 is off the 3x3 board
        ["--bot", "y=random", "--openings", "missing.txt"],
        ["--bot", "y=random", "--rated", "--clock", "60+1"],  # the embedded server is casual
    ],
)
def test_bad_command_lines_fail_early(tmp_path: Path, bad: list[str]) -> None:
    (tmp_path / "openings.txt").write_text("0,0 9,9\n")
    bad = [str(tmp_path / "openings.txt") if a == "FILE" else a for a in bad]
    proc = tournament(tmp_path / "bad", "--game", "tictactoe", "--bot", "x=random", *bad)
    output, _ = proc.communicate(timeout=30)
    assert proc.returncode != 0 and "mnk-tournament:" in output, output


def test_renju_swap2_tournament(tmp_path: Path) -> None:
    """Bots play renju games that open with swap2: phases, colour choices and forbidden moves."""
    out = tmp_path / "renju"
    bots = ["--bot", "mm=minimax:level=2", "--bot", "rnd=random"]
    args = ["--game", "renju", "--opening-rule", "swap2", *bots, "--games", "1"]
    args += ["--concurrency", "2", "--max-moves", "40", "--plain"]
    finish(tournament(out, *args), timeout=150)
    doc = json.loads((out / "results.json").read_text())
    assert doc["complete"] and len(doc["games"]) == 2
    for game in doc["games"]:
        assert game["reason"] in ("line", "draw", "adjudicated", "resign"), game
        assert len(game["moves"]) >= 4  # the opening's stones and at least one real move
    psq = next((out / "games").glob("*.psq")).read_text()
    assert psq.rstrip().endswith(",Renju")
