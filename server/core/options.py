"""A ``create_room`` request read into one value before anything is made of it: the variant, the
level, the clock and the options the room keeps (nothing else of the request is kept)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from protocol.errors import BadOptions
from protocol.rules import Variant
from protocol.variants import make_variant
from protocol.wire import Message
from server.core.clock import ClockSpec

#: The options a room keeps from ``create_room``'s ``options`` (the variant reads the rest).
KEPT = ("opening", "max_moves", "position", "opening_rule")


@dataclass(frozen=True, slots=True)
class RoomRequest:
    """What a ``create_room`` asks for, checked."""

    variant: Variant
    level: int | None
    clock: ClockSpec | None
    #: The room's options: the opponent kind and the kept options.
    options: dict[str, Any]
    #: A director's two bots by name, or None.
    named: list[object] | None
    #: A human asked for a bot (by name or any): the per-player bot quota applies.
    wants_bot: bool


def read_create(msg: Message) -> RoomRequest:
    """Check ``msg`` (a validated ``create_room``) into a :class:`RoomRequest`, or raise
    :class:`BadOptions`."""
    options = msg.get("options") or {}
    variant = make_variant(msg["game"], options)
    level = msg.get("level")
    if level is not None and not 1 <= level <= 10:
        raise BadOptions("level must be 1..10")
    clock = ClockSpec.parse(msg["clock"]) if msg.get("clock") is not None else None
    kept: dict[str, Any] = {"opponent": msg.get("opponent", "human")}
    kept |= {k: options[k] for k in KEPT if k in options}
    named = msg.get("bots")
    if "position" in options and (named is not None or kept["opponent"] == "bot"):
        raise BadOptions("set-up positions are for games between humans (bots see moves only)")
    wants_bot = kept["opponent"] == "bot" or "bot" in msg
    return RoomRequest(variant, level, clock, kept, named, wants_bot)
