"""The cluster benchmark (`bench/load.py --nodes`) runs end to end on a tiny load (its figures
are for bench/, not here)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support.services import missing, pg_bin, redis_bin

pytestmark = pytest.mark.slow  # real node processes on PostgreSQL (and Redis)

ROOT = Path(__file__).resolve().parents[2]


def test_cluster_benchmark_tiny_run() -> None:
    if pg_bin() is None:
        missing("PostgreSQL", "postgresql")
    if redis_bin() is None:
        missing("Redis", "redis-server")
    args = [sys.executable, str(ROOT / "bench" / "load.py"), "--games", "2"]  # the command
    args += ["--seconds", "1", "--warmup", "0.5", "--nodes", "2", "--no-fsync"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=180, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ")]
    assert [row.split("|")[1].strip() for row in rows] == ["target", "sqlite", "cluster", "cluster"]
    cross = rows[2].split("|")
    assert float(cross[4]) > 0  # moves were played across the two nodes
