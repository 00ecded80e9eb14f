"""What the sweep ends in a room when time runs out: the clock, a bot sitting on a move, a seat
offline past its grace, and a human holding a bot's seat without playing.

A human against a bot holds one of that bot's seats (a scarce thing: a few per bot) while the
game lasts. A game whose first moves do not come within ``first_move_timeout`` (each seat's
first, as Lichess aborts one) ends ``abandoned`` with no winner; an untimed game whose human
does not move for ``human_idle_timeout`` is lost by that human on ``timeout``, as a bot sitting
on a move for ``bot_move_timeout`` loses it.
"""

from __future__ import annotations

from protocol.rules import Termination
from server.core.limits import Limits
from server.core.outputs import Out
from server.core.presence import expired_seats
from server.core.room import Room


def expired(room: Room, now: float, limits: Limits) -> list[Out]:
    """End ``room``'s game (a playing one) if a deadline passed; the messages that says."""
    out: list[Out] = [*room.expire(limits.bot_move_timeout)]
    out += expired_seats(room, now, limits.reconnect_grace)
    return out or stalled(room, now, limits)


def stalled(room: Room, now: float, limits: Limits) -> list[Out]:
    """End a game against a bot whose human, to move, let a deadline pass (see the module)."""
    first, second = room.seats
    if first is None or second is None:  # the caller looks only at playing rooms
        return []
    if (first.kind == "bot") == (second.kind == "bot"):
        return []  # the common case, looked at every second in every room: no bot, or two
    seat = room.actor
    member = room.seats[seat] if seat is not None else None
    if member is None or member.kind == "bot":
        return []
    waited = now - (room.turn_since or now)
    if len(room.game.moves) - len(room.opening) < 2 and waited >= limits.first_move_timeout:
        return list(room.end(Termination.ABANDONED, None))
    if room.clock is None and waited >= limits.human_idle_timeout:
        assert seat is not None
        return list(room.end(Termination.TIMEOUT, 1 - seat))
    return []
