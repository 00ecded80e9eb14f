"""Engine behaviour on tic-tac-toe and small boards, checked against an independent oracle."""

from __future__ import annotations

import random
from functools import cache

import pytest

from bots.engine import WIN, Engine, Limit, choose_move, choose_move_with_search, search
from bots.engine.fast import core_for, load_core
from protocol import GOMOKU, TICTACTOE, Game, Move, make_variant

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def _winner(cells: tuple[int, ...]) -> int:
    for a, b, c in LINES:
        if cells[a] and cells[a] == cells[b] == cells[c]:
            return cells[a]
    return 0


@cache
def oracle(cells: tuple[int, ...]) -> int:
    """Plain minimax with mate distance: 10 - plies for a win of the side to move, 0 draw."""
    if _winner(cells):
        return -(10 - 0)  # the side that just moved won: a loss now
    empty = [i for i, c in enumerate(cells) if not c]
    if not empty:
        return 0
    me = 1 if len(empty) % 2 == 1 else 2
    best = -100
    for i in empty:
        child = (*cells[:i], me, *cells[i + 1 :])
        v = -oracle(child)
        v = v - 1 if v > 0 else v + 1 if v < 0 else 0  # one ply further away
        best = max(best, v)
    return best


def optimal_cells(cells: tuple[int, ...]) -> set[int]:
    """Every move that keeps the oracle's best value (fastest win, slowest loss)."""
    empty = [i for i, c in enumerate(cells) if not c]
    me = 1 if len(empty) % 2 == 1 else 2
    values = {}
    for i in empty:
        v = -oracle((*cells[:i], me, *cells[i + 1 :]))
        values[i] = v - 1 if v > 0 else v + 1 if v < 0 else 0
    best = max(values.values())
    return {i for i, v in values.items() if v == best}


def _cells(moves: list[Move]) -> tuple[int, ...]:
    cells = [0] * 9
    for i, m in enumerate(moves):
        cells[m.y * 3 + m.x] = 1 + (i & 1)
    return tuple(cells)


@cache
def _engine_choices(moves: tuple[Move, ...]) -> tuple[Move, ...]:
    """Every move level 10 may pick here (its exact ties); deterministic search, no rng."""
    _, result = choose_move_with_search(TICTACTOE, list(moves), level=10)
    assert result is not None and result.solved
    return tuple(result.best_moves)


@pytest.mark.parametrize("engine_seat", [0, 1])
def test_level10_never_loses_tictactoe_against_every_reply(engine_seat: int) -> None:
    """Walk the whole game tree: every opponent reply, every tie-broken engine choice."""
    seen: set[tuple[Move, ...]] = set()
    checked = 0

    def walk(game: Game) -> None:
        nonlocal checked
        key = tuple(game.moves)
        if key in seen:
            return
        seen.add(key)
        if game.over:
            assert game.outcome is not None
            assert game.outcome.winner in (None, engine_seat), game.moves
            return
        if game.ply % 2 == engine_seat:
            choices = _engine_choices(key)
            cells = _cells(game.moves)
            assert {m.y * 3 + m.x for m in choices} == optimal_cells(cells), game.moves
            checked += 1
            replies = list(choices)
        else:
            replies = game.legal_moves()
        for move in replies:
            child = Game.from_moves(TICTACTOE, [*game.moves, move])
            walk(child)

    walk(Game(TICTACTOE))
    assert checked > 50


def test_takes_immediate_win() -> None:
    """X to move with X X . on the top row and an O threat: win now, don't block."""
    moves = [Move(0, 0), Move(0, 1), Move(1, 0), Move(1, 1)]
    assert choose_move(TICTACTOE, moves, level=10) == Move(2, 0)
    result = search(TICTACTOE, moves, Limit())
    assert result.score == WIN - 1


def test_prefers_fastest_win() -> None:
    """On 4x4 k=3 X can win in several ways; the engine takes the one-move win."""
    variant = make_variant("mnk", {"width": 4, "height": 4, "k": 3})
    # X: (1,1) (2,1); O: (0,0) (3,3).  X wins now at (0,1)? no: (0,1) (1,1) (2,1) -> yes.
    moves = [Move(1, 1), Move(0, 0), Move(2, 1), Move(3, 3)]
    result = search(variant, moves, Limit(ties=True))
    assert result.score == WIN - 1
    assert set(result.best_moves) == {Move(0, 1), Move(3, 1)}


def test_prefers_fastest_win_over_slower_forced_win() -> None:
    """A position with a win in 3 plies and none in 1: the score says exactly 3 plies."""
    # X at corners (0,0),(2,2); O at (1,0),(0,2)?  Use the classic fork: X (0,0),(2,2), O (1,1)...
    moves = [Move(0, 0), Move(1, 0), Move(1, 1), Move(2, 2)]  # X centre, O must now defend
    cells = _cells(moves)
    result = search(TICTACTOE, moves, Limit(ties=True))
    assert {m.y * 3 + m.x for m in result.best_moves} == optimal_cells(cells)
    assert result.score == WIN - 3  # X forks: win on its second move from here


def test_random_ties_are_all_optimal_and_vary() -> None:
    """With an rng, level 10 picks among true ties: several different first moves appear."""
    rng = random.Random(7)
    firsts = {choose_move(TICTACTOE, [], level=10, rng=rng) for _ in range(30)}
    assert len(firsts) > 1
    assert {m.y * 3 + m.x for m in firsts} <= optimal_cells((0,) * 9)


def test_engine_object_and_levels_return_legal_moves() -> None:
    """Every level returns a legal move on tic-tac-toe and gomoku."""
    rng = random.Random(3)
    for level in range(1, 11):
        eng = Engine(level, rng)
        for variant, moves in (
            (TICTACTOE, [Move(1, 1)]),
            (GOMOKU, [Move(7, 7), Move(8, 8), Move(8, 7)]),
        ):
            move = eng.choose_move(variant, moves, time_budget_s=0.1)
            assert Game.from_moves(variant, moves).is_legal(move)


def test_search_rejects_finished_game() -> None:
    """A won position has no move to search."""
    moves = [Move(0, 0), Move(0, 1), Move(1, 0), Move(1, 1), Move(2, 0)]
    with pytest.raises(ValueError):
        search(TICTACTOE, moves, Limit())


@pytest.mark.pins_core
@pytest.mark.parametrize("pure", [True, False], ids=["pure", "compiled"])
def test_board_undo_restores_everything(pure: bool) -> None:
    """Incremental counts, score, threats and key come back exactly after undo."""
    module = load_core(pure)
    core = core_for(GOMOKU, [], module, keep=False)
    rng = random.Random(5)
    for _ in range(40):
        core.play(rng.choice([c for c in range(GOMOKU.cells) if not core.at(c)]))
    snap = core.state()
    for _ in range(10):
        core.play(rng.choice([c for c in range(GOMOKU.cells) if not core.at(c)]))
    for _ in range(10):
        core.undo()
    assert core.state() == snap
    moves = [Move(c % 15, c // 15) for c in core.moves()]
    assert core_for(GOMOKU, moves, module, keep=False).state() == snap


def test_small_boards_play_from_the_one_exact_search() -> None:
    """A search that reaches the end of the game plays the solver's answer (same ties, same
    nodes: it ran); a depth bound short of it, or the exact-k rule, the full-width search."""
    import time

    from bots.engine.solver import exact_search

    variant = make_variant("mnk", {"width": 4, "height": 4, "k": 3})
    moves = [Move(1, 1), Move(0, 0)]
    got = search(variant, moves, Limit(ties=True))
    want = exact_search(variant, moves, time.perf_counter() + 30, ties=True)
    assert (got.best_moves, got.score, got.nodes, got.solved) == (
        want.best_moves,
        want.score,
        want.nodes,
        True,
    )
    shallow = search(variant, moves, Limit(depth=2, ties=True))
    assert shallow.depth == 2 and shallow.nodes != want.nodes
    exact_k = make_variant("mnk", {"width": 5, "height": 5, "k": 4, "rule": "exact"})
    assert Game.from_moves(exact_k, moves).is_legal(search(exact_k, moves, Limit(time_s=0.2)).move)


def test_a_board_the_solver_does_not_finish_in_time_is_searched_in_what_is_left() -> None:
    """6x6 k=5 from the empty board is not solved in a tenth of a second: the full-width search
    still answers within the limit."""
    import time

    variant = make_variant("mnk", {"width": 6, "height": 6, "k": 5})
    start = time.perf_counter()
    result = search(variant, [], Limit(time_s=0.1))
    assert time.perf_counter() - start < 1.0
    assert Game.from_moves(variant, []).is_legal(result.move) and not result.solved
