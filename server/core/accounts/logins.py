"""Login and registration floods, on the arena's clock (so tests inject time, not sleep).

Lock out the guesser, not the owner. Failed logins are counted per (account, address) and per
address, never per account alone: a count per account would let anyone lock its owner out.
Past a few free failures each count asks for a growing delay before the next attempt is
checked (the request waits for it off the loop, holding no hashing slot, then is answered as
usual), never a hard stop:

- per (account, address): 3 free failures, then 1 s, 2 s, 4 s ... at most 60 s between tries;
- per address: 20 free failures, then 0.25 s, 0.5 s ... at most 8 s, for the accounts not yet
  logged in from that address (a NAT's other users who logged in from it before are not slowed
  by one guesser behind it, and a new one waits seconds, not minutes).

A success forgets its pair's failures and makes the pair *known*: its checks take the hasher's
reserved lane (see :mod:`server.shell.hasher`). Counts are forgotten 10 minutes after their last
failure. The owner's first right password from an address that has not been guessing waits for
nothing, however many strangers hammer the account from elsewhere.
"""

from __future__ import annotations

from collections import deque

from protocol.errors import TooManyRegistrations

#: Seconds after its last failure a count is forgotten.
FAIL_WINDOW = 600.0
#: Per (account, address): failures free of delay, the first delay, the longest one.
PAIR_FREE, PAIR_BASE, PAIR_CAP = 3, 1.0, 60.0
#: Per address, for the accounts not known there: the same three.
ADDRESS_FREE, ADDRESS_BASE, ADDRESS_CAP = 20, 0.25, 8.0
#: Accounts one address may register in an hour unless ``--registrations-per-hour`` says.
REGISTRATION_WINDOW = 3600.0
REGISTRATIONS_PER_ADDRESS = 10
#: Keys a table holds at most: past it the oldest are forgotten first (a stranger cycling names
#: or addresses cannot make the server hold more).
MAX_KEYS = 100_000


class Windows:
    """Recent attempt times per key, at most ``limit`` within ``window`` seconds."""

    def __init__(self, limit: int, window: float) -> None:
        self.limit, self.window = limit, window
        self._times: dict[str, deque[float]] = {}

    def full(self, key: str, now: float) -> bool:
        """Whether ``key`` used up its attempts in the window ending ``now``."""
        times = self._times.get(key)
        if times is None:
            return False
        while times and now - times[0] >= self.window:
            times.popleft()
        if not times:
            del self._times[key]
            return False
        return len(times) >= self.limit

    def add(self, key: str, now: float) -> None:
        """One attempt of ``key`` at ``now``."""
        times = self._times.pop(key, None) or deque()
        times.append(now)
        self._times[key] = times  # last in the dict: the table forgets the oldest first
        while len(self._times) > MAX_KEYS:
            del self._times[next(iter(self._times))]

    def prune(self, now: float) -> None:
        """Forget keys with no attempt left in the window."""
        for key in [k for k, t in self._times.items() if not t or now - t[-1] >= self.window]:
            del self._times[key]

    def __len__(self) -> int:
        return len(self._times)


class Backoff:
    """Failures per key with the time of the last, and the delay they ask of the next try."""

    def __init__(self, free: int, base: float, cap: float) -> None:
        self.free, self.base, self.cap = free, base, cap
        self._fails: dict[str, tuple[int, float]] = {}

    def count(self, key: str, now: float) -> int:
        """Failures of ``key`` still remembered at ``now``."""
        count, last = self._fails.get(key, (0, now))
        return count if now - last < FAIL_WINDOW else 0

    def wait(self, key: str, now: float) -> float:
        """Seconds from ``now`` the next try of ``key`` waits before it is checked."""
        count, last = self._fails.get(key, (0, now))
        if count < self.free or now - last >= FAIL_WINDOW:
            return 0.0
        step = min(self.cap, self.base * 2.0 ** min(count - self.free, 30))
        return max(0.0, last + step - now)

    def fail(self, key: str, now: float) -> None:
        """One more failure of ``key`` at ``now``."""
        count = self.count(key, now) + 1
        self._fails.pop(key, None)
        self._fails[key] = (count, now)  # last in the dict: the oldest are forgotten first
        while len(self._fails) > MAX_KEYS:
            del self._fails[next(iter(self._fails))]

    def forget(self, key: str) -> None:
        """``key`` succeeded: its failures are forgiven."""
        self._fails.pop(key, None)

    def prune(self, now: float) -> None:
        """Forget counts past the window."""
        for key in [k for k, (_, t) in self._fails.items() if now - t >= FAIL_WINDOW]:
            del self._fails[key]

    def __len__(self) -> int:
        return len(self._fails)


def pair(name_key: str, address: str | None) -> str:
    """The key of an (account, address) pair."""
    return f"{address or '?'}\n{name_key}"


class Floods:
    """The login delays and the registration window of one arena."""

    def __init__(self, registrations_per_hour: int = REGISTRATIONS_PER_ADDRESS) -> None:
        self.by_pair = Backoff(PAIR_FREE, PAIR_BASE, PAIR_CAP)
        self.by_address = Backoff(ADDRESS_FREE, ADDRESS_BASE, ADDRESS_CAP)
        #: (account, address) pairs that logged in: the reserved lane, no address delay.
        self.known: dict[str, None] = {}
        self.registrations = Windows(registrations_per_hour, REGISTRATION_WINDOW)

    def is_known(self, name_key: str, address: str | None) -> bool:
        """Whether ``name_key``'s account logged in (or registered) from ``address`` before."""
        return pair(name_key, address) in self.known

    def delay(self, name_key: str, address: str | None, now: float) -> float:
        """Seconds a login of ``name_key`` from ``address`` waits before its check."""
        wait = self.by_pair.wait(pair(name_key, address), now)
        if not self.is_known(name_key, address):
            wait = max(wait, self.by_address.wait(address or "?", now))
        return wait

    def failed(self, name_key: str, address: str | None, now: float) -> None:
        """A wrong password (or name) from ``address`` for ``name_key``."""
        self.by_pair.fail(pair(name_key, address), now)
        self.by_address.fail(address or "?", now)
        if self._guessing(name_key, address, now):
            self.known.pop(pair(name_key, address), None)

    def succeeded(self, name_key: str, address: str | None) -> None:
        """A right password: the pair's failures are forgiven, the pair is known."""
        key = pair(name_key, address)
        self.by_pair.forget(key)
        self.known.pop(key, None)
        self.known[key] = None
        while len(self.known) > MAX_KEYS:
            del self.known[next(iter(self.known))]

    def _guessing(self, name_key: str, address: str | None, now: float) -> bool:
        """Whether a known pair failed so often it loses the reserved lane."""
        return self.by_pair.count(pair(name_key, address), now) >= PAIR_FREE

    def may_register(self, address: str | None, now: float) -> None:
        """Refuse a registration with ``too_many_registrations`` once ``address`` made its
        accounts for the hour (a refused name costs no hash and counts nothing)."""
        if self.registrations.full(address or "?", now):
            raise TooManyRegistrations("too many accounts registered from here; wait an hour")

    def registered(self, address: str | None, now: float) -> None:
        """Count an account made from ``address``."""
        self.registrations.add(address or "?", now)

    def prune(self, now: float) -> None:
        """Forget what no window counts any more (on the arena's full sweep)."""
        self.by_pair.prune(now)
        self.by_address.prune(now)
        self.registrations.prune(now)
