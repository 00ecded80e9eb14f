"""protocol/elo.py against known answers: the figures mnk-tournament's tests check (cutechess's
Elo and error, the prior's finite sweep, LOS), and the rounded view the server sends."""

from __future__ import annotations

import math

import pytest

from bots.tournament import stats
from protocol.elo import (
    EloEstimate,
    elo_estimate,
    elo_from_score,
    elo_view,
    los,
    los_from_ratings,
    score_from_elo,
)


def test_elo_from_score_and_back() -> None:
    assert elo_from_score(0.75) == pytest.approx(190.85, abs=0.01)
    assert elo_from_score(0.5) == 0.0
    assert elo_from_score(0.9090909) == pytest.approx(400.0, abs=0.01)  # 10:1 odds
    assert score_from_elo(190.85) == pytest.approx(0.75, abs=1e-4)
    assert math.isfinite(elo_from_score(1.0)) and math.isfinite(elo_from_score(0.0))


def test_elo_estimate_matches_cutechess_and_the_prior() -> None:
    assert elo_estimate(5, 0, 5, prior=0).elo == 0.0
    assert elo_estimate(30, 0, 10, prior=0).elo == pytest.approx(190.85, abs=0.01)
    assert elo_estimate(0, 0, 0) == EloEstimate(0.0, 0.0)
    sweep = elo_estimate(4, 0, 0)  # scored as 5 wins and 1 loss: p = 5/6
    assert sweep.elo == pytest.approx(279.59, abs=0.01) and sweep.error > 300
    assert elo_estimate(0, 0, 4).elo == pytest.approx(-sweep.elo)
    drawn = elo_estimate(0, 10, 0)
    assert drawn.elo == 0.0 and drawn.error > 30


def test_los() -> None:
    assert los(10, 10) == los(0, 0) == 0.5
    assert los(15, 5) == pytest.approx(0.9873, abs=1e-4)
    assert los_from_ratings(EloEstimate(100, 50), EloEstimate(0, 50)) > 0.99
    assert los_from_ratings(EloEstimate(0, 0), EloEstimate(0, 0)) == 0.5


def test_the_view_is_what_mnk_tournament_prints_rounded_and_none_without_games() -> None:
    assert elo_view(0, 0, 0) is None
    estimate = elo_estimate(3, 1, 1)
    assert elo_view(3, 1, 1) == {"elo": round(estimate.elo, 1), "error": round(estimate.error, 1)}
    assert elo_view(4, 0, 0) == {"elo": 279.6, "error": round(elo_estimate(4, 0, 0).error, 1)}


def test_mnk_tournament_uses_this_very_computation() -> None:
    assert stats.elo_estimate is elo_estimate and stats.EloEstimate is EloEstimate
    assert stats.los is los and stats.elo_from_score is elo_from_score
