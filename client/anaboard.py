"""The analysis board (pure): set up any position of any variant, then explore it.

Two modes: ``setup`` (a click puts the chosen colour on a cell, or takes a stone off) and
``play`` (a click plays for the side to move, as the rules allow; Back takes one back). The
position is the set-up stones and the side to move; the moves played after it are kept apart,
as ``state`` keeps a room's ``options.position`` apart from its moves, and so does the
``analyse`` request (docs/PROTOCOL.md, "Analysis").
"""

from __future__ import annotations

from dataclasses import dataclass, field

from client.analysis import Analysis
from client.values import Cell, GameInfo, Message
from protocol.errors import BadOptions, GameOverError, IllegalMoveError
from protocol.rules import Game, Move, Outcome, Variant
from protocol.variants import make_variant

#: The variants the board offers (their labels are the server's, ``LABELS.button``); "mnk"
#: takes a size and k.
VARIANTS: tuple[str, ...] = ("tictactoe", "gomoku", "gomoku-standard", "renju", "mnk")
RULES = ("freestyle", "exact")
#: What a click does in setup mode: put black, put white, or take a stone off.
PAINTS: tuple[tuple[int | None, str], ...] = ((0, "Black"), (1, "White"), (None, "Erase"))


@dataclass
class AnalysisBoard:
    """A position of one's own (stones, side to move) and the moves explored from it."""

    name: str = "mnk"
    width: int = 4
    height: int = 4
    k: int = 4
    rule: str = "freestyle"
    stones: dict[Cell, int] = field(default_factory=dict)
    to_move: int = 0
    moves: list[Cell] = field(default_factory=list)
    mode: str = "setup"
    paint: int | None = 0
    #: Lines asked of the engine (1-5).
    lines: int = 1
    #: The last answer and the position (stones, side, moves) it is about.
    analysis: Analysis | None = None
    analysed: tuple[object, ...] | None = None

    def variant(self) -> Variant:
        """The rules in force (a fixed game's own, else the size, k and rule chosen)."""
        options = {"width": self.width, "height": self.height, "k": self.k, "rule": self.rule}
        return make_variant(self.name, options if self.name == "mnk" else None)

    @property
    def info(self) -> GameInfo:
        """The board as the views draw it."""
        v = self.variant()
        return GameInfo(v.name, v.width, v.height, v.k, v.rule.value)

    def key(self) -> tuple[object, ...]:
        """What the position on screen is, and how many lines are asked (an answer about
        another position, or with fewer lines, is stale)."""
        stones = tuple(sorted(self.stones.items()))
        return (self.info, stones, self.to_move, tuple(self.moves), self.lines)

    @property
    def fresh(self) -> Analysis | None:
        """The analysis of the position on screen, if it came."""
        return self.analysis if self.analysed == self.key() else None

    def choose(self, name: str) -> None:
        """Another variant: the board is cleared."""
        self.name = name
        if name == "tictactoe":
            self.width = self.height = self.k = 3
        self.clear()

    def step(self, what: str, delta: int) -> None:
        """Change the custom board's width, height or k (the stones are cleared), or the lines."""
        if what == "lines":
            self.lines = max(1, min(5, self.lines + delta))
            return
        value = getattr(self, what) + delta
        if what in ("width", "height"):
            setattr(self, what, max(3, min(19, value)))
        elif what == "k":
            self.k = value
        self.k = max(3, min(max(self.width, self.height), self.k))
        self.clear()

    def clear(self) -> None:
        """An empty board, black to move, in setup mode."""
        self.stones.clear()
        self.moves.clear()
        self.to_move, self.mode = 0, "setup"

    def game(self) -> Game:
        """The position and the moves after it, played by the rules (raises for a bad one)."""
        black = [Move(*c) for c, colour in self.stones.items() if colour == 0]
        white = [Move(*c) for c, colour in self.stones.items() if colour == 1]
        game = Game.from_position(self.variant(), black, white, self.to_move)
        for cell in self.moves:
            game.push(Move(*cell))
        return game

    def problem(self) -> str | None:
        """Why this position cannot be analysed (None: it can)."""
        try:
            game = self.game()
        except (IllegalMoveError, GameOverError, BadOptions) as exc:
            return str(exc)
        if game.over:
            return "The game is over here: take a move back."
        return self.unbalanced()

    def unbalanced(self) -> str | None:
        """Why the set-up stones cannot be given to the engine: it replays them as alternate
        moves, black first (docs/PROTOCOL.md, "Analysis"), so black has as many stones as
        white with black to move, or one more with white to move."""
        black = sum(1 for colour in self.stones.values() if colour == 0)
        white = len(self.stones) - black
        if black - white == self.to_move:
            return None
        names = ("X", "O") if self.info.uses_marks else ("black", "white")
        side = names[self.to_move]
        want = "as many stones as" if self.to_move == 0 else "one stone more than"
        return (
            f"With {side} to move, {names[0]} needs {want} {names[1]} "
            f"({black} and {white} now): the engine takes the stones as moves in turn."
        )

    def outcome(self) -> Outcome | None:
        """How the game stands ended after the moves explored, if it did."""
        try:
            return self.game().outcome
        except (IllegalMoveError, GameOverError, BadOptions):
            return None

    def side(self) -> int:
        """The colour to move now (after the moves explored)."""
        return (self.to_move + len(self.moves)) & 1

    def click(self, cell: Cell) -> str | None:
        """A click on ``cell``: set up or play; the reason when nothing happened."""
        if self.mode == "setup":
            if self.paint is None:
                self.stones.pop(cell, None)
            else:
                self.stones[cell] = self.paint
            return None
        try:
            game = self.game()
            game.push(Move(*cell))
        except (IllegalMoveError, GameOverError) as exc:
            return str(exc)
        self.moves.append(cell)
        return None

    def back(self) -> None:
        """Take the last move explored back (in setup mode: nothing)."""
        if self.moves:
            self.moves.pop()

    def load(self, info: GameInfo, moves: list[Cell]) -> None:
        """Explore a game's position: its moves are played from the empty board."""
        self.name, self.rule = info.name, info.rule
        self.width, self.height, self.k = info.width, info.height, info.k
        self.clear()
        self.moves = list(moves)
        self.mode = "play"

    def versus_request(self, level: int) -> Message:
        """ "Continue from here against the bot": a ``create_room`` against a bot at ``level``
        from the position on screen (the moves explored become stones), we take the side to
        move (docs/PROTOCOL.md, "Start positions")."""
        stones = dict(self.stones)
        for i, cell in enumerate(self.moves):
            stones[cell] = (self.to_move + i) & 1
        black = [list(c) for c, colour in sorted(stones.items()) if colour == 0]
        white = [list(c) for c, colour in sorted(stones.items()) if colour == 1]
        options: Message = {}
        if self.name == "mnk":
            options = {"width": self.width, "height": self.height, "k": self.k, "rule": self.rule}
        options["position"] = {"black": black, "white": white, "to_move": self.side()}
        msg: Message = {"type": "create_room", "game": self.name, "opponent": "bot"}
        return msg | {"level": level, "seat": self.side(), "options": options}

    def request(self) -> Message:
        """The ``analyse`` request for the position on screen."""
        msg: Message = {"type": "analyse", "game": self.name, "lines": self.lines}
        options: Message = {}
        if self.name == "mnk":
            options = {"width": self.width, "height": self.height, "k": self.k, "rule": self.rule}
        if self.stones or self.to_move:
            black = [list(c) for c, colour in sorted(self.stones.items()) if colour == 0]
            white = [list(c) for c, colour in sorted(self.stones.items()) if colour == 1]
            options["position"] = {"black": black, "white": white, "to_move": self.to_move}
        if options:
            msg["options"] = options
        msg["moves"] = [list(c) for c in self.moves]
        return msg
