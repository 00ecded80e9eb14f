"""The generalised SPRT of an engine match: the log-likelihood ratio of a W/D/L record under
H1 (Elo = elo1) over H0 (Elo = elo0) in the trinomial model (fishtest's GSPRT), its bounds and
its verdict.

One computation for everyone: ``mnk-tournament`` prints it (``bots/tournament/stats.py``) and
the server's ``match`` event stops on it and sends it (docs/PROTOCOL.md, "Tournaments").
Pure: no I/O, nothing else of ours but ``protocol/elo.py`` imported.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from protocol.elo import score_from_elo

#: The largest Elo difference a test may name (a logistic score of 0.997: nothing beyond).
MAX_ELO = 1000.0
#: Stand-in count for an outcome never seen (fishtest regularises empty cells the same way).
_EMPTY_CELL = 1e-3


def _constrained_mle(probs: list[float], scores: list[float], s: float) -> list[float]:
    """The trinomial closest (MLE) to ``probs`` whose expected score is ``s``."""
    # p_i = p_hat_i / (1 + lam d_i), d_i = x_i - s; lam solves sum p_hat_i d_i / (1 + lam d_i) = 0
    d = [x - s for x in scores]
    lo = max((-1.0 / v for v in d if v > 0), default=-1e9) + 1e-12
    hi = min((-1.0 / v for v in d if v < 0), default=1e9) - 1e-12

    def f(lam: float) -> float:
        return sum(p * v / (1.0 + lam * v) for p, v in zip(probs, d, strict=True))

    for _ in range(200):  # f falls from +inf to -inf on (lo, hi): bisect
        mid = (lo + hi) / 2
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    lam = (lo + hi) / 2
    return [p / (1.0 + lam * v) for p, v in zip(probs, d, strict=True)]


def sprt_llr(wins: int, draws: int, losses: int, elo0: float, elo1: float) -> float:
    """The generalised SPRT log-likelihood ratio of H1 (elo1) over H0 (elo0), trinomial model."""
    n = wins + draws + losses
    if n == 0:
        return 0.0
    counts = [max(c, _EMPTY_CELL) for c in (losses, draws, wins)]
    total = sum(counts)
    probs = [c / total for c in counts]
    scores = [0.0, 0.5, 1.0]
    p0 = _constrained_mle(probs, scores, score_from_elo(elo0))
    p1 = _constrained_mle(probs, scores, score_from_elo(elo1))
    return sum(c * math.log(a / b) for c, a, b in zip(counts, p1, p0, strict=True) if c >= 1)


@dataclass(frozen=True, slots=True)
class Sprt:
    """A sequential test of H0: Elo = elo0 against H1: Elo = elo1 with error rates alpha, beta."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    @classmethod
    def parse(cls, text: str) -> Sprt:
        """``elo0,elo1[,alpha,beta]``; ValueError when malformed."""
        parts = [float(p) for p in text.split(",")]
        if len(parts) not in (2, 4):
            raise ValueError("--sprt takes elo0,elo1 or elo0,elo1,alpha,beta")
        return cls.checked(*parts)

    @classmethod
    def checked(cls, elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05) -> Sprt:
        """The test, or ValueError unless elo0 < elo1 (both within ``MAX_ELO``) and 0 < alpha,
        beta < 1."""
        test = cls(float(elo0), float(elo1), float(alpha), float(beta))
        if not -MAX_ELO <= test.elo0 < test.elo1 <= MAX_ELO:
            raise ValueError(f"the SPRT needs elo0 < elo1, both within ±{MAX_ELO:g}")
        if not (0 < test.alpha < 1 and 0 < test.beta < 1):
            raise ValueError("the SPRT needs 0 < alpha, beta < 1")
        return test

    def describe(self) -> dict[str, float]:
        """The test's settings as the wire carries them."""
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta}

    def state(self, wins: int, draws: int, losses: int) -> dict[str, Any]:
        """The test on a W/D/L record (the first player's), as the server's ``match`` event
        and ``mnk-tournament``'s results.json say it: settings, bounds and LLR (rounded to
        1e-4), the record, and the verdict (``"H1"``, ``"H0"`` or None: keep playing)."""
        llr = self.llr(wins, draws, losses)
        return {
            **self.describe(),
            "lower": round(self.lower, 4),
            "upper": round(self.upper, 4),
            "llr": round(llr, 4),
            "wins": wins,
            "draws": draws,
            "losses": losses,
            "verdict": self.verdict(llr),
        }

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR: log(beta / (1 - alpha))."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR: log((1 - beta) / alpha)."""
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, wins: int, draws: int, losses: int) -> float:
        """The LLR of a W/D/L record (from the first player's point of view)."""
        return sprt_llr(wins, draws, losses, self.elo0, self.elo1)

    def verdict(self, llr: float) -> str | None:
        """``"H1"``, ``"H0"`` or None (keep playing)."""
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None
