"""Glicko-2 (Glickman, "Example of the Glicko-2 system", 2013) with Lichess's settings: pure
functions on frozen ratings, updated after every game, RD kept in 45-500 and grown by idle time."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

#: Glicko-2's scale factor between the rating scale and its internal one.
SCALE = 173.7178
#: The rating of a newcomer; ratings are centred on it.
CENTRE = 1500.0
#: RD at or above which a rating is provisional (shown with a "?").
PROVISIONAL_RD = 110.0
#: Seconds in a day: idle time grows RD by the day.
DAY = 86400.0


@dataclass(frozen=True, slots=True)
class Settings:
    """The system's constants (Lichess's by default)."""

    tau: float = 0.75
    min_rd: float = 45.0
    max_rd: float = 500.0
    max_vol: float = 0.1
    #: The most a rating moves in one update.
    max_change: float = 700.0
    #: RD² added per idle day: RD 60 grows to 110 in a year without games.
    idle_c2: float = (110.0**2 - 60.0**2) / 365.0
    #: The volatility iteration's tolerance (Glickman's ε).
    epsilon: float = 1e-6


LICHESS = Settings()


@dataclass(frozen=True, slots=True)
class Rating:
    """A rating, its deviation (RD) and volatility, on the rating scale."""

    rating: float = CENTRE
    rd: float = 500.0
    vol: float = 0.09

    @property
    def provisional(self) -> bool:
        """Whether the rating is still uncertain (RD at least 110)."""
        return self.rd >= PROVISIONAL_RD


def idle(player: Rating, days: float, settings: Settings = LICHESS) -> Rating:
    """``player`` after ``days`` without a game: RD grows (Glicko's c²·t), up to the maximum."""
    if days <= 0:
        return player
    rd = min(settings.max_rd, math.sqrt(player.rd**2 + settings.idle_c2 * days))
    return Rating(player.rating, rd, player.vol)


def update(
    player: Rating, results: Sequence[tuple[Rating, float]], settings: Settings = LICHESS
) -> Rating:
    """``player`` after one rating period of ``results`` (opponent, score 1/0.5/0), each
    opponent as they were before it; the rating's move, RD and volatility are bounded."""
    if not results:
        return player
    mu, phi, sigma = (player.rating - CENTRE) / SCALE, player.rd / SCALE, player.vol
    v_inverse = 0.0
    gain = 0.0
    for opponent, score in results:
        g = _g(opponent.rd / SCALE)
        e = 1.0 / (1.0 + math.exp(-g * (mu - (opponent.rating - CENTRE) / SCALE)))
        v_inverse += g * g * e * (1.0 - e)
        gain += g * (score - e)
    v = 1.0 / v_inverse
    sigma = min(settings.max_vol, _volatility(phi, sigma, v, v * gain, settings))
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    change = SCALE * phi_new * phi_new * gain
    change = max(-settings.max_change, min(settings.max_change, change))
    rd = max(settings.min_rd, min(settings.max_rd, SCALE * phi_new))
    return Rating(player.rating + change, rd, sigma)


def game(first: Rating, second: Rating, score: float) -> tuple[Rating, Rating]:
    """Both players after one game in which ``first`` scored ``score`` (1, 0.5 or 0)."""
    return update(first, [(second, score)]), update(second, [(first, 1.0 - score)])


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _volatility(phi: float, sigma: float, v: float, delta: float, settings: Settings) -> float:
    """The new volatility by Glickman's Illinois iteration (step 5 of the paper)."""
    tau = settings.tau
    a = math.log(sigma * sigma)
    phi2 = phi * phi

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi2 - v - ex) / (2.0 * (phi2 + v + ex) ** 2) - (x - a) / (
            tau * tau
        )

    low = a
    if delta * delta > phi2 + v:
        high = math.log(delta * delta - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        high = a - k * tau
    f_low, f_high = f(low), f(high)
    while abs(high - low) > settings.epsilon:
        c = low + (low - high) * f_low / (f_high - f_low)
        f_c = f(c)
        if f_c * f_high <= 0:
            low, f_low = high, f_high
        else:
            f_low /= 2.0
        high, f_high = c, f_c
    return math.exp(low / 2.0)
