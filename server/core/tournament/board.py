"""The events a server holds, as ``list_tournaments`` pages them, and what a cluster's nodes
share of them (sans-I/O): each node's lines (published on the bus, the other nodes' read back),
and the claims of scheduled occurrences (opened once cluster-wide). A single server has no other
node's lines and opens each occurrence at once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from protocol.errors import BadMessage
from protocol.wire import Message
from server.core.journal.rows import TournamentRow
from server.core.outputs import Out, Reply
from server.core.players.players import Player
from server.core.tournament.event import FINISHED, IN, OPEN, PAUSED, RUNNING, Event

#: ``list_tournaments`` pages.
LIST_LIMIT = 100
#: An entrant's states in which it is paired (or may come back to be).
LIVE = (IN, PAUSED)


class Occurrences(Protocol):
    """Where a scheduled occurrence is claimed before it opens (a cluster's: once
    cluster-wide, in the shared store); without one, each opens at once."""

    def claim(self, schedule: str, row: TournamentRow, then: Callable[[], None]) -> None:
        """Claim the occurrence ``row`` of ``schedule``; call ``then`` (on the loop) if won."""
        ...


class EventBoard:
    """The events held here by id, the other nodes' lines, and where occurrences are claimed."""

    def __init__(self) -> None:
        self.events: dict[str, Event] = {}
        #: The other nodes' events' lines (a cluster's), by id, as last read.
        self._remote: dict[str, Message] = {}
        #: Where occurrences are claimed before they open (a cluster's); None: at once.
        self.claims: Occurrences | None = None

    def holds(self, tid: Any) -> bool:
        """Whether the event ``tid`` is held here (a cluster forwards the rest to its node)."""
        return tid in self.events

    def claim_with(self, claims: Occurrences) -> None:
        """Claim each scheduled occurrence with ``claims`` before opening it (a cluster's)."""
        self.claims = claims

    def entered(self, pid: str) -> bool:
        """Whether ``pid`` is in an event here that is not over (a cluster keeps its player
        here while its socket on another node is away, to be seated in the next games)."""
        return any(
            e.status != FINISHED and (x := e.entrants.get(pid)) is not None and x.state in LIVE
            for e in self.events.values()
        )

    def lines_version(self) -> tuple[tuple[str, int], ...]:
        """What the events' lines depend on: changed, they are published again."""
        return tuple((e.id, e.version) for e in self.events.values())

    def lines(self) -> dict[str, Message]:
        """Each event held here as its ``tournaments`` line, by id."""
        return {e.id: e.summary() for e in self.events.values()}

    def set_remote(self, lines: dict[str, Message]) -> None:
        """The events of the other nodes, as last read (``list_tournaments`` shows them)."""
        self._remote = lines

    def list_events(self, player: Player, msg: Message) -> list[Out]:
        """A page of events (a cluster's: every node's): running, then open (soonest first),
        then finished (latest first)."""
        status = msg.get("status")
        limit = msg.get("limit", 50)
        if not 1 <= limit <= LIST_LIMIT:
            raise BadMessage(f"limit must be 1..{LIST_LIMIT}")
        place = {RUNNING: 0, OPEN: 1, FINISHED: 2}
        lines = self._remote | self.lines()  # a cluster's other nodes' too (ours win)
        events = sorted(
            (e for e in lines.values() if status is None or e["status"] == status),
            key=lambda e: (
                place[e["status"]],
                -(e["ended_at"] or 0),
                e["starts_at"] or e["created_at"],
                e["tournament"],
            ),
        )
        cursor = msg.get("cursor")
        if cursor is not None:
            ids = [e["tournament"] for e in events]
            events = events[ids.index(cursor) + 1 :] if cursor in ids else []
        page = events[:limit]
        more = len(events) > limit
        return [
            Reply(
                {
                    "type": "tournaments",
                    "tournaments": page,
                    "next": page[-1]["tournament"] if more else None,
                }
            )
        ]
