"""Match: two entrants play colour-swapped pairs of games, pair n on opening n mod the event's
openings, up to ``max_games``; with an SPRT (``protocol/sprt.py``) the match ends as soon as
the test decides, judged before a round once the games so far are whole pairs (both colours
of each opening played).

A round is ``games_at_once`` games, played at once (1 by default: one game at a time, for
players who play one game at a time); game g (from 1, counted over the rounds) belongs to
pair (g - 1) // 2; the first entrant (in order of entry) has the first move in a pair's first
game, the other in its second. The test reads the first entrant's wins, draws and losses; a
void game (nobody played it) is left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from protocol.sprt import Sprt
from server.core.tournament.values import Finished, Game, Round


def match_rounds(max_games: int, games_at_once: int = 1) -> int:
    """How many rounds a match of ``max_games`` takes at most."""
    return -(-max_games // games_at_once)


def match_round(
    players: Sequence[str],
    openings: int,
    number: int,
    games_at_once: int = 1,
    max_games: int | None = None,
) -> Round:
    """Round ``number`` of the match: its games (the last round may have fewer)."""
    first, second = players[0], players[1]
    begin = (number - 1) * games_at_once
    end = begin + games_at_once if max_games is None else min(begin + games_at_once, max_games)
    games = []
    for index in range(begin, end):
        pair, colour = divmod(index, 2)
        opening = pair % openings if openings else None
        seats = (first, second) if colour == 0 else (second, first)
        games.append(Game(f"{number}.{index - begin + 1}", number, *seats, opening))
    return Round(number, tuple(games))


def record(player: str, results: Iterable[Finished]) -> tuple[int, int, int]:
    """``player``'s wins, draws and losses in the games it played (void ones left out)."""
    w = d = l = 0  # noqa: E741
    for item in results:
        if item.void or player not in item.game.players:
            continue
        score = item.score(player)
        w, d, l = w + (score == 1), d + (score == 0.5), l + (score == 0)  # noqa: E741
    return w, d, l


def sprt_state(test: Sprt, players: Sequence[str], results: Iterable[Finished]) -> dict[str, Any]:
    """The test on the first entrant's record (``Sprt.state``: bounds, LLR, verdict)."""
    return test.state(*record(players[0], results)) if players else test.state(0, 0, 0)


def decided(
    test: Sprt | None,
    players: Sequence[str],
    results: list[Finished],
    number: int,
    games_at_once: int = 1,
) -> bool:
    """Whether the match ends before round ``number``: the games before it are whole pairs
    (and some) and the test has a verdict."""
    played = (number - 1) * games_at_once
    if test is None or played == 0 or played % 2:
        return False
    return sprt_state(test, players, results)["verdict"] is not None
