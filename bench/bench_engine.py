"""Benchmarks: the fast core vs the v1 engine, a plain alpha-beta baseline, solver, tactics.

Run ``python bench/bench_engine.py`` (about two minutes). The first table is nodes/s and time to
depth of the fast core (compiled, its plain-Python run, and compiled with the window evaluation
it had before the shape tables: ``windows``) against the v1 engine (the engine before the fast
core, frozen in ``bench/v1_engine.py``) on fixed middle-game positions. The
baseline is written here: negamax alpha-beta over the same candidate moves and the same static
evaluation, but with no transposition table, no move ordering, no threat logic and no symmetry.
Every loop is bounded in count and time; a baseline that does not finish within its cap is
reported as "> cap".
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from v1_engine import SMALL_BOARD, EvalBoard, Searcher, ThreatSearch

from bots.engine.fast import fast_search, load_core
from bots.engine.limits import WIN, Limit, SearchResult, is_mate
from bots.engine.search import search
from bots.engine.solver import SolveTimeout, solve
from protocol import GOMOKU, TICTACTOE, Move, Variant
from protocol.variants import make_variant


class _Cap(Exception):
    pass


class Baseline:
    """Plain negamax alpha-beta: candidates in index order, no TT, no ordering, no threats."""

    def __init__(self, variant: Variant, moves: list[Move], cap_s: float) -> None:
        self.board = EvalBoard(variant, moves)
        self.small = variant.cells <= SMALL_BOARD
        self.deadline = time.perf_counter() + cap_s
        self.nodes = 0

    def _moves(self) -> list[int]:
        b = self.board
        if self.small:
            return [c for c, v in enumerate(b.cells) if v == 0]
        return b.candidates()

    def negamax(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        """Score for the side to move (win detected only when a line is completed)."""
        self.nodes += 1
        if self.nodes & 127 == 0 and time.perf_counter() > self.deadline:
            raise _Cap
        b = self.board
        if b.full:
            return 0
        if depth == 0:
            return b.evaluate(b.to_move)
        best = -WIN - 1
        for m in self._moves():
            won = b.play(m)
            score = WIN - ply - 1 if won else -self.negamax(depth - 1, -beta, -alpha, ply + 1)
            b.undo()
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return best

    def best_move(self, depth: int) -> tuple[int, int]:
        """(cell, score) of a full-width search to ``depth``."""
        b = self.board
        best, best_cell = -WIN - 1, -1
        for m in self._moves():
            won = b.play(m)
            score = WIN - 1 if won else -self.negamax(depth - 1, -WIN - 1, -best, 1)
            b.undo()
            if score > best:
                best, best_cell = score, m
        return best_cell, best

    def iterate(self, max_depth: int) -> tuple[int, int, int]:
        """Iterative deepening until the cap: (cell, score, depth completed)."""
        cell, score, done = self._moves()[0], 0, 0
        for d in range(1, max_depth + 1):
            try:
                cell, score = self.best_move(d)
            except _Cap:
                break
            done = d
        return cell, score, done


def _fmt(x: float) -> str:
    return f"{x:8.3f}"


#: Fixed middle-game positions for the core table (15x15 freestyle, side to move varies).
MIDDLE_GAMES = {
    "opening 7 stones": [(7, 7), (8, 8), (8, 7), (6, 7), (7, 8), (9, 6), (6, 9)],
    "middle 16 stones": [(7, 7), (8, 8), (8, 7), (6, 7), (7, 8), (9, 6), (6, 9), (7, 6),
                         (9, 8), (6, 8), (8, 6), (5, 9), (9, 7), (10, 7), (6, 5), (7, 10)],
    "middle 22 stones": [(10, 4), (8, 3), (4, 7), (11, 4), (8, 9), (6, 4), (4, 6), (6, 3),
                         (11, 10), (6, 5), (10, 7), (7, 6), (8, 10), (9, 9), (10, 8), (11, 7),
                         (9, 7), (7, 7), (5, 5), (7, 3), (11, 8), (8, 6)],
}  # fmt: skip


def _timed(run: Callable[[], SearchResult]) -> tuple[float, SearchResult]:
    t = time.perf_counter()
    out = run()
    return time.perf_counter() - t, out


def bench_core(seconds: float, depth: int) -> list[str]:
    """nodes/s at a fixed time and the time to a fixed depth: fast core vs the v1 engine."""
    compiled, pure = load_core(pure=False), load_core(pure=True)
    rows = [
        f"## fast core vs v1 engine (no threat search; compiled core: {compiled.compiled()})",
        f"{'position':<18}{'engine':<10}{'kn/s @' + str(seconds) + 's':>12}{'depth':>6}"
        f"{'s to d' + str(depth):>10}{'nodes':>9}",
    ]
    ratios = []
    for name, stones in MIDDLE_GAMES.items():
        moves = [Move(*xy) for xy in stones]
        rates = {}
        engines = {
            "v1": lambda lim, m=moves: Searcher(GOMOKU, m, lim).run(),
            "pure": lambda lim, m=moves: fast_search(GOMOKU, m, lim, pure, keep=False),
            "windows": lambda lim, m=moves: _windows(
                lambda: fast_search(GOMOKU, m, lim, compiled, keep=False)
            ),
            "compiled": lambda lim, m=moves: fast_search(GOMOKU, m, lim, compiled, keep=False),
        }
        for label, run in engines.items():
            dt, r = _timed(lambda run=run: run(Limit(time_s=seconds, threats=False)))
            rates[label] = r.nodes / dt
            cap = Limit(depth=depth, time_s=20.0, threats=False)
            dt2, r2 = _timed(lambda run=run, cap=cap: run(cap))
            reached = f"{dt2:10.3f}" if r2.depth >= depth else f"{'> 20':>10}"
            rows.append(
                f"{name:<18}{label:<10}{rates[label] / 1e3:>12.1f}{r.depth:>6}"
                f"{reached}{r2.nodes:>9}"
            )
        ratios.append(rates["compiled"] / rates["v1"])
        rows.append(f"{'':<18}compiled / v1 nodes/s: {ratios[-1]:.1f}x")
    rows.append(f"geometric mean speed-up: {_geomean(ratios):.1f}x")
    return rows


def _windows(run: Callable[[], SearchResult]) -> SearchResult:
    """``run`` with the compiled core's window evaluation (the one before the shape tables)."""
    before = os.environ.get("MNK_ENGINE_EVAL")
    os.environ["MNK_ENGINE_EVAL"] = "windows"
    try:
        return run()
    finally:
        if before is None:
            del os.environ["MNK_ENGINE_EVAL"]
        else:
            os.environ["MNK_ENGINE_EVAL"] = before


def _geomean(xs: list[float]) -> float:
    prod = 1.0
    for x in xs:
        prod *= x
    return prod ** (1 / len(xs))


def bench_depth(cap: float) -> list[str]:
    """Time and nodes to reach depth N, engine vs baseline (both stop at the same depth)."""
    rows = ["## time to depth N (threat search off for ours; same eval and candidates)"]
    rows.append(
        f"{'position':<22}{'N':>3} {'ours s':>9}{'nodes':>9}{'kn/s':>7} "
        f"{'base s':>9}{'nodes':>9}{'kn/s':>7}"
    )
    mid = [Move(7, 7), Move(8, 8), Move(8, 7), Move(6, 7), Move(7, 8), Move(9, 6), Move(6, 9)]
    cases = [
        ("tictactoe empty", TICTACTOE, [], 9),
        ("gomoku 1 stone", GOMOKU, [Move(7, 7)], 3),
        ("gomoku middle game", GOMOKU, mid, 3),
        ("gomoku middle game", GOMOKU, mid, 4),
    ]
    for name, variant, moves, depth in cases:
        s = Searcher(variant, moves, Limit(depth=depth, time_s=cap, threats=False))
        t = time.perf_counter()
        r = s.run()
        ours = time.perf_counter() - t
        ours_txt = _fmt(ours) if r.depth >= depth else f"> {cap:5.1f}"
        base = Baseline(variant, moves, cap)
        t = time.perf_counter()
        _, _, done = base.iterate(depth)
        bt = time.perf_counter() - t
        base_txt = _fmt(bt) if done >= depth else f"> {cap:5.1f}"
        ours_rate = s.nodes / max(ours, 1e-9) / 1e3
        base_rate = base.nodes / max(bt, 1e-9) / 1e3
        rows.append(
            f"{name:<22}{depth:>3} {ours_txt:>9}{s.nodes:>9}{ours_rate:>7.1f} "
            f"{base_txt:>9}{base.nodes:>9}{base_rate:>7.1f}"
        )
    return rows


def _baseline_solve(w: int, h: int, k: int, cap: float) -> tuple[str, int, float]:
    variant = make_variant("mnk", {"width": w, "height": h, "k": k})
    base = Baseline(variant, [], cap)
    t = time.perf_counter()
    try:
        _, score = base.best_move(w * h)
    except _Cap:
        return f"> {cap:.0f} s", base.nodes, time.perf_counter() - t
    value = "win" if score > 0 else "loss" if score < 0 else "draw"
    return value, base.nodes, time.perf_counter() - t


def bench_solver(cap: float) -> list[str]:
    """mnk-solve cases against the baseline searching to the end of the game (no TT)."""
    rows = ["## solver (value for the first player)"]
    rows.append(
        f"{'game':<10}{'value':>6}{'ours s':>9}{'nodes':>10}   {'baseline':>10}"
        f"{'s':>9}{'nodes':>10}"
    )
    for w, h, k in ((3, 3, 3), (4, 4, 3), (4, 4, 4), (5, 5, 4)):
        try:
            sol = solve(w, h, k, time_limit=120)
            value = {1: "win", 0: "draw", -1: "loss"}[sol.value]
            ours = f"{sol.seconds:9.3f}{sol.nodes:>10}"
        except SolveTimeout:
            value, ours = "?", f"{'> 120':>9}{'':>10}"
        bvalue, bnodes, bt = _baseline_solve(w, h, k, cap)
        rows.append(f"{w}x{h} k={k:<4}{value:>6}{ours}   {bvalue:>10}{bt:9.3f}{bnodes:>10}")
    return rows


def _suite() -> list[tuple[str, Variant, list[Move], set[Move] | None]]:
    """(name, variant, moves, accepted moves or None = must start a forced win)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    import test_tactics as tt

    p = tt.position
    return [
        ("win in 1", GOMOKU, p([(5, 7), (6, 7), (7, 7), (8, 7), (0, 0), (2, 0)],
                               [(5, 9), (6, 9), (7, 9), (8, 9), (12, 12), (12, 10)]),
         {Move(4, 7), Move(9, 7)}),
        ("block four", GOMOKU, p([(5, 8), (3, 3), (11, 3), (3, 11)],
                                 [(6, 8), (7, 8), (8, 8), (9, 8)]), {Move(10, 8)}),
        ("block split four", GOMOKU, p([(7, 7), (3, 3), (11, 3), (3, 11)],
                                       [(5, 9), (6, 9), (8, 9), (9, 9)]), {Move(7, 9)}),
        ("block open three", GOMOKU, p([(3, 3), (11, 11), (3, 11)], [(6, 7), (7, 7), (8, 7)]),
         {Move(5, 7), Move(9, 7)}),
        ("vcf double four", GOMOKU, p([(4, 7), (5, 7), (6, 7), (7, 4), (7, 5), (7, 6)],
                                      [(3, 7), (7, 3), *tt.FAR_WHITE[:4]]), None),
        ("vcf 3 fours", GOMOKU, p(tt.VCF3_BLACK, tt.VCF3_WHITE), None),
        *[(f"vcf generated {i}", GOMOKU, [Move(*xy) for xy in st], None)
          for i, st in enumerate(tt.GENERATED_VCF)],
        *[(f"vcf ladder {i}", GOMOKU, [Move(*xy) for xy in st], None)
          for i, st in enumerate(tt.LADDER_VCF)],
        ("exact: overline", tt.GOMOKU_STANDARD,
         p([(3, 7), (4, 7), (5, 7), (6, 7), (8, 7), (0, 0)],
           [(3, 10), (5, 10), (7, 10), (9, 10), (11, 12), (1, 13)]), {Move(2, 7)}),
    ]  # fmt: skip


def _forced_win_after(variant: Variant, moves: list[Move], move: Move) -> bool:
    board = EvalBoard(variant, moves)
    if board.play(move.y * variant.width + move.x):
        return True
    ts = ThreatSearch(board, time.perf_counter() + 3.0, 200_000)
    try:
        return ts._defend(13, True)
    except Exception:
        return False


def bench_tactics(time_s: float) -> list[str]:
    """Tactics suite pass counts at the same per-move time limit."""
    suite = _suite()
    ours = base = 0
    rows = [f"## tactics suite at {time_s} s per position (win puzzles: must prove the win)"]
    for name, variant, moves, accepted in suite:
        r = search(variant, moves, Limit(time_s=time_s))
        cell, bscore, _ = Baseline(variant, moves, time_s).iterate(20)
        bmove = Move(cell % variant.width, cell // variant.width)
        ok = []
        for m, score in ((r.move, r.score), (bmove, bscore)):
            if accepted:
                ok.append(m in accepted)
            else:  # a win puzzle: the search must *prove* the win and play a winning move
                ok.append(is_mate(score) and score > 0 and _forced_win_after(variant, moves, m))
        ours += ok[0]
        base += ok[1]
        rows.append(
            f"  {name:<22} ours {'pass' if ok[0] else 'FAIL'} ({r.source})"
            f"  baseline {'pass' if ok[1] else 'FAIL'}"
        )
    rows.append(f"{'total':<24} ours {ours}/{len(suite)}   baseline {base}/{len(suite)}")
    return rows


def main() -> None:
    """Print the three tables."""
    started = time.perf_counter()
    tables = (
        bench_core(seconds=1.0, depth=5),
        bench_depth(cap=15.0),
        bench_solver(cap=20.0),
        bench_tactics(time_s=0.3),
    )
    for rows in tables:
        print("\n".join(rows))
        print()
    print(f"total {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
