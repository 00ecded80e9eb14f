"""The fast core against its oracles: its own plain-Python run, and the rules' win check."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.rule_oracle import rule_wins

from bots.engine import Limit, search
from bots.engine.fast import SWITCHES, core_for, fast_search, load_core
from protocol import GOMOKU, Game, Move, Variant, make_variant

COMPILED = load_core(pure=False)
PURE = load_core(pure=True)
#: Round three's search switches (docs/BOTS.md), by name.
ROUND_THREE = ("null_mode", "prune_mode", "gen_mode", "mate_mode")


@contextmanager
def switched(values: dict[str, str]) -> Iterator[None]:
    """The core's search switches set through their environment variables, then put back."""
    names = {SWITCHES[attr][0]: value for attr, value in values.items()}
    saved = {name: os.environ.get(name) for name in names}
    os.environ.update(names)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def random_position(variant: Variant, stones: int, seed: int) -> list[Move]:
    """A game of ``stones`` random moves near the centre that nobody has won yet."""
    rng = random.Random(seed)
    game = Game(variant)
    cx, cy = variant.width // 2, variant.height // 2
    spread = max(2, min(cx, cy) - 1)
    tries = 0
    while game.ply < stones and tries < 2000:
        tries += 1
        move = Move(cx + rng.randint(-spread, spread), cy + rng.randint(-spread, spread))
        if not game.is_legal(move):
            continue
        trial = Game.from_moves(variant, [*game.moves, move])
        if trial.over:
            continue
        game.push(move)
    return game.moves


variants = st.builds(
    lambda w, h, k, rule: make_variant("mnk", {"width": w, "height": h, "k": k, "rule": rule}),
    st.integers(7, 15),
    st.integers(7, 15),
    st.integers(4, 6),
    st.sampled_from(["freestyle", "exact"]),
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=variants, stones=st.integers(0, 30), seed=st.integers(0, 10**6))
def test_tables_match_the_reference_board(variant: Variant, stones: int, seed: int) -> None:
    """The compiled core's tables equal its plain-Python run's after any game, its win cells
    are exactly the cells where the rules say a stone wins, and undo restores every table."""
    moves = random_position(variant, stones, seed)
    game = Game.from_moves(variant, moves)
    states = []
    for module in (PURE, COMPILED):
        core = core_for(variant, moves, module, keep=False)
        state = core.state()
        states.append(state)
        for side in (0, 1):
            assert core.win_cells(side) == rule_wins(game, side)
        extra = random_position(variant, stones + 8, seed + 1)[len(moves) :]
        played = 0
        for m in extra:
            cell = m.y * variant.width + m.x
            if core.at(cell):
                continue
            played += 1
            if core.play(cell):
                break
        for _ in range(played):
            core.undo()
        assert core.state() == state
    assert states[0] == states[1]


@pytest.mark.pins_core
@pytest.mark.skipif(not COMPILED.compiled(), reason="the core was not compiled on this machine")
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    variant=variants,
    stones=st.integers(1, 24),
    seed=st.integers(0, 10**6),
    depth=st.integers(1, 4),
    threats=st.booleans(),
    on=st.booleans(),
)
@pytest.mark.slow
def test_compiled_core_matches_pure_python(
    variant: Variant, stones: int, seed: int, depth: int, threats: bool, on: bool
) -> None:
    """Same move, score, depth, node count and source from both builds of the core, with
    round three's switches all on or all off."""
    moves = random_position(variant, stones, seed)
    limit = Limit(depth=depth, nodes=800, threats=threats)
    with switched(dict.fromkeys(ROUND_THREE, "1" if on else "0")):
        fast = fast_search(variant, moves, limit, COMPILED, keep=False)
        pure = fast_search(variant, moves, limit, PURE, keep=False)
    assert (fast.move, fast.score, fast.depth, fast.nodes, fast.source, fast.pv) == (
        pure.move,
        pure.score,
        pure.depth,
        pure.nodes,
        pure.source,
        pure.pv,
    )


#: ``type.__flags__``: a class made by a ``class`` statement run as Python (not a C type).
HEAPTYPE = 1 << 9


@pytest.mark.pins_core
def test_the_plain_run_is_plain_in_every_layer_and_the_compiled_one_compiled() -> None:
    """The oracle runs all four layers of the core from source (a compiled board under a plain
    search would check nothing), and loading it leaves the compiled modules where they were."""
    import sys

    layers = PURE.Core.__mro__[:-1]
    assert [cls.__name__ for cls in layers] == ["Core", "Threats", "Fouls", "Board"]
    assert all(cls.__flags__ & HEAPTYPE for cls in layers)
    assert sys.modules["bots.engine.core"] is COMPILED
    if COMPILED.compiled():
        assert not any(cls.__flags__ & HEAPTYPE for cls in COMPILED.Core.__mro__[:-1])
        from bots.engine import board  # a core.so built before the split leaves this plain

        assert not board.Board.__flags__ & HEAPTYPE


@pytest.mark.pins_core
def test_compiled_core_is_built_by_the_install() -> None:
    """``pip install -e .`` with a C compiler present builds the core (it is 30x faster)."""
    import shutil

    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler here: the pure-Python core is the fallback")
    assert COMPILED.compiled()


def test_big_board_search_never_plays_into_a_forced_loss() -> None:
    """White's open three must be answered: every move but its spoilers loses to a VCF/VCT."""
    moves = [Move(7, 7), Move(3, 3), Move(8, 7), Move(11, 11), Move(9, 7)]
    result = search(GOMOKU, moves, Limit(time_s=1.0))
    assert result.move in (Move(6, 7), Move(10, 7), Move(5, 7), Move(11, 7))


def test_transposition_table_survives_between_moves() -> None:
    """The process keeps one core per variant: the next move's search reuses it."""
    moves = [Move(7, 7), Move(8, 8), Move(8, 7)]
    fast_search(GOMOKU, moves, Limit(depth=3, threats=False))
    core = core_for(GOMOKU, moves, load_core())
    assert core.probe() >= 0  # the root's entry from the search just made
    again = core_for(GOMOKU, [*moves, Move(6, 7)], load_core())
    assert again is core and core.moves()[-1] == 7 * 15 + 6


@pytest.mark.pins_core
@pytest.mark.parametrize("module", [PURE, COMPILED], ids=["pure", "compiled"])
def test_plays_legal_moves_to_the_end_of_a_crowded_game(module: object) -> None:
    """From the empty board until the board is full or won: every answer is legal."""
    variant = make_variant("mnk", {"width": 7, "height": 7, "k": 6, "rule": "exact"})
    game = Game(variant)
    while not game.over:
        result = fast_search(variant, game.moves, Limit(depth=2, nodes=300), module, keep=False)
        assert game.is_legal(result.move), (game.moves, result.move)
        game.push(result.move)
    assert game.ply > 20


def test_each_thread_keeps_its_own_core() -> None:
    """A core is one mutable board: two threads searching at once (the tournament's local
    referee plays games in a thread pool) must never share one (they crashed the compiled core)."""
    from concurrent.futures import ThreadPoolExecutor

    module = load_core()
    here = core_for(GOMOKU, [Move(7, 7)], module)
    assert core_for(GOMOKU, [Move(7, 7), Move(8, 8)], module) is here  # kept in this thread
    with ThreadPoolExecutor(1) as pool:
        there = pool.submit(core_for, GOMOKU, [Move(7, 7)], module).result()
    assert there is not here
    ttt = make_variant("tictactoe")
    with ThreadPoolExecutor(4) as pool:  # many small-board searches at once, as the referee runs
        found = list(pool.map(lambda _: search(ttt, [Move(1, 1)], Limit()).move, range(16)))
    assert all(m in (Move(0, 0), Move(2, 0), Move(0, 2), Move(2, 2)) for m in found), found


@pytest.mark.pins_core
@pytest.mark.parametrize("module", [PURE, COMPILED], ids=["pure", "compiled"])
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(["gomoku", "gomoku-standard", "renju"]),
    stones=st.integers(0, 40),
    seed=st.integers(0, 10**6),
    beam=st.integers(1, 40),
)
def test_a_beam_keeps_the_best_of_the_full_order(
    module: object, name: str, stones: int, seed: int, beam: int
) -> None:
    """A node's beam is the first ``beam`` moves of the full best-first order (the beam picks
    them without sorting the rest)."""
    variant = make_variant(name)
    core = core_for(variant, random_position(variant, stones, seed), module, keep=False)
    every = core.candidates(0)
    assert core.candidates(beam) == every[:beam]
    assert len(set(every)) == len(every)


MIDDLE_16 = [(7, 7), (8, 8), (8, 7), (6, 7), (7, 8), (9, 6), (6, 9), (7, 6), (9, 8), (6, 8),
             (8, 6), (5, 9), (9, 7), (10, 7), (6, 5), (7, 10)]  # fmt: skip
#: A middle game the side to move wins by fours (bench/engine_speed.py's "middle 22").
MIDDLE_22 = [(10, 4), (8, 3), (4, 7), (11, 4), (8, 9), (6, 4), (4, 6), (6, 3), (11, 10), (6, 5),
             (10, 7), (7, 6), (8, 10), (9, 9), (10, 8), (11, 7), (9, 7), (7, 7), (5, 5), (7, 3),
             (11, 8), (8, 6)]  # fmt: skip


@pytest.mark.pins_core
@pytest.mark.parametrize("module", [PURE, COMPILED], ids=["pure", "compiled"])
@pytest.mark.parametrize(
    ("switch", "stones"),
    [("null_mode", MIDDLE_16), ("prune_mode", MIDDLE_16), ("mate_mode", MIDDLE_22)],
)
def test_each_pruning_switch_cuts_the_tree_and_leaves_the_board_as_it_was(
    module: object, switch: str, stones: list[tuple[int, int]]
) -> None:
    """Null moves, the shallow beam and the mate-distance bound (round three) each search a
    smaller tree to the same depth and the same move (the bound where the tree holds mates),
    with every other switch off, and leave the board as it was (a null move's pass is taken
    back): every table as before."""
    from bots.engine.fast import FastSearch

    moves = [Move(x, y) for x, y in stones]
    found = {}
    for on in ("0", "1"):
        with switched({**dict.fromkeys(ROUND_THREE, "0"), switch: on}):
            core = core_for(GOMOKU, moves, module, keep=False)
        before = core.state()
        result = FastSearch(GOMOKU, Limit(depth=5, threats=False), core).run()
        assert core.state() == before and core.moves() == [m.y * 15 + m.x for m in moves]
        found[on] = (result.nodes, result.move, result.depth)
    assert found["1"][0] < found["0"][0] and found["1"][1:] == found["0"][1:]
