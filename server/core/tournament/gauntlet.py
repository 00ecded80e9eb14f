"""Gauntlet: the first ``seeds`` entrants (in order of entry) each meet every other entrant
``games_per_pair`` times; the seeds do not meet each other, nor do the others.

A cycle has as many rounds as the larger side: in round r of a cycle the i-th player of the
smaller side meets the ((i + r) mod n)-th of the larger (each player at most one game a round;
the larger side's players left over sit the round out, which scores nothing and is no bye).
Seats: in cycle c the seed i has the first move against the other j when i + j + c is even,
so each player's seats differ by at most one within a cycle; the next cycle plays every
pairing again with the seats swapped and the same opening, so both colours of an opening go
to the same pair and two cycles leave every player balanced, as in a round robin. Opening
``c // 2`` (of the event's list) is cycle c's.
"""

from __future__ import annotations

from collections.abc import Sequence

from server.core.tournament.values import Game, Round


def sides(players: Sequence[str], seeds: int) -> tuple[list[str], list[str]]:
    """The seeds and the others (at least one other while there are two players)."""
    cut = max(1, min(seeds, len(players) - 1))
    return list(players[:cut]), list(players[cut:])


def gauntlet_rounds(size: int, seeds: int, games_per_pair: int) -> int:
    """How many rounds the whole event takes."""
    if size < 2:
        return 0
    first, others = sides([str(i) for i in range(size)], seeds)
    return max(len(first), len(others)) * games_per_pair


def gauntlet_round(players: Sequence[str], seeds: int, openings: int, number: int) -> Round:
    """Round ``number`` of the schedule alone (an event makes one round at a time)."""
    first, others = sides(players, seeds)
    narrow, wide = sorted((first, others), key=len)
    cycle, offset = divmod(number - 1, len(wide))
    opening = (cycle // 2) % openings if openings else None
    games = []
    for board, a in enumerate(narrow):
        b = wide[(board + offset) % len(wide)]
        seed, other = (a, b) if narrow is first else (b, a)
        i, j = first.index(seed), others.index(other)
        pair = (seed, other) if (i + j + cycle) % 2 == 0 else (other, seed)
        games.append(Game(f"{number}.{board + 1}", number, *pair, opening))
    return Round(number, tuple(games))


def gauntlet(
    players: Sequence[str], seeds: int = 1, games_per_pair: int = 2, openings: int = 0
) -> tuple[Round, ...]:
    """The whole schedule: ``games_per_pair`` cycles, openings from a list of ``openings``
    (0: every game from the empty board)."""
    total = gauntlet_rounds(len(players), seeds, games_per_pair)
    return tuple(gauntlet_round(players, seeds, openings, n) for n in range(1, total + 1))
