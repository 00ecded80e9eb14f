"""``Game.pop`` beside ``Game.push`` (as python-chess's ``Board.pop``): popping every move of a
random game brings back, position by position, exactly what was there before each push: the
stones, the history, the move list, the side to move, the outcome, the legal and (renju) the
forbidden cells. Freestyle, exact-k (overlines made on purpose) and renju games."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.rules import Game, Move, Outcome, Termination, Variant, WinRule
from tests.test_rules import play_out, variant_and_order


@dataclass(frozen=True)
class Seen:
    """Everything a push may change, as it stood."""

    cells: tuple[int, ...]
    history: tuple[int, ...]
    moves: tuple[Move, ...]
    to_move: int | None
    outcome: Outcome | None
    legal: tuple[Move, ...]
    forbidden: tuple[Move, ...]


def seen(game: Game) -> Seen:
    """A snapshot of ``game``."""
    board = game.board
    return Seen(
        tuple(board.cells),
        tuple(board.history),
        tuple(game.moves),
        game.to_move,
        game.outcome,
        tuple(game.legal_moves()),
        tuple(game.variant.forbidden_points(board)),
    )


def pop_back(game: Game, before: list[Seen], pushed: list[Move]) -> None:
    """Pop every move, checking the game is as it was before that move's push."""
    while pushed:
        assert game.pop() == pushed.pop()
        assert seen(game) == before.pop()
    with pytest.raises(IndexError):
        game.pop()


@settings(max_examples=200, deadline=None)
@given(variant_and_order(), st.data())
def test_pop_undoes_push_exactly_in_freestyle_and_exact_games(
    case: tuple[Variant, str, list[int]], data: st.DataObject
) -> None:
    variant, _, order = case
    n = data.draw(st.integers(1, len(order)))
    game = Game(variant)
    before: list[Seen] = []
    pushed: list[Move] = []
    for index in order[:n]:
        if game.over:
            break
        before.append(seen(game))
        move = Move(index % variant.width, index // variant.width)
        game.push(move)
        pushed.append(move)
    pop_back(game, before, pushed)


@st.composite
def renju_games(draw: st.DrawFn) -> tuple[Variant, list[int]]:
    """A renju variant (k = 5 on sides 6-15) and an order to try its cells in (a forbidden
    cell is skipped when black's turn comes to it)."""
    width = draw(st.integers(6, 15))
    height = draw(st.integers(6, 15))
    variant = Variant("renju-test", width, height, 5, WinRule.RENJU)
    return variant, draw(st.permutations(range(width * height)))


@settings(max_examples=60, deadline=None)
@given(renju_games(), st.data())
def test_pop_undoes_push_exactly_in_renju_games(
    case: tuple[Variant, list[int]], data: st.DataObject
) -> None:
    variant, order = case
    limit = data.draw(st.integers(1, len(order)))
    game = Game(variant)
    before: list[Seen] = []
    pushed: list[Move] = []
    for index in order[:limit]:
        move = Move(index % variant.width, index // variant.width)
        if game.over:
            break
        if not game.is_legal(move):  # black's forbidden cell: try the next
            continue
        before.append(seen(game))
        game.push(move)
        pushed.append(move)
    pop_back(game, before, pushed)


def test_pop_takes_back_a_win_and_the_game_goes_on() -> None:
    game = play_out(Variant("tictactoe", 3, 3, 3), [0, 3, 1, 4, 2])
    assert game.outcome is not None and game.outcome.termination is Termination.LINE
    assert game.pop() == Move(2, 0)
    assert game.outcome is None and game.to_move == 0
    assert game.push(Move(5 % 3, 5 // 3)) is None  # another move instead: play goes on
