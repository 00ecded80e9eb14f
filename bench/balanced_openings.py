"""Balanced openings for engine matches: random openings the current engine scores near even.

After a random 3-stone opening the side to move won 24 of 34 games between two close engines
(stop 36): most such openings are lost for one side from the start, a colour-swapped pair then
splits 1-1 whoever is stronger, and an SPRT learns little from it. This draws random openings
(``bots.tournament.openings``, the same generator as ``--openings random:K``), searches each
with the compiled core for a fixed number of nodes (so the file is the same on every machine),
and keeps those whose score for the side to move is within ``--margin`` and not a proven win.

Three stones are still too few: on 30 such openings (``--seed 4``, all within 300) black won
52 of 60 games at 1 s a move between two close engines, and 24 of the 30 pairs split 1-1.
Five stones (black 3, white 2, white to move) within 100 are even in play: the engine against
itself won 21 games as black and 15 as white, 4 drawn, of 40 (``--seed 6``), and against the
engine before the shapes black and white won 38 and 41 of 80 (stop 40). Use those.

Run: ``python bench/balanced_openings.py --count 40 --out FILE`` (5 stones within 100);
then ``mnk-tournament --openings FILE …``. The server's balanced openings
(``protocol/balanced_openings.txt``: ``create_tournament``'s ``openings: K``, ``mnk-tournament
--openings balanced:K``) are this command's output with ``--out protocol/balanced_openings.txt``
(39 s of one core).
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from bots.engine.fast import fast_search
from bots.engine.limits import MATE_BOUND, Limit
from bots.tournament.openings import format_opening, random_openings
from protocol.rules import Move
from protocol.variants import make_variant


def balanced(stones: int, count: int, seed: int, nodes: int, margin: int) -> list[str]:
    """Up to ``count`` openings of ``stones`` stones scored within ``margin``, as file lines."""
    variant = make_variant("gomoku", {})
    kept: list[str] = []
    scores: list[int] = []
    for opening in random_openings(variant, stones, count * 8, seed):
        moves = [Move(x, y) for x, y in opening]
        result = fast_search(variant, moves, Limit(nodes=nodes), keep=False)
        scores.append(result.score)
        if abs(result.score) <= margin and abs(result.score) < MATE_BOUND and not result.solved:
            kept.append(f"{format_opening(opening)}  # {result.score:+d} at depth {result.depth}")
        if len(kept) == count:
            break
    print(
        f"{len(kept)} of {len(scores)} openings kept (|score| <= {margin}); scores: median "
        f"{statistics.median(scores):+.0f}, mates {sum(abs(s) >= MATE_BOUND for s in scores)}"
    )
    return kept


def main() -> None:
    """Write the balanced openings file."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--stones", type=int, default=5, help="stones per opening (default 5)")
    p.add_argument("--count", type=int, default=60, help="openings to keep (default 60)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--nodes", type=int, default=200_000, help="search per opening")
    p.add_argument("--margin", type=int, default=100, help="|score| kept (default 100)")
    p.add_argument("--out", required=True)
    args = p.parse_args()
    lines = balanced(args.stones, args.count, args.seed, args.nodes, args.margin)
    header = (
        f"# {len(lines)} balanced {args.stones}-stone gomoku openings: bench/balanced_openings.py"
        f" --stones {args.stones} --seed {args.seed} --nodes {args.nodes} --margin {args.margin}"
    )
    Path(args.out).write_text("\n".join([header, *lines]) + "\n")


if __name__ == "__main__":
    main()
