"""Standings of a round robin or a swiss: points, then the Buchholz and Sonneborn-Berger
tie-breaks, then the order of entry.

Points: a win 1, a draw 0.5, a bye ``bye_points`` (1 in a swiss, 0 in a round robin where
every player sits out once a cycle). Buchholz: the sum of the points of every opponent met
(once per game). Sonneborn-Berger: the points of every opponent beaten plus half those of
every opponent drawn. A bye has no opponent and adds to neither tie-break.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from server.core.tournament.values import Bye, Finished


@dataclass(frozen=True, slots=True)
class Standing:
    """One player's line in the standings."""

    rank: int
    player: str
    points: float
    buchholz: float
    sonneborn_berger: float
    wins: int
    draws: int
    losses: int
    byes: int


def points(
    players: Sequence[str], finished: Sequence[Finished], byes: Sequence[Bye], bye_points: float
) -> dict[str, float]:
    """Each player's points."""
    total = {player: 0.0 for player in players}
    for item in finished:
        for player in item.game.players:
            total[player] = total.get(player, 0.0) + item.score(player)
    for bye in byes:
        total[bye.player] = total.get(bye.player, 0.0) + bye_points
    return total


def standings(
    players: Sequence[str],
    finished: Sequence[Finished],
    byes: Sequence[Bye] = (),
    bye_points: float = 1.0,
) -> tuple[Standing, ...]:
    """The standings, best first (``players`` in order of entry breaks the last ties)."""
    total = points(players, finished, byes, bye_points)
    buchholz = dict.fromkeys(players, 0.0)
    berger = dict.fromkeys(players, 0.0)
    tally = {player: [0, 0, 0] for player in players}
    for item in finished:
        for player in item.game.players:
            other = item.game.opponent(player)
            score = item.score(player)
            buchholz[player] += total[other]
            berger[player] += score * total[other]
            tally[player][0 if score == 1.0 else 1 if score == 0.5 else 2] += 1
    entry = {player: i for i, player in enumerate(players)}
    order = sorted(players, key=lambda p: (-total[p], -buchholz[p], -berger[p], entry[p]))
    bye_count = {player: sum(1 for bye in byes if bye.player == player) for player in players}
    return tuple(
        Standing(rank, p, total[p], buchholz[p], berger[p], *tally[p], bye_count[p])
        for rank, p in enumerate(order, start=1)
    )
