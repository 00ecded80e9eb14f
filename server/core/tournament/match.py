"""The one matcher the formats share: pair a ranked line of players, each with the nearest
below it that a rule allows, backtracking when the rest cannot be paired; bounded by a
budget of steps so that a big field never holds the loop (past it: no matching)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

#: Steps (candidate pairs tried) one matching may take before it gives up.
BUDGET = 20_000

Allowed = Callable[[str, str], bool]


class Budget:
    """Steps left to a caller's matchings (one budget may cover several attempts)."""

    def __init__(self, steps: int = BUDGET) -> None:
        self.left = steps

    def spend(self) -> bool:
        """Take one step; whether there was one."""
        self.left -= 1
        return self.left >= 0


def match(
    order: Sequence[str], allowed: Allowed, budget: Budget | None = None
) -> list[tuple[str, str]] | None:
    """A perfect matching of ``order`` (even) where every pair is ``allowed``, each player
    paired as near below itself as the rest allows; ``None`` if there is none (or the budget
    ran out before one was found)."""
    steps = budget if budget is not None else Budget()

    def pair(rest: list[str]) -> list[tuple[str, str]] | None:
        if not rest:
            return []
        top, others = rest[0], rest[1:]
        for i, other in enumerate(others):
            if not steps.spend():
                return None
            if not allowed(top, other):
                continue
            tail = pair(others[:i] + others[i + 1 :])
            if tail is not None:
                return [(top, other), *tail]
        return None

    if len(order) % 2:
        return None
    return pair(list(order))
