"""Arena (lichess's): for the event's duration, a player whose game ended is paired again at
once with a free player near it in the ranking, never with its last opponent while a
pairing of the free players without such a rematch exists.

Scoring (lichess's arena rules): a win 2 points, a draw 1, a loss 0; after two wins in a row a
player is on a streak and every game counts double (a win 4, a draw 2) until a game it does
not win ends the streak. The ranking: points, then performance (the mean of the opponents'
ratings plus 500 x (wins - losses) / games, lichess's arena tie-break), then rating, then the
order of entry. Before a player's first game its place comes from its rating.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from server.core.tournament.match import Budget, match
from server.core.tournament.values import Finished, Game, colour_balance

WIN, DRAW = 2, 1


@dataclass(frozen=True, slots=True)
class ArenaLine:
    """One player's line in an arena's ranking."""

    rank: int
    player: str
    points: int
    games: int
    wins: int
    streak: bool
    performance: float
    sheet: tuple[int, ...]


def sheet(player: str, finished: Sequence[Finished]) -> tuple[int, ...]:
    """The points ``player`` scored in each of its games, in the order they ended."""
    marks = []
    run = 0
    for item in finished:
        if player not in item.game.players:
            continue
        score = item.score(player)
        base = WIN if score == 1.0 else DRAW if score == 0.5 else 0
        marks.append(base * (2 if run >= 2 else 1))
        run = run + 1 if score == 1.0 else 0
    return tuple(marks)


def on_streak(player: str, finished: Sequence[Finished]) -> bool:
    """Whether ``player``'s next game counts double (its last two games were wins)."""
    run = 0
    for item in finished:
        if player in item.game.players:
            run = run + 1 if item.score(player) == 1.0 else 0
    return run >= 2


def performance(player: str, finished: Sequence[Finished], ratings: Mapping[str, float]) -> float:
    """Lichess's arena performance: opponents' mean rating + 500 x (wins - losses) / games."""
    opponents, margin = [], 0
    for item in finished:
        if player in item.game.players:
            opponents.append(ratings.get(item.game.opponent(player), 1500.0))
            score = item.score(player)
            margin += 1 if score == 1.0 else -1 if score == 0.0 else 0
    if not opponents:
        return 0.0
    return sum(opponents) / len(opponents) + 500.0 * margin / len(opponents)


def ranking(
    players: Sequence[str], finished: Sequence[Finished], ratings: Mapping[str, float]
) -> tuple[ArenaLine, ...]:
    """The arena's ranking, best first (``finished`` in the order the games ended): one pass
    over the results, so an event of many games ranks in time linear in them."""
    marks: dict[str, list[int]] = {p: [] for p in players}
    run = dict.fromkeys(players, 0)
    wins = dict.fromkeys(players, 0)
    opponents = dict.fromkeys(players, 0.0)
    margin = dict.fromkeys(players, 0)
    for item in finished:
        for player in item.game.players:
            if player not in marks:
                continue
            score = item.score(player)
            base = WIN if score == 1.0 else DRAW if score == 0.5 else 0
            marks[player].append(base * (2 if run[player] >= 2 else 1))
            run[player] = run[player] + 1 if score == 1.0 else 0
            wins[player] += score == 1.0
            opponents[player] += ratings.get(item.game.opponent(player), 1500.0)
            margin[player] += 1 if score == 1.0 else -1 if score == 0.0 else 0

    def perf(p: str) -> float:
        games = len(marks[p])
        return (opponents[p] + 500.0 * margin[p]) / games if games else 0.0

    entry = {player: i for i, player in enumerate(players)}
    order = sorted(
        players, key=lambda p: (-sum(marks[p]), -perf(p), -ratings.get(p, 1500.0), entry[p])
    )
    return tuple(
        ArenaLine(
            rank, p, sum(marks[p]), len(marks[p]), wins[p], run[p] >= 2, perf(p), tuple(marks[p])
        )
        for rank, p in enumerate(order, start=1)
    )


def arena_pairs(
    free: Sequence[str],
    last_opponent: Mapping[str, str],
    played: Sequence[Game],
    number: int,
) -> list[Game]:
    """Games for the ``free`` players (in ranking order, best first): neighbours in the line,
    no rematch with a last opponent while the free players allow it; an odd field leaves the
    lowest-ranked player that lets the rest pair waiting. Games are numbered from ``number``."""
    if len(free) < 2:
        return []

    def fresh(a: str, b: str) -> bool:
        return last_opponent.get(a) != b and last_opponent.get(b) != a

    budget = Budget()
    waiting = list(reversed(free)) if len(free) % 2 else [None]
    pairs = None
    for out in waiting:
        pairs = match([p for p in free if p != out], fresh, budget)
        if pairs is not None:
            break
    if pairs is None:
        line = list(free[: len(free) - len(free) % 2])
        pairs = list(zip(line[::2], line[1::2], strict=True))
    balance = colour_balance(played)
    games = []
    for offset, (a, b) in enumerate(pairs):
        first, second = (b, a) if balance.get(b, 0) < balance.get(a, 0) else (a, b)
        games.append(Game(f"a{number + offset}", number + offset, first, second))
    return games
