"""The exact values ``analyse`` answers on small boards, against two oracles on random legal
positions: the solver behind ``mnk-solve`` for every cell's value, and a plain memoised
minimax (no pruning, no symmetry) for the values and their distances; plus the engine's lines."""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import cache

import pytest
from support.analysis import random_positions

from bots.engine.limits import Limit
from bots.engine.lines import analyse_position, engine_lines
from bots.engine.solver import Solver, exact_values, principal, solvable
from bots.sdk import MinimaxBot
from protocol.rules import Game, Move, Variant
from protocol.variants import make_variant

BOARDS = [(3, 3, 3), (4, 4, 3), (4, 4, 4)]
NAMES = {1: "win", 0: "draw", -1: "loss"}


def bits(variant: Variant, moves: list[Move]) -> tuple[int, int]:
    sides = [0, 0]
    for i, m in enumerate(moves):
        sides[i & 1] |= 1 << (m.y * variant.width + m.x)
    return sides[len(moves) & 1], sides[1 - (len(moves) & 1)]


def brute_force(variant: Variant) -> Callable[[list[Move], Move], tuple[int, int]]:
    """A memoised minimax over cells: (value, plies) of the side to move, best play as the
    protocol defines it (the shortest win, the longest loss, a draw fills the board)."""
    w, h, k = variant.width, variant.height, variant.k

    def wins(cells: tuple[int, ...], c: int) -> bool:
        x, y, side = c % w, c // w, cells[c]
        for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
            run = 1
            for sign in (1, -1):
                nx, ny = x + sign * dx, y + sign * dy
                while 0 <= nx < w and 0 <= ny < h and cells[ny * w + nx] == side:
                    run, nx, ny = run + 1, nx + sign * dx, ny + sign * dy
            if run >= k:
                return True
        return False

    @cache
    def solve(cells: tuple[int, ...], side: int) -> tuple[int, int]:
        best: tuple[int, int] | None = None
        for c in range(len(cells)):
            if cells[c]:
                continue
            after = (*cells[:c], side, *cells[c + 1 :])
            if wins(after, c):
                outcome = (1, 1)
            elif 0 not in after:
                outcome = (0, 1)
            else:
                v, p = solve(after, 3 - side)
                outcome = (-v, p + 1)
            if best is None or rank(outcome) > rank(best):
                best = outcome
        assert best is not None
        return best

    def rank(o: tuple[int, int]) -> tuple[int, int]:
        return (o[0], -o[1]) if o[0] > 0 else (o[0], o[1])

    def child(moves: list[Move], move: Move) -> tuple[int, int]:
        cells = [0] * (w * h)
        for i, m in enumerate(moves):
            cells[m.y * w + m.x] = 1 + (i & 1)
        side = 1 + (len(moves) & 1)
        c = move.y * w + move.x
        cells[c] = side
        after = tuple(cells)
        if wins(after, c):
            return 1, 1
        if 0 not in after:
            return 0, 1
        v, p = solve(after, 3 - side)
        return -v, p + 1

    return child


@pytest.mark.parametrize(
    ("w", "h", "k"), [(3, 3, 3), (4, 4, 3), pytest.param(4, 4, 4, marks=pytest.mark.slow)]
)
def test_every_cells_value_agrees_with_the_solver(w: int, h: int, k: int) -> None:
    variant = make_variant("mnk", {"width": w, "height": h, "k": k})
    solver = Solver(w, h, k)
    for moves in random_positions(variant, 25, seed=w * 100 + k):
        values = exact_values(variant, moves, time.perf_counter() + 30)
        me, opp = bits(variant, moves)
        empty = {Move(c % w, c // w) for c in range(w * h) if not (me | opp) >> c & 1}
        assert {v.move for v in values} == empty
        for v in values:
            mine = me | 1 << (v.move.y * w + v.move.x)
            won = any(line & mine == line for line in solver.lines)
            proven = 1 if won else -solver.value(opp, mine)
            assert v.value == NAMES[proven], (moves, v)
        assert [v.score for v in values] == sorted((v.score for v in values), reverse=True)


@pytest.mark.parametrize(("w", "h", "k", "least"), [(3, 3, 3, 0), (4, 4, 3, 6), (4, 4, 4, 7)])
def test_values_and_distances_agree_with_a_plain_minimax(
    w: int, h: int, k: int, least: int
) -> None:
    variant = make_variant("mnk", {"width": w, "height": h, "k": k})
    oracle = brute_force(variant)
    for moves in random_positions(variant, 20, seed=7 + w + k, least=least):
        for v in exact_values(variant, moves, time.perf_counter() + 30):
            value, plies = oracle(moves, v.move)
            assert (v.value, v.plies) == (NAMES[value], plies), (moves, v)


@pytest.mark.parametrize(("w", "h", "k"), BOARDS)
def test_principal_variations_keep_the_value_to_the_end(w: int, h: int, k: int) -> None:
    variant = make_variant("mnk", {"width": w, "height": h, "k": k})
    for moves in random_positions(variant, 8, seed=3 + k, least=4 if w == 4 else 0):
        best = exact_values(variant, moves, time.perf_counter() + 30)[0]
        pv = principal(variant, moves, best, time.perf_counter() + 30, 32)
        game = Game.from_moves(variant, [*moves, *pv])  # legal all along
        assert game.over and len(pv) == best.plies, (moves, best, pv)
        winner = None if best.value == "draw" else (len(moves) + (best.value == "loss")) % 2
        assert game.outcome is not None and game.outcome.winner == winner


def test_the_analysis_of_a_small_board_is_exact_and_of_a_big_one_the_engines() -> None:
    ttt = make_variant("tictactoe")
    found = analyse_position(ttt, [Move(1, 1), Move(0, 1)], 3, 1.0)
    assert found.values is not None and len(found.values) == 7
    assert [line.mate for line in found.lines] == [5, 5, 5]
    gomoku = make_variant("gomoku")
    assert not solvable(gomoku) and solvable(ttt)
    assert not solvable(make_variant("mnk", {"width": 5, "height": 5, "k": 4, "rule": "exact"}))
    lines = engine_lines(gomoku, [Move(7, 7), Move(8, 8)], 3, 0.6)
    assert len(lines) == 3 and len({line.move for line in lines}) == 3
    # a forced win is found and ranked first: black has an open four's worth of stones
    four = [Move(5, 7), Move(5, 0), Move(6, 7), Move(6, 0), Move(7, 7), Move(7, 0)]
    win = engine_lines(gomoku, four, 2, 0.5)
    assert win[0].mate is not None and win[0].mate > 0


def test_the_sdk_default_answers_one_line_and_minimax_at_full_strength() -> None:
    from bots.sdk import RandomBot

    ttt = make_variant("tictactoe")
    one = RandomBot(seed=1).analyse(ttt, [Move(1, 1)], 3, Limit(time_s=0.5))
    assert len(one.lines) == 1 and one.values is None and one.lines[0].pv == [one.lines[0].move]
    strong = MinimaxBot(level=1).analyse(ttt, [Move(1, 1), Move(0, 1)], 2, Limit(time_s=1.0))
    assert strong.lines[0].mate == 5 and strong.values is not None
    renju = make_variant("renju")
    lines = MinimaxBot().analyse(renju, [Move(7, 7), Move(8, 8)], 2, Limit(time_s=0.5)).lines
    game = Game.from_moves(renju, [Move(7, 7), Move(8, 8)])
    assert lines and all(game.is_legal(line.move) for line in lines)
