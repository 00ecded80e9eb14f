"""What the rules themselves say (``protocol.rules``), for tests that hold the engine to them."""

from __future__ import annotations

from protocol.rules import EMPTY, STONE, Game


def rule_wins(game: Game, side: int) -> list[int]:
    """The empty cells where a ``side`` stone would win by the rules (renju: black exactly five)."""
    board = game.board
    out = []
    for i in board.legal():
        board.cells[i] = STONE[side]
        if board.wins_at(i):
            out.append(i)
        board.cells[i] = EMPTY
    return out
