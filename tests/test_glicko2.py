"""Glicko-2 against Glickman's published example, and the properties a rating system must keep."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.core.rating.glicko2 import LICHESS, Rating, Settings, game, idle, update

ratings = st.builds(
    Rating,
    rating=st.floats(600, 3000),
    rd=st.floats(45, 500),
    vol=st.floats(0.03, 0.1),
)


def test_glickmans_worked_example() -> None:
    """The paper's example (τ = 0.5): 1464.06 / 151.52 / 0.05999."""
    player = Rating(1500, 200, 0.06)
    results = [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)]
    after = update(player, results, Settings(tau=0.5))
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.rd == pytest.approx(151.52, abs=0.01)
    assert after.vol == pytest.approx(0.05999, abs=0.00001)


def test_a_newcomer_starts_as_lichess_does_and_is_provisional() -> None:
    newcomer = Rating()
    assert (newcomer.rating, newcomer.rd, newcomer.vol) == (1500, 500, 0.09)
    assert newcomer.provisional and not Rating(1500, 109.9).provisional
    assert LICHESS.tau == 0.75


def test_rd_60_grows_to_110_in_a_year_and_never_past_500() -> None:
    assert idle(Rating(1500, 60), 365).rd == pytest.approx(110)
    assert idle(Rating(1500, 60), 100_000).rd == 500
    assert idle(Rating(1500, 60), 0).rd == 60


@given(ratings, ratings)
def test_the_winner_goes_up_and_the_loser_down(winner: Rating, loser: Rating) -> None:
    won, lost = game(winner, loser, 1.0)
    assert won.rating >= winner.rating and lost.rating <= loser.rating
    if abs(winner.rating - loser.rating) <= 800:
        assert won.rating > winner.rating and lost.rating < loser.rating


@given(ratings, ratings, st.sampled_from([0.0, 0.5, 1.0]))
def test_a_game_keeps_rd_within_45_to_500_and_moves_at_most_700(
    first: Rating, second: Rating, score: float
) -> None:
    for before, after in zip((first, second), game(first, second, score), strict=True):
        assert 45 <= after.rd <= 500
        # the change itself is clamped to 700; rating + 700 - rating may round one ulp above
        assert abs(after.rating - before.rating) <= 700 + 1e-9
        assert 0 < after.vol <= 0.1


@given(
    st.floats(110, 500),
    st.floats(0.03, 0.1),
    st.floats(-400, 400),
    st.floats(45, 350),
    st.sampled_from([0.0, 0.5, 1.0]),
)
def test_a_game_shrinks_an_uncertain_rd(
    rd: float, vol: float, gap: float, opponent_rd: float, score: float
) -> None:
    """A provisional rating (RD ≥ 110) against a fairly known opponent within 400 points gets
    surer with every game (a settled one hovers near its floor: Glicko-2 adds volatility)."""
    player = Rating(1500, rd, vol)
    after = update(player, [(Rating(1500 + gap, opponent_rd), score)])
    assert after.rd < player.rd


@given(ratings, st.floats(0, 5000), st.floats(0, 5000))
def test_idle_time_grows_rd_up_to_500(player: Rating, days: float, more: float) -> None:
    once = idle(player, days)
    assert player.rd <= once.rd <= 500
    assert once.rd <= idle(player, days + more).rd
    assert once.rating == player.rating
