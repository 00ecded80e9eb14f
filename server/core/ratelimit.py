"""A token bucket per connection: a steady rate with room for short bursts."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class TokenBucket:
    """Allows ``rate`` events per second on average and ``burst`` at once."""

    rate: float
    burst: float
    tokens: float = -1.0
    stamp: float = 0.0

    def allow(self, now: float, cost: float = 1.0) -> bool:
        """Take ``cost`` tokens if there are that many; False means the event must be refused."""
        if self.tokens < 0:
            self.tokens, self.stamp = self.burst, now
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= cost:
            self.tokens -= cost
            return True
        return False

    def wait(self, now: float, cost: float = 1.0) -> float:
        """Seconds from ``now`` until ``cost`` tokens are there (0 if they are now)."""
        tokens = self.burst if self.tokens < 0 else self.tokens
        tokens = min(self.burst, tokens + (now - self.stamp) * self.rate)
        return max(0.0, (cost - tokens) / self.rate)
