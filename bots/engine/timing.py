"""Time allocation: from a per-move limit and a match clock, the time a move plans to use and the
most it may ever use.

Pure functions of their arguments (no clock is read here), so the rules are unit-tested as they
are. The search (:mod:`bots.engine.fast`) aims at ``planned``, may stretch to ``maximum`` on a
critical move (its best move changed, or its score fell, at the last iteration), and is aborted
mid-iteration at ``maximum`` whatever happens. When only a per-move limit binds (Gomocup's
``timeout_turn`` with a roomy match clock), time not used is lost, so ``planned == maximum``
and the search uses all of it but the overhead margin.
"""

from __future__ import annotations

from dataclasses import dataclass

#: A move plans on this share of the match clock left (plus most of the increment).
MOVES_TO_GO = 20
INCREMENT_SHARE = 0.8
#: A critical move may take at most this share of the match clock left (plus the increment).
CRITICAL_CLOCK_SHARE = 0.25
#: How much longer than planned a critical move may think (still capped by ``maximum``).
CRITICAL_FACTOR = 2.0
#: Kept back from every limit for process, pipe and network overhead: a fixed part plus a share
#: of the limit (scheduling noise grows with it), at most ``OVERHEAD_CAP`` of the limit.
OVERHEAD_FIXED_S, OVERHEAD_SHARE, OVERHEAD_CAP = 0.06, 0.02, 0.5
#: Never plan less than this (an answer still has to be built).
MIN_S = 0.01


@dataclass(frozen=True, slots=True)
class Budget:
    """Seconds for one move: the aim, and the hard limit (``planned <= maximum``)."""

    planned: float
    maximum: float


def overhead(limit_s: float, fixed_s: float = OVERHEAD_FIXED_S) -> float:
    """Seconds kept back from a limit of ``limit_s`` for what happens around the search."""
    return min(OVERHEAD_CAP * limit_s, fixed_s + OVERHEAD_SHARE * limit_s)


def plan_time(
    turn_s: float | None,
    left_s: float | None = None,
    increment_s: float = 0.0,
    fixed_s: float = OVERHEAD_FIXED_S,
) -> Budget:
    """The budget of one move.

    ``turn_s``: the per-move limit (None or 0: none); ``left_s``: the match clock left for this
    side (None: no match clock); ``increment_s``: what the clock adds after the move (Fischer);
    ``fixed_s``: the fixed part of the overhead margin (the caller's measured round trip).
    """
    maximum = planned = float("inf")
    if turn_s:
        maximum = planned = turn_s - overhead(turn_s, fixed_s)
    if left_s is not None:
        spendable = max(0.0, left_s - overhead(left_s, fixed_s))
        inc = INCREMENT_SHARE * max(0.0, increment_s)
        maximum = min(maximum, spendable, CRITICAL_CLOCK_SHARE * spendable + inc)
        planned = min(planned, spendable / MOVES_TO_GO + inc)
    if maximum == float("inf"):
        raise ValueError("no limit at all: give a per-move limit or a match clock")
    maximum = max(MIN_S, maximum)
    return Budget(max(MIN_S, min(planned, maximum)), maximum)


def stretched(budget: Budget, critical: bool) -> float:
    """The time to aim at now: ``planned``, or longer (up to ``maximum``) on a critical move."""
    if not critical:
        return budget.planned
    return min(budget.maximum, budget.planned * CRITICAL_FACTOR)
