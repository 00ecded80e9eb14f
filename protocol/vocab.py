"""The protocol's shared words as enums: who connects, room states, faults and close codes.

A game's end ``reason`` is :class:`protocol.rules.Termination`.

Every side compares against these instead of spelling the strings itself. They are ``StrEnum``
and ``IntEnum``, so they equal (and encode as) the bare values on the wire.
"""

from __future__ import annotations

from enum import IntEnum, StrEnum


class Kind(StrEnum):
    """Who says ``hello``."""

    HUMAN = "human"
    BOT = "bot"


class Status(StrEnum):
    """A room's game: a seat free, in play, or finished."""

    WAITING = "waiting"
    PLAYING = "playing"
    OVER = "over"


class Fault(StrEnum):
    """Why a player lost through no move of the opponent's (``game_over`` ``fault``).

    A bot names the first four itself when it resigns (``DECLARED_FAULTS``); the server charges
    ``timeout`` and ``disconnect`` on its own.
    """

    CRASH = "crash"
    HANG = "hang"
    ILLEGAL_MOVE = "illegal_move"
    ERROR = "error"
    TIMEOUT = "timeout"
    DISCONNECT = "disconnect"


#: The faults a bot may give in ``resign``'s ``fault`` field.
DECLARED_FAULTS = frozenset({Fault.CRASH, Fault.HANG, Fault.ILLEGAL_MOVE, Fault.ERROR})


class CloseCode(IntEnum):
    """WebSocket close codes the server uses."""

    GOING_AWAY = 1001  # the server shuts down
    POLICY = 1008  # no hello in time, or too many frames that do not decode
    TOO_BIG = 1009  # a frame over MAX_FRAME
    INTERNAL_ERROR = 1011  # no pong to a keepalive ping in time (websockets' own code for it)
    TRY_LATER = 1013  # the server is full
    REPLACED = 4000  # the same session said hello on another connection
    KEY_REVOKED = 4001  # the operator revoked the bot's key
