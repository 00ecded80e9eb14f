"""Each leading entrant's running points, for the chart of an event's page: after each round
(round robin, swiss: a bye's points in its round) or after each of its own games (arena, its
arena points with the streaks). Bounded: the best ``PROGRESS_LINES`` entrants, each line at
most ``PROGRESS_POINTS`` points (a longer one is sampled evenly, its last point always kept).
The page draws these numbers as they are: the points are counted here, once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from server.core.tournament.arena_format import sheet
from server.core.tournament.values import Bye, Finished

#: Lines in the chart (the standings' first), and points a line at most.
PROGRESS_LINES = 6
PROGRESS_POINTS = 32


def after_rounds(
    player: str, rounds: int, finished: Sequence[Finished], byes: Sequence[Bye], bye_points: float
) -> list[float]:
    """``player``'s points after each round 1..``rounds`` (the games finished so far)."""
    gained = [0.0] * rounds
    for item in finished:
        if player in item.game.players and 1 <= item.game.round <= rounds:
            gained[item.game.round - 1] += item.score(player)
    for bye in byes:
        if bye.player == player and 1 <= bye.round <= rounds:
            gained[bye.round - 1] += bye_points
    return running(gained)


def after_games(player: str, finished: Sequence[Finished]) -> list[float]:
    """``player``'s arena points after each of its games, in the order they ended."""
    return running(sheet(player, finished))


def running(gained: Sequence[float]) -> list[float]:
    """The running totals of ``gained``."""
    total: float = 0
    out: list[float] = []
    for value in gained:
        total += value
        out.append(total)
    return out


def sampled(values: Sequence[float]) -> tuple[list[int], list[float]]:
    """``values`` (x = 1, 2 …) as (x, value) lists of at most ``PROGRESS_POINTS``: every
    ``step``-th one counted back from the last, so the last is always there."""
    step = -(-len(values) // PROGRESS_POINTS) or 1
    xs = list(range(len(values), 0, -step))[::-1]
    return xs, [compact(values[x - 1]) for x in xs]


def compact(value: float) -> float:
    """A whole number of points as an int (a byte on the wire, where a float takes nine)."""
    return int(value) if value == int(value) else value


def progress(
    order: Sequence[str],
    finished: Sequence[Finished],
    *,
    arena: bool,
    rounds: int = 0,
    byes: Sequence[Bye] = (),
    bye_points: float = 0.0,
) -> dict[str, Any]:
    """The ``progress`` field of the ``tournament`` message for the standings' ``order``."""
    lines = []
    for player in order[:PROGRESS_LINES]:
        if arena:
            values = after_games(player, finished)
        else:
            values = after_rounds(player, rounds, finished, byes, bye_points)
        at, points = sampled(values)
        lines.append({"player": player, "at": at, "points": points})
    return {"axis": "game" if arena else "round", "lines": lines}
