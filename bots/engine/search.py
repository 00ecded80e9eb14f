"""The engine's entry point: small boards get the exact solver or the full-width search, bigger
ones the core.

On boards of at most ``SMALL_BOARD`` cells a search with no depth bound short of the game's end
plays from :mod:`bots.engine.solver`, the one exact search (perfect play: the fastest win, the
slowest loss, every tied move), when the solver handles the rules (freestyle, or no overline
fits) and finishes within ``SOLVER_SHARE`` of the time. Otherwise (a level's depth bound, the
exact-k rule, a board the solver does not finish in time) :mod:`bots.engine.small` searches
every empty cell to the depth and time left on the core's board (compiled, or its plain-Python
run when ``MNK_ENGINE_PURE=1``), and :mod:`bots.engine.fast` the threat searches and PVS on
bigger boards.
"""

from __future__ import annotations

import random
import time
from dataclasses import replace

from bots.engine.fast import core_for, fast_search, load_core
from bots.engine.limits import Limit, SearchResult
from bots.engine.small import SMALL_BOARD, SmallSearch
from bots.engine.solver import SolveTimeout, exact_search, solvable
from protocol.rules import Move, Variant

__all__ = ["SMALL_BOARD", "pick", "search"]

#: The share of a small board's time the exact solver may take before the full-width search.
SOLVER_SHARE = 0.5


def search(variant: Variant, moves: list[Move], limit: Limit) -> SearchResult:
    """Search the position after ``moves`` (from the empty board) for the side to move."""
    if variant.cells > SMALL_BOARD:
        return fast_search(variant, list(moves), limit)
    core = core_for(variant, list(moves), load_core())
    if core.over():
        raise ValueError("the game is already over")
    start = time.perf_counter()
    if _exact(variant, moves, limit):
        share = None if limit.time_s is None else limit.time_s * SOLVER_SHARE
        try:
            return exact_search(variant, list(moves), _deadline(start, share), limit.ties)
        except SolveTimeout:
            spent = time.perf_counter() - start
            assert limit.time_s is not None  # no time bound: no timeout
            limit = replace(limit, time_s=max(0.01, limit.time_s - spent), soft_s=None)
    return SmallSearch(variant, core, limit).run()


def _exact(variant: Variant, moves: list[Move], limit: Limit) -> bool:
    """Whether the solver plays this search: its rules, no node bound, no depth bound short
    of the end of the game."""
    empties = variant.cells - len(moves)
    deep = limit.depth is None or limit.depth >= empties
    return deep and limit.nodes is None and solvable(variant)


def _deadline(start: float, seconds: float | None) -> float:
    return float("inf") if seconds is None else start + seconds


def pick(result: SearchResult, rng: random.Random | None) -> Move:
    """The result's move, or a random one among its exact ties when ``rng`` is given."""
    if rng is None or len(result.best_moves) <= 1:
        return result.move
    return rng.choice(result.best_moves)
