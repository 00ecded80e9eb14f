"""A token bucket per connection: a steady rate with room for short bursts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

#: A frame costs one message of its sender's rate, and one more per this many bytes: decoding
#: is paid by the object, and a 64 KB frame of empty lists took ~6 ms (so at a human's 20 frames
#: a second, 120 ms of the loop's every second); at 17 messages it may come ~once a second.
FRAME_COST_BYTES: Final = 4096  # Final: compiled in as a constant, not looked up per frame


def frame_cost(frame: bytes | str) -> int:
    """Messages of its sender's rate a frame is charged before it is decoded."""
    return 1 + len(frame) // FRAME_COST_BYTES


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

    def allow_frame(self, now: float, frame: bytes | str) -> bool:
        """Charge ``frame`` before it is decoded (:func:`frame_cost`), in one compiled call on
        every frame's path; False means it must be refused."""
        return self.allow(now, frame_cost(frame))

    def wait(self, now: float, cost: float = 1.0) -> float:
        """Seconds from ``now`` until ``cost`` tokens are there (0 if they are now)."""
        tokens = self.burst if self.tokens < 0 else self.tokens
        tokens = min(self.burst, tokens + (now - self.stamp) * self.rate)
        return max(0.0, (cost - tokens) / self.rate)
