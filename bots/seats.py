"""What the bot runner plays with: one game as the bot sees it (:class:`Seat`), and the engine's
move for a position, computed in a worker process (:func:`think`) so that no search blocks the
connection's event loop."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field
from typing import Any

from bots.engine.info import wire_info
from bots.engine.limits import Limit
from bots.engine.timing import Budget, plan_time
from bots.piskvork import BrainError, PiskvorkBrain
from bots.sdk import IllegalBotMove
from bots.specs import EngineSpec, make_bot, parse_spec
from protocol.positions import setup_moves
from protocol.rules import Game, Move, Variant
from protocol.variants import variant_from_description
from protocol.vocab import Fault, Status

#: Seconds kept back from every clock-derived budget for the network round trip.
NETWORK_MARGIN_S = 0.1
#: When the game is untimed, how long one move may think at most: the 2 s that levels.py and
#: docs/BOTS.md promise (a human waits on every one of these moves).
UNTIMED_BUDGET_S = 2.0
#: The share of a first-move deadline (``first_move_left``: the server aborts the game past it)
#: a move may use at most: well inside it, whatever the clock would allow.
DEADLINE_SHARE = 0.5
#: The least time a move is given (an answer still has to be built).
MIN_MOVE_S = 0.05
#: Against a human, unless the room asks for ``full_strength``: the time a move plans on and
#: the most a critical one may take, a human's pace (the clock alone would plan 10-35 s a move).
HUMAN_PACE = Budget(2.5, 5.0)

#: The engines this worker process made, by spec and level (made once, reused for every move).
_bots: dict[tuple[str, int | None], Any] = {}


def think(
    spec_text: str,
    level: int | None,
    game: dict[str, Any],
    moves: list[list[int]],
    budget: float,
    task: tuple[str, Any] | None = None,
    planned: float | None = None,
) -> Any:
    """Worker-process entry: the engine's move for a position (engines are cached per worker).

    ``budget`` is the hard limit and ``planned`` the time the move aims at (None: all of it).
    A move comes back as ``[x, y]``, or ``[x, y, info]`` with the search's report (the
    ``info`` map of a ``move``, docs/PROTOCOL.md) when the engine searched for it.

    ``task`` asks for an opening decision instead: ``("place", n)`` gives n stones as
    ``[[x, y], …]``, ``("choose", choices)`` one of the choices; or for the answer to an
    opponent's offer: ``("draw", None)`` or ``("takeback", None)``, True to accept; or for an
    analysis: ``("analyse", lines)`` gives the ``analysed`` body (``lines``, ``values``).
    """
    key = (spec_text, level)
    bot = _bots.get(key)
    if bot is None:
        bot = _bots[key] = make_bot(parse_spec(spec_text), level, seed=random.randrange(1 << 30))
    variant = variant_from_description(game)
    position = [Move(x, y) for x, y in moves]
    limit = Limit(time_s=budget, soft_s=planned)
    if task is not None and task[0] in ("draw", "takeback"):
        answer = bot.on_draw_offer if task[0] == "draw" else bot.on_takeback_offer
        return bool(answer(variant, position, limit))
    if task is not None and task[0] == "analyse":  # an analyse_job: its lines and values
        return bot.analyse(variant, position, int(task[1]), limit).to_wire()
    if task is not None and task[0] == "place":
        return [[m.x, m.y] for m in bot.place_opening(variant, position, task[1], limit)]
    if task is not None:
        return bot.choose_colour(variant, position, list(task[1]), limit)
    move = bot.play(variant, position, limit)
    result = getattr(bot, "last_result", None)
    if result is not None and result.move == move and result.source != "fallback":
        return [move.x, move.y, wire_info(result)]
    return [move.x, move.y]


#: Engines of our own whose first move on a board builds tables worth building ahead; a
#: user's engine (``module:Class``) is only imported ahead: its first move is its own (it may
#: hang, and the bot must still connect).
BUILT_AHEAD = ("minimax", "minimax-v1")


def warm_up_job(spec: EngineSpec) -> tuple[Any, ...]:
    """A first job for every worker, before any game's clock runs: the imports, and for our own
    engine its weights and tables on the usual board (~0.34 s for ``minimax``, which inside a
    0.25 s move was called a hang)."""
    if spec.kind in BUILT_AHEAD:
        return (str(spec), None, {"name": "gomoku"}, [], 0.01)
    return ("random", None, {"name": "tictactoe"}, [], 0.01)


def fault_of(exc: BaseException) -> str:
    """The server's name for what went wrong with an engine."""
    if isinstance(exc, BrainError):
        return exc.fault
    if isinstance(exc, TimeoutError):
        return Fault.HANG
    if isinstance(exc, IllegalBotMove):
        return Fault.ILLEGAL_MOVE
    return Fault.CRASH


def game_of(variant: Variant, position: Any) -> tuple[Game, list[Move]]:
    """A room's game before its moves: from its set-up ``position`` (``options.position``) if
    any, and that position as the engine takes it (moves from the empty board)."""
    setup = setup_moves(position)
    if not position or setup is None:  # the server seats a bot only where the counts alternate
        return Game(variant), []
    black = [Move(x, y) for x, y in position["black"]]
    white = [Move(x, y) for x, y in position["white"]]
    return Game.from_position(variant, black, white, position.get("to_move", 0)), setup


def engine_level(spec: EngineSpec) -> int | None:
    """The level to announce: minimax plays any level asked (or its fixed one); engines that
    know no levels say 0, so they are seated only when a human picks them by name."""
    if spec.kind == "minimax":
        return spec.level
    return 0


@dataclass
class Seat:
    """One game this bot plays: the position as the server last described it."""

    room: str
    seat: int
    variant: Variant
    game: Game | None = None
    status: str = Status.PLAYING
    level: int | None = None
    clock: dict[str, Any] | None = None
    clocks: list[float] | None = None
    thinking: asyncio.Task[None] | None = None
    leaving: asyncio.Task[None] | None = None
    brain: PiskvorkBrain | None = None
    #: A tournament director's room (two named bots): no rematch, leave when it ends.
    director: bool = False
    #: This seat's colour (None while an opening rule has not fixed it) and the opening phase.
    colour: int | None = None
    opening: dict[str, Any] | None = None
    #: Opening stones decided but not yet placed (one goes per turn of the phase).
    pending: list[list[int]] = field(default_factory=list)
    #: Seconds the server gave this turn's first move as of its last message (``moved`` or
    #: ``state.actions``: ``first_move_left``), None when no first-move deadline binds.
    first_move_left: float | None = None
    #: Against a human, in a room without ``options.full_strength``: a human's pace.
    human_pace: bool = False
    #: A training game (``options.hints``): every move carries the search's ``info``.
    training: bool = False
    #: A set-up position's stones as moves from the empty board (protocol/positions.py): the
    #: engine is given them before the game's moves.
    setup: list[Move] = field(default_factory=list)

    @property
    def in_opening(self) -> bool:
        """Whether an opening rule's phase is still going on."""
        return self.opening is not None and self.opening.get("phase") != "done"

    @property
    def my_turn(self) -> bool:
        """Whether the server is waiting for this bot's stone (or opening decision)."""
        game = self.game
        if self.status != Status.PLAYING or game is None:
            return False
        if self.in_opening:
            assert self.opening is not None
            return self.opening.get("actor") == self.seat and self.opening["phase"] != "wait"
        return self.colour is not None and game.to_move == self.colour

    @property
    def moves(self) -> list[Move]:
        """The position as the engine takes it: moves from the empty board (a set-up
        position's stones, then the game's moves)."""
        return [*self.setup, *self.game.moves] if self.game is not None else []

    def plan(self) -> Budget:
        """This move's time: from the clock left, its increment and its cap per move, less the
        network margin (:func:`bots.engine.timing.plan_time`); untimed, the untimed cap; and
        within ``DEADLINE_SHARE`` of a first-move deadline, whatever the clock allows; against a
        human, a human's pace (:data:`HUMAN_PACE`) unless the room asked for full strength."""
        if not self.clock or not self.clocks:  # nothing can flag: the 2 s a human waits, all
            budget = Budget(UNTIMED_BUDGET_S, UNTIMED_BUDGET_S)
        else:
            inc = float(self.clock.get("increment_s") or 0.0)
            move_s = float(self.clock.get("move_s") or 0.0) or None
            budget = plan_time(move_s, self.clocks[self.seat], inc, fixed_s=NETWORK_MARGIN_S)
        if self.human_pace:
            budget = within(budget, HUMAN_PACE.maximum, HUMAN_PACE.planned)
        return within(budget, self.deadline_cap())

    def deadline_cap(self) -> float | None:
        """The most seconds this move may take for a first-move deadline, None without one."""
        if self.first_move_left is None:
            return None
        return max(MIN_MOVE_S, DEADLINE_SHARE * self.first_move_left - NETWORK_MARGIN_S)

    def budget(self) -> float:
        """Seconds this move may take at most (the hard limit of :meth:`plan`)."""
        return self.plan().maximum

    def flag_in(self) -> float | None:
        """Seconds until the server would end the game on this move (its clock, its cap or a
        first-move deadline), None untimed."""
        if not self.clock or not self.clocks:
            return None
        left = float(self.clocks[self.seat])
        move_s = float(self.clock.get("move_s") or 0.0)
        found = min(left, move_s) if move_s else left
        return found if self.first_move_left is None else min(found, float(self.first_move_left))


def within(budget: Budget, cap: float | None, aim: float | None = None) -> Budget:
    """``budget`` with its hard limit at most ``cap`` seconds and its aim at most ``aim`` (or
    ``cap``; None: as is)."""
    if cap is None:
        return budget
    maximum = min(budget.maximum, cap)
    return Budget(min(budget.planned, cap if aim is None else aim, maximum), maximum)
