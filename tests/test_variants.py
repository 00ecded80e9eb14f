"""Oracle tests for the named variants: option validation, descriptions, and exact five versus
five-or-more on crafted gomoku positions in all four directions."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol.errors import ArenaError, BadOptions
from protocol.rules import Game, Move, Outcome, Termination, Variant, WinRule
from protocol.variants import (
    GOMOKU,
    GOMOKU_STANDARD,
    NAMES,
    RENJU,
    TICTACTOE,
    make_variant,
    variant_from_description,
)

DOCS = Path(__file__).resolve().parent.parent / "docs" / "PROTOCOL.md"

# --------------------------------------------------------------------------------------------
# The named games
# --------------------------------------------------------------------------------------------


def test_fixed_variants_match_the_docs() -> None:
    assert (TICTACTOE.width, TICTACTOE.height, TICTACTOE.k, TICTACTOE.rule) == (
        3,
        3,
        3,
        WinRule.FREESTYLE,
    )
    assert (GOMOKU.width, GOMOKU.height, GOMOKU.k, GOMOKU.rule) == (15, 15, 5, WinRule.FREESTYLE)
    assert (GOMOKU_STANDARD.width, GOMOKU_STANDARD.height, GOMOKU_STANDARD.k) == (15, 15, 5)
    assert GOMOKU_STANDARD.rule is WinRule.EXACT
    for variant in (TICTACTOE, GOMOKU, GOMOKU_STANDARD, RENJU):
        assert make_variant(variant.name) is variant
        assert make_variant(variant.name, {}) is variant


def docs_game_names() -> list[str]:
    """The game names in the first column of the games table of docs/PROTOCOL.md."""
    text = DOCS.read_text(encoding="utf-8")
    table = text.split("| name | board | wins | options |", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"^\| `([a-z-]+)` \|", table, flags=re.MULTILINE)


def test_docs_list_every_game_name() -> None:
    names = docs_game_names()
    assert len(names) == 5
    assert sorted(names) == sorted(NAMES)
    for name in names:
        if name != "mnk":
            assert make_variant(name).name == name


def test_mnk_options() -> None:
    v = make_variant("mnk", {"width": 7, "height": 6, "k": 4})
    assert v == Variant("mnk", 7, 6, 4, WinRule.FREESTYLE)
    assert v.cells == 42
    assert make_variant("mnk", {"width": 9, "k": 4}) == Variant("mnk", 9, 9, 4)  # height=width
    exact = make_variant("mnk", {"width": 5, "height": 4, "k": 4, "rule": "exact"})
    assert exact.rule is WinRule.EXACT
    assert make_variant("mnk", {"width": 5, "k": 3, "extra": object()}).k == 3


@pytest.mark.parametrize(
    ("width", "height", "k"),
    [(3, 3, 3), (25, 25, 25), (25, 3, 25), (3, 25, 25), (3, 25, 3), (7, 6, 7), (8, 3, 8)],
)
def test_mnk_boundaries_accepted(width: int, height: int, k: int) -> None:
    v = make_variant("mnk", {"width": width, "height": height, "k": k})
    assert (v.width, v.height, v.k) == (width, height, k)


def expect_bad_options(name: object, options: object = None) -> BadOptions:
    """Assert make_variant rejects ``name``/``options`` with bad_options; return the error."""
    with pytest.raises(BadOptions) as info:
        make_variant(name, options)  # type: ignore[arg-type]
    assert isinstance(info.value, ArenaError)
    assert info.value.code == "bad_options"
    return info.value


@pytest.mark.parametrize(
    "name", ["chess", "", "TicTacToe", "mnk ", "gomoku_standard", None, 3, b"mnk", ["mnk"]]
)
def test_unknown_game_name(name: object) -> None:
    expect_bad_options(name)


@pytest.mark.parametrize(
    "options",
    [
        {"width": 7, "height": 6, "k": 2},
        {"width": 7, "height": 6, "k": 8},
        {"width": 7, "height": 6, "k": 0},
        {"width": 7, "height": 6, "k": -5},
        {"width": 3, "height": 3, "k": 4},
        {"width": 25, "height": 25, "k": 26},
    ],
)
def test_k_out_of_range(options: dict[str, object]) -> None:
    expect_bad_options("mnk", options)


@pytest.mark.parametrize(
    ("width", "height"), [(2, 5), (5, 2), (26, 5), (5, 26), (0, 5), (-3, 5), (5, -3), (1000, 1000)]
)
def test_sides_out_of_range(width: int, height: int) -> None:
    expect_bad_options("mnk", {"width": width, "height": height, "k": 3})


@pytest.mark.parametrize("key", ["width", "height", "k"])
@pytest.mark.parametrize("value", ["7", 7.0, None, [7], {"n": 7}, b"7", True, False])
def test_non_int_options(key: str, value: object) -> None:
    options: dict[str, object] = {"width": 7, "height": 7, "k": 5}
    options[key] = value
    error = expect_bad_options("mnk", options)
    assert "integer" in error.message


@pytest.mark.parametrize("missing", ["width", "k"])
def test_missing_options(missing: str) -> None:
    options: dict[str, object] = {"width": 7, "height": 7, "k": 5}
    del options[missing]
    expect_bad_options("mnk", options)


@pytest.mark.parametrize("rule", ["EXACT", "", 1, None, True, ["exact"], {"exact": 1}])
def test_bad_rule(rule: object) -> None:
    expect_bad_options("mnk", {"width": 7, "k": 5, "rule": rule})


@pytest.mark.parametrize("options", [["width", 7], "width=7", 7, (("width", 7),)])
def test_options_must_be_a_map(options: object) -> None:
    expect_bad_options("mnk", options)


@pytest.mark.parametrize(
    "kwargs", [{"width": 2, "height": 3, "k": 3}, {"width": 3, "height": 26, "k": 3}, {"k": 4}]
)
def test_variant_constructor_validates(kwargs: dict[str, int]) -> None:
    fields = {"width": 3, "height": 3, "k": 3} | kwargs
    with pytest.raises(ValueError):
        Variant("mnk", **fields)


@pytest.mark.parametrize(
    "variant",
    [
        TICTACTOE,
        GOMOKU,
        GOMOKU_STANDARD,
        Variant("mnk", 7, 6, 4),
        Variant("mnk", 19, 19, 6, WinRule.EXACT),
        Variant("mnk", 3, 25, 25),
    ],
)
def test_description_round_trips(variant: Variant) -> None:
    description = variant.describe()
    assert description == {
        "name": variant.name,
        "width": variant.width,
        "height": variant.height,
        "k": variant.k,
        "rule": variant.rule.value,
    }
    assert all(type(v) in (str, int) for v in description.values())
    assert variant_from_description(description) == variant


@pytest.mark.parametrize("name", [["gomoku"], {"n": 1}, None, 5])
def test_description_with_odd_name_does_not_crash(name: object) -> None:
    # A non-fixed name falls back to the mnk fields; an unhashable one must not raise TypeError.
    assert variant_from_description({"name": name, "width": 7, "k": 4}) == Variant("mnk", 7, 7, 4)
    with pytest.raises(BadOptions):
        variant_from_description({"name": name, "width": 7})


# --------------------------------------------------------------------------------------------
# Exact five versus five or more (gomoku / gomoku-standard)
# --------------------------------------------------------------------------------------------

Cell = tuple[int, int]


def filler(variant: Variant, avoid: set[Cell]) -> Iterator[Cell]:
    """Harmless stones: cells with both coordinates even (never adjacent to each other)."""
    for y in range(0, variant.height, 2):
        for x in range(0, variant.width, 2):
            if (x, y) not in avoid:
                yield x, y


def craft(
    variant: Variant, stones: list[Cell], seat: int = 0, avoid: set[Cell] | None = None
) -> tuple[Game, Outcome | None]:
    """Play ``stones`` in order for ``seat``, the other seat answering harmlessly elsewhere.

    Every stone but the last must leave the game running; returns the game and the outcome of
    the last stone.
    """
    spare = filler(variant, set(stones) | (avoid or set()))
    moves: list[Cell] = []
    for i, stone in enumerate(stones):
        if seat == 1:
            moves.append(next(spare))
        moves.append(stone)
        if seat == 0 and i < len(stones) - 1:
            moves.append(next(spare))
    game = Game(variant)
    for move in moves[:-1]:
        assert game.push(Move(*move)) is None, move
    return game, game.push(Move(*moves[-1]))


def line(origin: Cell, d: Cell, n: int) -> list[Cell]:
    """``n`` cells from ``origin`` stepping by ``d``."""
    return [(origin[0] + i * d[0], origin[1] + i * d[1]) for i in range(n)]


def moves(cells: list[Cell]) -> tuple[Move, ...]:
    """The cells as Moves."""
    return tuple(Move(*c) for c in cells)


# Origins that leave room for seven cells along each direction (which is also the line order).
DIRECTIONS = {
    "horizontal": ((3, 7), (1, 0)),
    "vertical": ((7, 3), (0, 1)),
    "diagonal": ((3, 3), (1, 1)),
    "anti-diagonal": ((3, 11), (1, -1)),
}
BOTH = [GOMOKU, GOMOKU_STANDARD]


@pytest.mark.parametrize("variant", BOTH, ids=lambda v: v.name)
@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("last", [0, 2, 4])
@pytest.mark.parametrize("seat", [0, 1])
def test_exactly_five_wins_in_both(variant: Variant, direction: str, last: int, seat: int) -> None:
    origin, d = DIRECTIONS[direction]
    cells = line(origin, d, 5)
    order = [c for i, c in enumerate(cells) if i != last] + [cells[last]]
    game, outcome = craft(variant, order, seat)
    assert outcome == Outcome(Termination.LINE, seat, moves(cells))
    assert game.over
    assert game.to_move is None


@pytest.mark.parametrize("variant", BOTH, ids=lambda v: v.name)
@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize(
    ("pattern", "gap"), [("XXXX_X", 4), ("X_XXXX", 1), ("XX_XXX", 2), ("XXX_XXX", 3)]
)
def test_overline_by_filling_a_gap(
    variant: Variant, direction: str, pattern: str, gap: int
) -> None:
    origin, d = DIRECTIONS[direction]
    cells = line(origin, d, len(pattern))
    order = [c for i, c in enumerate(cells) if i != gap] + [cells[gap]]
    game, outcome = craft(variant, order)
    if variant.rule is WinRule.FREESTYLE:
        assert outcome == Outcome(Termination.LINE, 0, moves(cells))
    else:
        assert outcome is None
        assert not game.over
        assert game.to_move == 1


@pytest.mark.parametrize("variant", BOTH, ids=lambda v: v.name)
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_five_with_a_separated_stone_still_wins(variant: Variant, direction: str) -> None:
    # XXXXX_X: the run through the last move is exactly five; the gap must stay empty.
    origin, d = DIRECTIONS[direction]
    cells = line(origin, d, 7)
    order = [cells[6], cells[0], cells[1], cells[3], cells[4], cells[2]]
    _, outcome = craft(variant, order, avoid={cells[5]})
    assert outcome == Outcome(Termination.LINE, 0, moves(cells[:5]))


EDGE_FIVES = [
    ((0, 4), (1, 0)),
    ((10, 4), (1, 0)),
    ((4, 0), (0, 1)),
    ((4, 10), (0, 1)),
    ((0, 0), (1, 1)),
    ((10, 10), (1, 1)),
    ((0, 14), (1, -1)),
    ((10, 4), (1, -1)),
    ((5, 14), (1, -1)),
    ((10, 0), (1, 1)),
]


@pytest.mark.parametrize("variant", BOTH, ids=lambda v: v.name)
@pytest.mark.parametrize(("origin", "d"), EDGE_FIVES)
@pytest.mark.parametrize("last", [0, 4])
def test_five_at_the_edge(variant: Variant, origin: Cell, d: Cell, last: int) -> None:
    cells = line(origin, d, 5)
    for x, y in (cells[0], cells[-1]):
        assert 0 <= x < 15 and 0 <= y < 15
    assert any(v in (0, 14) for c in (cells[0], cells[-1]) for v in c)
    order = [c for i, c in enumerate(cells) if i != last] + [cells[last]]
    _, outcome = craft(variant, order)
    assert outcome == Outcome(Termination.LINE, 0, moves(cells))


@pytest.mark.parametrize("variant", BOTH, ids=lambda v: v.name)
def test_six_at_the_edge_by_gap(variant: Variant) -> None:
    cells = line((0, 0), (1, 1), 6)
    order = cells[:3] + cells[4:] + [cells[3]]
    _, outcome = craft(variant, order)
    if variant is GOMOKU:
        assert outcome == Outcome(Termination.LINE, 0, moves(cells))
    else:
        assert outcome is None


def test_overline_and_five_through_one_move() -> None:
    # Horizontal XXX_XX (a six once the gap is filled) and vertical XXXX_ below the same gap.
    gap = (7, 7)
    horizontal = [(4, 7), (5, 7), (6, 7), (8, 7), (9, 7)]
    vertical = [(7, 8), (7, 9), (7, 10), (7, 11)]
    order = horizontal + vertical + [gap]
    _, outcome = craft(GOMOKU_STANDARD, order)
    assert outcome == Outcome(Termination.LINE, 0, moves([gap, *vertical]))
    _, outcome = craft(GOMOKU, order)
    assert outcome == Outcome(
        Termination.LINE, 0, moves([(4, 7), (5, 7), (6, 7), gap, (8, 7), (9, 7)])
    )


def test_overline_does_not_end_standard_then_a_five_does() -> None:
    six = line((2, 2), (1, 0), 6)
    five = line((2, 12), (1, 0), 5)
    order = six[:4] + six[5:] + [six[4]] + five
    game = Game(GOMOKU_STANDARD)
    spare = filler(GOMOKU_STANDARD, set(order))
    for i, cell in enumerate(order):
        outcome = game.push(Move(*cell))
        if i < len(order) - 1:
            assert outcome is None, cell
            game.push(Move(*next(spare)))
    assert game.outcome == Outcome(Termination.LINE, 0, moves(five))


def test_exact_rule_on_small_mnk_board() -> None:
    # 6x3, k=4, exact: XX_X then the gap makes four: a win; XX_XX: a five, no win.
    v = make_variant("mnk", {"width": 6, "height": 3, "k": 4, "rule": "exact"})
    game = Game.from_moves(v, [(0, 0), (0, 1), (1, 0), (1, 1), (3, 0), (5, 1), (2, 0)])
    assert game.outcome == Outcome(Termination.LINE, 0, moves(line((0, 0), (1, 0), 4)))
    game = Game.from_moves(v, [(0, 0), (0, 2), (1, 0), (1, 2), (3, 0), (3, 2), (4, 0), (5, 2)])
    assert game.push(Move(2, 0)) is None
    assert game.to_move == 1
