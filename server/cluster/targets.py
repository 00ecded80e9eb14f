"""What a forwarded request is about: a room, or an event (a tournament), each held by one node.

Forwarding, its failover and the lobby's owners map key both by one string, a *target*: a
room's code, or ``t:`` and an event's id (a room code never holds a ``:``), so an event's
requests find its node, wait behind a look-up and move to an adopter as a room's do.
"""

from __future__ import annotations

from protocol.errors import ArenaError, NoSuchRoom, NoSuchTournament
from protocol.wire import MAX_ROOM_ID, Message
from server.cluster.ports import ClusterStore

#: The prefix of an event's target (and of its line in a node's lobby hash).
EVENT = "t:"


def target_of(msg: Message) -> str:
    """The room or event ``msg`` is about (it names one of them)."""
    room = msg.get("room")
    return room if room is not None else EVENT + msg["tournament"]


def event_of(target: str) -> str | None:
    """The event id of an event's target; None for a room's."""
    return target[len(EVENT) :] if target.startswith(EVENT) else None


def missing(target: str) -> ArenaError:
    """The error for a request about ``target`` that no node holds."""
    event = event_of(target)
    if event is None:
        return NoSuchRoom(f"no room {target[:MAX_ROOM_ID]!r}")
    return NoSuchTournament(f"no tournament {event[:40]!r}")


def owners(store: ClusterStore, targets: list[str]) -> dict[str, str]:
    """The node holding each of ``targets`` that exists, from PostgreSQL (a worker thread's)."""
    rooms = [t for t in targets if event_of(t) is None]
    events = [e for t in targets if (e := event_of(t)) is not None]
    found = store.room_owners(rooms) if rooms else {}
    if events:
        found |= {EVENT + e: node for e, node in store.event_owners(events).items()}
    return found
