"""Login and registration floods: attempts counted per account and per address in sliding
windows, on the arena's clock (so tests inject time instead of sleeping)."""

from __future__ import annotations

from collections import deque

from protocol.errors import TooManyLogins, TooManyRegistrations

#: Lichess's limits: 10 attempts per account and 200 per address in 10 minutes.
LOGIN_WINDOW = 600.0
LOGINS_PER_ACCOUNT = 10
LOGINS_PER_ADDRESS = 200
#: Accounts one address may register in an hour.
REGISTRATION_WINDOW = 3600.0
REGISTRATIONS_PER_ADDRESS = 5
#: Keys a window table holds at most: past it the oldest are forgotten first (a stranger
#: cycling names or addresses cannot make the server hold more).
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


class Floods:
    """The login and registration windows of one arena."""

    def __init__(self) -> None:
        self.by_account = Windows(LOGINS_PER_ACCOUNT, LOGIN_WINDOW)
        self.by_address = Windows(LOGINS_PER_ADDRESS, LOGIN_WINDOW)
        self.registrations = Windows(REGISTRATIONS_PER_ADDRESS, REGISTRATION_WINDOW)

    def login(self, name_key: str, address: str | None, now: float) -> None:
        """Count a login attempt, or refuse it with ``too_many_logins``."""
        address = address or "?"
        if self.by_account.full(name_key, now) or self.by_address.full(address, now):
            raise TooManyLogins("too many login attempts; wait a few minutes")
        self.by_account.add(name_key, now)
        self.by_address.add(address, now)

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
        for windows in (self.by_account, self.by_address, self.registrations):
            windows.prune(now)
