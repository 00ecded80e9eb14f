"""Renju on top of any engine, without touching its search: black never plays a forbidden
point, and white first looks for a four whose only defence is a point black may not play.

This is a thin layer: the engine still searches as if the rules were symmetric (it may
spend effort on lines black cannot complete); see docs/BOTS.md for what a deeper
integration would add.
"""

from __future__ import annotations

from collections.abc import Callable

from protocol import renju
from protocol.rules import DIRECTIONS, EMPTY, STONE, Board, Game, Move, Variant, WinRule

#: What an engine offers: its move and the moves it rates as good (best first).
EngineAnswer = tuple[Move, list[Move]]


def _five_points(board: Board, colour: int, around: int | None = None) -> list[int]:
    """Empty cells where ``colour`` would win at once (near ``around`` only, when given)."""
    w, h = board.width, board.height
    if around is None:
        cells = [i for i, c in enumerate(board.cells) if c == EMPTY]
    else:
        x0, y0 = around % w, around // w
        cells = []
        for dx, dy in DIRECTIONS:
            for step in range(-4, 5):
                x, y = x0 + step * dx, y0 + step * dy
                if step and 0 <= x < w and 0 <= y < h and board.cells[y * w + x] == EMPTY:
                    cells.append(y * w + x)
    found = []
    for i in cells:
        board.cells[i] = STONE[colour]
        if board.wins_at(i):
            found.append(i)
        board.cells[i] = EMPTY
    return found


def white_trap(game: Game) -> Move | None:
    """A white move that wins: five now, or a four whose only defence is forbidden for black."""
    variant, board = game.variant, game.board
    if variant.rule is not WinRule.RENJU or game.to_move != 1:
        return None
    if _five_points(board, 0):
        return None  # black threatens five (never forbidden): white must block, not trap
    w, h = board.width, board.height
    near = {
        y * w + x
        for i, c in enumerate(board.cells)
        if c == STONE[1]
        for x in range(i % w - 2, i % w + 3)
        for y in range(i // w - 2, i // w + 3)
        if 0 <= x < w and 0 <= y < h and board.cells[y * w + x] == EMPTY
    }
    for m in sorted(near):
        board.cells[m] = STONE[1]
        try:
            if board.wins_at(m):
                return Move(*board.xy(m))
            threats = set(_five_points(board, 1, m))
            if len(threats) == 1 and renju.foul(board.cells, w, h, threats.pop()) is not None:
                return Move(*board.xy(m))
        finally:
            board.cells[m] = EMPTY
    return None


def renju_move(variant: Variant, moves: list[Move], engine: Callable[[], EngineAnswer]) -> Move:
    """The engine's move, made legal and sharpened for renju (other games pass straight through)."""
    if variant.rule is not WinRule.RENJU:
        return engine()[0]
    game = Game.from_moves(variant, moves)
    trap = white_trap(game)
    if trap is not None:
        return trap
    move, good = engine()
    if game.to_move != 0:
        return move
    forbidden = set(variant.forbidden_points(game.board))
    for candidate in (move, *good):
        if candidate not in forbidden:
            return candidate
    # every move the engine liked is forbidden: the nearest playable cell to its first choice
    free = [m for m in game.legal_moves() if m not in forbidden]
    return min(free, key=lambda m: (max(abs(m.x - move.x), abs(m.y - move.y)), m.y, m.x))
