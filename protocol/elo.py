"""Elo from game results: the difference a W/D/L record says against its opponents, with its
95 % error (cutechess-cli's figures, with a prior), and the likelihood of superiority.

One computation for everyone: ``mnk-tournament`` prints it (``bots/tournament/stats.py``) and
the server sends it in a bot event's ``tournament`` message (docs/PROTOCOL.md, "Tournaments").
Pure: no I/O, nothing else of ours imported.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

#: Scores are clamped this far away from 0 and 1 so a perfect record has a finite Elo.
SCORE_EPSILON = 1e-3
#: Virtual games added to every record (this many wins and as many losses against an equal
#: opponent), as BayesElo and Ordo add a prior: a 4-0 sweep or an all-drawn record then gets a
#: finite Elo with a wide error instead of a clamped "+1199.8 ± 0.0" that reads as certainty.
PRIOR_GAMES = 1
_PHI = NormalDist()


def clamp_score(p: float) -> float:
    """``p`` moved into [eps, 1 - eps]."""
    return min(max(p, SCORE_EPSILON), 1.0 - SCORE_EPSILON)


def elo_from_score(p: float) -> float:
    """The Elo difference that makes ``p`` the expected score: -400*log10(1/p - 1)."""
    return -400.0 * math.log10(1.0 / clamp_score(p) - 1.0) + 0.0  # no "-0.0"


def score_from_elo(elo: float) -> float:
    """The expected score at an Elo difference (the logistic curve)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


@dataclass(frozen=True, slots=True)
class EloEstimate:
    """An Elo difference with its 95 % error margin (± ``error``)."""

    elo: float
    error: float


def elo_estimate(wins: int, draws: int, losses: int, prior: int = PRIOR_GAMES) -> EloEstimate:
    """cutechess-cli's Elo and error margin (1.96 sigma of the per-game score variance).

    ``prior`` virtual wins and as many losses are added to a record with games (0: cutechess's
    own figures).
    """
    if wins + draws + losses == 0:
        return EloEstimate(0.0, 0.0)
    wins, losses = wins + prior, losses + prior
    n = wins + draws + losses
    mu = (wins + draws / 2) / n
    var = (wins * (1 - mu) ** 2 + draws * (0.5 - mu) ** 2 + losses * mu**2) / n
    stdev = math.sqrt(var / n)
    lo = elo_from_score(mu + _PHI.inv_cdf(0.025) * stdev)
    hi = elo_from_score(mu + _PHI.inv_cdf(0.975) * stdev)
    return EloEstimate(elo_from_score(mu), (hi - lo) / 2)


def los(wins: int, losses: int) -> float:
    """Likelihood of superiority (0..1): 1/2 + 1/2*erf((W - L)/sqrt(2(W + L)))."""
    if wins + losses == 0:
        return 0.5
    return 0.5 + 0.5 * math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses)))


def los_from_ratings(a: EloEstimate, b: EloEstimate) -> float:
    """LOS of ``a`` over ``b`` from two estimates (normal approximation, sigma = error / 1.96)."""
    sigma = math.hypot(a.error, b.error) / 1.96
    if sigma == 0:
        return 0.5 if a.elo == b.elo else float(a.elo > b.elo)
    return _PHI.cdf((a.elo - b.elo) / sigma)


def elo_view(wins: int, draws: int, losses: int) -> dict[str, float] | None:
    """A record's Elo as the wire and results.json round it (0.1), or None with no games."""
    if wins + draws + losses == 0:
        return None
    estimate = elo_estimate(wins, draws, losses)
    return {"elo": round(estimate.elo, 1), "error": round(estimate.error, 1)}
