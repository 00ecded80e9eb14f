"""Match: two entrants play colour-swapped pairs of games, pair n on opening n mod the event's
openings, up to ``max_games``; with an SPRT (``protocol/sprt.py``) the match ends as soon as
the test decides, judged after each whole pair (both colours of an opening played).

One game a round: round r is game r, of pair (r - 1) // 2; the first entrant (in order of
entry) has the first move in a pair's first game, the second in its second. The test reads
the first entrant's wins, draws and losses; a void game (nobody played it) is left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from protocol.sprt import Sprt
from server.core.tournament.values import Finished, Game, Round


def match_round(players: Sequence[str], openings: int, number: int) -> Round:
    """Game ``number`` of the match (one a round)."""
    first, second = players[0], players[1]
    pair, colour = divmod(number - 1, 2)
    opening = pair % openings if openings else None
    seats = (first, second) if colour == 0 else (second, first)
    return Round(number, (Game(f"{number}.1", number, *seats, opening),))


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
    test: Sprt | None, players: Sequence[str], results: list[Finished], number: int
) -> bool:
    """Whether the match ends before game ``number``: a pair is whole (``number`` begins the
    next) and the test has a verdict."""
    if test is None or number == 1 or (number - 1) % 2:
        return False
    return sprt_state(test, players, results)["verdict"] is not None
