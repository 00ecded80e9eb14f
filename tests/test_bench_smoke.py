"""Smoke test of bench/load.py: a tiny bounded run against the server and the relay completes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # runs the benchmarks' processes

ROOT = Path(__file__).resolve().parent.parent


def test_load_generator_tiny_run(tmp_path: Path) -> None:
    """2 games x 20 moves (one room each) against every target: every move is acknowledged, the
    pages target's page fetches beside them are all answered, and so is every ``analyse`` of the
    analysis target."""
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
    assert analyses["sent"] >= 5 and analyses["replies"] == {"analysis": analyses["sent"]}
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
