"""The shape evaluation (k = 5) against a plain oracle written from the shape definitions."""

from __future__ import annotations

import json
import random
import sys
from functools import lru_cache
from math import exp
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bots.engine import shapes
from bots.engine.fast import FastSearch, core_for, load_core
from bots.engine.limits import WIN, Limit
from bots.engine.shapes import B3, B4, F3, F4, FIVE, NFEAT, combine, load_weights
from protocol import GOMOKU, Move, Variant, make_variant
from protocol.rules import DIRECTIONS, WinRule

COMPILED = load_core(pure=False)
PURE = load_core(pure=True)
STANDARD = make_variant("gomoku-standard", {})
RENJU = make_variant("renju", {})
PROMOTE = {F4: F3, B4: B3, F3: 4, B3: 3, 4: 2, 3: 1}


def _run(own: frozenset[int]) -> int:
    """Length of the unbroken run of own stones through offset 0."""
    lo = hi = 0
    while lo - 1 in own:
        lo -= 1
    while hi + 1 in own:
        hi += 1
    return hi - lo + 1


@lru_cache(maxsize=1 << 16)
def _oracle_level(own: frozenset[int], empty: frozenset[int], exact: bool) -> int:
    """Five if the run through the centre is five (exactly, in exact mode); a four by how many
    empty cells make one; else one class below the best that one more stone makes."""
    run = _run(own)
    if run == 5 or (run > 5 and not exact):
        return FIVE
    free = [e for e in empty if e not in own]
    fives = 0
    for e in free:
        r = _run(own | {e})
        fives += r == 5 or (r > 5 and not exact)
    if fives:
        return F4 if fives >= 2 else B4
    return max((PROMOTE.get(_oracle_level(own | {e}, empty, exact), 0) for e in free), default=0)


def oracle_shape(stones: dict[tuple[int, int], int], variant: Variant, side: int,
                 x: int, y: int, d: int) -> int:  # fmt: skip
    """The shape ``side`` makes on line ``d`` by playing empty (x, y), from the board itself:
    own stones within 5 cells, playable cells within 4 (the others, and the edge, block)."""
    dx, dy = DIRECTIONS[d]
    own, empty = {0}, set()
    for j in range(-5, 6):
        xx, yy = x + j * dx, y + j * dy
        if j == 0 or not (0 <= xx < variant.width and 0 <= yy < variant.height):
            continue
        v = stones.get((xx, yy))
        if v == side:
            own.add(j)
        elif v is None and abs(j) <= 4:
            empty.add(j)
    exact = variant.rule is WinRule.EXACT or (variant.rule is WinRule.RENJU and side == 0)
    return _oracle_level(frozenset(own), frozenset(empty), exact)


def _stones(moves: list[Move]) -> dict[tuple[int, int], int]:
    return {(m.x, m.y): i % 2 for i, m in enumerate(moves)}


def _random_moves(variant: Variant, count: int, seed: int, spread: int) -> list[Move]:
    rng = random.Random(seed)
    cells: list[Move] = []
    cx, cy = variant.width // 2, variant.height // 2
    count = min(count, (2 * spread + 1) ** 2 - 1)
    while len(cells) < count:
        m = Move(cx + rng.randint(-spread, spread), cy + rng.randint(-spread, spread))
        if m not in cells:
            cells.append(m)
    return cells


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    variant=st.sampled_from([GOMOKU, STANDARD, RENJU]),
    count=st.integers(0, 40),
    seed=st.integers(0, 10**6),
    spread=st.integers(2, 7),
)
def test_line_shapes_match_the_oracle(variant: Variant, count: int, seed: int, spread: int):
    """Every empty cell's shape per side and line, and its combined code, on both cores."""
    moves = _random_moves(variant, count, seed, spread)
    stones = _stones(moves)
    w = variant.width
    want = {
        (side, c): [oracle_shape(stones, variant, side, c % w, c // w, d) for d in range(4)]
        for c in range(variant.cells)
        if (c % w, c // w) not in stones
        for side in (0, 1)
    }
    for module in (COMPILED, PURE):
        core = core_for(variant, moves, module, keep=False)
        for (side, c), shapes_want in want.items():
            got = [core.line_shape(side, c, d) for d in range(4)]
            assert got == shapes_want, (module.__name__, side, c, moves)
            assert core.cell_code(side, c) == combine(shapes_want)


def _core(variant: Variant, cells: list[tuple[int, int]], module=COMPILED):
    return core_for(variant, [Move(*xy) for xy in cells], module, keep=False)


@pytest.mark.parametrize("module", [COMPILED, PURE], ids=["compiled", "pure"])
def test_named_shapes(module) -> None:
    """Open four, four, open three, three, and exact-five's overline, by hand."""
    far = [(0, 14), (14, 14), (0, 0), (14, 0)]
    # black (seat 0) at (6..8, 7); white far away
    core = _core(GOMOKU, [(6, 7), far[0], (7, 7), far[1], (8, 7), far[2]], module)
    assert core.line_shape(0, 7 * 15 + 5, 0) == F4  # .XXXX. after (5, 7)
    assert core.line_shape(0, 7 * 15 + 4, 0) == B4  # X.XXX: one five cell
    assert core.line_shape(1, 7 * 15 + 5, 0) == 1  # white: one closed "one" (room on the left)
    assert core.line_shape(1, 7 * 15 + 9, 0) == 1
    core = _core(GOMOKU, [(6, 7), far[0], (7, 7), far[1]], module)
    assert core.line_shape(0, 7 * 15 + 8, 0) == F3  # .XXX. with room both sides
    core = _core(GOMOKU, [(6, 7), (5, 7), (7, 7), far[1]], module)
    assert core.line_shape(0, 7 * 15 + 8, 0) == B3  # OXXX.: only a four
    line = [(2, 7), far[0], (3, 7), far[1], (4, 7), far[2], (5, 7), far[3], (7, 7), (14, 7)]
    assert _core(GOMOKU, line, module).line_shape(0, 7 * 15 + 6, 0) == FIVE
    assert _core(STANDARD, line, module).line_shape(0, 7 * 15 + 6, 0) != FIVE  # six: no five
    renju = _core(RENJU, line, module)
    assert renju.line_shape(0, 7 * 15 + 6, 0) != FIVE  # renju: black's six is no five
    white = [far[0], (2, 7), far[1], (3, 7), far[2], (4, 7), far[3], (5, 7), (0, 7), (7, 7)]
    assert _core(RENJU, white, module).line_shape(1, 7 * 15 + 6, 0) == FIVE  # white's six is


def test_combined_codes() -> None:
    """Double four and four-three and three-three are codes of their own."""
    assert combine([B4, B4, 0, 0]) == shapes.C_FLEX4
    assert combine([F4, 0, 0, 0]) == shapes.C_FLEX4
    assert combine([B4, F3, 0, 0]) == shapes.C_FOUR_THREE
    assert combine([F3, F3, 0, 0]) == shapes.C_THREE_THREE
    assert combine([F3, 0, 0, 0]) == shapes.C_THREE
    assert combine([FIVE, B4, 0, 0]) == shapes.C_FIVE


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    variant=st.sampled_from([GOMOKU, STANDARD, RENJU]),
    ops=st.lists(st.integers(0, 224), min_size=1, max_size=80),
    seed=st.integers(0, 10**6),
)
def test_incremental_equals_recompute(variant: Variant, ops: list[int], seed: int) -> None:
    """After random plays and undos every shape table equals a fresh board's; the evaluation
    is the weights times the feature counts."""
    rng = random.Random(seed)
    me, opp = load_weights()
    for module in (COMPILED, PURE):
        core = core_for(variant, [], module, keep=False)
        for c in ops:
            if rng.random() < 0.3 and core.moves():
                core.undo()
            elif not core.at(c) and not core.over():
                core.play(c)
        w = variant.width
        fresh = core_for(variant, [Move(c % w, c // w) for c in core.moves()], module, keep=False)
        assert core.state() == fresh.state()
        s = core.side()
        own, other = core.features(s), core.features(1 - s)
        assert core.evaluate() == sum(me[f] * own[f] + opp[f] * other[f] for f in range(NFEAT))


def test_other_k_keeps_the_window_evaluation() -> None:
    """k = 4 boards have no shape tables: the window counts score them."""
    variant = make_variant("mnk", {"width": 9, "height": 9, "k": 4})
    core = core_for(variant, [Move(4, 4)], COMPILED, keep=False)
    assert not core.shaped
    assert core_for(GOMOKU, [Move(7, 7)], COMPILED, keep=False).shaped


def test_training_is_deterministic_and_its_output_loads(tmp_path: Path) -> None:
    """A tiny run of bench/train_eval.py twice from one seed: the same weights, loadable."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    import train_eval

    runs = [train_eval.train(7, 3, 150, 2, 40, 1, log=lambda _: None) for _ in range(2)]
    assert runs[0] == runs[1]
    assert runs[0]["positions"] > 20
    assert any(runs[0]["me"]) and any(runs[0]["opp"])
    path = tmp_path / "w.json"
    path.write_text(json.dumps(runs[0]))
    me, opp = load_weights(path)
    assert (me, opp) == (runs[0]["me"], runs[0]["opp"])
    other = train_eval.train(8, 3, 150, 1, 40, 1, log=lambda _: None)
    assert other != runs[0]  # the seed matters


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(count=st.integers(1, 40), seed=st.integers(0, 10**6), spread=st.integers(2, 7))
def test_move_order_follows_the_shipped_keys(count: int, seed: int, spread: int) -> None:
    """A fresh core lists its candidates by the shipped order keys summed over the cell's
    codes and line shapes, both sides (``shapes.order_table``'s layout), ties by cell."""
    keys = shapes.order_table()
    moves = _random_moves(GOMOKU, count, seed, spread)
    for module in (COMPILED, PURE):
        core = core_for(GOMOKU, moves, module, keep=False)
        if core.over():
            return
        s = core.side()
        cands = core.candidates(0)
        if core.win_cells(1 - s) or len(cands) < 2:
            continue

        def key(c: int, core=core, s=s) -> int:
            return (keys[shapes.OWN_CODE_AT + core.cell_code(s, c)]
                    + keys[shapes.OPP_CODE_AT + core.cell_code(1 - s, c)]
                    + sum(keys[shapes.OWN_LINE_AT + core.line_shape(s, c, d)] for d in range(4))
                    + sum(keys[shapes.OPP_LINE_AT + core.line_shape(1 - s, c, d)]
                          for d in range(4)))  # fmt: skip

        assert cands == sorted(cands, key=lambda c: (-key(c), c))


def test_order_keys_are_checked(tmp_path: Path) -> None:
    """A malformed order file is refused, not half-used."""
    path = tmp_path / "order.json"
    path.write_text(json.dumps({"keys": [1, 2, 3]}))
    with pytest.raises(ValueError, match="order keys"):
        shapes.order_table(path)
    path.write_text(json.dumps({"keys": shapes.hand_order()}))
    assert list(shapes.order_table(path)) == shapes.hand_order()


def test_order_fit_is_deterministic_and_its_output_loads(tmp_path: Path) -> None:
    """A tiny run of bench/fit_order.py twice from one seed: the same keys, loadable, the
    teacher's moves among the candidates, the fixed entries kept at their hand-set keys."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    import fit_order

    hand, weights = shapes.hand_order(), load_weights(shapes.RESULT_WEIGHTS)
    rows = fit_order.make_data(5, 2, 300, 3000, 3, 1, hand, weights, log=lambda _: None)
    assert rows == fit_order.make_data(5, 2, 300, 3000, 3, 1, hand, weights, log=lambda _: None)
    data = fit_order.features(rows)
    assert len(data) >= 10
    keys = fit_order.fit(data, hand, epochs=20)
    assert keys == fit_order.fit(data, hand, epochs=20)
    assert keys != hand and all(keys[j] == hand[j] for j in fit_order.FIXED)
    path = tmp_path / "order.json"
    path.write_text(json.dumps({"keys": keys}))
    assert list(shapes.order_table(path)) == keys


def test_teacher_fit_is_deterministic_and_labels_by_the_deeper_search(tmp_path: Path) -> None:
    """A tiny run of bench/teach_eval.py twice: the same weights, loadable; a label is the
    teacher's own score (squashed for the fit: a proven result 1 or 0), and only quiet
    positions are labelled."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    import teach_eval

    start = load_weights(shapes.RESULT_WEIGHTS)
    sets = ((7, 2, "hand"), (8, 1, "fitted"))
    runs = [teach_eval.teach(sets, 150, 400, start, 1, log=lambda _: None) for _ in (0, 1)]
    assert runs[0] == runs[1] and runs[0]["positions"] >= 10
    path = tmp_path / "w.json"
    path.write_text(json.dumps(runs[0]))
    assert load_weights(path) == (runs[0]["me"], runs[0]["opp"])
    assert teach_eval.squash(WIN - 5) == 1.0 and teach_eval.squash(-(WIN - 5)) == 0.0
    assert teach_eval.squash(0) == 0.5 and teach_eval.squash(300) == 1 / (1 + exp(-1))
    keys = list(shapes.order_table())
    cells = teach_eval.play_game((7, 0, 150, 40, 2, keys, start))[3]
    own, other, score = teach_eval.label((cells, 400, keys, start))
    core = teach_eval.fresh_core(keys, start)
    for c in cells:
        core.play(c)
    assert (own, other) == (core.features(core.side()), core.features(1 - core.side()))
    assert score == FastSearch(GOMOKU, Limit(nodes=400), core, clock=lambda: 0.0).run().score
    while not (core.win_cells(0) or core.win_cells(1)):  # on to a position with a five threat
        core.play(core.candidates(0)[0])
    assert teach_eval.label((core.moves(), 400, keys, start)) is None
