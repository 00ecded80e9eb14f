"""Measure the level ladder: each minimax level against the next, with ``mnk-tournament``.

Run ``python bench/ladder.py --out runs/ladder [--openings random:2:6] [--move-time 0.3]``.
Every neighbour pair (1-2, 2-3, ... 9-10) plays one colour-swapped pair of games per random
opening; the table printed at the end (markdown, for docs/BOTS.md) gives the score and the
Elo difference with its 95% error, and the cumulative Elo above level 1. Resumable: a pair
whose results exist is not played again.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path


def play_pair(low: int, out: Path, args: argparse.Namespace) -> dict:  # type: ignore[type-arg]
    """Run (or read back) level ``low`` against ``low + 1``; the results.json contents."""
    results = out / "results.json"
    if not results.exists():
        cmd = [sys.executable, "-m", "bots.tournament", "--game", args.game]
        for level in (low, low + 1):
            cmd += ["--bot", f"L{level}=minimax:level={level}"]
        cmd += ["--games", "1", "--openings", args.openings, "--move-time", str(args.move_time)]
        cmd += ["--seed", str(args.seed + low), "--plain", "--no-chart", "--out", str(out)]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return json.loads(results.read_text())


def main() -> None:
    """Play the nine pairs and print the ladder table."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--game", default="gomoku")
    p.add_argument("--openings", default="random:2:6")
    p.add_argument("--move-time", type=float, default=0.3)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    rows = ["| pair | games | upper level W-D-L | Elo (upper - lower) | ± 95% | above level 1 |"]
    rows.append("|---|---|---|---|---|---|")
    total = 0.0
    for low in range(1, 10):
        data = play_pair(low, args.out / f"L{low}-L{low + 1}", args)
        upper = next(s for s in data["standings"] if s["name"] == f"L{low + 1}")
        elo = upper["elo"]  # its performance against the only other player: the difference
        total += elo
        wdl = f"{upper['wins']}-{upper['draws']}-{upper['losses']}"
        rows.append(
            f"| {low}→{low + 1} | {upper['games']} | {wdl} | {elo:+.0f} "
            f"| {upper['elo_error']:.0f} | {total:+.0f} |"
        )
        print(rows[-1], flush=True)
    print("\n".join(rows))


if __name__ == "__main__":
    main()
