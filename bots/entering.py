"""A bot that enters tournaments (``mnk-bot --tournament ID``): it sends ``join_tournament``
for each event at every welcome (a reconnect comes back to an arena it was paused in), and
plays the games the event seats it in as any other (they come as ``joined`` and ``state``).
The event's ``tournament`` messages are only logged: the server runs the event.

With ``--enter-events`` (and ``--seek``) it also enters, once each, every ``open`` event and
every ``running`` arena of a rating pool it seeks: the pools are those the server's
``seeking`` answers name (``rating_pool``), the events' pools those ``tournaments`` names; the
bot works out no pool of its own. It lists the events at each welcome, when it learns a pool,
and every :data:`SWEEP_EVERY_S` seconds."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any

from protocol.session import Session

log = logging.getLogger("mnk.bot")

#: How often a bot entering its pools' events lists them again (besides at each welcome).
SWEEP_EVERY_S = 30.0
#: ``list_tournaments`` pages read a sweep, for each status (100 events a page).
SWEEP_PAGES = 3
#: Events remembered (entered or refused); the oldest is forgotten past it (at worst it is
#: asked again: a join of an event one is in is answered as the first was).
MAX_EVENTS = 512
#: Refusals of a join that say "not now": the next sweep asks again.
TRANSIENT = frozenset({"busy", "rate_limited", "node_unavailable"})
#: What the picker notes of an event: a join asked, entered, waiting for the entry check,
#: refused for good.
ASKING, IN, CHECKING, REFUSED = "asking", "in", "checking", "refused"


@dataclass
class EventPicker:
    """``--enter-events``: the pools a bot seeks, and the events it asked to enter."""

    pools: set[str] = field(default_factory=set)
    #: Each event's standing by id (:data:`ASKING`, :data:`IN`, :data:`CHECKING`, :data:`REFUSED`).
    events: dict[str, str] = field(default_factory=dict)
    #: Our ``join_tournament`` requests not answered yet: request id -> event id.
    joins: dict[int, str] = field(default_factory=dict)
    #: Our ``list_tournaments`` requests not answered yet: request id -> (status, page).
    listing: dict[int, tuple[str, int]] = field(default_factory=dict)
    #: Whether we said that a seek of ours has no pool (untimed: no events to enter).
    told_unpooled: bool = False

    def learn(self, pool: object) -> bool:
        """A seek of ours is in ``pool`` (a ``seeking``'s ``rating_pool``): whether it is new."""
        if not isinstance(pool, str) or pool in self.pools:
            return False
        self.pools.add(pool)
        return True

    def unpooled(self) -> bool:
        """A seek of ours has no pool: whether to say so (the first time only)."""
        told, self.told_unpooled = self.told_unpooled, True
        return not told

    def wanted(self, line: dict[str, Any]) -> bool:
        """Whether to enter the event of this ``tournaments`` line: of a pool we seek, taking
        entrants (open, or a running arena), and not asked before."""
        takes = line.get("status") == "open" or (
            line.get("status") == "running" and line.get("format") == "arena"
        )
        pool = line.get("rating_pool")
        return takes and pool in self.pools and str(line.get("tournament")) not in self.events

    def asked(self, rid: int, tid: str) -> None:
        """We sent a join of ``tid`` (request ``rid``): a new event is being asked (one we
        are in, or are checked for, stays so until the answer)."""
        self.joins[rid] = tid
        self.events.setdefault(tid, ASKING)
        while len(self.joins) > MAX_EVENTS:
            self.joins.pop(next(iter(self.joins)))
        while len(self.events) > MAX_EVENTS:
            self.events.pop(next(iter(self.events)))

    def answered(self, rid: object) -> str | None:
        """A ``tournament`` answering a join of ours: the event's id (we are in), else None."""
        tid = self.joins.pop(rid, None) if isinstance(rid, int) else None
        if tid is not None:
            self.events[tid] = IN
        return tid

    def refused(self, rid: object, code: object) -> str | None:
        """An ``error`` for a join of ours: the event's id (else None), noted as waiting for
        the entry check, to ask again at the next sweep, or refused for good."""
        tid = self.joins.pop(rid, None) if isinstance(rid, int) else None
        if tid is None:
            return None
        if code == "entry_check_running":
            self.events[tid] = CHECKING
        elif code in TRANSIENT:
            self.events.pop(tid, None)
        else:
            self.events[tid] = REFUSED
        return tid

    def rejoining(self, checked: bool = False) -> list[str]:
        """The events to join again: at a welcome, those we are in or waiting to be checked
        for; once the entry check passed (``checked``), the latter."""
        states = (CHECKING,) if checked else (IN, CHECKING)
        return [tid for tid, state in self.events.items() if state in states]

    def reset(self) -> None:
        """A new connection: answers to the old one never come (a join asked is asked again)."""
        self.joins.clear()
        self.listing.clear()
        for tid in [t for t, state in self.events.items() if state == ASKING]:
            del self.events[tid]


class Entering:
    """The runner's tournaments (a mixin of :class:`bots.runner.BotRunner`)."""

    state: Session
    #: ``--tournament``: the events to enter, by id; each one's status last logged.
    tournaments: tuple[str, ...] = ()
    announced: dict[str, str]
    #: ``--enter-events``: the events of the pools it seeks (None: only ``--tournament``'s).
    picker: EventPicker | None = None
    _sweeping: asyncio.Task[None] | None = None

    async def _send(self, message: dict[str, Any]) -> None:  # BotRunner._send
        raise NotImplementedError

    async def welcome_events(self) -> None:
        """A welcome: enter (or come back to) our events, and list the pools' events anew."""
        if self.picker is not None:
            self.picker.reset()
            if self._sweeping is None:
                self._sweeping = asyncio.create_task(self._sweep_every())
        await self.enter_tournaments()
        await self.sweep_events()

    async def enter_tournaments(self, checked: bool = False) -> None:
        """Ask to enter (or come back to) every event of ``--tournament``, and every event of
        our pools we are in or waiting to be checked for (``checked``: the check passed)."""
        for tid in self.tournaments:
            await self._send(self.state.request({"type": "join_tournament", "tournament": tid}))
        if self.picker is not None:
            for tid in self.picker.rejoining(checked):
                await self._join_event(tid)

    async def _join_event(self, tid: str) -> None:
        """Ask to enter an event of our pools (its answer or refusal is the picker's)."""
        assert self.picker is not None
        msg = self.state.request({"type": "join_tournament", "tournament": tid})
        self.picker.asked(int(msg["id"]), tid)
        await self._send(msg)

    async def pool_sought(self, msg: dict[str, Any]) -> None:
        """A ``seeking``: a seek of ours is open in its ``rating_pool``; a new pool's events
        are listed at once."""
        if self.picker is None:
            return
        seek = msg.get("seek") if isinstance(msg.get("seek"), dict) else {}
        if seek.get("rating_pool") is None:
            if self.picker.unpooled():
                log.warning("--enter-events: seek %s has no rating pool (untimed): no events of it",
                            seek.get("seek"))  # fmt: skip
        elif self.picker.learn(seek["rating_pool"]):
            log.info("entering the events of pool %s", seek["rating_pool"])
            await self.sweep_events()

    async def sweep_events(self) -> None:
        """List the open events and the running ones (a running arena takes entrants), unless
        a listing is under way."""
        if self.picker is None or not self.picker.pools or self.picker.listing:
            return
        for status in ("open", "running"):
            await self._list_events(status, 0, None)

    async def _list_events(self, status: str, page: int, cursor: str | None) -> None:
        """Ask for one page of the events of ``status``."""
        assert self.picker is not None
        msg: dict[str, Any] = {"type": "list_tournaments", "status": status, "limit": 100}
        if cursor is not None:
            msg["cursor"] = cursor
        msg = self.state.request(msg)
        self.picker.listing[int(msg["id"])] = (status, page)
        await self._send(msg)

    async def on_tournaments(self, msg: dict[str, Any]) -> None:
        """A page of events we asked for: enter each one of our pools not asked before, and
        read the next page (up to :data:`SWEEP_PAGES`)."""
        rid, picker = msg.get("id"), self.picker
        asked = (
            picker.listing.pop(rid, None) if picker is not None and isinstance(rid, int) else None
        )
        if picker is None or asked is None:
            return
        for line in msg.get("tournaments", ()):
            if isinstance(line, dict) and picker.wanted(line):
                log.info("entering event %s (%s, %s, %s)", line["tournament"], line.get("name"),
                         line.get("rating_pool"), line.get("format"))  # fmt: skip
                await self._join_event(str(line["tournament"]))
        status, page = asked
        if isinstance(msg.get("next"), str) and page + 1 < SWEEP_PAGES:
            await self._list_events(status, page + 1, msg["next"])

    async def _sweep_every(self) -> None:
        """List the events again every :data:`SWEEP_EVERY_S` seconds (new events come)."""
        while True:
            await asyncio.sleep(SWEEP_EVERY_S)
            await self.sweep_events()

    def entry_refused(self, msg: dict[str, Any]) -> bool:
        """An ``error`` for a join of an event of our pools: logged (never fatal); whether it
        was one. ``entry_check_running``: joined again when the check passed."""
        code = msg.get("code")
        tid = None if self.picker is None else self.picker.refused(msg.get("id"), code)
        if tid is None:
            return False
        after = "; again once checked" if code == "entry_check_running" else ""
        log.warning("event %s refused us (%s: %s)%s", tid, code, msg.get("message"), after)
        return True

    def stop_sweeping(self) -> None:
        """The bot stops: no more listings."""
        if self._sweeping is not None:
            self._sweeping.cancel()

    async def on_entry_check(self, msg: dict[str, Any]) -> None:
        """The server checked us before a rated event (``entry_check_running`` answered our
        join): passed (or let in unchecked), we join again; failed, we say which checks."""
        status = msg.get("status")
        if status in ("passed", "unchecked"):
            log.info("entry check %s: entering again", status)
            await self.enter_tournaments(checked=True)
        else:
            failed = ", ".join(str(c) for c in msg.get("failed", [])) or "-"
            log.warning("entry check %s; failed checks: %s", status, failed)

    async def on_tournament(self, msg: dict[str, Any]) -> None:
        """An event we entered changed: say when it starts and ends, and where we stand."""
        if self.picker is not None and self.picker.answered(msg.get("id")) is not None:
            log.info("entered event %s (%s)", msg.get("tournament"), msg.get("name"))
        tid, status = str(msg.get("tournament")), str(msg.get("status"))
        if self.announced.get(tid) == status:
            return
        self.announced[tid] = status
        me = next((e["id"] for e in msg.get("entrants", []) if e["name"] == self.state.name), None)
        rank = next((s["rank"] for s in msg.get("standings", []) if s["player"] == me), None)
        log.info("tournament %s (%s) is %s; our rank %s", tid, msg.get("name"), status, rank)
