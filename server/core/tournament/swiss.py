"""Swiss: each round pairs players of like score, never twice the same pair while a round
without a repeat exists, colours balanced, a bye when the field is odd.

A round is made from the standings' order (best first). The bye goes to the lowest-ranked
player among those with the fewest byes that lets the rest pair, so the bye rotates: nobody
sits out twice before everyone has once. The matcher (``match.py``) pairs each player
with the nearest below it allowed by the strictest rule that leaves a whole round: first no
repeat and no two players who both played seat 0 (or both seat 1) two games more than the
other, then no repeat, then (none found within the matcher's budget) the line in order. In a
pair the player with the lower colour balance gets seat 0 (a tie: the one who last had seat 1,
then the higher ranked in odd rounds), so a balance stays within ±2 while the strictest rule
pairs the rounds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from server.core.tournament.match import Allowed, Budget, match
from server.core.tournament.values import Bye, Finished, Game, Round, colour_balance, met

#: How far a player's seats may differ before two such players may not meet.
COLOUR_LIMIT = 2


def default_rounds(players: int) -> int:
    """A swiss of ``players`` plays ceil(log2 n) + 1 rounds, at most n - 1."""
    return max(1, min(players - 1, math.ceil(math.log2(max(players, 2))) + 1))


def rules(played: Sequence[Game]) -> list[Allowed]:
    """The matcher's rules, strictest first."""
    pairs = met(played)
    balance = colour_balance(played)

    def fresh(a: str, b: str) -> bool:
        return frozenset((a, b)) not in pairs

    def colours_agree(a: str, b: str) -> bool:
        da, db = balance.get(a, 0), balance.get(b, 0)
        both_high = da >= COLOUR_LIMIT and db >= COLOUR_LIMIT
        both_low = da <= -COLOUR_LIMIT and db <= -COLOUR_LIMIT
        return fresh(a, b) and not both_high and not both_low

    return [colours_agree, fresh]


def bye_candidates(order: Sequence[str], byes: Sequence[Bye]) -> list[str | None]:
    """Who may sit out, in the order to try: those with the fewest byes, lowest ranked first
    (none in an even field)."""
    if len(order) % 2 == 0:
        return [None]
    count = dict.fromkeys(order, 0)
    for bye in byes:
        if bye.player in count:
            count[bye.player] += 1
    fewest = min(count.values())
    return [p for p in reversed(order) if count[p] == fewest]


def seats(a: str, b: str, played: Sequence[Game], number: int) -> tuple[str, str]:
    """(first, second) for ``a`` (ranked higher) against ``b``."""
    balance = colour_balance(played)
    da, db = balance.get(a, 0), balance.get(b, 0)
    if da != db:
        return (a, b) if da < db else (b, a)
    last = {}
    for game in played:
        last[game.first], last[game.second] = 0, 1
    if last.get(a) != last.get(b) and None not in (last.get(a), last.get(b)):
        return (a, b) if last.get(a) == 1 else (b, a)
    return (a, b) if number % 2 else (b, a)


def swiss_round(
    order: Sequence[str], history: Sequence[Finished], byes: Sequence[Bye], number: int
) -> Round:
    """Round ``number`` for ``order`` (the standings, best first) after ``history``."""
    played = [item.game for item in history]
    if len(order) < 2:
        return Round(number, (), tuple(Bye(number, p) for p in order))
    budget = Budget()
    candidates = bye_candidates(order, byes)
    for allowed in rules(played):
        for out in candidates:
            pairs = match([p for p in order if p != out], allowed, budget)
            if pairs is not None:
                return build(pairs, out, played, number)
    line = [p for p in order if p != candidates[0]]
    return build(list(zip(line[::2], line[1::2], strict=True)), candidates[0], played, number)


def build(
    pairs: list[tuple[str, str]], out: str | None, played: Sequence[Game], number: int
) -> Round:
    """The round's games (numbered boards) and its bye."""
    games = []
    for board, (a, b) in enumerate(pairs, start=1):
        first, second = seats(a, b, played, number)
        games.append(Game(f"{number}.{board}", number, first, second))
    return Round(number, tuple(games), (Bye(number, out),) if out is not None else ())
