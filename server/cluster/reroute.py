"""What a node forwarded and has not heard back about, and the other nodes' rooms its players
are in: both are sent again to a room's new owner when its old one died.

Sans-I/O (the forwarder does the sending). A forwarded request gets a sequence number; the owner
acknowledges it (``["ack", seq, ok]``) right behind the outputs it caused, in the same bus entry.
A request still unanswered when its room shows up under another node (an adopter) is sent there
again, marked as a retry: a move carries its ``ply``, so a retry of a move the dead owner had
already committed is recognised by the adopter and answered with that move, never applied twice.
Acknowledged requests also tell which remote rooms each player here sits in or watches, so that
after an adoption the node re-attaches them to the adopter (a spectator is not in PostgreSQL:
only its node knows it watched); the same for the events (``t:ID``) a player here watches.
Everything is bounded: per owner, per room, in time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from protocol.errors import RateLimited
from protocol.wire import Message
from server.cluster.targets import event_of, target_of

#: Unanswered requests kept: in all, per owner node, per room, and for how many seconds (a
#: request older than that is forgotten: its answer, if it ever comes, is still delivered).
MAX_UNANSWERED = 65_536
MAX_PER_OWNER = 16_384
MAX_PER_ROOM = 64
UNANSWERED_S = 60.0
#: Remote rooms remembered with their members here, and rooms remembered per player.
MAX_ROOMS = 65_536
MAX_ROOMS_PER_PLAYER = 1_024


@dataclass(slots=True)
class Pending:
    """A forwarded request not acknowledged yet."""

    owner: str
    room: str
    pid: str
    msg: Message
    frame: bytes
    at: float

    def moved(self, owner: str, now: float) -> None:
        """Its room moved to ``owner`` (adopted): it is sent there again from ``now``."""
        self.owner, self.at = owner, now


class Rerouter:
    """A node's unanswered forwarded requests and its players' memberships of remote rooms."""

    def __init__(self) -> None:
        #: By sequence number, oldest first (a request sent again moves to the end).
        self.pending: dict[int, Pending] = {}
        self._seq = 0
        self._per_owner: dict[str, int] = {}
        self._per_room: dict[str, int] = {}
        #: Per remote room, the node it was last seen on and its members here (pid: watching).
        self.owner_of: dict[str, str] = {}
        self.members: dict[str, dict[str, bool]] = {}
        self._rooms_of: dict[str, dict[str, None]] = {}

    # -- requests ----------------------------------------------------------------------------

    def sent(self, owner: str, pid: str, msg: Message, frame: bytes, now: float) -> int:
        """Note a request forwarded to ``owner``; its sequence number (RateLimited past a bound)."""
        room = target_of(msg)
        if (
            len(self.pending) >= MAX_UNANSWERED
            or self._per_owner.get(owner, 0) >= MAX_PER_OWNER
            or self._per_room.get(room, 0) >= MAX_PER_ROOM
        ):
            raise RateLimited("too many requests wait for another node's answer; slow down")
        self._seq += 1
        self._add(self._seq, Pending(owner, room, pid, msg, frame, now))
        return self._seq

    def forget(self, seq: int) -> Pending | None:
        """Stop waiting for ``seq``'s answer; the request, if it was waited for."""
        p = self.pending.pop(seq, None)
        if p is not None:
            _count(self._per_owner, p.owner, -1)
            _count(self._per_room, p.room, -1)
        return p

    def answered(self, node: str, seq: int, ok: bool) -> None:
        """``node`` acknowledged ``seq`` (``ok``: not an error): what it says of memberships."""
        p = self.pending.get(seq)
        if p is None or p.owner != node:  # not waited for, or sent again elsewhere since
            return
        self.forget(seq)
        if not ok:
            return
        kind = p.msg["type"]
        if event_of(p.room) is not None:  # any answered request about an event watches it
            if kind == "watch_tournament" and p.msg.get("watch") is False:
                self.leave(p.pid, p.room)
            else:
                self.track(p.pid, p.room, node, True)
        elif kind == "leave_room":
            self.leave(p.pid, p.room)
        elif kind == "join_room":
            self.track(p.pid, p.room, node, bool(p.msg.get("spectate")))
        else:  # a move, a chat…: a member, seated unless it watches
            self.track(p.pid, p.room, node, self.members.get(p.room, {}).get(p.pid, False))

    def expire(self, now: float) -> None:
        """Forget requests unanswered for longer than :data:`UNANSWERED_S`."""
        for seq, p in list(self.pending.items()):
            if now - p.at <= UNANSWERED_S:
                break
            self.forget(seq)

    # -- memberships -------------------------------------------------------------------------

    def track(self, pid: str, room: str, node: str, watching: bool) -> None:
        """``pid`` (connected here) is a member of ``room``, owned by ``node``."""
        if room not in self.members and len(self.members) >= MAX_ROOMS:
            oldest = next(iter(self.members))
            for member in list(self.members[oldest]):
                self.leave(member, oldest)
        rooms = self._rooms_of.setdefault(pid, {})
        if room not in rooms and len(rooms) >= MAX_ROOMS_PER_PLAYER:
            self.leave(pid, next(iter(rooms)))
        rooms[room] = None
        self.members.setdefault(room, {})[pid] = watching
        self.owner_of[room] = node

    def leave(self, pid: str, room: str) -> None:
        """``pid`` is no longer a member of ``room``."""
        members = self.members.get(room)
        if members is not None:
            members.pop(pid, None)
            if not members:
                del self.members[room]
                self.owner_of.pop(room, None)
        rooms = self._rooms_of.get(pid)
        if rooms is not None:
            rooms.pop(room, None)
            if not rooms:
                del self._rooms_of[pid]

    def gone(self, pid: str) -> None:
        """``pid``'s socket here closed: forget its memberships (its unanswered requests are
        not sent again: they are forgotten when their room moves, or in time)."""
        for room in list(self._rooms_of.get(pid, ())):
            self.leave(pid, room)

    # -- owners changing ---------------------------------------------------------------------

    def suspects(self, owner_now: Callable[[str], str | None]) -> set[tuple[str, str, str]]:
        """(room, old owner, node listing it now) for every room whose requests or members
        went to a node that no longer seems to be its owner."""
        found = set()
        for room, old in self._rooms():
            new = owner_now(room)
            if new is not None and new != old:
                found.add((room, old, new))
        return found

    def rooms_on(self, node: str) -> set[str]:
        """Every room whose requests or members went to ``node``."""
        return {room for room, old in self._rooms() if old == node}

    def move(
        self, room: str, old: str, new: str, now: float
    ) -> tuple[list[tuple[int, Pending]], Message]:
        """``room`` is ``new``'s now: its requests unanswered by ``old`` (to send again, now
        waited for from ``new``) and its members here (pid: watching)."""
        again = []
        for seq, p in list(self.pending.items()):
            if p.room == room and p.owner == old:
                self.forget(seq)
                p.moved(new, now)
                self._add(seq, p)
                again.append((seq, p))
        members: Message = {}
        if self.owner_of.get(room) == old:
            members = dict(self.members.get(room, {}))
            self.owner_of[room] = new
        return again, members

    def _rooms(self) -> set[tuple[str, str]]:
        rooms = {(p.room, p.owner) for p in self.pending.values()}
        rooms.update(self.owner_of.items())
        return rooms

    def _add(self, seq: int, p: Pending) -> None:
        self.pending[seq] = p
        _count(self._per_owner, p.owner, 1)
        _count(self._per_room, p.room, 1)


def _count(counts: dict[str, int], key: str, step: int) -> None:
    left = counts.get(key, 0) + step
    if left > 0:
        counts[key] = left
    else:
        counts.pop(key, None)
