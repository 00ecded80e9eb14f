"""The named games (tic-tac-toe, gomoku, custom m,n,k) and how their options are checked."""

from __future__ import annotations

from collections.abc import Mapping

from protocol.errors import BadOptions
from protocol.rules import MAX_SIDE, MIN_SIDE, Variant, WinRule

TICTACTOE = Variant("tictactoe", 3, 3, 3)
GOMOKU = Variant("gomoku", 15, 15, 5, WinRule.FREESTYLE)
GOMOKU_STANDARD = Variant("gomoku-standard", 15, 15, 5, WinRule.EXACT)
RENJU = Variant("renju", 15, 15, 5, WinRule.RENJU)

FIXED: dict[str, Variant] = {v.name: v for v in (TICTACTOE, GOMOKU, GOMOKU_STANDARD, RENJU)}
#: Every name ``make_variant`` accepts.
NAMES = (*FIXED, "mnk")
#: The options that make an ``mnk`` variant (the named games take none).
MNK_OPTIONS = ("width", "height", "k", "rule")


def _int_option(options: Mapping[str, object], key: str, default: int | None) -> int:
    value = options.get(key, default)
    if type(value) is not int:
        raise BadOptions(f"option {key!r} must be an integer")
    return value


def make_variant(name: object, options: Mapping[str, object] | None = None) -> Variant:
    """The variant called ``name``; ``mnk`` takes ``width``, ``height``, ``k`` and ``rule``.

    Raises :class:`BadOptions` for an unknown name or out-of-range options.
    """
    options = options or {}
    if not isinstance(options, Mapping):
        raise BadOptions("options must be a map")
    if not isinstance(name, str):
        raise BadOptions("game must be a string")
    if name in FIXED:
        return FIXED[name]
    if name != "mnk":
        raise BadOptions(f"unknown game {name[:40]!r}; known: {', '.join(NAMES)}")
    width = _int_option(options, "width", None)
    height = _int_option(options, "height", width)
    k = _int_option(options, "k", None)
    rule = options.get("rule", WinRule.FREESTYLE.value)
    if not isinstance(rule, str) or rule not in {r.value for r in WinRule}:
        raise BadOptions(f"rule must be one of {', '.join(r.value for r in WinRule)}")
    if not (MIN_SIDE <= width <= MAX_SIDE and MIN_SIDE <= height <= MAX_SIDE):
        raise BadOptions(f"width and height must be {MIN_SIDE}..{MAX_SIDE}")
    if not 3 <= k <= max(width, height):
        raise BadOptions("k must be between 3 and the longer side")
    if rule == WinRule.RENJU and (k != 5 or (width, height) != (15, 15)):
        raise BadOptions("the renju rule is for 15x15 boards and k = 5 (as the RIF plays it)")
    return Variant("mnk", width, height, k, WinRule(rule))


def variant_from_description(game: Mapping[str, object]) -> Variant:
    """Rebuild a variant from the wire's ``game`` map (as in ``state``)."""
    name = game.get("name")
    if isinstance(name, str) and name in FIXED:
        return FIXED[name]
    if game.get("rule") == WinRule.RENJU.value and game.get("k") == 5:  # made before renju was
        v = make_variant("mnk", {**game, "rule": WinRule.EXACT.value})  # 15x15 only: still read
        return Variant("mnk", v.width, v.height, 5, WinRule.RENJU)
    return make_variant("mnk", game)
