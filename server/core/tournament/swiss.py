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

A pairing of a round plays ``per_pair`` games, one after another (each player is in one game
at a time): game j (from 0) of board b of round r has key ``r.b.(j + 1)`` (``r.b`` when a
pairing plays one game), game 0's seats swapped in every odd game, so both colours of an
opening go to the pair; games 2i and 2i + 1 play opening ((r - 1) · ceil(per_pair / 2) + i)
mod n of the event's n openings, so the rounds go on through the list. Every game counts in
the standings; a bye scores the round's games as wins (``per_pair`` points).
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
    order: Sequence[str],
    history: Sequence[Finished],
    byes: Sequence[Bye],
    number: int,
    per_pair: int = 1,
    openings: int = 0,
) -> Round:
    """Round ``number`` for ``order`` (the standings, best first) after ``history``: the
    first game of each pairing (:func:`follow_ups` gives the others) and the bye."""
    played = [item.game for item in history]
    if len(order) < 2:
        return Round(number, (), tuple(Bye(number, p) for p in order))
    budget = Budget()
    candidates = bye_candidates(order, byes)
    for allowed in rules(played):
        for out in candidates:
            pairs = match([p for p in order if p != out], allowed, budget)
            if pairs is not None:
                return build(pairs, out, played, number, per_pair, openings)
    line = [p for p in order if p != candidates[0]]
    pairs = list(zip(line[::2], line[1::2], strict=True))
    return build(pairs, candidates[0], played, number, per_pair, openings)


def build(
    pairs: list[tuple[str, str]],
    out: str | None,
    played: Sequence[Game],
    number: int,
    per_pair: int = 1,
    openings: int = 0,
) -> Round:
    """The round's first game of each pairing (numbered boards) and its bye."""
    games = []
    for board, (a, b) in enumerate(pairs, start=1):
        first, second = seats(a, b, played, number)
        games.append(pairing_game(first, second, number, board, 0, per_pair, openings))
    return Round(number, tuple(games), (Bye(number, out),) if out is not None else ())


def pairing_game(
    first: str, second: str, number: int, board: int, index: int, per_pair: int, openings: int
) -> Game:
    """Game ``index`` of board ``board`` of round ``number``, whose game 0 seats ``first``
    first (see the module: its key, seats and opening)."""
    key = f"{number}.{board}" if per_pair == 1 else f"{number}.{board}.{index + 1}"
    seats_ = (first, second) if index % 2 == 0 else (second, first)
    opening = None
    if openings:
        opening = ((number - 1) * -(-per_pair // 2) + index // 2) % openings
    return Game(key, number, *seats_, opening)


def follow_ups(
    round_games: Sequence[Game], done: set[str], per_pair: int, openings: int
) -> list[Game]:
    """The next game of each pairing of a round (``round_games``: its games made so far, in
    the order made) whose latest game has ended (its key in ``done``), until each pairing has
    played ``per_pair``."""
    made: dict[frozenset[str], list[Game]] = {}
    for game in round_games:
        made.setdefault(frozenset(game.players), []).append(game)
    following = []
    for games in made.values():
        if len(games) >= per_pair or games[-1].key not in done:
            continue
        head = games[0]
        _, board, _ = head.key.split(".")
        following.append(
            pairing_game(
                head.first, head.second, head.round, int(board), len(games), per_pair, openings
            )
        )
    return following
