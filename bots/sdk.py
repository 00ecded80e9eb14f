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

from bots.engine.fast import prepare
from bots.engine.levels import LEVELS, choose_move_with_search, noise_move
from bots.engine.limits import Limit, SearchResult
from bots.engine.lines import Analysis, Line, analyse_position
from protocol.rules import Game, Move, Variant

#: Colour names as the server's ``choose`` takes them.
BLACK, WHITE, PLACE = "black", "white", "place"


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

    def place_opening(
        self, variant: Variant, moves: list[Move], count: int, limit: Limit
    ) -> list[Move]:
        """``count`` opening stones after ``moves`` (swap1/swap2); by default near the centre.

        The colours follow the board (black, white, black …). The default picks at random among
        the free cells closest to the centre: the other side's choice of colour balances it.
        """
        rng = getattr(self, "rng", None) or random.Random()
        taken = set(moves)
        cx, cy = variant.width // 2, variant.height // 2
        free = [
            Move(x, y)
            for y in range(cy - 3, cy + 4)
            for x in range(cx - 3, cx + 4)
            if Move(x, y) not in taken
        ]
        free.sort(key=lambda m: max(abs(m.x - cx), abs(m.y - cy)))
        placed: list[Move] = []
        while len(placed) < count:
            pool = [m for m in free[:12] if m not in placed]
            placed.append(rng.choice(pool))
        return placed

    def choose_colour(
        self, variant: Variant, moves: list[Move], choices: list[str], limit: Limit
    ) -> str:
        """The colour to take after an opening (or swap2's ``place``); by default white."""
        return WHITE

    def on_draw_offer(self, variant: Variant, moves: list[Move], limit: Limit) -> bool:
        """Whether to accept the opponent's draw offer after ``moves``; by default no."""
        return False

    def prepare(self, variant: Variant) -> None:
        """Get ready for games of ``variant`` before any clock runs; by default nothing."""
        return None

    def analyse(self, variant: Variant, moves: list[Move], lines: int, limit: Limit) -> Analysis:
        """Up to ``lines`` best moves after ``moves`` within ``limit`` (an ``analyse_job``,
        docs/BOTS.md), best first, and exact values when known; by default one line: the move
        ``choose`` plays, with no score."""
        move = self.play(variant, moves, limit)
        return Analysis([Line(move, pv=[move])])

    def on_takeback_offer(self, variant: Variant, moves: list[Move], limit: Limit) -> bool:
        """Whether to let the opponent take back its last move (and this bot's reply, if it
        made one since) after ``moves``; by default no."""
        return False


class RandomBot(Bot):
    """Plays a uniformly random legal move (a baseline and a smoke-test opponent)."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, variant: Variant, moves: list[Move], limit: Limit) -> Move:
        """A random legal move (never a forbidden one in renju)."""
        game = Game.from_moves(variant, moves)
        return self.rng.choice([m for m in game.legal_moves() if game.is_legal(m)])


class NoviceBot(Bot):
    """A beginner's proxy: a random move among the 5 free points nearest the last two stones.

    It plays where the action is, as a new player does, but reads nothing: it completes a line
    or blocks one only by chance. Levels 1-3 are measured against it to stay beatable; its move
    is the one their noise plays (:func:`bots.engine.levels.noise_move`).
    """

    name = "novice"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, variant: Variant, moves: list[Move], limit: Limit) -> Move:
        """A careless move near the last stones (never a forbidden one in renju)."""
        return noise_move(variant, moves, self.rng)


class MinimaxBot(Bot):
    """The search engine at a level 1-10 (see :mod:`bots.engine.levels` for the table)."""

    def __init__(self, level: int = 10, seed: int | None = None) -> None:
        if level not in LEVELS:
            raise ValueError("level must be 1..10")
        self.level = level
        self.name = f"minimax-{level}"
        self.rng = random.Random(seed)
        #: The search behind the last move ``choose`` made (None: noise, or no search).
        self.last_result: SearchResult | None = None

    def choose(self, variant: Variant, moves: list[Move], limit: Limit) -> Move:
        """The engine's move (renju's rules are inside its search): ``limit.time_s`` caps the
        level's budget, ``limit.soft_s`` is the time planned, ``limit.report`` sees every
        iteration."""
        move, self.last_result = choose_move_with_search(
            variant, moves, self.level, limit.time_s, self.rng, limit.soft_s, limit.report
        )
        return move

    def prepare(self, variant: Variant) -> None:
        """Build the engine's tables for ``variant`` (the shape tables cost a first move about
        0.2 s otherwise)."""
        prepare(variant)

    def choose_colour(
        self, variant: Variant, moves: list[Move], choices: list[str], limit: Limit
    ) -> str:
        """Search the position for white (the side to move) and take the colour it favours."""
        level = min(self.level, 6)
        _, result = choose_move_with_search(
            variant, moves, level, limit.time_s and limit.time_s / 2
        )
        score = result.score if result is not None else 0
        return WHITE if score >= 0 else BLACK

    def on_draw_offer(self, variant: Variant, moves: list[Move], limit: Limit) -> bool:
        """Accept only a position the search proves drawn (solved, score 0)."""
        _, result = choose_move_with_search(variant, moves, self.level, limit.time_s)
        return result is not None and result.solved and result.score == 0

    def on_takeback_offer(self, variant: Variant, moves: list[Move], limit: Limit) -> bool:
        """The easy levels (1-5) forgive a mis-click; the strong ones play on."""
        return self.level <= 5

    def analyse(self, variant: Variant, moves: list[Move], lines: int, limit: Limit) -> Analysis:
        """The full-strength engine's lines (multi-PV) and, on boards the exact solver finishes
        in time, every empty cell's proven value (:mod:`bots.engine.lines`), whatever the
        level: an analysis is asked of the engine's best. In renju black's fouls are dropped."""
        if Game.from_moves(variant, moves).over:
            raise ValueError("the game is already over")
        found = analyse_position(variant, list(moves), lines, limit.time_s or 1.0)
        game = Game.from_moves(variant, moves)
        legal = [line for line in found.lines if game.is_legal(line.move)]
        if not legal:  # every line a renju foul: the move the bot would play
            return super().analyse(variant, moves, lines, limit)
        return Analysis(legal, found.values)
