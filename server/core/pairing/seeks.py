"""Seeks for quick pairing: what a ``seek`` asks for (checked), the one shape a seek shows as,
the pools they wait in, and the book that holds them behind a small interface.

The book is the pairing's only state shared between requests and waves: :class:`MemoryBook`
keeps it in this process; a cluster variant (one book for every node, a seek taken exactly
once) implements :class:`SeekBook` over a shared store instead. Nothing here runs per move.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from protocol.errors import BadOptions
from protocol.variants import FIXED
from protocol.wire import Message
from server.core.game.clock import ClockSpec
from server.core.game.labels import clock_label
from server.core.game.options import read_clock
from server.core.lobby.paging import page, room_cursor
from server.core.rating.pools import FORM_CLOCKS, game_pool

#: A seek's accepted rating gap: this at first, widened by ``GAP_STEP`` each wave it waits,
#: never past ``GAP_MAX`` (a guest's is the widest at once); a guest counts as ``GUEST_RATING``.
GAP_START, GAP_STEP, GAP_MAX = 100.0, 50.0, 500.0
GUEST_RATING = 1500.0
#: Bounds of a seek's ``range`` and of its ``bot_after_s``.
RANGE_MAX = 4000
BOT_AFTER_MIN, BOT_AFTER_MAX = 5.0, 600.0
#: The standard pools (the "Quick pairing" tiles), each rated and casual: (game, minutes, inc).
STANDARD: tuple[tuple[str, int, int], ...] = (
    ("tictactoe", 1, 0),
    ("tictactoe", 3, 0),
    *(
        (game, minutes, inc)
        for game in ("gomoku", "gomoku-standard", "renju")
        for minutes, inc in ((1, 0), (3, 2), (5, 3), (10, 5), (30, 0))
    ),
)


#: The custom seek form's rating ranges: how far from the seeker's own rating an opponent may
#: be (0: any).
FORM_RANGES = (0, 100, 200, 300, 500)
#: The clock a seek form starts at (3+2).
FORM_DEFAULT_CLOCK = (180, 2)


def seek_form() -> Message:
    """``welcome.seek_form``: the custom seek form's clocks (null: untimed, casual), the one it
    starts at and its rating ranges; the clients offer these and keep no list of their own."""
    clocks: list[Message | None] = [None]
    clocks += [
        {"initial_s": i, "increment_s": inc, "label": clock_label(ClockSpec(float(i), float(inc)))}
        for i, inc in FORM_CLOCKS
    ]
    start = 1 + FORM_CLOCKS.index(FORM_DEFAULT_CLOCK)
    return {"clocks": clocks, "clock": start, "ranges": list(FORM_RANGES)}


def _num(value: float) -> str:
    """A number as a label shows it: ``3``, ``0.5``."""
    return str(int(value)) if value == int(value) else f"{value:g}"


def pool_label(game: str, clock: ClockSpec | None, rated: bool) -> str:
    """The label of the pairing pool of (game, clock, rated): ``gomoku 3+2 rated``."""
    if clock is None:
        speed = "untimed"
    else:
        speed = f"{_num(clock.initial_s / 60)}+{_num(clock.increment_s)}"
        if clock.move_s is not None:
            speed += f"/{_num(clock.move_s)}s"
    return f"{game} {speed} {'rated' if rated else 'casual'}"


def clock_view(clock: ClockSpec | None) -> Message | None:
    """A seek's clock as the wire shows it (``move_s`` only when there is one), with the
    ``label`` the clients show for it."""
    if clock is None:
        return None
    view: Message = {"initial_s": clock.initial_s, "increment_s": clock.increment_s}
    if clock.move_s is not None:
        view["move_s"] = clock.move_s
    view["label"] = clock_label(clock)
    return view


@dataclass(frozen=True, slots=True)
class SeekRequest:
    """A ``seek`` request, checked (the player's own checks are the pairing's)."""

    game: str
    clock: ClockSpec | None
    rated: bool
    range: tuple[int, int] | None
    bot_after_s: float | None


def read_seek(msg: Message) -> SeekRequest:
    """Check a validated ``seek`` into a :class:`SeekRequest`, or raise BadOptions."""
    game = msg["game"]
    if game not in FIXED:
        raise BadOptions(f"seek one of {', '.join(FIXED)} (custom boards: create_room)")
    clock = read_clock(msg.get("clock"))
    span = msg.get("range")
    if span is not None:
        ok = isinstance(span, list) and len(span) == 2 and all(type(v) is int for v in span)
        if not ok or not 0 <= span[0] <= span[1] <= RANGE_MAX:
            raise BadOptions(f"range must be [min, max], integers, 0 <= min <= max <= {RANGE_MAX}")
    after = msg.get("bot_after_s")
    if after is not None and not (math.isfinite(after) and BOT_AFTER_MIN <= after <= BOT_AFTER_MAX):
        raise BadOptions(f"bot_after_s must be {BOT_AFTER_MIN:g}..{BOT_AFTER_MAX:g} seconds")
    bounds = None if span is None else (span[0], span[1])
    return SeekRequest(game, clock, bool(msg.get("rated", False)), bounds, after)


@dataclass(slots=True)
class Seek:
    """One open seek: who waits, for what, since when, and how many waves it has missed."""

    id: str
    pid: str
    name: str
    kind: str
    account: bool
    game: str
    clock: ClockSpec | None
    rated: bool
    range: tuple[int, int] | None
    bot_after_s: float | None
    #: The seeker's rating in the rating pool of its game and speed (None: a guest, untimed).
    rating: float | None
    provisional: bool
    since: float
    pool: str = ""
    waves: int = 0
    #: Put back after a paired game its opponent aborted by not moving: paired first.
    priority: bool = False
    #: The book's order of placing (pages continue after it).
    serial: int = 0

    def __post_init__(self) -> None:
        self.pool = self.pool or pool_label(self.game, self.clock, self.rated)

    def missed(self) -> None:
        """It missed a wave: its range widens."""
        self.waves += 1

    def missed_since(self, waves: int) -> None:
        """It has missed ``waves`` waves by now (at least; a cluster's pool counts by time)."""
        self.waves = max(self.waves, waves)

    def placed(self, serial: int) -> None:
        """It is the book's ``serial``-th seek placed (pages continue after it)."""
        self.serial = serial

    @property
    def level(self) -> float:
        """The rating the matcher places this seek at (a guest's counts as 1500)."""
        return GUEST_RATING if self.rating is None else self.rating

    @property
    def gap(self) -> float:
        """The widest rating gap this seek accepts now (it widens with every missed wave)."""
        if not self.account or self.rating is None:
            return GAP_MAX
        return min(GAP_START + GAP_STEP * self.waves, GAP_MAX)

    def admits(self, rating: float) -> bool:
        """Whether an opponent rated ``rating`` is inside this seek's ``range`` (if any)."""
        span = self.range
        return span is None or span[0] <= rating <= span[1]

    def accepts(self) -> list[int]:
        """The opponent ratings this seek accepts now: its gap around its rating (a guest's
        counts as 1500), within its ``range``."""
        low, high = self.level - self.gap, self.level + self.gap
        if self.range is not None:
            low, high = max(low, self.range[0]), min(high, self.range[1])
        return [max(0, round(low)), round(high)]

    def view(self) -> Message:
        """The one shape a seek shows as (``seeking``, ``seeks``, ``seek_update``)."""
        return {
            "seek": self.id,
            "game": self.game,
            "clock": clock_view(self.clock),
            "rated": self.rated,
            "range": None if self.range is None else list(self.range),
            "player": self.pid,
            "name": self.name,
            "account": self.account,
            "kind": self.kind,
            "rating": None if self.rating is None else round(self.rating),
            "provisional": self.provisional,
            "pool": self.pool,
            "rating_pool": game_pool(self.game, self.clock),
            "since": self.since,
            "accepts": self.accepts(),
            "widens": self.gap < GAP_MAX,
        }


def new_seek_id() -> str:
    """A fresh, unguessable seek id."""
    return "s_" + secrets.token_hex(8)


class SeekBook(Protocol):
    """Where open seeks are kept: this process's memory, or a cluster's shared store."""

    def __len__(self) -> int:
        """Open seeks in all."""
        ...

    def add(self, seek: Seek) -> None:
        """Place ``seek`` (its serial is set here: after every seek placed before it)."""
        ...

    def get(self, seek_id: str) -> Seek | None:
        """The open seek ``seek_id``, or None."""
        ...

    def take(self, seek_id: str) -> Seek | None:
        """Remove and return ``seek_id``: exactly one caller gets a seek (None: gone)."""
        ...

    def of(self, pid: str) -> list[Seek]:
        """``pid``'s open seeks, oldest first."""
        ...

    def pool(self, label: str) -> list[Seek]:
        """The seeks waiting in the pool ``label``, oldest first."""
        ...

    def size(self, label: str) -> int:
        """How many seeks wait in the pool ``label``."""
        ...

    def labels(self) -> list[str]:
        """Every pool that has a seek waiting."""
        ...

    def listed(self, game: str | None) -> Iterator[Seek]:
        """Every open seek (of ``game`` only, if given), oldest first."""
        ...


class MemoryBook:
    """A :class:`SeekBook` in this process's memory: by id, by pool and by player."""

    def __init__(self) -> None:
        self._by_id: dict[str, Seek] = {}
        self._by_pool: dict[str, dict[str, Seek]] = {}
        self._by_pid: dict[str, dict[str, Seek]] = {}
        self._serial = 0

    def __len__(self) -> int:
        return len(self._by_id)

    def add(self, seek: Seek) -> None:
        self._serial += 1
        seek.placed(self._serial)
        self._by_id[seek.id] = seek
        self._by_pool.setdefault(seek.pool, {})[seek.id] = seek
        self._by_pid.setdefault(seek.pid, {})[seek.id] = seek

    def get(self, seek_id: str) -> Seek | None:
        return self._by_id.get(seek_id)

    def take(self, seek_id: str) -> Seek | None:
        seek = self._by_id.pop(seek_id, None)
        if seek is None:
            return None
        for index, key in ((self._by_pool, seek.pool), (self._by_pid, seek.pid)):
            entries = index[key]
            del entries[seek_id]
            if not entries:
                del index[key]
        return seek

    def of(self, pid: str) -> list[Seek]:
        return list(self._by_pid.get(pid, {}).values())

    def pool(self, label: str) -> list[Seek]:
        return list(self._by_pool.get(label, {}).values())

    def size(self, label: str) -> int:
        return len(self._by_pool.get(label, ()))

    def labels(self) -> list[str]:
        return list(self._by_pool)

    def listed(self, game: str | None) -> Iterator[Seek]:
        for seek in self._by_id.values():
            if game is None or seek.game == game:
                yield seek


def _standard_pools() -> list[Message]:
    """The standard pools' entries, rated first, with nobody waiting."""
    found = []
    for rated in (True, False):
        for game, minutes, inc in STANDARD:
            clock = ClockSpec(minutes * 60.0, float(inc))
            label = pool_label(game, clock, rated)
            entry = {"pool": label, "game": game, "clock": clock_view(clock), "rated": rated}
            found.append(entry | {"rating_pool": game_pool(game, clock)})
    return found


STANDARD_POOLS = _standard_pools()
_STANDARD_LABELS = frozenset(entry["pool"] for entry in STANDARD_POOLS)
#: Pools of other clocks than the standard ones that may have seeks waiting at once (a seek
#: that would open one more gets ``busy``): every odd clock is a pool of its own, and a
#: stranger's thousands of odd clocks made every ``seeks`` reply a megabyte. A seek keeps the
#: clock it asked for (folding 2+1 into 3+2 would pair a player into a game it did not ask for).
MAX_CUSTOM_POOLS = 50


def standard(label: str) -> bool:
    """Whether ``label`` is one of the standard pools (the "Quick pairing" tiles)."""
    return label in _STANDARD_LABELS


def custom_pools(book: SeekBook) -> int:
    """How many pools of other clocks than the standard ones have a seek waiting."""
    return sum(not standard(label) for label in book.labels())


def no_room_for(book: SeekBook, label: str) -> bool:
    """Whether a seek of pool ``label`` would open one pool of an odd clock too many."""
    if standard(label) or book.size(label):
        return False
    return custom_pools(book) >= MAX_CUSTOM_POOLS


def pool_entries(book: SeekBook, game: str | None) -> list[Message]:
    """Every standard pool of ``game`` (None: all) with its count, then the other pools that
    have a seek waiting (at most ``MAX_CUSTOM_POOLS`` of them)."""
    pools = [
        {**entry, "waiting": book.size(entry["pool"])}
        for entry in STANDARD_POOLS
        if game is None or entry["game"] == game
    ]
    shown = 0
    for label in book.labels():
        if standard(label) or shown >= MAX_CUSTOM_POOLS:
            continue
        for seek in book.pool(label)[:1]:
            if game is None or seek.game == game:
                shown += 1
                entry = {"pool": label, "game": seek.game, "clock": clock_view(seek.clock)}
                entry["rating_pool"] = game_pool(seek.game, seek.clock)
                pools.append(entry | {"rated": seek.rated, "waiting": book.size(label)})
    return pools


def seeks_page(
    book: SeekBook, game: object, size: int, cursor: object, pools: list[Message] | None = None
) -> Message:
    """The ``seeks`` message: ``size`` seeks of ``game`` (None: all) after ``cursor``, oldest
    first, and the pools' counts (``pools``: already counted for this ``game``)."""
    chosen = game if isinstance(game, str) else None
    items = ((s.serial, s) for s in book.listed(chosen))
    seeks, after = page(items, room_cursor(cursor), size, Seek.view)
    if pools is None:
        pools = pool_entries(book, chosen)
    return {"type": "seeks", "seeks": seeks, "next": after, "pools": pools}
