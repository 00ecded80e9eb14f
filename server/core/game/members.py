"""Who is in a room (:class:`Member`), what a room sends them (:class:`Send`), and game ids."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from protocol.wire import Message

#: Chat lines a room keeps for ``state`` (a late spectator sees the talk so far, bounded).
CHAT_HISTORY = 20


def new_game_id() -> str:
    """A unique, unguessable id for one game (a room hosts several through rematches)."""
    return "g_" + secrets.token_hex(8)


@dataclass(frozen=True, slots=True)
class Member:
    """Who is in a room: a player identity with its public name and kind."""

    pid: str
    name: str
    kind: str = "human"
    #: Whether the player is an account (a registered human's or a bot's), not a guest.
    account: bool = False


@dataclass(slots=True)
class Send:
    """One message for some players; ``reply`` marks the direct answer to the current request.

    Not frozen: a frozen dataclass's ``__init__`` costs several µs, and one is made per move.
    Nothing changes a Send once made."""

    to: tuple[str, ...]
    message: Message
    reply: bool = False
