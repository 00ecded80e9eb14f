"""Rating statistics: Elo ± 95 % error (cutechess-cli's, with a prior) and LOS, from
``protocol/elo.py``, and the GSPRT, from ``protocol/sprt.py`` (the server sends the same
figures)."""

from __future__ import annotations

from protocol.elo import (
    PRIOR_GAMES,
    SCORE_EPSILON,
    EloEstimate,
    clamp_score,
    elo_estimate,
    elo_from_score,
    los,
    los_from_ratings,
    score_from_elo,
)
from protocol.sprt import Sprt, sprt_llr

__all__ = [
    "PRIOR_GAMES",
    "SCORE_EPSILON",
    "EloEstimate",
    "Sprt",
    "clamp_score",
    "elo_estimate",
    "elo_from_score",
    "los",
    "los_from_ratings",
    "score_from_elo",
    "sprt_llr",
]
