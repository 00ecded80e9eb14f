"""Tree size of the engine's variants, measured where no machine load can move it.

Run ``python bench/tree_size.py [--depth 9] [--nodes 400000] --variant NAME=ATTR:V,ATTR:V ...``.
Each variant is the shipped core (``bots.engine.fast.SWITCHES``' defaults) with some of its
public switches set (``null_mode``, ``prune_mode``, ``gen_mode``, ``mate_mode``, ``lmr_mode``;
e.g. ``--variant old=null_mode:0,prune_mode:0,gen_mode:0,mate_mode:0 --variant new=``); the
first variant is the baseline. Two figures per variant, both independent of the clock:

- the nodes of a search to a fixed ``--depth`` (main search only, no threat search at the
  root) over 40 self-play positions (the tactics suite's positions less their last 3 moves,
  every 6th), and in how many of them it plays the baseline's move;
- the depth finished within ``--nodes`` nodes on ``bench/engine_speed.py``'s middle games.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))

from bots.engine.fast import FastSearch, core_for, load_core  # noqa: E402
from bots.engine.limits import Limit  # noqa: E402
from protocol import GOMOKU, Move  # noqa: E402

sys.path.insert(0, str(HERE / "bench"))
from engine_speed import MIDDLE_GAMES  # noqa: E402


def self_play_positions() -> list[list[Move]]:
    """40 positions from the tactics suite's games, each 3 moves before its puzzle."""
    suite = json.loads((HERE / "bench" / "tactics.json").read_text())
    return [[Move(x, y) for x, y in e["moves"][:-3]] for e in suite[::6]]


def parse_variant(text: str) -> tuple[str, dict[str, int]]:
    """``NAME=ATTR:V,ATTR:V`` as (name, {attr: value})."""
    name, _, spec = text.partition("=")
    switches = {}
    for part in filter(None, spec.split(",")):
        attr, _, value = part.partition(":")
        switches[attr] = int(value)
    return name, switches


def search(moves: list[Move], switches: dict[str, int], limit: Limit) -> tuple[int, Move, int]:
    """(nodes, move, depth) of one search on a fresh core with ``switches`` set."""
    core = core_for(GOMOKU, moves, load_core(), keep=False)
    for attr, value in switches.items():
        setattr(core, attr, value)
    result = FastSearch(GOMOKU, limit, core).run()
    return result.nodes, result.move, result.depth


def main() -> None:
    """Measure every variant and print one table."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--depth", type=int, default=9)
    p.add_argument("--nodes", type=int, default=400_000)
    p.add_argument("--variant", action="append", required=True, type=parse_variant)
    p.add_argument(
        "--threats",
        action="store_true",
        help="root threat searches and the safe-candidate filter on, as in play",
    )
    args = p.parse_args()
    positions = self_play_positions()
    base_moves: list[Move] = []
    print(f"{'variant':<14}{'nodes@d' + str(args.depth):>12}{'same':>6}{'cpu s':>8}"
          + "".join(f"{name[:10]:>12}" for name in MIDDLE_GAMES))  # fmt: skip
    for name, switches in args.variant:
        cpu, total, same, moves = time.process_time(), 0, 0, []
        for stones in positions:
            nodes, move, _ = search(stones, switches, Limit(depth=args.depth, threats=args.threats))
            total += nodes
            moves.append(move)
        base_moves = base_moves or moves
        same = sum(a == b for a, b in zip(moves, base_moves, strict=True))
        cpu = time.process_time() - cpu
        depths = [
            search([Move(x, y) for x, y in stones], switches,
                   Limit(nodes=args.nodes, threats=args.threats))[2]
            for stones in MIDDLE_GAMES.values()
        ]  # fmt: skip
        print(f"{name:<14}{total:>12,}{same:>6}{cpu:>8.1f}" + "".join(f"{d:>12}" for d in depths))


if __name__ == "__main__":
    main()
