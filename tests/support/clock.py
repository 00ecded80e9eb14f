"""A clock for tests: time that moves only when the test says, for code that takes ``clock=``."""

from __future__ import annotations


class FakeClock:
    """Seconds that only move when a test says so (wall time by default, or any start)."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        """The time now, as the code under test reads it."""
        return self.now

    def advance(self, seconds: float) -> None:
        """Let ``seconds`` pass."""
        self.now += seconds
