"""Which connection a full server closes for a newcomer: the least worth to the server.

Whatever it sends: a socket that pings or watches holds a place as a silent one does. Only an
address that holds more than the newcomer's plus one gives one up; of the heaviest addresses,
the least worth first (``Presence.worth``: in no room, watching, a waiting seat; a bot or a
player seated in a live game never), then the heaviest address, then the oldest; one counted
in less than ``evict_after`` seconds ago never (two newcomers do not take turns).

Making room is not rationed by a rate of its own: every arrival is charged to its address's
bounds first (``guard.py``), and a search that found nothing is remembered for a moment
(:class:`Fruitless`), so an address knocking at a full server costs a look-up a knock. A
shared rate was spent first-come by the busiest knockers: in the hostile bench, attackers
knocking hundreds of times a second took each of its 20 tries a second the moment it came,
and 8 of 20 newcomers were refused while the heaviest addresses still held connections to
close.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Protocol, TypeVar

from server.core.players.presence import KEEP, LOBBY

#: When the server is full, the heaviest addresses looked at for a connection to close.
EVICT_ADDRESSES = 8
#: Connections weighed (``Presence.worth``, a look at each room of its player) per try at
#: most: four full addresses; a try's work is bounded however full the heaviest ones are.
EVICT_SCAN = 256
#: Seconds a search that found nothing to close is remembered: tries from addresses holding as
#: much meanwhile are refused without one (a connection comes of age, or loses its worth,
#: this much later at worst).
EVICT_RETRY = 0.1


class Held(Protocol):
    """A counted connection, as eviction weighs it."""

    #: What it is worth to the server (None: not served yet; its hello deadline ends it).
    worth: Callable[[], int] | None
    #: When it was counted in (monotonic seconds).
    since: float


C = TypeVar("C", bound="Held")


def least_worth(
    open_counts: Mapping[str, int],
    held: Mapping[str, Iterable[C]],
    mine: int,
    now: float,
    evict_after: float,
) -> C | None:
    """The connection to close for a newcomer from an address holding ``mine``, or None."""
    heaviest = heapq.nlargest(EVICT_ADDRESSES, open_counts.items(), key=lambda item: item[1])
    best: tuple[int, int, float] | None = None
    victim: C | None = None
    scan = EVICT_SCAN
    for heavy, count in heaviest:
        if count <= mine + 1 or scan <= 0:
            break
        for conn in held.get(heavy, ()):
            worth = conn.worth
            if worth is None or now - conn.since < evict_after:
                continue  # not served yet (its hello deadline ends it), or too new
            scan -= 1
            if scan < 0:
                break
            key = (worth(), -count, conn.since)
            if key[0] < KEEP and (best is None or key < best):
                best, victim = key, conn
        if best is not None and best[0] == LOBBY:
            break  # nothing lighter can be worth less
    return victim


class Fruitless:
    """The last search that found nothing to close, for a while: an address holding as much
    (or more) can find nothing either (fewer addresses are heavier than it), a lighter one may."""

    def __init__(self, retry: float = EVICT_RETRY) -> None:
        self.retry = retry
        #: Until when (monotonic seconds) addresses holding at least ``held`` find nothing.
        self.until = -math.inf
        self.held = 0

    def known(self, mine: int, now: float) -> bool:
        """Whether a search for an address holding ``mine`` would find nothing (as one did)."""
        return now < self.until and mine >= self.held

    def found_nothing(self, mine: int, now: float) -> None:
        """A search for an address holding ``mine`` found nothing to close."""
        if now >= self.until:
            self.until, self.held = now + self.retry, mine
        else:
            self.held = min(self.held, mine)
