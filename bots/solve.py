"""``mnk-solve W H K``: solve the m,n,k-game from the empty board and print one JSON line."""

from __future__ import annotations

import argparse
import json
import sys

from bots.engine.solver import SolveTimeout, solve

VALUES = {1: "win", 0: "draw", -1: "loss"}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="mnk-solve",
        description="Solve the W x H k-in-a-row game exactly (value for the first player).",
    )
    p.add_argument("width", type=int, help="board width (columns)")
    p.add_argument("height", type=int, help="board height (rows)")
    p.add_argument("k", type=int, help="stones in a row needed to win")
    p.add_argument("--time-limit", type=float, default=None, help="give up after this many seconds")
    return p


def main(argv: list[str] | None = None) -> int:
    """Parse ``W H K``, solve, print one JSON line; returns the process exit status.

    The line holds width, height, k, value ("win"/"draw"/"loss" for the first player),
    best_move [x, y], nodes and seconds.
    """
    args = _parser().parse_args(argv)
    if not (3 <= args.width <= 8 and 3 <= args.height <= 8):
        print("mnk-solve: width and height must be 3..8", file=sys.stderr)
        return 2
    if not 3 <= args.k <= max(args.width, args.height):
        print("mnk-solve: k must be between 3 and the longer side", file=sys.stderr)
        return 2
    try:
        sol = solve(args.width, args.height, args.k, args.time_limit)
    except SolveTimeout:
        print(f"mnk-solve: not solved within {args.time_limit} s", file=sys.stderr)
        return 3
    line = {
        "width": sol.width,
        "height": sol.height,
        "k": sol.k,
        "value": VALUES[sol.value],
        "best_move": list(sol.best_move) if sol.best_move else None,
        "nodes": sol.nodes,
        "seconds": round(sol.seconds, 4),
    }
    print(json.dumps(line))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
