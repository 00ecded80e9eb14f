"""A room's renju forbidden cells, worked out once per position and only near what changed."""

from __future__ import annotations

from protocol.renju import FoulMap
from protocol.rules import Game, WinRule


class Forbidden:
    """The cells black may not play in a room's game, as the wire's ``[[x, y], …]``.

    Kept per (game, ply); a renju room keeps a :class:`FoulMap`, so a move looks again only at
    the cells whose last look read where the board changed (a full look at a crowded 15x15
    board took ~10 ms on the event loop, a move near it a few dozen cells' worth).
    """

    __slots__ = ("_cells", "_key", "_map")

    def __init__(self, game: Game) -> None:
        v = game.variant
        self._key: tuple[str, int] | None = None
        self._cells: list[list[int]] = []
        self._map = FoulMap(v.width, v.height) if v.rule is WinRule.RENJU else None

    def at(self, game_id: str, game: Game) -> list[list[int]]:
        """The forbidden cells of ``game`` (the room's game ``game_id``) now."""
        key = (game_id, game.ply)
        if self._key != key:
            found = [] if game.over else game.variant.forbidden_points(game.board, self._map)
            self._key, self._cells = key, [[m.x, m.y] for m in found]
        return self._cells

    def forget(self) -> None:
        """Stones were taken off (a takeback): the next look is fresh (the map diffs the board)."""
        self._key = None
