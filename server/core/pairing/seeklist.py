"""What quick pairing shows and bounds around its book: the ``seeks`` pages, the pushes to
``list_seeks`` subscribers (few, small, the latest state), and the seeks of one client address.

A stranger may open many sockets from one address, each holding its 3 seeks, and subscribe
each of them: these bounds keep what the server holds and sends for them small, whatever the
seeks' churn (docs/PROTOCOL.md, "Pairing" and "Limits").
"""

from __future__ import annotations

import math
from collections.abc import Callable

from protocol.errors import TooManySeeks
from protocol.wire import Message
from server.core.game.members import Send
from server.core.limits import Limits
from server.core.lobby.paging import page_size
from server.core.outputs import Out
from server.core.pairing.seeks import (
    GAP_MAX,
    GAP_START,
    GAP_STEP,
    Seek,
    SeekBook,
    pool_entries,
    seeks_page,
)
from server.core.players.players import Player

#: Seeks a ``seeks`` page holds at most (the clients ask for 8), and a push to a subscriber;
#: pushes go at most every ``PUSH_INTERVAL`` seconds, each rendered from the book as it is then
#: (the latest state wins: changes in between are never queued), so that a subscriber costs
#: the server at most a few small frames a second however fast the seeks change.
MAX_SEEK_PAGE = 50
MAX_PUSH_PAGE = 20
PUSH_INTERVAL = 0.5
#: Waves missed after which a seek's accepted gap is the widest (it widens no more).
WIDEST_AFTER = math.ceil((GAP_MAX - GAP_START) / GAP_STEP)


class SeekList:
    """The ``seeks`` pages, who is subscribed to them, and when they are pushed."""

    def __init__(self, book: SeekBook, players: dict[str, Player], limits: Limits) -> None:
        self.book, self.players, self.limits = book, players, limits
        #: Subscribed players and the ``game``/``limit`` of their pushed page.
        self._watchers: dict[str, tuple[str | None, int | None]] = {}
        self._dirty = False
        self._pushed = -math.inf

    def changed(self) -> None:
        """The seeks listed changed: push the lists when the interval allows."""
        self._dirty = True

    def subscribe(self, pid: str, game: str | None, limit: int | None, on: bool) -> None:
        """Push ``pid`` the first page of ``game`` (``limit``) on changes, or stop (``on``)."""
        if on:
            self._watchers[pid] = (game, limit)
        else:
            self._watchers.pop(pid, None)

    def page(self, game: object, limit: object, cursor: object) -> Message:
        """The ``seeks`` message: a page of seeks (oldest first) and the pools' counts."""
        size = page_size(limit, min(self.limits.max_page, MAX_SEEK_PAGE))
        return seeks_page(self.book, game, size, cursor)

    def due(self, now: float) -> list[Out]:
        """The pushes due now: when the seeks changed, at most every ``PUSH_INTERVAL``."""
        interval = max(self.limits.lobby_push_interval, PUSH_INTERVAL)
        if not self._dirty or now - self._pushed < interval:
            return []
        self._dirty, self._pushed = False, now
        return self._push()

    def _push(self) -> list[Out]:
        """A fresh first page for every subscribed player: the pools counted once per game,
        and one message per (game, size) asked, of at most ``MAX_PUSH_PAGE`` seeks."""
        groups: dict[tuple[str | None, int], list[str]] = {}
        for pid, (game, limit) in self._watchers.items():
            player = self.players.get(pid)
            if player is not None and player.online:
                size = page_size(limit, min(self.limits.max_page, MAX_PUSH_PAGE))
                groups.setdefault((game, size), []).append(pid)
        pools: dict[str | None, list[Message]] = {}
        out: list[Out] = []
        for (game, size), pids in groups.items():
            counted = pools.get(game)
            if counted is None:
                counted = pools[game] = pool_entries(self.book, game)
            out.append(Send(tuple(pids), seeks_page(self.book, game, size, None, counted)))
        return out


class AddressSeeks:
    """The players of each client address that placed seeks here, to bound an address's
    open seeks (``Limits.max_seeks_per_address``) however many sockets it opens."""

    def __init__(self, held: Callable[[str], int], limits: Limits) -> None:
        self.held, self.limits = held, limits
        self._seekers: dict[str, set[str]] = {}

    def check(self, player: Player) -> None:
        """Refuse a human one more seek past its address's open seeks (``too_many_seeks``)."""
        key = player.address_key
        if key is None or player.kind == "bot":
            return
        held = sum(self.held(pid) for pid in self._seekers.get(key, ()))
        if held >= self.limits.max_seeks_per_address:
            raise TooManySeeks(
                f"your address holds {held} open seeks: wait for one to be paired or cancelled"
            )

    def placed(self, player: Player) -> None:
        """``player`` placed a seek: it counts toward its address."""
        if player.address_key is not None and player.kind != "bot":
            self._seekers.setdefault(player.address_key, set()).add(player.pid)

    def prune(self) -> None:
        """Forget the players that hold no seek any more (and addresses left with none)."""
        for key, pids in list(self._seekers.items()):
            pids.difference_update([pid for pid in pids if not self.held(pid)])
            if not pids:
                del self._seekers[key]


class Widening:
    """Tells each seeker here when the opponent ratings its seek accepts widened (the gap
    grows each wave it misses): a ``seek_update`` with the seek as it is now."""

    def __init__(self, book: SeekBook, shared: bool) -> None:
        self.book, self.shared = book, shared
        #: The waves missed and the ``accepts`` each rated seek was last shown with.
        self._shown: dict[str, tuple[int, list[int]]] = {}

    def shown(self, seek: Seek) -> None:
        """``seek`` was just shown to its seeker (``seeking``) as it accepts now."""
        self._shown[seek.id] = (seek.waves, seek.accepts())

    def due(self) -> list[Out]:
        """A ``seek_update`` for each own human rated seeker's seek whose ``accepts`` changed
        since it was last shown (a guest's is the widest at once: never). Looks again only at
        seeks that missed a wave since and whose gap may still widen (a few µs a seek)."""
        out: list[Out] = []
        before, shown = self._shown, {}
        for seek in self.book.listed(None):
            last = before.get(seek.id)
            if last is None or seek.rating is None or seek.kind == "bot":
                continue  # not shown here (another node's), a guest's, or a bot's
            if last[0] == seek.waves or last[0] >= WIDEST_AFTER:
                shown[seek.id] = last  # no wave missed since, or its gap is the widest
                continue
            accepts = seek.accepts()
            shown[seek.id] = (seek.waves, accepts)
            if accepts != last[1] and (not self.shared or self._own(seek)):
                out.append(Send((seek.pid,), {"type": "seek_update", "seek": seek.view()}))
        self._shown = shown
        return out

    def _own(self, seek: Seek) -> bool:
        """Whether ``seek`` is this server's (a cluster's book lists every node's)."""
        return any(s is seek for s in self.book.of(seek.pid))
