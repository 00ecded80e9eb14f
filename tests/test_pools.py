"""Rating pools: the rated games by board and rule, the speeds by estimated length."""

from __future__ import annotations

import pytest

from protocol.variants import make_variant
from server.core.game.clock import ClockSpec
from server.core.rating.pools import POOLS, pool_of


@pytest.mark.parametrize(
    ("game", "options", "clock", "pool"),
    [
        ("tictactoe", {}, (60, 0), "tictactoe-bullet"),
        ("gomoku", {}, (120, 1), "gomoku-bullet"),  # 160
        ("gomoku", {}, (180, 0), "gomoku-blitz"),
        ("gomoku", {}, (300, 3), "gomoku-blitz"),  # 420
        ("gomoku", {}, (480, 0), "gomoku-rapid"),
        ("gomoku-standard", {}, (600, 5), "exact-rapid"),  # 800
        ("renju", {}, (1500, 0), "renju-classical"),
        ("renju", {}, (1200, 7.4), "renju-rapid"),  # 1496
        ("mnk", {"width": 15, "k": 5}, (60, 0), "gomoku-bullet"),
        ("mnk", {"width": 15, "k": 5, "rule": "exact"}, (60, 0), "exact-bullet"),
        ("mnk", {"width": 3, "k": 3}, (600, 0), "tictactoe-rapid"),
    ],
)
def test_a_rated_game_s_pool_is_its_game_and_speed(
    game: str, options: dict[str, object], clock: tuple[float, float], pool: str
) -> None:
    spec = ClockSpec(*clock)
    assert pool_of(make_variant(game, options), spec) == pool
    assert pool in POOLS


def test_a_move_cap_bounds_the_estimate() -> None:
    """Gomocup-style clocks (a large match time, a cap per move) are as fast as their cap."""
    gomoku = make_variant("gomoku")
    assert pool_of(gomoku, ClockSpec(3600, 0, move_s=4)) == "gomoku-bullet"  # 160
    assert pool_of(gomoku, ClockSpec(3600, 0, move_s=10)) == "gomoku-blitz"  # 400
    assert pool_of(gomoku, ClockSpec(60, 0, move_s=30)) == "gomoku-bullet"  # 60


def test_untimed_games_and_other_boards_have_no_pool() -> None:
    assert pool_of(make_variant("gomoku"), None) is None
    assert pool_of(make_variant("mnk", {"width": 7, "height": 6, "k": 4}), ClockSpec(60)) is None
    assert pool_of(make_variant("mnk", {"width": 19, "k": 5}), ClockSpec(60)) is None
    assert len(POOLS) == 16 and len(set(POOLS)) == 16
