"""The one builder of each message a room sends (``moved``, ``game_over``, ``state``, its lobby
line): a room uses them, and so does a cluster node answering for a room it adopted."""

from __future__ import annotations

from collections import deque
from typing import Any, Protocol

from protocol.rules import Game, Move, Outcome, Variant
from protocol.wire import Message
from server.core.game.clock import Clock, ClockSpec
from server.core.game.labels import game_title, titled
from server.core.game.members import Member
from server.core.game.offers import Offers
from server.core.game.opening import Opening


class Rater(Protocol):
    """What a rated room asks of the arena's ratings: a seat's rating for ``state`` and the
    rating of its game when it ends (``server.core.rating.desk.RatingDesk``)."""

    def seat(self, pid: str, pool: str) -> Message | None: ...
    def settle(self, room: Any, over: Message) -> None: ...


class RoomView(Protocol):
    """What the ``state`` and lobby builders read of a room."""

    id: str
    variant: Variant
    options: dict[str, Any]
    seats: list[Member | None]
    spectators: dict[str, Member]
    online: set[str]
    game: Game
    game_no: int
    game_id: str
    clock_spec: ClockSpec | None
    clock: Clock | None
    colours: tuple[int, int] | None
    opening_rule: Opening | None
    rematch: list[bool]
    offers: Offers | None
    turn_since: float | None
    opening: tuple[Move, ...]
    fault: str | None
    chat_log: deque[Message]
    pool: str | None
    rater: Rater | None

    def now(self) -> float: ...
    @property
    def status(self) -> str: ...
    @property
    def actor(self) -> int | None: ...
    def seat_of(self, pid: str) -> int | None: ...
    def forbidden(self) -> list[list[int]]: ...


def moved(
    room: str,
    ply: int,
    seat: int,
    x: object,
    y: object,
    clocks: list[float] | None,
    forbidden: list[list[int]] | None,
) -> Message:
    """A stone was played: ``forbidden`` is renju's cells black may not play next, if black
    is to move."""
    message: Message = {"type": "moved", "room": room, "ply": ply, "seat": seat, "x": x, "y": y}
    if clocks is not None:
        message["clocks"] = clocks
    if forbidden is not None:
        message["forbidden"] = forbidden
    return message


def result(outcome: Outcome, fault: str | None) -> Message:
    """A finished game's ``result`` map: the winner, why, the winning line, a bot's fault."""
    found: Message = {
        "winner": outcome.winner,
        "reason": str(outcome.termination),
        "line": [[m.x, m.y] for m in outcome.line],
    }
    if fault is not None:
        found["fault"] = fault
    return found


def game_over(
    room: str, game_id: str, outcome: Outcome, fault: str | None, clocks: list[float] | None
) -> Message:
    """The game in ``room`` ended: its result, and the clocks where they stopped."""
    over: Message = {"type": "game_over", "room": room, "game_id": game_id}
    over |= result(outcome, fault)
    if clocks is not None:
        over["clocks"] = clocks
    return over


def lobby_line(room: RoomView) -> Message:
    """The room's line in the lobby's ``rooms`` list."""
    line: Message = {
        "room": room.id,
        "game": room.variant.name,
        "title": game_title(room.variant.describe()),
        "status": room.status,
        "players": [m.name if m else None for m in room.seats],
        "accounts": [m is not None and m.account for m in room.seats],
        "spectators": len(room.spectators),
    }
    if room.opening_rule is not None:
        line["opening_rule"] = room.opening_rule.rule
    if room.pool is not None:
        line["rated"] = True
        line["pool"] = room.pool
    return line


def state(room: RoomView, pid: str | None) -> Message:
    """Everything a client needs to redraw the room from scratch, as seen by ``pid``."""
    game, clock, seats, rule = room.game, room.clock, room.seats, room.opening_rule
    outcome = game.outcome
    pool, rater = room.pool, room.rater
    return {
        "type": "state",
        "room": room.id,
        "game": titled(room.variant.describe()),
        "options": room.options,
        "players": [m.name if m else None for m in seats],
        "player_ids": [m.pid if m else None for m in seats],
        "kinds": [m.kind if m else None for m in seats],
        "accounts": [m is not None and m.account for m in seats],
        "online": [m is not None and m.pid in room.online for m in seats],
        "seat": None if pid is None else room.seat_of(pid),
        "moves": [[m.x, m.y] for m in game.moves],
        "ply": game.ply,
        "to_move": room.actor,
        "colours": list(room.colours) if room.colours else None,
        "opening": rule.describe() if rule else None,
        "forbidden": room.forbidden(),
        "clock": room.clock_spec.describe() if room.clock_spec else None,
        "clocks": clock.snapshot(room.now()) if clock else None,
        "clock_running": clock.running if clock else None,
        "status": room.status,
        "result": None if outcome is None else result(outcome, room.fault),
        "rematch": list(room.rematch),
        "actions": actions(room),
        "spectators": len(room.spectators),
        "game_no": room.game_no,
        "game_id": room.game_id,
        "chat": list(room.chat_log),
        "rated": pool is not None,
        "pool": pool,
        "ratings": [
            None if m is None or pool is None or rater is None else rater.seat(m.pid, pool)
            for m in seats
        ],
    }


def actions(room: RoomView) -> Message | None:
    """The game actions' part of ``state`` (core/game/offers.py), None in a room that has none."""
    offers = room.offers
    if offers is None:
        return None
    playing = room.status == "playing"
    since = room.turn_since if playing else None
    said = offers.describe(room.game_id, room.game.ply, len(room.opening), since, room.now())
    return {**said, "abort": playing and abortable(room)}


def abort_until(opening: int, options: dict[str, Any]) -> int:
    """The stones on the board from which a room's games may no longer be aborted: both sides
    have moved past the ``opening`` stones (0: never, a tournament's game is played out). Fixed
    for a room, so a room works it out once (its every ``moved`` says it)."""
    return 0 if "tournament" in options else opening + 2


def abortable(room: RoomView, plies: int | None = None) -> bool:
    """Whether the game may be aborted after ``plies`` stones (None: as it stands), by
    :func:`abort_until`; ``abort`` checks it and ``state`` says it."""
    played = len(room.game.moves) if plies is None else plies
    return played < abort_until(len(room.opening), room.options)


def abort_note(room: RoomView, ply: int, over: bool) -> Message:
    """What a ``moved`` of the stone at ``ply`` says of aborting (a room with game actions, the
    game not ended by it): the same whether the room sends it or an adopting node again."""
    if over or room.offers is None:
        return {}
    return {"abort": abortable(room, ply + 1)}
