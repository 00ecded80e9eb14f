"""The shapes of what the server sends, as the client, the bot runner and the referee read them.

``TypedDict`` only: a message is still the plain map :func:`protocol.wire.decode` returns; these
name its fields for type checkers and readers (docs/PROTOCOL.md has the prose).
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

Cell = list[int]  # [x, y]


class Welcome(TypedDict):
    """The answer to ``hello``: your public ``player`` id and the secret ``session``."""

    type: str
    protocol: int
    player: str
    session: str
    name: str


class Error(TypedDict):
    """A refused request; act on ``code`` (protocol/errors.py), ``id`` echoes the request's."""

    type: str
    code: str
    message: str
    id: NotRequired[int]


class Joined(TypedDict):
    """You are in ``room``, at ``seat`` (None: watching); a bot hears the ``level`` asked."""

    type: str
    room: str
    seat: int | None
    level: NotRequired[int]


class Result(TypedDict):
    """How a finished game ended (inside ``state``)."""

    winner: int | None
    reason: str
    line: list[Cell]


class State(TypedDict):
    """Everything needed to draw a room from scratch."""

    type: str
    room: str
    game: dict[str, Any]  # a Variant description
    options: dict[str, Any]
    players: list[str | None]
    player_ids: list[str | None]
    kinds: list[str | None]
    online: list[bool]
    seat: int | None
    moves: list[Cell]
    ply: int
    to_move: int | None
    status: str  # vocab.Status
    result: Result | None
    clock: dict[str, Any] | None
    clocks: list[float] | None
    clock_running: int | None
    rematch: list[bool]
    spectators: int
    game_no: int
    game_id: NotRequired[str]
    #: The room's last chat lines, oldest first, each ``{"from", "seat", "text"}`` (at most 20).
    chat: NotRequired[list[dict[str, Any]]]


class Moved(TypedDict):
    """A stone was played (every ``moved`` a client sees is already on disk)."""

    type: str
    room: str
    ply: int
    seat: int
    x: int
    y: int
    clocks: NotRequired[list[float]]


class GameOver(TypedDict):
    """The game in ``room`` ended: ``winner`` a seat or None, ``reason`` a Termination."""

    type: str
    room: str
    game_id: str
    winner: int | None
    reason: str
    line: list[Cell]
    fault: NotRequired[str]  # vocab.Fault, with reason "forfeit"
    clocks: NotRequired[list[float]]


class Presence(TypedDict):
    """A seated player's connection dropped or came back."""

    type: str
    room: str
    seat: int
    online: bool


class RematchOffered(TypedDict):
    """``seat`` asked for a rematch."""

    type: str
    room: str
    seat: int


class BotInfo(TypedDict):
    """One row of ``list_bots``' reply."""

    name: str
    player: str
    games: list[str]
    capacity: int
    active: int
    online: bool
    level: NotRequired[int | None]  # the level it always plays; None: any level asked


class RoomRow(TypedDict):
    """One row of ``rooms``."""

    room: str
    game: str
    status: str
    players: list[str | None]
    spectators: int
