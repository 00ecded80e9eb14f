"""Smoke test of bench/load.py: a tiny bounded run against the server and the relay completes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # runs the benchmarks' processes

ROOT = Path(__file__).resolve().parent.parent


def test_load_generator_tiny_run(tmp_path: Path) -> None:
    """2 games x 20 moves (one room each) against every target: every move is acknowledged, the
    pages target's page fetches beside them are all answered, and so is every ``analyse`` of the
    analysis target (an analysis, or ``busy``)."""
    out = tmp_path / "load.json"
    cmd = [sys.executable, str(ROOT / "bench" / "load.py"), "--games", "2"]
    cmd += ["--moves-per-game", "20", "--rounds", "1", "--repeat", "1", "--workers", "1"]
    cmd += ["--seconds", "1", "--warmup", "0.5", "--idle", "40", "--json", str(out)]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(out.read_text())
    runs = result["runs"]
    assert sorted(r["target"] for r in runs) == [
        "analysis", "bots", "memory", "pages", "relay", "relay_uv", "server"
    ]  # fmt: skip
    [analyses] = [r["analyses"] for r in runs if r["target"] == "analysis"]
    replies = analyses["replies"]  # every one answered: an analysis, or busy (documented) when
    # the server's analysts are all taken, which a loaded CI machine saw once
    assert sum(replies.values()) == analyses["sent"] and set(replies) <= {"analysis", "busy"}
    assert replies.get("analysis", 0) >= 5
    [pages] = [r["pages"] for r in runs if r["target"] == "pages"]
    assert set(pages["statuses"]) == {"200"} and sum(pages["statuses"].values()) >= 50
    idle = {got["target"]: got for got in result["idle"]}
    assert sorted(idle) == ["relay", "relay_uv", "server"]
    assert all(got["rss_after_kib"] > got["rss_before_kib"] for got in idle.values())
    assert "KB/connection" in done.stdout
    for run in runs:
        assert run["error_count"] == 0, run["errors"]
        assert run["games_done"] == 2
        assert run["rounds"] == 2
        assert run["sent"] == 2 * 20
        assert run["received"] == run["sent"]  # the opponent saw every move
        assert run["acked"] == run["sent"]  # and the mover got its own ``moved`` back


def test_load_generator_profile_tiny_run(tmp_path: Path) -> None:
    """``--profile`` runs the server under cProfile for the window and writes its stats (it
    broke when the targets gained a command prefix of the same name: the path was splatted)."""
    prof = tmp_path / "server.pstats"
    cmd = [sys.executable, str(ROOT / "bench" / "load.py"), "--games", "2", "--targets", "server"]
    cmd += ["--moves-per-game", "20", "--rounds", "1", "--repeat", "1", "--workers", "1"]
    cmd += ["--seconds", "1", "--warmup", "0.5", "--idle", "0", "--profile", str(prof)]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr
    import pstats

    assert pstats.Stats(str(prof)).total_calls > 0  # the server's window, profiled


def test_hostile_benchmark_tiny_run(tmp_path: Path) -> None:
    """Every attack, tiny counts, beside 3 honest games: honest play survives, attacks bite."""
    out = tmp_path / "hostile.json"
    cmd = [sys.executable, str(ROOT / "bench" / "hostile.py"), "--games", "3", "--bot-games", "1"]
    cmd += ["--seconds", "2", "--warmup", "0.5", "--scale", "0.02", "--lock-seconds", "1"]
    cmd += ["--json", str(out)]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(out.read_text())
    assert result["server_alive"] and result["honest_disconnects"] == 0
    assert result["bot_ms"]["calm"]["moves"] > 0 and result["bot_ms"]["attack"]["moves"] > 0
    assert set(result["verdict"]) == {"human_ms", "bot_ms"}  # with the machine's other load:
    assert set(result["others_cpu_pct"]) == {"calm", "attack"}
    assert "attack p99 / calm p99" in done.stdout
    attacks = result["attacks"]
    assert not [name for name, got in attacks.items() if "attacker_error" in got]
    assert attacks["games_flood"]["bad_message"] > 0  # the 60 KB games lists are refused
    assert attacks["garbage"]["closed_1008"] > 0  # repeated garbage closes the connection
    assert attacks["lookups"]["rate_limited"] > 0  # lookups in flight are bounded
    assert attacks["ping_flood"]["status_101"] == 1 and attacks["ping_flood"]["pings_sent"] > 0
    assert attacks["crowd"]["opened"] > 0 and attacks["crowd"]["newcomer_in"] == 20
    # round four's attacks ran, and its verdict has every check of issue 45
    assert attacks["pinging_holders"]["newcomer_in"] == 20
    assert set(result["checks"]) == {
        "logins", "bot_seat", "seek_paired", "analyses", "newcomers", "peak_rss"
    }  # fmt: skip


def test_writer_benchmark_tiny_run() -> None:
    """The writer bench runs both contenders and reports a cost per move for each."""
    cmd = [sys.executable, str(ROOT / "bench" / "writer.py"), "--games", "4", "--per", "2"]
    cmd += ["--seconds", "0.3", "--repeat", "1"]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {line.split()[0]: line.split() for line in done.stdout.splitlines()[1:]}
    assert sorted(rows) == ["rows", "store"]
    assert all(float(row[1]) > 0 for row in rows.values())


def test_pairing_benchmark_tiny_run(tmp_path: Path) -> None:
    """40 seekers: the core pairs all in one wave, and on the real server every seeker of both
    regimes (one pool, spread over pools) gets its ``joined``."""
    out = tmp_path / "pairing.json"
    cmd = [sys.executable, str(ROOT / "bench" / "pairing.py"), "--players", "40"]
    cmd += ["--seconds", "30", "--json", str(out)]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(out.read_text())
    assert result["core"]["paired"] == 40 and result["core"]["seeks_per_s"] > 0
    assert 0 < result["core"]["rated_paired"] <= 40
    assert [row["regime"] for row in result["server"]] == ["one pool", "spread"]
    assert all(row["joined"] == 40 for row in result["server"]), result["server"]
    assert "seeks/s" in done.stdout


def test_balanced_openings_file_reads_back_as_openings(tmp_path: Path) -> None:
    """bench/balanced_openings.py writes openings the tournament director reads, each scored
    within the margin by the engine's search."""
    from bots.tournament.openings import load_openings
    from protocol.variants import make_variant

    out = tmp_path / "openings.txt"
    cmd = [sys.executable, str(ROOT / "bench" / "balanced_openings.py"), "--count", "3"]
    cmd += ["--nodes", "3000", "--margin", "400", "--out", str(out)]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [line for line in out.read_text().splitlines() if not line.startswith("#")]
    scores = [int(line.split("#")[1].split()[0]) for line in lines]
    assert len(scores) == 3 and all(abs(s) <= 400 for s in scores)
    openings = load_openings(out, make_variant("gomoku", {}))
    assert len(openings) == 3 and all(len(o) == 5 for o in openings)  # 5 stones by default


def test_time_use_tiny_run(tmp_path: Path) -> None:
    """bench/time_use.py plays two brains a colour-swapped pair of games and reports each
    one's time use, the early unforced answers sorted by what the brain last said."""
    brain = tmp_path / "pbrain-ours"
    brain.write_text(
        f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(ROOT)!r})\n"
        "from bots.cli import main\nmain(['--piskvork', '--engine', 'minimax'])\n"
    )
    brain.chmod(0o755)
    out = tmp_path / "time.json"
    cmd = [sys.executable, str(ROOT / "bench" / "time_use.py"), "--turn-ms", "150"]
    cmd += ["--brain", f"a={brain}", "--brain", f"b={brain}", "--openings", "1"]
    done = subprocess.run(
        [*cmd, "--json", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(out.read_text())
    assert report["games"] == 2 and sum(report["results"].values()) == 2
    for row in report["brains"]:
        assert row["moves"] >= 3 and set(row["early"]) == {"mate", "silent", "other"}
        assert sum(row["early"].values()) <= row["unforced"]
    said = [said for rows in report["times"].values() for _, _, said in rows if said]
    assert said and all(s.startswith("depth ") for s in said)  # the engine's MESSAGE lines


@pytest.mark.parametrize("instructions", [False, True], ids=["cpu", "instructions"])
def test_cpu_per_move_against_a_commit_tiny_run(tmp_path: Path, instructions: bool) -> None:
    """The working tree against a commit (HEAD: always there), one A/B pair of 2 games: both
    sides ran without errors and the ratio is printed (no timing asserted)."""
    if instructions and shutil.which("callgrind_control") is None:
        pytest.skip("valgrind is not installed")
    out = tmp_path / "cpm.json"
    cmd = [sys.executable, str(ROOT / "bench" / "cpu_per_move.py"), "--against", "HEAD"]
    cmd += ["--games", "2", "--pairs", "1", "--workers", "1", "--moves-per-game", "20"]
    cmd += ["--seconds", "2" if instructions else "1", "--warmup", "0.5", "--json", str(out)]
    cmd += ["--instructions"] if instructions else []
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "A/B" in done.stdout and "median" in done.stdout
    [pair] = json.loads(out.read_text())["pairs"]
    key = "instructions_per_move" if instructions else "cpu_us_per_move"
    assert pair["A"][key] > 0 and pair["B"][key] > 0 and pair["ratio"] > 0
    assert pair["A"]["error_count"] == pair["B"]["error_count"] == 0


def test_cpu_per_move_core_tiny_run(tmp_path: Path) -> None:
    """``--core``: both trees' sans-I/O instructions per move and their ratio (valgrind)."""
    if shutil.which("callgrind_control") is None:
        pytest.skip("valgrind is not installed")
    out = tmp_path / "core.json"
    cmd = [sys.executable, str(ROOT / "bench" / "cpu_per_move.py"), "--against", "HEAD"]
    cmd += ["--core", "100", "--json", str(out)]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "core instructions/move" in done.stdout
    core = json.loads(out.read_text())["core"]
    assert core["A"] > 0 and core["B"] > 0
