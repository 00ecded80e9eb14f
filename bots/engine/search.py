"""The engine's entry point: small boards get the exact full-width search, bigger ones the core.

Both run on the one board of :mod:`bots.engine.core` (compiled, or its plain-Python run when
``MNK_ENGINE_PURE=1``): :mod:`bots.engine.small` searches every empty cell to the end of the
game on boards of at most ``SMALL_BOARD`` cells, :mod:`bots.engine.fast` the threat searches
and PVS on bigger ones.
"""

from __future__ import annotations

import random

from bots.engine.fast import core_for, fast_search, load_core
from bots.engine.limits import Limit, SearchResult
from bots.engine.small import SMALL_BOARD, SmallSearch
from protocol.rules import Move, Variant

__all__ = ["SMALL_BOARD", "pick", "search"]


def search(variant: Variant, moves: list[Move], limit: Limit) -> SearchResult:
    """Search the position after ``moves`` (from the empty board) for the side to move."""
    if variant.cells > SMALL_BOARD:
        return fast_search(variant, list(moves), limit)
    return SmallSearch(variant, core_for(variant, list(moves), load_core()), limit).run()


def pick(result: SearchResult, rng: random.Random | None) -> Move:
    """The result's move, or a random one among its exact ties when ``rng`` is given."""
    if rng is None or len(result.best_moves) <= 1:
        return result.move
    return rng.choice(result.best_moves)
