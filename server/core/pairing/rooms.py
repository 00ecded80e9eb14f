"""How a pairing's room is made: the arena's seating a pairing is given, what it remembers of
a paired room, and each player's ``joined`` naming the seek paired (``core/pairing/desk.py``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from server.core.game.members import Send
from server.core.game.room import Room
from server.core.outputs import Out
from server.core.pairing.seeks import Seek
from server.core.players.players import Player


class SeatFn(Protocol):
    """The arena's seating of a player in a room (its quotas checked, its rows kept)."""

    def __call__(self, player: Player, room: Room, *, seat: int | None = None) -> list[Out]:
        """Seat ``player``; the room's ``joined`` and ``state`` messages."""
        ...


@dataclass(frozen=True, slots=True)
class Seating:
    """How the arena makes a room: add it (with its ratings and deadlines), have its clock
    looked at on every sweep, seat a player."""

    add: Callable[[Room], None]
    timed: Callable[[str], None]
    seat: SeatFn


@dataclass(slots=True)
class Paired:
    """A paired room in its first moves: the seeks that made it, by player."""

    seeks: dict[str, Seek]


def tagged(sends: list[Out], pid: str, seek_id: str, reply: bool) -> list[Out]:
    """``sends`` with ``pid``'s ``joined`` naming the seek paired (the reply when ``reply``);
    every other send is plain news."""
    out: list[Out] = []
    for item in sends:
        if isinstance(item, Send):
            message = item.message
            if message.get("type") == "joined" and item.to == (pid,):
                item = Send(item.to, {**message, "seek": seek_id}, reply=reply)
            elif item.reply:
                item = Send(item.to, message)
        out.append(item)
    return out
