"""Server-side Fischer clocks with an optional cap per move, driven by timestamps passed in, and
each move's refund for its network lag (core/game/lag.py)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from protocol.errors import BadOptions
from server.core.game.lag import LagTracker

MAX_CLOCK_S = 24 * 3600.0


@dataclass(frozen=True, slots=True)
class ClockSpec:
    """A time control: ``initial_s`` each, ``increment_s`` after every move, ``move_s`` cap a move.

    The cap is Gomocup's ``timeout_turn``: a move that takes longer loses even with time left.
    """

    initial_s: float
    increment_s: float = 0.0
    move_s: float | None = None

    @classmethod
    def parse(cls, raw: object) -> ClockSpec:
        """A spec from the wire's ``clock`` map; :class:`BadOptions` (bad_options) if invalid."""
        if not isinstance(raw, Mapping):
            raise BadOptions("clock must be a map with initial_s and increment_s")

        def number(key: str, default: float | None) -> float | None:
            value = raw.get(key, default)
            if value is None:
                return None
            if type(value) not in (int, float) or not math.isfinite(value):
                raise BadOptions(f"clock {key} must be a number")
            if not 0 <= value <= MAX_CLOCK_S:
                raise BadOptions(f"clock {key} must be between 0 and {MAX_CLOCK_S:.0f}")
            return float(value)

        initial = number("initial_s", None)
        if initial is None or initial <= 0:
            raise BadOptions("clock initial_s must be a positive number")
        move_s = number("move_s", None)
        if move_s is not None and move_s <= 0:
            raise BadOptions("clock move_s must be positive")
        return cls(initial, number("increment_s", 0.0) or 0.0, move_s)

    def describe(self) -> dict[str, float | None]:
        """The spec as the wire's ``clock`` map."""
        return {"initial_s": self.initial_s, "increment_s": self.increment_s, "move_s": self.move_s}


@dataclass(slots=True)
class Clock:
    """Both seats' remaining time; at most one runs, from ``since``.

    A move's ``lag`` (the seconds its trip took, core/game/lag.py) is given back within the seat's
    lag quota, never more than the move was charged: ``remaining`` after a move is at most what
    it was when the turn began, plus the increment. The running seat's flag falls that refund
    later (by the lag its last move came with), so a move sent in time is not lost in transit.
    """

    spec: ClockSpec
    remaining: list[float] = field(default_factory=list)
    running: int | None = None
    since: float = 0.0
    lag: LagTracker = field(init=False)

    def __post_init__(self) -> None:
        spec = self.spec
        if not self.remaining:
            self.remaining = [spec.initial_s, spec.initial_s]
        self.lag = LagTracker.for_clock(spec.initial_s, spec.increment_s, spec.move_s)

    def start(self, seat: int, now: float) -> None:
        """Start ``seat``'s clock at ``now``."""
        self.running, self.since = seat, now

    def left(self, seat: int, now: float) -> float:
        """Seconds ``seat`` has left at ``now`` (never negative)."""
        used = now - self.since if self.running == seat else 0.0
        return max(0.0, self.remaining[seat] - used)

    def snapshot(self, now: float) -> list[float]:
        """Both seats' remaining seconds at ``now``, rounded to milliseconds for the wire."""
        return [round(self.left(seat, now), 3) for seat in (0, 1)]

    def deadline(self, lag: float = -1.0) -> float | None:
        """When the running seat's flag falls (its time, or the per-move cap, and the refund a
        move with ``lag`` could get; -1: the lag its last move came with), or None."""
        seat = self.running
        if seat is None:
            return None
        budget = self.remaining[seat]
        if self.spec.move_s is not None:
            budget = min(budget, self.spec.move_s)
        tracker = self.lag
        return self.since + budget + tracker.grace(seat, tracker.lags[seat] if lag < 0 else lag)

    def flagged(self, now: float, lag: float = -1.0) -> bool:
        """Whether the running seat is out of time at ``now`` (for a move with ``lag``)."""
        deadline = self.deadline(lag)
        return deadline is not None and now >= deadline

    def press(self, now: float, lag: float = 0.0) -> None:
        """The running seat moved at ``now`` (its move ``lag`` seconds on the way): charge it,
        less the lag refund, add the increment, start the other."""
        seat = self.running
        if seat is None:
            return
        self._charge(seat, now, lag)
        self.remaining[seat] += self.spec.increment_s
        self.start(1 - seat, now)

    def hand(self, seat: int, now: float, lag: float = 0.0) -> None:
        """Charge the running seat up to ``now`` (less the lag refund, no increment) and run
        ``seat``'s clock instead."""
        if self.running is not None:
            self._charge(self.running, now, lag)
        self.running, self.since = seat, now

    def rewind(self, remaining: list[float] | None, seat: int, now: float) -> None:
        """A takeback: both clocks as they stood (``remaining``; None: as at the start), and
        ``seat``'s running from ``now``."""
        self.remaining = list(remaining) if remaining else [self.spec.initial_s] * 2
        self.start(seat, now)

    def stop(self, now: float) -> None:
        """Stop the running clock, charging it up to ``now``."""
        if self.running is not None:
            self.remaining[self.running] = self.left(self.running, now)
            self.running = None

    def _charge(self, seat: int, now: float, lag: float) -> None:
        """Charge the running ``seat`` for its move at ``now``, less what its lag gets back."""
        used = now - self.since
        left = self.remaining[seat] - used + self.lag.refund(seat, lag, used)
        self.remaining[seat] = left if left > 0.0 else 0.0
