"""A ``create_room`` request read into one value before anything is made of it: the variant, the
level, the clock and the options the room keeps, each rebuilt from checked values (nothing of
the raw request is kept: an unknown key anywhere in ``options`` is ``bad_options``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from protocol.errors import ArenaError, BadOptions
from protocol.positions import setup_moves
from protocol.rules import Game, Variant
from protocol.variants import MNK_OPTIONS, make_variant
from protocol.wire import Message
from server.core.game.clock import ClockSpec
from server.core.game.position import points

#: The options a room keeps from ``create_room``'s ``options`` (the variant reads the rest).
KEPT = ("opening", "max_moves", "position", "opening_rule", "hints", "full_strength")
#: The keys of ``options.position``.
POSITION_KEYS = ("black", "white", "to_move")
#: The shortest ``initial_s`` (and ``move_s``) a new timed game may have: a shorter clock is no
#: game at all (0.001 s, 1e-300 s); bots' matches and tests play sub-second clocks on purpose.
#: Rated games need more (core/rating/desk.py). Stored games are restored whatever their clock.
MIN_CLOCK_S = 0.1


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
    clock = read_clock(msg.get("clock"))
    kept: dict[str, Any] = {"opponent": msg.get("opponent", "human")}
    kept |= canonical(msg["game"], options)
    named = msg.get("bots")
    wants_bot = kept["opponent"] == "bot" or "bot" in msg
    if "position" in kept and (wants_bot or named is not None):
        playable(variant, kept["position"])
    if kept.get("hints") and (not wants_bot or named is not None or msg.get("rated")):
        raise BadOptions("hints are for casual games of a human against a bot (training)")
    if kept.get("full_strength") and (not wants_bot or named is not None):
        raise BadOptions("full_strength is for a human's game against a bot")
    return RoomRequest(variant, level, clock, kept, named, wants_bot)


def playable(variant: Variant, position: dict[str, Any]) -> None:
    """Refuse a set-up position a bot cannot be given: its engine takes moves from the empty
    board (protocol/positions.py), so the stones must be reachable by alternate moves."""
    order = setup_moves(position)
    if order is None:
        raise BadOptions(
            "a bot plays from a position that play could reach: as many black stones as white"
            " with black to move, one more black with white to move"
        )
    try:
        Game.from_moves(variant, order)
    except ArenaError as exc:  # a renju foul on the way, a cell twice, off the board
        raise BadOptions(f"bad position for a bot: {exc.message}") from None


def read_clock(raw: object) -> ClockSpec | None:
    """A new game's ``clock`` (None: untimed), checked, at least ``MIN_CLOCK_S`` a side and a
    move (BadOptions)."""
    if raw is None:
        return None
    clock = ClockSpec.parse(raw)
    if clock.initial_s < MIN_CLOCK_S or (clock.move_s is not None and clock.move_s < MIN_CLOCK_S):
        raise BadOptions(f"clock initial_s and move_s must be at least {MIN_CLOCK_S:g} s")
    return clock


def canonical(game: str, options: dict[str, Any]) -> dict[str, Any]:
    """The kept options of ``options`` rebuilt from checked values; BadOptions for a key the
    game does not take (at any level) or a value of the wrong shape (legality is the room's)."""
    known = (*KEPT, *MNK_OPTIONS) if game == "mnk" else KEPT
    unknown = [k for k in options if k not in known]
    if unknown:
        raise BadOptions(
            f"unknown option {str(unknown[0])[:40]!r}; {game} takes {', '.join(known)}"
        )
    kept: dict[str, Any] = {}
    if "opening" in options:
        kept["opening"] = [[m.x, m.y] for m in points(options["opening"], "opening")]
    if "max_moves" in options:
        if type(options["max_moves"]) is not int:
            raise BadOptions("max_moves must be an integer")
        kept["max_moves"] = options["max_moves"]
    if "position" in options:
        kept["position"] = _position(options["position"])
    if "hints" in options:
        if type(options["hints"]) is not bool:
            raise BadOptions("hints must be true or false")
        if options["hints"]:  # kept only when on: a room without hints shows none
            kept["hints"] = True
    if "full_strength" in options:
        if type(options["full_strength"]) is not bool:
            raise BadOptions("full_strength must be true or false")
        if options["full_strength"]:  # kept only when on: the bot plays at a human's pace
            kept["full_strength"] = True
    if "opening_rule" in options:
        if not isinstance(options["opening_rule"], str):
            raise BadOptions("opening_rule must be a string")
        kept["opening_rule"] = options["opening_rule"]
    return kept


def _position(raw: object) -> dict[str, Any]:
    """``options.position`` as ``{"black": [[x, y], …], "white": […], "to_move": 0|1}``."""
    if not isinstance(raw, dict) or any(k not in POSITION_KEYS for k in raw):
        raise BadOptions('position must be {"black": [...], "white": [...], "to_move": 0|1}')
    to_move = raw.get("to_move", 0)
    if type(to_move) is not int or to_move not in (0, 1):
        raise BadOptions("position.to_move must be 0 or 1")
    black = points(raw.get("black", []), "position.black")
    white = points(raw.get("white", []), "position.white")
    return {
        "black": [[m.x, m.y] for m in black],
        "white": [[m.x, m.y] for m in white],
        "to_move": to_move,
    }
