"""A room's set-up position (``options.position``): checked on creation, replayed per game."""

from __future__ import annotations

from protocol.errors import GameOverError, IllegalMoveError, UnknownGame
from protocol.rules import Game, Move, Variant

#: A set-up position: black stones, white stones, the colour to move.
Position = tuple[tuple[Move, ...], tuple[Move, ...], int]


def points(raw: object, what: str) -> list[Move]:
    """Cells from the wire's ``[[x, y], …]``; bad_options (naming ``what``) for anything else."""
    if not isinstance(raw, list) or not all(
        isinstance(p, list) and len(p) == 2 and all(type(c) is int for c in p) for p in raw
    ):
        raise UnknownGame(f"{what} must be a list of [x, y] pairs")
    return [Move(x, y) for x, y in raw]


def start_position(variant: Variant, raw: object) -> Position | None:
    """``options.position`` checked: on the board, no cell twice, nobody already won."""
    if raw is None:
        return None
    if not isinstance(raw, dict) or raw.get("to_move", 0) not in (0, 1):
        raise UnknownGame('position must be {"black": [...], "white": [...], "to_move": 0|1}')
    black = points(raw.get("black", []), "position.black")
    white = points(raw.get("white", []), "position.white")
    to_move = raw.get("to_move", 0)
    if type(to_move) is not int:
        raise UnknownGame("position.to_move must be 0 or 1")
    try:
        Game.from_position(variant, black, white, to_move)
    except (IllegalMoveError, GameOverError) as exc:
        raise UnknownGame(f"bad position: {exc.message}") from exc
    return tuple(black), tuple(white), to_move


def base_game(variant: Variant, position: Position | None) -> Game:
    """An empty game, or one set up from a checked position."""
    return Game.from_position(variant, *position) if position else Game(variant)
