"""Fit the move-ordering keys (``bots/engine/weights/order-v1.json``) to a deeper search's choices.

Run ``python bench/fit_order.py`` (defaults: seed 1, 160 self-play games, the teacher at
100,000 nodes; ``--jobs`` processes). It plays freestyle 15x15 games from random openings of
3-5 stones (``train_eval.random_opening``), the fast core at ``--nodes`` nodes a move, keeps
every ``--every``-th position with two or more candidates, and asks the *teacher* (the same
core, ``--teacher`` nodes, on a fresh board, every candidate searched at the root: no threat
filter, so no root beam) for its move; games and teacher order by ``--start`` (the hand-set
keys unless given) and score by ``--weights`` (``shapes-v1.json``, under which the shipped keys
were fitted). Everything is node-bound, no clock is read, so a seed gives the same file
on any machine. The positions and teacher moves are kept in ``--data``
(made once, reused).

The ordering key of a candidate is linear in its features: its combined code for the side to
move and for the other side, and its line shapes for each (``bots.engine.shapes``,
``ORDER_*``). A conditional logit (softmax over each position's candidates, plain Python Adam)
fits those weights as the hand-set keys times a fitted scale plus a correction held near zero
(L2), so codes the games rarely show keep their hand-set order; the keys are then scaled to
spread as the hand-set ones do, so history weighs against them as before. The last fifth of
the games is held out: the script prints, for the hand-set keys and the fitted ones, how often
the teacher's move is first, in the first 3, in the beam (``core.BEAM``), and its mean rank.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from array import array
from pathlib import Path
from random import Random

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from train_eval import SIZE, no_clock, pool_map, random_opening

from bots.engine.fast import FastSearch, load_core
from bots.engine.geometry import geometry
from bots.engine.limits import Limit
from bots.engine.shapes import (
    C_FIVE,
    OPP_CODE_AT,
    OPP_LINE_AT,
    ORDER_FILE,
    OWN_CODE_AT,
    OWN_LINE_AT,
    RESULT_WEIGHTS,
    hand_order,
    load_weights,
    order_table,
    tables,
)
from protocol import GOMOKU

#: Features never seen among candidates (a five: the search wins or blocks before ordering)
#: and the "none" entries (the zero of each part): kept at their hand-set key.
FIXED = (OWN_CODE_AT, OWN_CODE_AT + C_FIVE, OPP_CODE_AT, OPP_CODE_AT + C_FIVE, OWN_LINE_AT,
         OPP_LINE_AT)  # fmt: skip
#: The beam of an inner node (a cdef constant of the compiled core: not importable).
BEAM = 18  # bots.engine.core.BEAM
DEFAULT_DATA = Path(__file__).with_name("out") / "order_data.json"


def fresh_core(keys: list[int], weights: tuple[list[int], list[int]]):
    """A fresh freestyle 15x15 core ordering by ``keys`` (the run's start, never the file it
    writes) and scoring by ``weights`` (side to move, other side), with its own small
    transposition table."""
    shape = tables(SIZE, SIZE, (False, False), (tuple(weights[0]), tuple(weights[1])))
    shape = (*shape[:5], array("i", keys), *shape[6:])
    return load_core().Core(SIZE, SIZE, 5, False, geometry(SIZE, SIZE, 5), 18, shape=shape)


def play_game(args: tuple[int, int, int, int, int, list[int], tuple]) -> list[list[int]]:
    """One self-play game's sampled positions, each as its list of cells played."""
    seed, index, nodes, max_moves, every, keys, weights = args
    rnd = Random(seed * 1_000_003 + index)
    core = fresh_core(keys, weights)
    random_opening(rnd, core)
    kept: list[list[int]] = []
    while len(core.moves()) < max_moves and not core.over():
        if len(core.moves()) % every == 0 and len(core.candidates(0)) >= 2:
            kept.append(core.moves())
        result = FastSearch(GOMOKU, Limit(nodes=nodes), core, clock=no_clock).run()
        core.play(result.move.y * SIZE + result.move.x)
    return kept


def teach(args: tuple[list[int], int, list[int], tuple]) -> int:
    """The teacher's move (a cell) in the position after ``cells``."""
    cells, nodes, keys, weights = args
    core = fresh_core(keys, weights)
    for c in cells:
        core.play(c)
    result = FastSearch(GOMOKU, Limit(nodes=nodes, threats=False), core, clock=no_clock).run()
    return result.move.y * SIZE + result.move.x


def make_data(seed: int, games: int, nodes: int, teacher: int, every: int, jobs: int,
              keys: list[int], weights: tuple, log=print) -> list[dict]:  # fmt: skip
    """Self-play positions with their teacher moves (both ordering by ``keys`` and scoring
    by ``weights``): [{"game", "cells", "best"}]."""
    started = time.perf_counter()
    work = [(seed, i, nodes, 120, every, keys, weights) for i in range(games)]
    per_game = pool_map(play_game, work, jobs)
    log(f"{sum(map(len, per_game))} positions from {games} games, "
        f"{time.perf_counter() - started:.0f} s")  # fmt: skip
    flat = [(g, cells) for g, rows in enumerate(per_game) for cells in rows]
    best = pool_map(teach, [(cells, teacher, keys, weights) for _, cells in flat], jobs)
    log(f"teacher done, {time.perf_counter() - started:.0f} s")
    return [
        {"game": g, "cells": cells, "best": b} for (g, cells), b in zip(flat, best, strict=True)
    ]


def features(rows: list[dict]) -> list[tuple[list[int], list[list[int]], int]]:
    """Per position: (candidate cells in the core's order, each one's key indices, the index
    of the teacher's move), positions whose teacher move is not a candidate left out."""
    out = []
    hand, weights = hand_order(), load_weights()
    for row in rows:
        core = fresh_core(hand, weights)
        for c in row["cells"]:
            core.play(c)
        s = core.side()
        cands = core.candidates(0)
        if row["best"] not in cands:
            continue
        idx = [
            [OWN_CODE_AT + core.cell_code(s, c), OPP_CODE_AT + core.cell_code(1 - s, c)]
            + [OWN_LINE_AT + core.line_shape(s, c, d) for d in range(4)]
            + [OPP_LINE_AT + core.line_shape(1 - s, c, d) for d in range(4)]
            for c in cands
        ]
        if rank(cands, idx, hand) != cands:
            raise AssertionError("the features do not give the core's own order")
        out.append((cands, idx, cands.index(row["best"])))
    return out


def rank(cands: list[int], idx: list[list[int]], keys) -> list[int]:
    """The candidates in the core's order under ``keys``: key descending, then cell."""
    scored = sorted(range(len(cands)), key=lambda i: (-sum(keys[j] for j in idx[i]), cands[i]))
    return [cands[i] for i in scored]


def fit(data: list, hand: list[int], epochs: int = 300, l2: float = 0.01) -> list[int]:
    """The conditional logit's keys: hand keys x a scale, plus corrections (module doc)."""
    n = len(hand)
    hs = [[sum(hand[j] for j in ix) / 100 for ix in idx] for _, idx, _ in data]
    w = [0.0] * (n + 1)  # corrections, then the hand keys' scale
    w[n] = 1.0
    m, v = [0.0] * (n + 1), [0.0] * (n + 1)
    lr = 0.05
    for step in range(1, epochs + 1):
        g = [0.0] * (n + 1)
        for (_, idx, best), h in zip(data, hs, strict=True):
            z = [w[n] * hv + sum(w[j] for j in ix) for ix, hv in zip(idx, h, strict=True)]
            top = max(z)
            e = [math.exp(zi - top) for zi in z]
            total = sum(e)
            for i, (ix, hv) in enumerate(zip(idx, h, strict=True)):
                p = e[i] / total - (i == best)
                g[n] += p * hv
                for j in ix:
                    g[j] += p
        for j in range(n + 1):
            gj = g[j] / len(data) + (l2 * w[j] if j < n else 0.0)
            if j in FIXED:
                continue
            m[j] = 0.9 * m[j] + 0.1 * gj
            v[j] = 0.999 * v[j] + 0.001 * gj * gj
            w[j] -= lr * (m[j] / (1 - 0.9**step)) / (math.sqrt(v[j] / (1 - 0.999**step)) + 1e-8)
    logit = [w[n] * hand[j] / 100 + w[j] for j in range(n)]
    k = _spread(data, hand) / _spread(data, logit)  # history weighs against these as before
    return [hand[j] if j in FIXED else round(k * logit[j]) for j in range(n)]


def _spread(data: list, keys: list) -> float:
    """The mean spread (standard deviation) of a position's candidate keys under ``keys``."""
    total = 0.0
    for _, idx, _ in data:
        ks = [sum(keys[j] for j in ix) for ix in idx]
        mean = sum(ks) / len(ks)
        total += math.sqrt(sum((x - mean) ** 2 for x in ks) / len(ks))
    return total / len(data)


def report(name: str, data: list, keys: list[int]) -> str:
    """How the teacher's move ranks under ``keys``: first, in the first 3, in the beam."""
    ranks = [rank(cands, idx, keys).index(cands[best]) for cands, idx, best in data]
    k = len(ranks)
    return (f"{name:<10}{k:>6}{sum(r == 0 for r in ranks) / k:>8.1%}"
            f"{sum(r < 3 for r in ranks) / k:>8.1%}{sum(r < BEAM for r in ranks) / k:>8.1%}"
            f"{sum(ranks) / k + 1:>8.2f}")  # fmt: skip


def main() -> None:
    """Make (or read) the data, fit, report on the held-out games, write the keys."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--games", type=int, default=160)
    p.add_argument("--nodes", type=int, default=5000, help="self-play nodes a move")
    p.add_argument("--teacher", type=int, default=100_000, help="teacher nodes a position")
    p.add_argument("--every", type=int, default=2, help="keep every N-th position of a game")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--data", type=Path, default=DEFAULT_DATA)
    p.add_argument("--out", type=Path, default=ORDER_FILE)
    p.add_argument("--data-only", action="store_true")
    p.add_argument("--start", type=Path, help="the keys the games and the teacher order by "
                   "(an order file; default: the hand-set keys)")  # fmt: skip
    p.add_argument("--weights", type=Path, default=RESULT_WEIGHTS,
                   help="the evaluation the games and the teacher score by (the shipped keys "
                   "were fitted under shapes-v1, the evaluation fitted to results)")  # fmt: skip
    args = p.parse_args()
    if not args.data.exists():
        start = hand_order() if args.start is None else list(order_table(args.start))
        rows = make_data(args.seed, args.games, args.nodes, args.teacher, args.every, args.jobs,
                         start, load_weights(args.weights))  # fmt: skip
        args.data.parent.mkdir(parents=True, exist_ok=True)
        args.data.write_text(json.dumps({"seed": args.seed, "games": args.games,
                                         "nodes": args.nodes, "teacher": args.teacher,
                                         "every": args.every, "start": start,
                                         "rows": rows}) + "\n")  # fmt: skip
    if args.data_only:
        return
    made = json.loads(args.data.read_text())
    rows = made["rows"]
    held = int(0.8 * made["games"])
    train = features([r for r in rows if r["game"] < held])
    test = features([r for r in rows if r["game"] >= held])
    hand = hand_order()
    started = time.perf_counter()
    keys = fit(train, hand)
    print(f"fitted on {len(train)} positions in {time.perf_counter() - started:.0f} s")
    print(f"{'keys':<10}{'pos':>6}{'first':>8}{'top 3':>8}{'beam':>8}{'rank':>8}")
    for name, data in (("train", train), ("held out", test)):
        print(report("hand", data, hand), name)
        print(report("fitted", data, keys), name)
    kept = {k: made[k] for k in ("seed", "games", "nodes", "teacher", "start")}
    out = {"version": 1, "made_by": "bench/fit_order.py", **kept, "positions": len(train)}
    args.out.write_text(json.dumps({**out, "keys": keys}, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
