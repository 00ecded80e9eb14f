"""The Bot SDK: subclass :class:`Bot`, implement ``choose``; no networking lives here.

Example::

    class FirstFree(Bot):
        name = "first-free"

        def choose(self, variant, moves, limit):
            taken = set(moves)
            return next(
                Move(x, y)
                for y in range(variant.height)
                for x in range(variant.width)
                if Move(x, y) not in taken
            )
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod

from bots.engine.levels import LEVELS, choose_move
from bots.engine.limits import Limit
from protocol.rules import Game, Move, Variant


class IllegalBotMove(ValueError):
    """A bot answered with a move the rules forbid; in a real game that forfeits it."""


class Bot(ABC):
    """A player: given the variant, the moves so far and a limit, return the next move."""

    #: A short display name (the later ``mnk-bot`` runner shows it to the server).
    name: str = "bot"

    @abstractmethod
    def choose(self, variant: Variant, moves: list[Move], limit: Limit) -> Move:
        """The move to play after ``moves`` (from the empty board), within ``limit``."""

    def play(self, variant: Variant, moves: list[Move], limit: Limit | None = None) -> Move:
        """``choose`` with the position validated first and the answer checked to be legal."""
        game = Game.from_moves(variant, moves)
        if game.over:
            raise ValueError("the game is already over")
        move = self.choose(variant, list(moves), limit or Limit())
        if not game.is_legal(move):
            raise IllegalBotMove(f"{type(self).__name__} chose an illegal move {move}")
        return move


class RandomBot(Bot):
    """Plays a uniformly random legal move (a baseline and a smoke-test opponent)."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, variant: Variant, moves: list[Move], limit: Limit) -> Move:
        """A random legal move."""
        return self.rng.choice(Game.from_moves(variant, moves).legal_moves())


class MinimaxBot(Bot):
    """The search engine at a level 1-10 (see :mod:`bots.engine.levels` for the table)."""

    def __init__(self, level: int = 10, seed: int | None = None, v1: bool = False) -> None:
        if level not in LEVELS:
            raise ValueError("level must be 1..10")
        self.level = level
        self.v1 = v1  # the engine before the fast core (a strength baseline)
        self.name = f"minimax-v1-{level}" if v1 else f"minimax-{level}"
        self.rng = random.Random(seed)

    def choose(self, variant: Variant, moves: list[Move], limit: Limit) -> Move:
        """The engine's move; ``limit.time_s`` caps the level's own time budget."""
        return choose_move(variant, moves, self.level, limit.time_s, self.rng, self.v1)
