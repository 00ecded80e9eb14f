"""What the sweep ends in a room when time runs out: the clock, a bot sitting on a move, a seat
offline past its grace, and a human holding a bot's seat without playing.

A timed game whose first moves (each seat's first) do not come within the room's first-move
deadline (core/round/actions.py: Lichess's 15-35 s by speed) ends ``aborted``, with no result; so
does an untimed game against a bot after ``first_move_timeout``: a human against a bot holds
one of that bot's seats (a scarce thing: a few per bot) while the game lasts. A game against a
bot whose human does not move for ``human_idle_timeout``, whatever its clock, is lost by that
human on ``timeout``, as a bot sitting on a move for ``bot_move_timeout`` loses it. An untimed
tournament game has both deadlines too, whoever plays it (``first_move_timeout`` for each
seat's first move, ``event_move_timeout`` for every later move): a player who stays online and
never moves must not hold its event's round up for good (the event counts an aborted game as
lost by the late seat, core/tournament/desk.py).
"""

from __future__ import annotations

from protocol.rules import Termination
from server.core.game.room import Room
from server.core.limits import Limits
from server.core.outputs import Out
from server.core.players.presence import expired_seats


def expired(room: Room, now: float, limits: Limits) -> list[Out]:
    """End ``room``'s game (a playing one) if a deadline passed; the messages that says."""
    out: list[Out] = [*room.expire(limits.bot_move_timeout)]
    out += expired_seats(room, now, limits.reconnect_grace)
    return out or stalled(room, now, limits)


def stalled(room: Room, now: float, limits: Limits) -> list[Out]:
    """End a game whose first moves did not come in time (any timed game, and an untimed one
    against a bot or of a tournament), or one against a bot whose human sat on a move past the
    idle limit (timed or not: a day's clock must not hold a bot's seat for a day), or an
    untimed tournament game whose human sat on a move past ``event_move_timeout``."""
    first, second = room.seats
    if first is None or second is None:  # the caller looks only at playing rooms
        return []
    timed = room.clock is not None
    one_bot = (first.kind == "bot") != (second.kind == "bot")
    event = not timed and "tournament" in room.options
    if not timed and not one_bot and not event:
        return []  # the common untimed case, looked at every second: no bot, or two
    waited = now - (room.turn_since or now)
    early = len(room.game.moves) - len(room.opening) < 2
    if timed:
        limit = room.offers.first_move_s if room.offers is not None else None
        if early and limit is not None and waited >= limit:
            return list(room.abort_late(room.actor))
        if not one_bot:
            return []
    seat = room.actor
    member = room.seats[seat] if seat is not None else None
    if member is None or member.kind == "bot":
        return []
    if not timed and early and waited >= limits.first_move_timeout:
        return list(room.abort_late(seat))
    idle = limits.event_move_timeout if event else limits.human_idle_timeout
    if waited >= idle:
        assert seat is not None
        return list(room.end(Termination.TIMEOUT, 1 - seat))
    return []
