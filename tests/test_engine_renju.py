"""Renju inside the engine's search, on both builds of the core, against the rules as oracle.

The core's forbidden-point test must agree with ``protocol.renju.foul`` on every empty cell (the
hand-built corpus, the generated families, random games); its win cells with the rules' win
check (black: exactly five; white: five or more); the search never offers black a forbidden
point; and the renju tactics suite (``bench/renju_tactics.json``, answers found by brute force
on the rules) is solved, its answers re-proved here.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest
from support.renju_corpus import load
from support.renju_play import answers, moves_from_cells
from support.rule_oracle import rule_wins

from bots.engine import Limit, search
from bots.engine.fast import core_for, fast_search, load_core, pure_forced
from bots.sdk import MinimaxBot
from protocol import renju
from protocol.rules import Game, Move
from protocol.variants import GOMOKU, RENJU

PURE = load_core(pure=True)
COMPILED = load_core(pure=False)
CORES = pytest.mark.parametrize("module", [PURE, COMPILED], ids=["pure", "compiled"])
SUITE_PATH = Path(__file__).resolve().parents[1] / "bench" / "renju_tactics.json"
SUITE = json.loads(SUITE_PATH.read_text())
#: Budgets scale up when the plain-Python core is forced (it is the oracle, not the fast one).
SLOW = 10.0 if pure_forced() else 1.0


def rule_fouls(cells: list[int]) -> list[int]:
    """The empty cells black may not play, by ``protocol.renju``."""
    return [i for i, _ in renju.fouls(cells, 15, 15)]


def core_fouls(module: object, moves: list[Move]) -> list[int]:
    """The empty cells the core says black may not play (black to move after ``moves``)."""
    core = core_for(RENJU, moves, module, keep=False)
    assert core.side() == 0
    return [c for c in range(225) if not core.at(c) and core.forbidden(c)]


def random_games(seed: int, games: int, plies: int) -> list[list[Move]]:
    """Black-to-move positions of random legal renju games kept in the central 9x9."""
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        game = Game(RENJU)
        tries = 0
        while not game.over and game.ply < plies and tries < 5000:
            tries += 1
            move = Move(rng.randint(3, 11), rng.randint(3, 11))
            if not game.is_legal(move):
                continue
            if game.ply % 2 == 0:
                out.append(list(game.moves))
            game.push(move)
    return out


@pytest.mark.pins_core
@CORES
def test_forbidden_points_match_the_rules_on_the_corpus(module: object) -> None:
    """Every empty cell of every corpus position: the core's verdict is the rules' verdict."""
    checked = 0
    for entry in load():
        moves, cells = moves_from_cells(entry.cells)
        want = rule_fouls(cells)
        assert core_fouls(module, moves) == want, entry.title
        checked += len(want)
    assert checked >= 50  # the corpus is full of forbidden points: the test has teeth


@pytest.mark.pins_core
@CORES
def test_forbidden_points_match_the_rules_in_random_games(module: object) -> None:
    """Dense random games: the core's forbidden points are exactly the rules' ones."""
    found = 0
    for moves in random_games(seed=7, games=12, plies=70):
        cells = Game.from_moves(RENJU, moves).board.cells
        want = rule_fouls(cells)
        assert core_fouls(module, moves) == want, moves
        found += len(want)
    assert found >= 20


@pytest.mark.pins_core
@CORES
def test_win_cells_are_exactly_five_for_black_and_five_or_more_for_white(module: object) -> None:
    """The core's win cells equal the rules' on random renju games, overlines included."""
    overlines = 0
    for moves in random_games(seed=3, games=10, plies=80):
        game = Game.from_moves(RENJU, moves)
        core = core_for(RENJU, moves, module, keep=False)
        for side in (0, 1):
            assert core.win_cells(side) == rule_wins(game, side), (moves, side)
        free = core_for(GOMOKU, moves, module, keep=False).win_cells(0)
        overlines += len(set(free) - set(core.win_cells(0)))
    assert overlines >= 1  # some black "fives" were overlines: the exact rule was exercised


def test_the_overline_gap_is_no_win_for_black_but_is_for_white() -> None:
    """X X X . X X: the gap is six for black (no win, forbidden); the same for white wins."""
    black = [(3, 7), (4, 7), (5, 7), (7, 7), (8, 7)]
    white = [(3, 9), (4, 9), (5, 9), (7, 9), (8, 9)]
    moves = [Move(*xy) for pair in zip(black, white, strict=True) for xy in pair]
    for module in (PURE, COMPILED):
        core = core_for(RENJU, moves, module, keep=False)
        assert core.win_cells(0) == [] and core.forbidden(7 * 15 + 6)
        assert core.win_cells(1) == [9 * 15 + 6]
        assert 7 * 15 + 6 not in core.root_moves()


@pytest.mark.pins_core
@CORES
def test_black_is_never_offered_a_forbidden_point(module: object) -> None:
    """Root candidates and the searched move avoid every forbidden point."""
    positions = [m for m in random_games(seed=11, games=6, plies=60) if len(m) >= 20][:12]
    limit = Limit(depth=3, nodes=3000)
    for moves in positions:
        cells = Game.from_moves(RENJU, moves).board.cells
        bad = set(rule_fouls(cells))
        core = core_for(RENJU, moves, module, keep=False)
        assert not bad & set(core.root_moves()), moves
        result = fast_search(RENJU, moves, limit, module, keep=False)
        assert result.move.y * 15 + result.move.x not in bad


@pytest.mark.parametrize("entry", SUITE, ids=[e["name"] for e in SUITE])
@pytest.mark.pins_core
@CORES
def test_renju_tactics_suite(module: object, entry: dict) -> None:  # type: ignore[type-arg]
    """The engine (either core) plays one of the position's accepted answers."""
    moves = [Move(x, y) for x, y in entry["moves"]]
    accepted = {Move(x, y) for x, y in entry["accepted"]}
    budget = 1.0 * (10.0 if module is PURE else SLOW)
    result = fast_search(RENJU, moves, Limit(time_s=budget), module, keep=False)
    assert result.move in accepted, (result.move, result.source)


WINS = [e for e in SUITE if e["category"] != "forbidden-defence"]


@pytest.mark.parametrize("entry", WINS, ids=[e["name"] for e in WINS])
@pytest.mark.pins_core
@CORES
def test_the_threat_search_alone_proves_the_suite_wins(module: object, entry: dict) -> None:  # type: ignore[type-arg]
    """The VCF itself (not the full-width search behind it) knows the renju rules: it finds
    white's wins through forbidden points and black's wins around them."""
    moves = [Move(x, y) for x, y in entry["moves"]]
    core = core_for(RENJU, moves, module, keep=False)
    cell = core.threat_win(21, False, 200_000, time.perf_counter() + 30.0)
    assert [cell % 15, cell // 15] in entry["accepted"]


@pytest.mark.parametrize("entry", SUITE, ids=[e["name"] for e in SUITE])
def test_the_bot_plays_the_suite_answers_through_its_legality_check(entry: dict) -> None:  # type: ignore[type-arg]
    """Through ``MinimaxBot.play`` (as in a game) the answer is the same, and legal."""
    moves = [Move(x, y) for x, y in entry["moves"]]
    move = MinimaxBot(10, seed=1).play(RENJU, moves, Limit(time_s=1.0 * SLOW))
    assert [move.x, move.y] in entry["accepted"]


@pytest.mark.slow
@pytest.mark.parametrize("entry", SUITE, ids=[e["name"] for e in SUITE])
def test_renju_suite_answers_are_the_brute_force_ones(entry: dict) -> None:  # type: ignore[type-arg]
    """The suite's accepted answers are re-proved on the rules alone (no engine code)."""
    moves = [Move(x, y) for x, y in entry["moves"]]
    got = answers(entry["category"], moves)
    assert [[m.x, m.y] for m in got] == entry["accepted"]


@pytest.mark.pins_core
@pytest.mark.slow
def test_compiled_and_pure_cores_search_renju_alike() -> None:
    """Same move, score, depth, nodes and source from both builds on renju positions."""
    positions = [m for m in random_games(seed=5, games=6, plies=50) if len(m) >= 10][:8]
    for moves in positions:
        for threats in (False, True):
            limit = Limit(depth=3, nodes=1500, threats=threats)
            a = fast_search(RENJU, moves, limit, COMPILED, keep=False)
            b = fast_search(RENJU, moves, limit, PURE, keep=False)
            assert (a.move, a.score, a.depth, a.nodes, a.source) == (
                b.move,
                b.score,
                b.depth,
                b.nodes,
                b.source,
            ), moves


def test_search_entry_point_plays_renju_legally_from_the_empty_board() -> None:
    """A short self-play game through ``search``: every move is legal for the side to move."""
    game = Game(RENJU)
    while not game.over and game.ply < 16:
        result = search(RENJU, game.moves, Limit(time_s=0.05 * SLOW))
        assert game.is_legal(result.move), (game.moves, result.move)
        game.push(result.move)
