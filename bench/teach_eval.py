"""Fit the shape evaluation to a deeper search's scores (``weights/shapes-v2.json``).

Run ``python bench/teach_eval.py`` (the shipped file: the defaults; 4 min 50 s on the shared
2-core machine; node-bound, no clock is read, so it gives the same file on any machine). Every
part scores by the weights fitted to game results (``--start``, ``shapes-v1.json``, made by
``bench/train_eval.py``):

- *positions*: freestyle self-play from random 3-5-stone openings at ``--nodes`` nodes a move
  (``fit_order.play_game``: every second position, so black is to move), in the sets of
  ``SETS``: ``fit_order``'s own 160 games, ordered by the hand-set keys, and 240 more ordered
  by the shipped keys;
- *labels*: each quiet position (no five threat for either side) gets the score of a *teacher*,
  the same core at ``--teacher`` nodes with its threat search, ordered by the shipped keys,
  squashed as the fit squashes the evaluation (``1 / (1 + e^(-score / SCALE))``; a proven
  result is 1 or 0);
- *fit*: ``train_eval.fit``'s logistic regression of the labels on the shape counts.

A result says who went on to win a game played at 2,000 nodes a move; the teacher says what a
search of 50,000 nodes thinks of this very position. This recipe is the one whose file won its
SPRTs (docs/BOTS.md, stops 57 and 58). Fits of more positions, of both colours to move, held
near their start, or a second round started from this file fitted the labels better and played
worse; a fit without the proven positions lost its winning shapes and played far worse.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from fit_order import fresh_core, play_game
from train_eval import SCALE, fit, no_clock, pool_map, sigmoid

from bots.engine.fast import FastSearch
from bots.engine.limits import MATE_BOUND, Limit
from bots.engine.shapes import RESULT_WEIGHTS, WEIGHTS, hand_order, load_weights, order_table
from protocol import GOMOKU

#: The self-play sets: (seed, games, whose keys order the games: "hand" or "fitted").
SETS = ((1, 160, "hand"), (5, 240, "fitted"))
#: Stones after which a self-play game stops (``fit_order``'s), and every how many plies a
#: position is kept.
MAX_MOVES, EVERY = 120, 2
#: The fit's seed (its batch order).
FIT_SEED = 1


def squash(score: int) -> float:
    """A search score as the side to move's chance, on the fit's scale (proven: 1 or 0)."""
    if abs(score) >= MATE_BOUND:
        return 1.0 if score > 0 else 0.0
    return sigmoid(score / SCALE)


def label(args: tuple[list[int], int, list[int], tuple]) -> tuple | None:
    """(own counts, other counts, the teacher's score) after ``cells``; None unless quiet."""
    cells, nodes, keys, weights = args
    core = fresh_core(keys, weights)
    for c in cells:
        core.play(c)
    s = core.side()
    if core.win_cells(s) or core.win_cells(1 - s):
        return None
    own, other = core.features(s), core.features(1 - s)
    return own, other, FastSearch(GOMOKU, Limit(nodes=nodes), core, clock=no_clock).run().score


def positions(sets: tuple, nodes: int, weights: tuple, jobs: int) -> list[list[int]]:
    """The kept positions of every set's games, in order, each as its list of cells."""
    keys = {"hand": hand_order(), "fitted": list(order_table())}
    work = [(seed, i, nodes, MAX_MOVES, EVERY, keys[order], weights)
            for seed, games, order in sets for i in range(games)]  # fmt: skip
    return [cells for rows in pool_map(play_game, work, jobs) for cells in rows]


def teach(sets: tuple, nodes: int, teacher: int, weights: tuple[list[int], list[int]],
          jobs: int, log=print) -> dict:  # fmt: skip
    """Self-play and teacher labels by ``weights``, one fit; the weights file's content."""
    started = time.perf_counter()
    cells = positions(sets, nodes, weights, jobs)
    log(f"{len(cells)} positions, {time.perf_counter() - started:.0f} s")
    keys = list(order_table())
    labelled = pool_map(label, [(c, teacher, keys, weights) for c in cells], jobs)
    scored = [row for row in labelled if row is not None]
    me, opp, loss = fit([(own, other, squash(score)) for own, other, score in scored], FIT_SEED)
    took = time.perf_counter() - started
    log(f"{len(scored)} quiet positions, log loss {loss:.4f}, {took:.0f} s")
    return {
        "version": 1,
        "made_by": "bench/teach_eval.py",
        "sets": [list(s) for s in sets],
        "nodes": nodes,
        "teacher": teacher,
        "every": EVERY,
        "positions": len(scored),
        "proven": sum(1 for *_, score in scored if abs(score) >= MATE_BOUND),
        "log_loss": round(loss, 4),
        "scale": SCALE,
        "features": "line shapes none..five, then combined codes none..five (shapes.py)",
        "me": me,
        "opp": opp,
    }


def main() -> None:
    """Teach and write the weights file."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--nodes", type=int, default=5000, help="self-play nodes a move")
    p.add_argument("--teacher", type=int, default=50_000, help="teacher nodes a position")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--start", type=Path, default=RESULT_WEIGHTS,
                   help="the weights the games and the teacher score by")  # fmt: skip
    p.add_argument("--out", type=Path, default=WEIGHTS)
    args = p.parse_args()
    data = teach(SETS, args.nodes, args.teacher, load_weights(args.start), args.jobs)
    data["start"] = args.start.name
    args.out.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
