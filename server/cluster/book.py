"""A cluster node's seek book: the arena's :class:`~server.core.pairing.seeks.SeekBook` over the
cluster's one pool (``server/cluster/seekstore.py``).

The node's own seeks (its players') are held here and are what it writes to the pool; every
other node's are kept as the last round read them, so ``list_seeks``, the pools' waiting counts
and the waves see the whole cluster. The book itself never talks to Redis: it queues what the
arena did (a seek placed, a seek taken out because its player left) for the node's pairing part
(``server/cluster/pairing.py``), which writes it, and which alone takes seeks out of the pool
for a pairing, an accept or a cancel (an atomic claim there). Seeks of all nodes are ordered by
when they were placed (their ``serial`` is that time in microseconds), so pages span the nodes.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Iterator, Mapping

from protocol.wire import Message
from server.core.game.clock import ClockSpec
from server.core.pairing.seeks import MemoryBook, Seek, clock_view


def serial_of(seek: Seek) -> int:
    """The cluster-wide order of a seek: when it was placed, in microseconds."""
    return int(seek.since * 1_000_000)


def encode(seek: Seek, account: str | None) -> str:
    """A seek's record in the pool (``account``: its player's account name, for a rated room
    made on another node)."""
    return json.dumps(
        {
            "pid": seek.pid,
            "name": seek.name,
            "kind": seek.kind,
            "account": account,
            "game": seek.game,
            "clock": clock_view(seek.clock),
            "rated": seek.rated,
            "range": seek.range,
            "bot_after_s": seek.bot_after_s,
            "rating": seek.rating,
            "provisional": seek.provisional,
            "since": seek.since,
            "priority": seek.priority,
        }
    )


def decode(seek_id: str, line: str) -> tuple[Seek, str | None]:
    """A seek back from its record, and its player's account name (ValueError if malformed)."""
    try:
        r: Message = json.loads(line)
        clock = None if r["clock"] is None else ClockSpec.parse(r["clock"])
        span = r["range"]
        seek = Seek(
            seek_id, r["pid"], r["name"], r["kind"], r["account"] is not None, r["game"], clock,
            bool(r["rated"]), None if span is None else (int(span[0]), int(span[1])),
            r["bot_after_s"], r["rating"], bool(r["provisional"]), float(r["since"]),
            priority=bool(r["priority"]),
        )  # fmt: skip
    except (KeyError, TypeError, IndexError, ValueError) as exc:
        raise ValueError(f"a malformed seek record {seek_id[:40]!r}") from exc
    seek.placed(serial_of(seek))
    return seek, r["account"]


class ClusterBook:
    """The seek book of one cluster node (see the module)."""

    def __init__(self, node: str) -> None:
        self.node = node
        self.own = MemoryBook()
        #: Other nodes' seeks by id, each with its node and its player's account name.
        self.others: dict[str, Seek] = {}
        self.home: dict[str, str] = {}
        self.accounts: dict[str, str | None] = {}
        self._lines: dict[str, str] = {}
        #: How many of the other nodes' seeks wait in each pool.
        self._sizes: dict[str, int] = {}
        #: Own seeks placed and not written yet; own seeks taken out here, to claim away.
        self.unwritten: dict[str, Seek] = {}
        self.dying: set[str] = set()
        #: Set when there is something to write (the pairing part writes it at once).
        self.wake = asyncio.Event()
        #: Bumped whenever the listing changes (pushes of ``seeks`` follow it).
        self.version = 0

    # -- the SeekBook interface (the arena's) -------------------------------------------------

    def __len__(self) -> int:
        return len(self.own) + len(self.others)

    def add(self, seek: Seek) -> None:
        """Place an own seek: held here, written to the pool right away."""
        self.own.add(seek)
        seek.placed(serial_of(seek))
        self.unwritten[seek.id] = seek
        self._changed()

    def get(self, seek_id: str) -> Seek | None:
        return self.own.get(seek_id) or self.others.get(seek_id)

    # -- the node's pairing part's (ClusterPairing) --------------------------------------------

    def written(self, added: Iterable[str], claimed: set[str]) -> None:
        """A round wrote ``added`` to the pool and claimed ``claimed`` away."""
        for seek_id in added:
            self.unwritten.pop(seek_id, None)
        self.dying -= claimed

    def write_again(self) -> None:
        """Redis lost this node's seeks: they go in again at the next write."""
        for seek in self.own.listed(None):
            self.unwritten[seek.id] = seek
        self.wake.set()

    def claim_strays(self, strays: set[str]) -> None:
        """Seeks in this node's hash that the book does not hold: claimed away at once."""
        if strays - self.dying:
            self.dying |= strays
            self.wake.set()

    def take(self, seek_id: str) -> Seek | None:
        """Take an own seek out (its player left, or it expired): it is claimed out of the
        pool right away. Another node's seek is never taken here (a claim does that)."""
        seek = self.own.take(seek_id)
        if seek is not None:
            self.unwritten.pop(seek_id, None)
            self.dying.add(seek_id)
            self._changed()
        return seek

    def of(self, pid: str) -> list[Seek]:
        return self.own.of(pid)

    def pool(self, label: str) -> list[Seek]:
        seeks = self.own.pool(label) + [s for s in self.others.values() if s.pool == label]
        return sorted(seeks, key=_order)

    def size(self, label: str) -> int:
        return self.own.size(label) + self._sizes.get(label, 0)

    def labels(self) -> list[str]:
        return list(dict.fromkeys([*self.own.labels(), *self._sizes]))

    def listed(self, game: str | None) -> Iterator[Seek]:
        seeks = [
            *self.own.listed(game),
            *(s for s in self.others.values() if not game or s.game == game),
        ]
        yield from sorted(seeks, key=_order)

    # -- the pairing part's ------------------------------------------------------------------

    def node_of(self, seek_id: str) -> str | None:
        """The node holding seek ``seek_id`` (None: not in the book)."""
        if self.own.get(seek_id) is not None:
            return self.node
        return self.home.get(seek_id)

    def account_of(self, seek_id: str) -> str | None:
        """The account name of another node's seek's player (None: a guest, or unknown)."""
        return self.accounts.get(seek_id)

    def line_of(self, seek_id: str) -> str:
        """Another node's seek's record, as the pool holds it."""
        return self._lines[seek_id]

    def learn(self, seek: Seek, node: str, account: str | None) -> None:
        """Know another node's seek before a round reads it (a wave's node proposed it)."""
        if seek.id not in self.others:
            self.others[seek.id], self.home[seek.id], self.accounts[seek.id] = seek, node, account
            self._lines[seek.id] = encode(seek, account)
            self._sizes[seek.pool] = self._sizes.get(seek.pool, 0) + 1

    def forget(self, seek_id: str) -> Seek | None:
        """Drop seek ``seek_id`` from the book: claimed already (here or by another node)."""
        seek = self.own.take(seek_id)
        self.unwritten.pop(seek_id, None)
        if seek is None and (seek := self.others.pop(seek_id, None)) is not None:
            self.home.pop(seek_id, None)
            self.accounts.pop(seek_id, None)
            self._lines.pop(seek_id, None)
            left = self._sizes.get(seek.pool, 1) - 1
            if left > 0:
                self._sizes[seek.pool] = left
            else:
                self._sizes.pop(seek.pool, None)
        if seek is not None:
            self._changed()
        return seek

    def read(self, tables: Mapping[str, Mapping[str, str]]) -> list[str]:
        """Take every other node's seeks as a round read them; the ids of malformed ones."""
        others: dict[str, Seek] = {}
        home: dict[str, str] = {}
        accounts: dict[str, str | None] = {}
        lines: dict[str, str] = {}
        bad: list[str] = []
        for node, table in tables.items():
            if node == self.node:
                continue
            for seek_id, line in table.items():
                known = self.others.get(seek_id)
                if known is not None and self._lines.get(seek_id) == line:
                    seek, account = known, self.accounts.get(seek_id)
                else:
                    try:
                        seek, account = decode(seek_id, line)
                    except ValueError:
                        bad.append(seek_id)
                        continue
                others[seek_id], home[seek_id], accounts[seek_id] = seek, node, account
                lines[seek_id] = line
        if lines.keys() != self._lines.keys():
            self._changed(wake=False)
        self.others, self.home, self.accounts, self._lines = others, home, accounts, lines
        self._count()
        return bad

    def _count(self) -> None:
        sizes: dict[str, int] = {}
        for seek in self.others.values():
            sizes[seek.pool] = sizes.get(seek.pool, 0) + 1
        self._sizes = sizes

    def _changed(self, wake: bool = True) -> None:
        self.version += 1
        if wake:
            self.wake.set()


def _order(seek: Seek) -> tuple[int, str]:
    return seek.serial, seek.id
