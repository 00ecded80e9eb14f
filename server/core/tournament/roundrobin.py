"""Round robin: every pair of players meets ``games_per_pair`` times.

The rounds come from the circle method (each player at most one game a round; an odd field
gives each player one bye a cycle). Colours: in a cycle, player i has seat 0 against j when
(j - i) mod k is in 1..(k-1)/2 (k the field's size made odd), so each player's seats differ
by at most one within a cycle; the next cycle plays every pairing again with the seats
swapped and the same opening, so both colours of an opening go to the same pair and two
cycles leave every player balanced. Opening ``c // 2`` (of the event's list) is cycle c's.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from server.core.tournament.values import Bye, Game, Round


def seat_first(i: int, j: int, size: int) -> bool:
    """Whether the player at index ``i`` sits first against ``j`` in an even cycle."""
    odd = size if size % 2 else size + 1
    return 1 <= (j - i) % odd <= (odd - 1) // 2


@functools.lru_cache(maxsize=64)
def cycle_pairings(size: int) -> list[list[tuple[int, int | None]]]:
    """One cycle of the circle method over indices ``0..size-1``: a list of rounds, each a
    list of (i, j) with ``j`` ``None`` for a bye."""
    line: list[int | None] = list(range(size)) + ([None] if size % 2 else [])
    count = len(line)
    rounds = []
    for r in range(count - 1):
        turned = [line[0], *line[1:][r:], *line[1:][:r]]
        pairs: list[tuple[int, int | None]] = []
        for b in range(count // 2):
            a, c = turned[b], turned[count - 1 - b]
            if a is None:
                a, c = c, None
            assert a is not None
            pairs.append((a, c))
        rounds.append(pairs)
    return rounds


def total_rounds(size: int, games_per_pair: int) -> int:
    """How many rounds the whole event takes."""
    if size < 2:
        return 0
    return (size - 1 + size % 2) * games_per_pair


def round_robin(
    players: Sequence[str], games_per_pair: int = 2, openings: int = 0
) -> tuple[Round, ...]:
    """The whole schedule: ``games_per_pair`` cycles, openings from a list of ``openings``
    (0: every game from the empty board)."""
    total = total_rounds(len(players), games_per_pair)
    return tuple(rr_round(players, openings, n) for n in range(1, total + 1))


def rr_round(players: Sequence[str], openings: int, number: int) -> Round:
    """Round ``number`` of the schedule alone (an event makes one round at a time)."""
    size = len(players)
    per_cycle = cycle_pairings(size)
    cycle, offset = divmod(number - 1, len(per_cycle))
    opening = (cycle // 2) % openings if openings else None
    games, byes = [], []
    for board, (i, j) in enumerate(per_cycle[offset]):
        if j is None:
            byes.append(Bye(number, players[i]))
            continue
        first, second = (i, j) if seat_first(i, j, size) == (cycle % 2 == 0) else (j, i)
        key = f"{number}.{board + 1}"
        games.append(Game(key, number, players[first], players[second], opening))
    return Round(number, tuple(games), tuple(byes))
