"""What the pairing remembers of past pairings: who may not be paired with whom (their paired
game was aborted), and each player's last seat, so that colours alternate."""

from __future__ import annotations

import secrets
from collections.abc import Callable

from server.core.lobby.registry import RoomRegistry
from server.core.players.players import Player
from server.core.players.roster import rooms_of

#: Seconds two players stay blocked from each other after their paired game was aborted
#: (unless one of them plays someone else first), and how many last seats are remembered.
BLOCK_TTL = 3600.0
MAX_REMEMBERED = 100_000


class PairMemory:
    """Blocks between players and last seats, bounded in time and in count."""

    def __init__(self, rooms: RoomRegistry, clock: Callable[[], float]) -> None:
        self.rooms, self.clock = rooms, clock
        self._blocked: dict[str, dict[str, float]] = {}
        self._last_seat: dict[str, int] = {}

    def blocked(self, a: str, b: str) -> bool:
        """Whether a wave may not pair ``a`` with ``b`` (their paired game was aborted)."""
        since = self._blocked.get(a, {}).get(b)
        return since is not None and self.clock() - since < BLOCK_TTL

    def block(self, a: str, b: str, now: float) -> None:
        """``a`` and ``b``'s paired game was aborted: no wave pairs them again for a while."""
        if a and b and a != b:
            self._blocked.setdefault(a, {})[b] = now
            self._blocked.setdefault(b, {})[a] = now

    def played(self, pid: str, seat: int) -> None:
        """``pid`` was paired into ``seat``: its blocks are lifted (both ways), its seat kept."""
        for other in self._blocked.pop(pid, {}):
            others = self._blocked.get(other)
            if others is not None:
                others.pop(pid, None)
                if not others:
                    del self._blocked[other]
        self._last_seat.pop(pid, None)
        self._last_seat[pid] = seat
        if len(self._last_seat) > MAX_REMEMBERED:
            del self._last_seat[next(iter(self._last_seat))]

    def prune(self, now: float) -> None:
        """Forget blocks older than ``BLOCK_TTL``."""
        for pid in list(self._blocked):
            others = self._blocked[pid]
            for other in [o for o, since in others.items() if now - since >= BLOCK_TTL]:
                del others[other]
            if not others:
                del self._blocked[pid]

    def colour(self, a: Player, b: Player) -> int:
        """``a``'s seat against ``b``: the one after its last game's, when the two agree
        (or only one of them has a last game); else random."""
        want_a, want_b = self.wants(a), self.wants(b)
        if want_a is not None and (want_b is None or want_a != want_b):
            return want_a
        if want_b is not None and want_a is None:
            return 1 - want_b
        return secrets.randbelow(2)

    def wants(self, player: Player) -> int | None:
        """The seat ``player`` should get now: the other one than in its last game, if known
        (its latest started room here, else the last pairing remembered)."""
        seated = [
            r
            for r in rooms_of(self.rooms, player)
            if r.started_at is not None and r.seat_of(player.pid) is not None
        ]
        if seated:
            last = max(seated, key=lambda r: r.started_at or 0.0).seat_of(player.pid)
        else:
            last = self._last_seat.get(player.pid)
        return None if last is None else 1 - last
