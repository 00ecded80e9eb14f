"""The values every tournament format shares: a game to play, its result, a bye, a round.

Seat 0 moves first (the protocol's seat order); a player's colour balance is its games in
seat 0 minus its games in seat 1. Scores are in points (a win 1, a draw 0.5) for round robin,
swiss, gauntlet and match, in arena points (a win 2, a draw 1, doubled on a streak) for an arena.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

ROUND_ROBIN = "round_robin"
SWISS = "swiss"
ARENA = "arena"
GAUNTLET = "gauntlet"
MATCH = "match"
FORMATS = (ROUND_ROBIN, SWISS, ARENA, GAUNTLET, MATCH)
#: Each format's name for people (``welcome.labels.formats``: the clients keep no list).
FORMAT_LABELS = {
    ROUND_ROBIN: "Round robin",
    SWISS: "Swiss",
    ARENA: "Arena",
    GAUNTLET: "Gauntlet",
    MATCH: "Match",
}


@dataclass(frozen=True, slots=True)
class Game:
    """One game a format asks for: who sits where (``first`` moves first), in which round
    (an arena's sequence number), from which opening of the event's list (``None``: the
    empty board), and its key, unique in the event."""

    key: str
    round: int
    first: str
    second: str
    opening: int | None = None

    @property
    def players(self) -> tuple[str, str]:
        """Both players, seat 0 first."""
        return (self.first, self.second)

    def opponent(self, player: str) -> str:
        """The other player of this game."""
        return self.second if player == self.first else self.first


@dataclass(frozen=True, slots=True)
class Finished:
    """A game and how it ended: the winning seat (0 or 1) or ``None`` for a draw; ``void``: a
    game nobody won that both lose (no game, or one both abandoned)."""

    game: Game
    winner: int | None
    void: bool = False

    def score(self, player: str) -> float:
        """``player``'s points from this game: 1, 0.5 or 0."""
        if self.void:
            return 0.0
        if self.winner is None:
            return 0.5
        return 1.0 if self.game.players[self.winner] == player else 0.0


@dataclass(frozen=True, slots=True)
class Bye:
    """A round ``player`` sits out (an odd field): it scores a win, with no opponent."""

    round: int
    player: str


@dataclass(frozen=True, slots=True)
class Round:
    """A round's games and byes."""

    number: int
    games: tuple[Game, ...]
    byes: tuple[Bye, ...] = ()


def colour_balance(games: Iterable[Game]) -> dict[str, int]:
    """Each player's games in seat 0 minus its games in seat 1."""
    balance: dict[str, int] = {}
    for game in games:
        balance[game.first] = balance.get(game.first, 0) + 1
        balance[game.second] = balance.get(game.second, 0) - 1
    return balance


def met(games: Iterable[Game]) -> set[frozenset[str]]:
    """Every pair of players that has a game together."""
    return {frozenset(game.players) for game in games}
