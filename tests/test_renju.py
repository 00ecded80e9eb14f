"""Renju forbidden moves: the hand-built corpus, generated families, a brute-force reference
implementation of the RIF definitions, and the property that black only ever wins with five."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.renju_corpus import SIZE, load

from protocol.errors import ForbiddenMove, GameOverError, IllegalMoveError
from protocol.renju import DIRECTIONS, Foul, foul, fouls
from protocol.rules import Game, Move, Variant, WinRule
from protocol.variants import GOMOKU, RENJU, make_variant, variant_from_description

B, W = 1, 2
CENTRE = (7, 7)

# --------------------------------------------------------------------------------------------
# A reference implementation: whole-line scans, no windows, no prefilter
# --------------------------------------------------------------------------------------------


def _on(x: int, y: int) -> bool:
    return 0 <= x < SIZE and 0 <= y < SIZE


def _line(x: int, y: int, dx: int, dy: int) -> list[tuple[int, int]]:
    """Every cell of the board line through (x, y) along (dx, dy), in order."""
    while _on(x - dx, y - dy):
        x, y = x - dx, y - dy
    out = []
    while _on(x, y):
        out.append((x, y))
        x, y = x + dx, y + dy
    return out


def _run_cells(cells: list[int], x: int, y: int, dx: int, dy: int) -> list[tuple[int, int]]:
    line = _line(x, y, dx, dy)
    i = line.index((x, y))
    lo = hi = i
    while lo > 0 and cells[line[lo - 1][1] * SIZE + line[lo - 1][0]] == B:
        lo -= 1
    while hi < len(line) - 1 and cells[line[hi + 1][1] * SIZE + line[hi + 1][0]] == B:
        hi += 1
    return line[lo : hi + 1]


def _fives(cells: list[int], x: int, y: int, d: tuple[int, int]) -> dict[frozenset, set]:
    """Fours through (x, y) along d: the four stones of each five-to-be -> its five points."""
    out: dict[frozenset, set] = {}
    for qx, qy in _line(x, y, *d):
        if cells[qy * SIZE + qx] != 0:
            continue
        cells[qy * SIZE + qx] = B
        run = _run_cells(cells, qx, qy, *d)
        cells[qy * SIZE + qx] = 0
        if len(run) == 5 and (x, y) in run:
            out.setdefault(frozenset(run) - {(qx, qy)}, set()).add((qx, qy))
    return out


def reference(cells: list[int], x: int, y: int) -> str | None:
    """The RIF verdict for black at (x, y), computed the slow, obvious way."""
    cells[y * SIZE + x] = B
    try:
        runs = [len(_run_cells(cells, x, y, *d)) for d in DIRECTIONS]
        if 5 in runs:
            return None
        if max(runs) >= 6:
            return "overline"
        fours = [_fives(cells, x, y, d) for d in DIRECTIONS]
        if sum(len(f) for f in fours) >= 2:
            return "double-four"
        threes = sum(
            1 for d, f in zip(DIRECTIONS, fours, strict=True) if not f and _three(cells, x, y, d)
        )
        return "double-three" if threes >= 2 else None
    finally:
        cells[y * SIZE + x] = 0


def _three(cells: list[int], x: int, y: int, d: tuple[int, int]) -> bool:
    for qx, qy in _line(x, y, *d):
        if cells[qy * SIZE + qx] != 0:
            continue
        cells[qy * SIZE + qx] = B
        straight = any(
            len(points) >= 2 and (qx, qy) in stones
            for stones, points in _fives(cells, x, y, d).items()
        )
        cells[qy * SIZE + qx] = 0
        if straight and reference(cells, qx, qy) is None:
            return True
    return False


def verdict(cells: list[int], x: int, y: int) -> str | None:
    """The implementation under test, as a plain string."""
    found = foul(cells, SIZE, SIZE, y * SIZE + x)
    return None if found is None else str(found)


# --------------------------------------------------------------------------------------------
# The hand-built corpus (tests/data/renju_corpus.txt)
# --------------------------------------------------------------------------------------------

CORPUS = load()


def test_corpus_is_large_and_covers_every_verdict() -> None:
    verdicts = [v for e in CORPUS for v in e.marks.values()]
    assert len(CORPUS) + len(list(generated())) >= 100
    assert {str(f) for f in Foul} | {None} <= set(verdicts)
    assert sum(e.title.startswith("nested") for e in CORPUS) >= 6


@pytest.mark.parametrize("entry", CORPUS, ids=[e.title for e in CORPUS])
def test_corpus_verdicts(entry) -> None:
    for (x, y), want in entry.marks.items():
        cells = list(entry.cells)
        assert verdict(cells, x, y) == want, (entry.title, (x, y))
        assert cells == entry.cells, "the check must leave the board as it found it"


@pytest.mark.parametrize("entry", CORPUS, ids=[e.title for e in CORPUS])
def test_corpus_agrees_with_reference(entry) -> None:
    for (x, y), want in entry.marks.items():
        assert reference(list(entry.cells), x, y) == want, (entry.title, (x, y))


def _symmetries() -> list:
    n = SIZE - 1
    return [
        lambda x, y: (x, y),
        lambda x, y: (n - x, y),
        lambda x, y: (x, n - y),
        lambda x, y: (n - x, n - y),
        lambda x, y: (y, x),
        lambda x, y: (n - y, x),
        lambda x, y: (y, n - x),
        lambda x, y: (n - y, n - x),
    ]


@pytest.mark.parametrize("sym", range(8))
def test_corpus_verdicts_survive_board_symmetries(sym: int) -> None:
    f = _symmetries()[sym]
    for entry in CORPUS:
        cells = [0] * SIZE * SIZE
        for i, c in enumerate(entry.cells):
            tx, ty = f(i % SIZE, i // SIZE)
            cells[ty * SIZE + tx] = c
        for (x, y), want in entry.marks.items():
            tx, ty = f(x, y)
            assert verdict(cells, tx, ty) == want, (entry.title, sym)


def test_listing_matches_point_checks_on_the_corpus() -> None:
    for entry in CORPUS:
        listed = dict(fouls(entry.cells, SIZE, SIZE))
        for (x, y), want in entry.marks.items():
            got = listed.get(y * SIZE + x)
            assert (None if got is None else str(got)) == want, entry.title


# --------------------------------------------------------------------------------------------
# Generated families: every pair of directions, every shape of three
# --------------------------------------------------------------------------------------------

#: Offsets of the two other stones of a three through the move, and the white stones that
#: leave that line no way to a straight four.
THREES = {"XX.": ((-2, -1), (-3, 1)), "X.X": ((-1, 1), (-2, 2)), "X.XX": ((-3, -1), (-4, 1))}


def _position(lines: list[tuple[tuple[int, int], tuple[int, ...], int]]) -> list[int]:
    cells = [0] * SIZE * SIZE
    for (dx, dy), offsets, colour in lines:
        for o in offsets:
            cells[(CENTRE[1] + o * dy) * SIZE + CENTRE[0] + o * dx] = colour
    return cells


def generated():
    """(name, cells, verdict at the centre) for every generated position."""
    for d1, d2 in itertools.combinations(DIRECTIONS, 2):
        for (n1, (s1, _)), (n2, (s2, _)) in itertools.product(THREES.items(), repeat=2):
            yield (
                f"three {n1} {d1} + three {n2} {d2}",
                _position([(d1, s1, B), (d2, s2, B)]),
                ("double-three"),
            )
        for n1, (s1, blocks) in THREES.items():
            cells = _position([(d1, s1, B), (d1, blocks, W), (d2, (-2, -1), B)])
            yield f"closed three {n1} {d1} + three {d2}", cells, None
        yield (
            f"four {d1} + four {d2}",
            _position([(d1, (-3, -2, -1), B), (d2, (1, 2, 3), B)]),
            ("double-four"),
        )
    for d in DIRECTIONS:
        yield f"overline {d}", _position([(d, (-3, -2, -1, 1, 2), B)]), "overline"
    for d1, d2 in itertools.permutations(DIRECTIONS, 2):
        cells = _position([(d1, (-4, -3, -2, -1), B), (d2, (-3, -2, -1, 1, 2), B)])
        yield f"five {d1} beats overline {d2}", cells, None


GENERATED = list(generated())


@pytest.mark.parametrize(("name", "cells", "want"), GENERATED, ids=[g[0] for g in GENERATED])
def test_generated_positions(name: str, cells: list[int], want: str | None) -> None:
    assert verdict(list(cells), *CENTRE) == want
    assert reference(list(cells), *CENTRE) == want


# --------------------------------------------------------------------------------------------
# Properties: the fast detector is the reference; black only wins with exactly five
# --------------------------------------------------------------------------------------------

region = st.tuples(st.integers(3, 11), st.integers(3, 11))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(region, st.sampled_from([B, B, W])), min_size=4, max_size=30))
@pytest.mark.slow
def test_detector_matches_reference_on_random_positions(stones) -> None:
    cells = [0] * SIZE * SIZE
    for (x, y), colour in stones:
        cells[y * SIZE + x] = colour
    for y in range(2, 13):
        for x in range(2, 13):
            if cells[y * SIZE + x] == 0:
                assert verdict(cells, x, y) == reference(cells, x, y), (x, y)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(4, 10), st.integers(4, 10)), max_size=49))
def test_black_never_holds_a_won_line_other_than_exactly_five(moves) -> None:
    game = Game(RENJU)
    for x, y in moves:
        if game.over or not game.is_legal(Move(x, y)):
            continue
        outcome = game.push(Move(x, y))
        if outcome is not None and outcome.winner == 0:
            assert len(outcome.line) == 5
            continue
        cells = game.board.cells
        for i, c in enumerate(cells):
            if c != B:
                continue
            for d in DIRECTIONS:
                assert len(_run_cells(cells, i % SIZE, i // SIZE, *d)) < 5 or game.over


# --------------------------------------------------------------------------------------------
# The rules object: variant, game, positions
# --------------------------------------------------------------------------------------------


def _classic_double_three() -> Game:
    """Black threes across and down around (7,7); white far away; black to move."""
    moves = [(5, 7), (0, 0), (6, 7), (0, 2), (7, 5), (0, 4), (7, 6), (0, 6)]
    return Game.from_moves(RENJU, moves)


def test_forbidden_move_is_refused_and_nothing_changes() -> None:
    game = _classic_double_three()
    before = list(game.board.cells)
    with pytest.raises(ForbiddenMove) as caught:
        game.push(Move(7, 7))
    assert caught.value.code == "forbidden_move"
    assert "double-three" in caught.value.message
    assert game.board.cells == before and game.to_move == 0
    assert RENJU.forbidden_points(game.board) == [Move(7, 7)]


def test_white_has_no_forbidden_moves() -> None:
    game = _classic_double_three()
    game.push(Move(1, 1))  # black elsewhere
    game.push(Move(0, 8))  # white
    game.push(Move(2, 1))
    assert game.to_move == 1
    assert RENJU.forbidden(game.board, Move(7, 7), 1) is None
    assert RENJU.forbidden_points(game.board) == []
    game.push(Move(7, 7))


def test_gomoku_has_no_forbidden_points() -> None:
    game = Game.from_moves(GOMOKU, [(5, 7), (0, 0), (6, 7), (0, 2), (7, 5), (0, 4), (7, 6), (0, 6)])
    assert GOMOKU.forbidden_points(game.board) == []
    game.push(Move(7, 7))


def test_white_wins_with_an_overline_black_does_not() -> None:
    black = [Move(x, 7) for x in (0, 1, 2, 4, 5)]
    white = [Move(x, 8) for x in (0, 1, 2, 4, 5)]
    game = Game.from_position(RENJU, black, white, 1)
    assert game.push(Move(3, 8)).winner == 1
    game = Game.from_position(RENJU, black, white, 0)
    with pytest.raises(ForbiddenMove):
        game.push(Move(3, 7))


def test_renju_by_options_needs_k_five_on_fifteen_by_fifteen() -> None:
    assert make_variant("mnk", {"width": 15, "k": 5, "rule": "renju"}).rule == "renju"
    for options in ({"width": 15, "k": 6}, {"width": 19, "k": 5}, {"width": 15, "height": 14}):
        with pytest.raises(Exception, match="15x15 boards and k = 5"):
            make_variant("mnk", {"k": 5, **options, "rule": "renju"})
    old = {"name": "mnk", "width": 19, "height": 19, "k": 5, "rule": "renju"}  # stored before
    assert variant_from_description(old) == Variant("mnk", 19, 19, 5, WinRule.RENJU)


def test_position_sets_stones_and_side_to_move() -> None:
    game = Game.from_position(RENJU, [Move(7, 7), Move(8, 8)], [], 0)
    assert game.to_move == 0 and game.ply == 0
    game.push(Move(9, 9))
    assert game.board.cells[9 * 15 + 9] == B and game.to_move == 1


@pytest.mark.parametrize(
    ("black", "white", "error"),
    [
        ([Move(x, 0) for x in range(5)], [], GameOverError),
        ([], [Move(0, y) for y in range(5)], GameOverError),
        ([Move(15, 0)], [], IllegalMoveError),
        ([Move(1, 1)], [Move(1, 1)], IllegalMoveError),
    ],
)
def test_bad_positions_are_refused(black, white, error) -> None:
    with pytest.raises(error):
        Game.from_position(RENJU, black, white, 0)


def test_black_overline_in_a_position_is_no_win() -> None:
    game = Game.from_position(RENJU, [Move(x, 0) for x in range(6)], [], 1)
    assert game.to_move == 1
