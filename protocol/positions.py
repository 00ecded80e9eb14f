"""A set-up position (``options.position``) as a bot's engine takes it: moves from the empty
board, so that every engine, SDK bot and Piskvork brain plays from it unchanged."""

from __future__ import annotations

from typing import Any

from protocol.rules import Move


def setup_moves(position: Any) -> list[Move] | None:
    """The stones of ``{"black": [[x, y], …], "white": […], "to_move": 0|1}`` as alternate
    moves from the empty board, black first; ``[]`` for no position, None when the counts could
    not come from play (as many black stones as white with black to move, one more with white).
    """
    if not position:
        return []
    black, white = position.get("black") or [], position.get("white") or []
    if len(black) - len(white) != position.get("to_move", 0):
        return None
    order: list[Move] = []
    for i, (x, y) in enumerate(black):
        order.append(Move(x, y))
        if i < len(white):
            order.append(Move(*white[i]))
    return order
