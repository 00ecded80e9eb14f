"""Admission's first step (the guard's :class:`FrontDesk`): every connection at its accept,
before a byte of its request is read, and the page and asset requests, by bounds of their own.

A connection's kind is known only once its request is read: a game socket is then admitted by
the game's limits (``guard.py``), a page or asset request here. Pages never spend the game
sockets' budget, so a household or classroom behind one address reloads pages freely.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from dataclasses import dataclass

from server.core.ratelimit import TokenBucket

#: Connections counted at accept beyond the game's ``max_connections``: room for page requests.
PAGE_SLACK = 256
#: Addresses whose bucket is kept before the full (idle) ones are forgotten.
MIN_KEPT = 1024
#: Why a connection is refused when the server holds all the connections it may.
FULL = "too many connections to this server"


@dataclass(frozen=True, slots=True)
class PageLimits:
    """The bound of page and asset requests, apart from the game sockets' (``--page-…``)."""

    #: Requests (of any kind) per second from one address, and at once: charged at accept.
    rate: float = 50.0
    burst: float = 500.0
    #: Page or asset requests from one address being answered at once.
    in_flight: int = 64


class Buckets:
    """A token bucket per address, made full when new; the full ones forgotten now and then."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, max(1.0, burst)
        self.by_address: dict[str, TokenBucket] = {}
        self._prune_at = MIN_KEPT

    def allow(self, address: str) -> bool:
        """Take a token from ``address``'s bucket; False: refuse it now."""
        if math.isinf(self.rate):
            return True
        now = time.monotonic()
        bucket = self.by_address.get(address)
        if bucket is None:
            if len(self.by_address) >= self._prune_at:
                self._prune(now)
            bucket = self.by_address[address] = TokenBucket(self.rate, self.burst)
        return bucket.allow(now)

    def _prune(self, now: float) -> None:
        """Forget the addresses whose bucket has filled up again (they are as good as new)."""
        kept = {a: b for a, b in self.by_address.items() if b.wait(now, b.burst) > 0}
        self.by_address = kept
        self._prune_at = max(MIN_KEPT, 2 * len(kept))


class FrontDesk:
    """Counts every connection per address at accept, and the page requests being answered."""

    def __init__(self, max_total: int, max_per_address: int, limits: PageLimits) -> None:
        self.limits = limits
        #: Connections of any kind at once, in all and per address.
        self.max_total = max_total + PAGE_SLACK
        self.max_per_address = max_per_address + limits.in_flight
        self.requests = Buckets(limits.rate, limits.burst)
        self.accepted: Counter[str] = Counter()
        self.accepted_total = 0
        self.pages: Counter[str] = Counter()

    def accept(self, address: str) -> str | None:
        """Count a new connection of any kind in; why it is refused instead, or None."""
        if self.accepted_total >= self.max_total:
            return FULL
        if self.accepted[address] >= self.max_per_address:
            return "too many connections from your address"
        if not self.requests.allow(address):
            return "too many requests from your address; slow down"
        self.accepted[address] += 1
        self.accepted_total += 1
        return None

    def page(self, address: str) -> str | None:
        """Count a page or asset request in; why it is refused instead, or None."""
        if self.pages[address] >= self.limits.in_flight:
            return "too many page requests from your address at once"
        self.pages[address] += 1
        return None

    def leave(self, address: str, page: bool) -> None:
        """A connection counted in at accept (and as a page request, if ``page``) closed."""
        _uncount(self.accepted, address)
        self.accepted_total -= 1
        if page:
            _uncount(self.pages, address)


def _uncount(counter: Counter[str], address: str) -> None:
    counter[address] -= 1
    if counter[address] <= 0:
        del counter[address]
