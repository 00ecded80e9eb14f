"""``mnk-tournament --server URL --rated``: a director's rated rooms move its bots' ratings."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.servers import bot_key

pytestmark = pytest.mark.slow  # director and bot processes


async def test_a_rated_tournament_rates_its_bots(server: Any, tmp_path: Path) -> None:
    names = ("alpha", "beta")
    cmd = [sys.executable, "-m", "bots.tournament", "--out", str(tmp_path / "t"), "--no-chart"]
    cmd += ["--server", server.url, "--rated", "--clock", "60+1", "--game", "tictactoe"]
    cmd += ["--games", "2", "--plain"]
    for name in names:
        cmd += ["--bot", f"{name}=random", "--key", f"{name}={bot_key(server, name)}"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output, _ = await asyncio.to_thread(proc.communicate, timeout=120)
    assert proc.returncode == 0, output
    ratings = {n: server.arena.ratings.of(n)["tictactoe-bullet"] for n in names}
    played = len(json.loads((tmp_path / "t" / "results.json").read_text())["games"])
    assert played >= 2 and [r["games"] for r in ratings.values()] == [played, played]
    board = server.store.leaderboard("tictactoe-bullet", bots=True)
    assert board["bots"] is True  # a bot's own board (RD 500 after two games: nobody on it)
