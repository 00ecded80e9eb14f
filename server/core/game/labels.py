"""The words the clients show for a game and a clock: the server says them on the wire
(``welcome.labels``, a pairing clock's ``label``) and the browser and the pygame client show
them, keeping no list of their own (docs/PROTOCOL.md, ``welcome``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from protocol.variants import FIXED
from server.core.game.clock import ClockSpec

#: Each game's name for people, in the order the clients offer them (``mnk``: a custom board).
GAME_LABELS: dict[str, str] = {
    "tictactoe": "Tic-tac-toe",
    "gomoku": "Gomoku",
    "gomoku-standard": "Gomoku (exact five)",
    "renju": "Renju",
    "mnk": "Custom m,n,k",
}
#: The same, short enough for a button (a row of game buttons, a tab).
GAME_SHORT: dict[str, str] = {
    "tictactoe": "Tic-tac-toe",
    "gomoku": "Gomoku",
    "gomoku-standard": "Exact five",
    "renju": "Renju",
    "mnk": "Custom",
}
#: Minutes under one a clock label writes as a fraction.
_FRACTIONS = {15.0: "\u00bc", 30.0: "\u00bd", 45.0: "\u00be"}


def _num(value: float) -> str:
    """A number as a label writes it: ``3``, ``1.5``."""
    return str(int(value)) if value == int(value) else f"{value:g}"


def clock_label(clock: ClockSpec) -> str:
    """A clock as the tiles and seek rows show it: ``3+2`` (minutes + seconds a move), ``½+0``
    for 30 s, ``1.5+1``, with the cap a move when there is one (``1+0/10s``)."""
    minutes = _FRACTIONS.get(clock.initial_s) or f"{clock.initial_s / 60:.4g}"
    label = f"{minutes}+{_num(clock.increment_s)}"
    if clock.move_s is not None:
        label += f"/{_num(clock.move_s)}s"
    return label


def game_title(game: Mapping[str, Any]) -> str:
    """A game's title for people from the wire's ``game`` map: its label (``Renju``), or a
    custom board's size and line (``7\u00d76, 4 in a row``; ``…, exact``: only k wins)."""
    name = str(game.get("name"))
    if name != "mnk":
        return GAME_LABELS.get(name, name)
    exact = ", exact" if game.get("rule") == "exact" else ""
    return f"{game.get('width')}\u00d7{game.get('height')}, {game.get('k')} in a row{exact}"


def titled(game: Mapping[str, Any]) -> dict[str, Any]:
    """The wire's ``game`` map with its ``title`` (the clients show it and format none)."""
    return {**game, "title": game_title(game)}


def game_rules() -> dict[str, dict[str, object]]:
    """``welcome.rules``: each named game's board and line (its wire ``game`` map, with its
    ``title``), so that a client sets up a named game's board from the server's word."""
    return {name: titled(variant.describe()) for name, variant in FIXED.items()}


#: The ``welcome`` field, built once.
GAME_RULES = game_rules()
