"""One small bot event run both ways by ``mnk-tournament``: the director's own schedule
(``--own-schedule``) and the server's event. Prints games, faults, games a minute, wall time and
the embedded server's CPU a game (its ``/proc`` times, sampled until it exits).

    PYTHONPATH=. python bench/tournament_paths.py --game tictactoe --games 2
    PYTHONPATH=. python bench/tournament_paths.py --game gomoku --format gauntlet --max-moves 40
    PYTHONPATH=. python bench/tournament_paths.py --game tictactoe --sprt 0,400 --bot … --bot …
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BOTS = ["L2=minimax:level=2", "L4=minimax:level=4", "L7=minimax:level=7", "rnd=random"]


def server_cpu(out: Path) -> float | None:
    """CPU seconds of the embedded server whose database is in ``out`` (None: not running)."""
    tick = os.sysconf("SC_CLK_TCK")
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            if b"server" in cmd and str(out / "arena.sqlite3").encode() in cmd:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                return (int(fields[11]) + int(fields[12])) / tick
        except OSError:
            continue
    return None


def run(out: Path, args: list[str], bots: list[str]) -> dict[str, float]:
    """One run: games, faults, wall seconds, server CPU seconds."""
    cmd = [sys.executable, "-m", "bots.tournament", "--out", str(out), "--no-chart", "--plain"]
    for bot in bots:
        cmd += ["--bot", bot]
    began = time.monotonic()
    proc = subprocess.Popen(cmd + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cpu = 0.0
    while proc.poll() is None:
        cpu = server_cpu(out) or cpu
        time.sleep(0.1)
    wall = time.monotonic() - began
    doc = json.loads((out / "results.json").read_text())
    faults = sum(g["fault"] is not None for g in doc["games"])
    return {"games": len(doc["games"]), "faults": faults, "wall_s": wall, "server_cpu_s": cpu}


def main() -> None:
    """Both ways, one after the other, each in a fresh folder."""
    p = argparse.ArgumentParser()
    p.add_argument("--game", default="tictactoe")
    p.add_argument("--games", default="2")
    p.add_argument("--clock", default="10+0.1")
    p.add_argument("--bot", action="append", default=None, help="NAME=SPEC (default: 4 levels)")
    p.add_argument("--max-moves", default=None, help="adjudicate a draw at M stones")
    p.add_argument("--format", default="round-robin", help="round-robin | gauntlet | swiss")
    p.add_argument("--rounds", default=None, help="a swiss's rounds")
    p.add_argument("--concurrency", default="2", help="the own schedule's games at once")
    p.add_argument("--repeat", type=int, default=1, help="alternations of the two paths")
    p.add_argument("--sprt", default=None, help="elo0,elo1: an SPRT match of the first two bots")
    p.add_argument("--openings", default=None, help="as mnk-tournament's --openings")
    a = p.parse_args()
    args = ["--game", a.game, "--games", a.games, "--clock", a.clock]
    args += ["--concurrency", a.concurrency, "--format", a.format]
    args += ["--max-moves", a.max_moves] if a.max_moves else []
    args += ["--rounds", a.rounds] if a.rounds else []
    args += ["--openings", a.openings] if a.openings else []
    if a.sprt:
        args += [f"--sprt={a.sprt}"]  # elo0 may be negative: not an option
        a.bot = (a.bot or BOTS)[:2]
    paths = (("own schedule", ["--own-schedule"]), ("server's event", []))
    with tempfile.TemporaryDirectory() as tmp:
        for n, (label, extra) in ((n, path) for n in range(a.repeat) for path in paths):
            folder = Path(tmp) / f"{label.replace(' ', '_').replace(chr(39), '')}-{n}"
            r = run(folder, args + extra, a.bot or BOTS)
            print(
                f"{label:15} games {r['games']:3d}  faults {r['faults']}  "
                f"{60 * r['games'] / r['wall_s']:6.1f} games/min  wall {r['wall_s']:5.1f} s  "
                f"server CPU {1000 * r['server_cpu_s'] / max(1, r['games']):6.1f} ms/game"
            )


if __name__ == "__main__":
    main()
