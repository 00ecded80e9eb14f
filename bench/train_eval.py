"""Fit the shape evaluation's weights to self-play results (``weights/shapes-v1.json``).

Run ``python bench/train_eval.py`` (the shipped file: the defaults; 963 s measured on the
shared, busy 2-core machine; ``--jobs`` processes play the games). From ``--seed`` it plays
``--games`` freestyle 15x15 games per round, each from a random opening of 3-5 stones near the
centre, both sides the fast core at ``--nodes`` nodes a move (deterministic: no clock is read;
the plain late-move reduction, not the shape-driven one, so LMR tuning does not move the
weights), and keeps every quiet position (no five threat for either side) with the side to
move's shape counts and the other side's (``Core.features``). Each position is labelled by
the game's result for the side to move (1 win, 0.5 draw, 0 loss) and a logistic regression
(plain Python: Adam over standardised features, a little L2) fits one weight per feature and
role; the weights, times ``SCALE``, are the evaluation's integers. Round 0 plays with the
hand-set start (``shapes.START_ME``), each later round with the weights fitted so far, and the
last fit uses every round's positions. The same seed and sizes give the same file on any
machine. The engine plays with a second fit made from this one, to a deeper search's scores
(``bench/teach_eval.py``, ``weights/shapes-v2.json``).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from multiprocessing import get_context
from pathlib import Path
from random import Random

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bots.engine.fast import FastSearch, load_core
from bots.engine.geometry import geometry
from bots.engine.limits import Limit
from bots.engine.shapes import NFEAT, RESULT_WEIGHTS, START_ME, START_OPP, tables
from protocol import GOMOKU

#: Evaluation units per unit of logit (the integers the core adds up).
SCALE = 300
#: Features left out of the fit (always weight 0): the "no shape" line and combined code.
SKIP = (0, 10)
SIZE = 15


def play_game(args: tuple[int, int, int, int, list[int], list[int]]) -> list[tuple]:
    """One self-play game: [(own counts, other counts, result for the side to move)]."""
    seed, index, nodes, max_moves, me, opp = args
    rnd = Random(seed * 1_000_003 + index)
    module = load_core()
    geo = geometry(SIZE, SIZE, 5)
    core = module.Core(SIZE, SIZE, 5, False, geo, 16, shape=tables(SIZE, SIZE, (False, False)))
    core.set_weights(me, opp)
    core.lmr_mode = 0  # the plain late-move reduction: the weights do not follow LMR tuning
    random_opening(rnd, core)
    seen: list[tuple[int, list[int], list[int]]] = []
    winner = -1
    while core.moves().__len__() < max_moves and not core.over():
        s = core.side()
        if not core.win_cells(s) and not core.win_cells(1 - s):
            seen.append((s, core.features(s), core.features(1 - s)))
        result = FastSearch(GOMOKU, Limit(nodes=nodes), core, clock=no_clock).run()
        if core.play(result.move.y * SIZE + result.move.x):
            winner = s
    return [(own, other, 0.5 if winner < 0 else float(winner == s)) for s, own, other in seen]


def random_opening(rnd: Random, core) -> None:
    """Play 3-5 random stones within two cells of the centre (the games' openings)."""
    centre = SIZE // 2
    for _ in range(rnd.randint(3, 5)):
        while True:
            c = (centre + rnd.randint(-2, 2)) * SIZE + centre + rnd.randint(-2, 2)
            if not core.at(c):
                break
        core.play(c)


def no_clock() -> float:
    """A clock that never moves: the games depend on the node counts alone."""
    return 0.0


def pool_map(fn, work: list, jobs: int) -> list:
    """``fn`` over ``work`` in order, in ``jobs`` processes when more than one."""
    if jobs <= 1:
        return [fn(w) for w in work]
    with get_context("fork").Pool(jobs) as pool:
        return pool.map(fn, work, chunksize=1)


def self_play(seed: int, first: int, games: int, nodes: int, max_moves: int,
              weights: tuple[list[int], list[int]], jobs: int) -> list[tuple]:  # fmt: skip
    """Every quiet position of ``games`` games (indices from ``first``), in game order."""
    work = [(seed, first + i, nodes, max_moves, *weights) for i in range(games)]
    return [row for rows in pool_map(play_game, work, jobs) for row in rows]


def _columns() -> list[tuple[int, int]]:
    """(role, feature) of every fitted weight: role 0 the side to move, 1 the other side."""
    return [(r, f) for r in (0, 1) for f in range(NFEAT) if f not in SKIP]


def fit(rows: list[tuple], seed: int, epochs: int = 30, l2: float = 1e-4) -> tuple:
    """Logistic regression of the result on the counts: (me, opp, log loss)."""
    cols = _columns()
    xs = [[(own if r == 0 else other)[f] for r, f in cols] for own, other, _ in rows]
    ys = [y for _, _, y in rows]
    m = len(cols)
    mean = [sum(x[j] for x in xs) / len(xs) for j in range(m)]
    std = [math.sqrt(sum((x[j] - mean[j]) ** 2 for x in xs) / len(xs)) or 1.0 for j in range(m)]
    zs = [[(x[j] - mean[j]) / std[j] for j in range(m)] for x in xs]
    w, b = [0.0] * m, 0.0
    mw, vw = [0.0] * m, [0.0] * m
    mb = vb = 0.0
    rnd = Random(seed)
    order = list(range(len(zs)))
    step, lr, batch = 0, 0.02, 256
    for _ in range(epochs):
        rnd.shuffle(order)
        for start in range(0, len(order), batch):
            idx = order[start : start + batch]
            gw, gb = [0.0] * m, 0.0
            for i in idx:
                z = zs[i]
                p = sigmoid(b + sum(wj * zj for wj, zj in zip(w, z, strict=True)))
                err = p - ys[i]
                gb += err
                for j in range(m):
                    gw[j] += err * z[j]
            step += 1
            k = 1.0 / len(idx)
            gb *= k
            mb, vb = 0.9 * mb + 0.1 * gb, 0.999 * vb + 0.001 * gb * gb
            b -= lr * (mb / (1 - 0.9**step)) / (math.sqrt(vb / (1 - 0.999**step)) + 1e-8)
            for j in range(m):
                g = gw[j] * k + l2 * w[j]
                mw[j] = 0.9 * mw[j] + 0.1 * g
                vw[j] = 0.999 * vw[j] + 0.001 * g * g
                w[j] -= (
                    lr * (mw[j] / (1 - 0.9**step)) / (math.sqrt(vw[j] / (1 - 0.999**step)) + 1e-8)
                )
    loss = -sum(
        y * math.log(max(p, 1e-12)) + (1 - y) * math.log(max(1 - p, 1e-12))
        for y, p in (
            (ys[i], sigmoid(b + sum(wj * zj for wj, zj in zip(w, zs[i], strict=True))))
            for i in range(len(zs))
        )
    ) / len(zs)
    me, opp = [0] * NFEAT, [0] * NFEAT
    for j, (r, f) in enumerate(cols):  # back to raw counts (the centring goes into the bias)
        (me if r == 0 else opp)[f] = round(SCALE * w[j] / std[j])
    return me, opp, loss


def sigmoid(x: float) -> float:
    """The logistic function (0 far below: no overflow), the fit's squash of a logit."""
    if x < -40:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))


def train(seed: int, games: int, nodes: int, rounds: int, max_moves: int, jobs: int,
          log=print) -> dict:  # fmt: skip
    """Self-play and fit ``rounds`` times; the weights file's content."""
    weights: tuple[list[int], list[int]] = (list(START_ME), list(START_OPP))
    rows: list[tuple] = []
    loss = 0.0
    started = time.perf_counter()
    for r in range(rounds):
        rows += self_play(seed, r * games, games, nodes, max_moves, weights, jobs)
        me, opp, loss = fit(rows, seed + r)
        weights = (me, opp)
        log(f"round {r}: {len(rows)} positions, log loss {loss:.4f}, "
            f"{time.perf_counter() - started:.0f} s")  # fmt: skip
    return {
        "version": 1,
        "made_by": "bench/train_eval.py",
        "seed": seed,
        "games_per_round": games,
        "nodes": nodes,
        "rounds": rounds,
        "max_moves": max_moves,
        "positions": len(rows),
        "log_loss": round(loss, 4),
        "scale": SCALE,
        "features": "line shapes none..five, then combined codes none..five (shapes.py)",
        "me": weights[0],
        "opp": weights[1],
    }


def main() -> None:
    """Train and write the weights file."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--games", type=int, default=400, help="self-play games per round")
    p.add_argument("--nodes", type=int, default=2000, help="search nodes per move")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--max-moves", type=int, default=150, help="stones at which a game is drawn")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--out", type=Path, default=RESULT_WEIGHTS)
    args = p.parse_args()
    started = time.perf_counter()
    data = train(args.seed, args.games, args.nodes, args.rounds, args.max_moves, args.jobs)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {args.out} in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
