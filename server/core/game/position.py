"""A room's set-up position (``options.position``): checked on creation, replayed per game."""

from __future__ import annotations

from typing import Any

from protocol.errors import BadOptions, GameOverError, IllegalMoveError
from protocol.rules import MAX_SIDE, Game, Move, Variant
from server.core.game.opening import RULES

#: A set-up position: black stones, white stones, the colour to move.
Position = tuple[tuple[Move, ...], tuple[Move, ...], int]


#: No list of stones can hold more cells than the biggest board has: longer is refused unread
#: (a 5,000-stone junk list cost ~2 ms to walk, twice per create_room, all on the loop).
MAX_POINTS = MAX_SIDE * MAX_SIDE


def points(raw: object, what: str) -> list[Move]:
    """Cells from the wire's ``[[x, y], …]``; bad_options (naming ``what``) for anything else."""
    if isinstance(raw, list) and len(raw) > MAX_POINTS:
        raise BadOptions(f"{what} has more stones than any board has cells ({MAX_POINTS})")
    if not isinstance(raw, list) or not all(
        isinstance(p, list) and len(p) == 2 and all(type(c) is int for c in p) for p in raw
    ):
        raise BadOptions(f"{what} must be a list of [x, y] pairs")
    return [Move(x, y) for x, y in raw]


def start_position(variant: Variant, raw: object) -> Position | None:
    """``options.position`` checked: on the board, no cell twice, nobody already won."""
    if raw is None:
        return None
    if not isinstance(raw, dict) or raw.get("to_move", 0) not in (0, 1):
        raise BadOptions('position must be {"black": [...], "white": [...], "to_move": 0|1}')
    black = points(raw.get("black", []), "position.black")
    white = points(raw.get("white", []), "position.white")
    to_move = raw.get("to_move", 0)
    if type(to_move) is not int:
        raise BadOptions("position.to_move must be 0 or 1")
    try:
        Game.from_position(variant, black, white, to_move)
    except (IllegalMoveError, GameOverError) as exc:
        raise BadOptions(f"bad position: {exc.message}") from exc
    return tuple(black), tuple(white), to_move


def base_game(variant: Variant, position: Position | None) -> Game:
    """An empty game, or one set up from a checked position."""
    return Game.from_position(variant, *position) if position else Game(variant)


def opening_moves(game: Game, raw: object) -> tuple[Move, ...]:
    """Opening stones from the wire's ``[[x, y], …]``; bad_options unless legal and still live."""
    if raw is None:
        return ()
    points(raw, "opening")
    assert isinstance(raw, list)
    try:
        for x, y in raw:
            if game.push(Move(x, y)) is not None:
                raise BadOptions("the opening must not end the game")
    except (IllegalMoveError, GameOverError) as exc:
        raise BadOptions(f"illegal opening: {exc.message}") from exc
    return tuple(game.moves)


def check_setup(
    variant: Variant, options: dict[str, Any], position: Position | None, opening: tuple[Move, ...]
) -> int | None:
    """Refuse an opening rule or a ``max_moves`` the set-up cannot take; the ``max_moves`` kept."""
    rule = options.get("opening_rule")
    if rule is not None:
        if rule not in RULES:
            raise BadOptions(f"opening_rule must be one of {', '.join(RULES)}")
        if (variant.width, variant.height) != (15, 15):
            raise BadOptions("opening rules are for 15x15 games")
        if position or opening:
            raise BadOptions("an opening rule starts from the empty board")
    max_moves = options.get("max_moves")
    if max_moves is not None and (
        type(max_moves) is not int or not len(opening) < max_moves <= variant.cells
    ):
        raise BadOptions("max_moves must be an integer above the opening's length")
    return max_moves
