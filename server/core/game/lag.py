"""Lag compensation for the Fischer clocks, after Lichess's LagTracker (scalachess): a move gets
back the time the network took to carry it, within a quota per seat that refills move by move.

The lag is what the server measured itself (the round trip of its WebSocket pings to the
player's connection), or less when the client says less (``move``'s ``lag_ms``): a client can
never claim more than the server saw. A move's refund is ``min(lag, quota, cap, time charged)``:
never more than the move was charged, so a refund never lifts a clock above what it showed when
the turn began (plus the increment). The quota starts at ``START x gain``, pays each refund,
regains ``gain`` per move and stops at ``CEILING x gain``; no move gets more than ``CAP x gain``.
These are scalachess's first constants (2 s, 1 s, 5 s, 3 s) in units of the gain, and the gain
shrinks for fast clocks as Lichess's does now (docs/PROTOCOL.md says why for gomoku).
"""

from __future__ import annotations

from dataclasses import dataclass

#: Moves per side a game is assumed to last when sizing the gain (as the speed's estimate).
ESTIMATE_MOVES = 40
#: Seconds the quota regains per move: ``GAIN_BASE + GAIN_PER_S x estimate``, at most GAIN_MAX.
GAIN_BASE = 0.15
GAIN_PER_S = 0.004
GAIN_MAX = 1.0
#: The quota at the start, its ceiling, and the most one move gets back, in units of the gain.
START = 2.0
CEILING = 5.0
CAP = 3.0
#: The weight of a new round trip in a player's lag estimate (the rest is the old estimate).
MIX = 0.5


def gain_for(initial_s: float, increment_s: float, move_s: float | None = None) -> float:
    """Seconds of quota a move regains on this clock: Lichess's 0.15 s + 0.4 % of the game's
    estimated length per side (``initial + 40 x increment``, at most ``40 x move_s``), ≤ 1 s."""
    estimate = initial_s + ESTIMATE_MOVES * increment_s
    if move_s is not None and ESTIMATE_MOVES * move_s < estimate:
        estimate = ESTIMATE_MOVES * move_s
    gain = GAIN_BASE + GAIN_PER_S * estimate
    return gain if gain < GAIN_MAX else GAIN_MAX


def allowed(measured: float, claimed: object, most: float) -> float:
    """The lag a move may be refunded for: the server's ``measured`` round trip, or the client's
    ``claimed`` milliseconds (``lag_ms``) when lower, and never above ``most`` (0: none)."""
    lag = most if measured >= most else measured  # a NaN measure: NaN, then nothing
    if type(claimed) is int:
        told = claimed / 1000.0
        if told < lag:
            lag = told
    return lag if lag > 0.0 else 0.0  # also NaN to 0


def smoothed(estimate: float, sample: float) -> float:
    """A player's lag estimate after one more measured round trip ``sample`` (0: none yet)."""
    if not sample >= 0.0:
        return estimate
    if estimate <= 0.0:
        return sample
    return estimate + MIX * (sample - estimate)


@dataclass(slots=True)
class LagTracker:
    """Both seats' lag quotas on one clock, and the lag each seat's last move came with."""

    gain: float
    cap: float
    ceiling: float
    quota: list[float]
    lags: list[float]

    @classmethod
    def for_clock(
        cls, initial_s: float, increment_s: float, move_s: float | None = None
    ) -> LagTracker:
        """A fresh tracker for a clock (a restart makes one too: the quotas start again)."""
        gain = gain_for(initial_s, increment_s, move_s)
        return cls(gain, CAP * gain, CEILING * gain, [START * gain] * 2, [0.0, 0.0])

    def grace(self, seat: int, lag: float) -> float:
        """The most a move of ``seat`` that took ``lag`` to arrive could get back now: its flag
        falls that much later, so the move it sent in time is not refused on arrival."""
        most = self.quota[seat]
        if self.cap < most:
            most = self.cap
        if not lag >= most:  # a NaN lag too: then nothing
            most = lag
        return most if most > 0.0 else 0.0

    def refund(self, seat: int, lag: float, used: float) -> float:
        """What ``seat``'s move, charged ``used`` seconds and sent ``lag`` before it arrived, gets
        back: within the quota, the cap and ``used``. The quota pays it and regains the gain."""
        comp = self.grace(seat, lag)
        if used < comp:
            comp = used if used > 0.0 else 0.0
        quota = self.quota[seat] - comp + self.gain
        self.quota[seat] = quota if quota < self.ceiling else self.ceiling
        self.lags[seat] = lag if lag > 0.0 else 0.0
        return comp
