"""Who plays whom, with which colours and opening: a deterministic schedule, keyed per game.

Every game has a stable ``key`` so a resumed run knows which games remain. A *pairing* (a, b)
plays each opening ``pairs`` times as a colour-swapped pair: a has seat 0 in the first game of
the pair, b in the second.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from bots.tournament.openings import Opening

FORMATS = ("round-robin", "gauntlet", "swiss")

Pair = tuple[str, str]


@dataclass(frozen=True, slots=True)
class GameSpec:
    """One scheduled game: who sits where, from which opening, and its stable key."""

    key: str
    round: int
    players: tuple[str, str]
    opening_index: int
    opening: Opening


def round_robin_pairs(names: Sequence[str]) -> list[Pair]:
    """Every pair of bots once, in entry order."""
    return list(combinations(names, 2))


def gauntlet_pairs(names: Sequence[str]) -> list[Pair]:
    """The first bot against each of the others."""
    return [(names[0], other) for other in names[1:]]


def pair_games(
    pairs: Sequence[Pair], openings: Sequence[Opening], repeats: int, round_no: int = 1
) -> list[GameSpec]:
    """Games for ``pairs``: every opening ``repeats`` times as a colour-swapped game pair.

    Ordered opening by opening, repeat by repeat, pairing by pairing, so a partial run has
    touched every pairing evenly; the two games of a pair are adjacent.
    """
    games = []
    for oi, opening in enumerate(openings):
        for rep in range(repeats):
            for a, b in pairs:
                for colour, seats in enumerate(((a, b), (b, a))):
                    key = f"r{round_no}/{a}~{b}/o{oi}/p{rep}/g{colour}"
                    games.append(GameSpec(key, round_no, seats, oi, opening))
    return games


def fixed_schedule(
    fmt: str, names: Sequence[str], openings: Sequence[Opening], repeats: int, rounds: int = 1
) -> list[GameSpec]:
    """The whole schedule of a round robin or a gauntlet, ``rounds`` times over."""
    pairs = round_robin_pairs(names) if fmt == "round-robin" else gauntlet_pairs(names)
    return [g for r in range(1, rounds + 1) for g in pair_games(pairs, openings, repeats, r)]


def default_swiss_rounds(players: int) -> int:
    """cutechess-like default: ceil(log2 n) + 1 rounds, at most n - 1."""
    return max(1, min(players - 1, math.ceil(math.log2(max(players, 2))) + 1))


def swiss_pairs(
    names: Sequence[str],
    scores: Mapping[str, float],
    played: set[frozenset[str]],
    byes: set[str],
    rng: random.Random,
) -> tuple[list[Pair], str | None]:
    """One swiss round: pair by score, avoiding repeat pairings when any pairing allows it.

    Returns the pairs and the bot with a bye (odd fields: the lowest-ranked without one yet).
    """
    order = list(names)
    rng.shuffle(order)  # seeded tie-break among equal scores
    order.sort(key=lambda n: -scores.get(n, 0.0))
    bye = None
    if len(order) % 2:
        bye = next((n for n in reversed(order) if n not in byes), order[-1])
        order.remove(bye)
    pairs = _match(order, played) or _match(order, set())
    assert pairs is not None
    return pairs, bye


def _match(order: list[str], played: set[frozenset[str]]) -> list[Pair] | None:
    """Pair the top bot with the best-ranked opponent it has not met, backtracking."""
    if not order:
        return []
    top, rest = order[0], order[1:]
    for i, other in enumerate(rest):
        if frozenset((top, other)) in played:
            continue
        tail = _match(rest[:i] + rest[i + 1 :], played)
        if tail is not None:
            return [(top, other), *tail]
    return None


def sprt_games(
    names: Sequence[str], openings: Sequence[Opening], max_pairs: int
) -> Iterator[GameSpec]:
    """The endless-but-capped game pairs of an SPRT match, cycling through the openings."""
    a, b = names
    for n in range(max_pairs):
        oi = n % len(openings)
        for colour, seats in enumerate(((a, b), (b, a))):
            key = f"sprt/{a}~{b}/n{n}/o{oi}/g{colour}"
            yield GameSpec(key, 1, seats, oi, openings[oi])
