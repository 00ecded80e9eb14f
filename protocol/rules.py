"""The m,n,k-game rules: value types, variants, a fast board for search and a validating game."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

from protocol import renju
from protocol.errors import ForbiddenMove, GameOverError, IllegalMoveError, MalformedMoveError

#: The constants are ``Final``: the compiled rules (protocol/native.py) read them as constants,
#: not as module globals looked up (and a tuple unboxed and boxed again) on every move.
EMPTY: Final = 0
#: Cell values on a :class:`Board`: seat 0's stones are 1, seat 1's stones are 2.
STONE: Final = (1, 2)
#: The four line directions (dx, dy): horizontal, vertical, both diagonals.
DIRECTIONS: Final = ((1, 0), (0, 1), (1, 1), (1, -1))
#: The same as a list, what the compiled :meth:`Board.winning_run` walks without a copy (a
#: compiled loop over a tuple of tuples builds the tuples again on every call).
_RAYS: Final[list[tuple[int, int]]] = list(DIRECTIONS)

MIN_SIDE: Final = 3
MAX_SIDE: Final = 25


@dataclass(frozen=True, slots=True, order=True)
class Move:
    """A stone placed at column ``x``, row ``y`` (0-based from the top-left)."""

    x: int
    y: int

    def __str__(self) -> str:
        return f"{self.x},{self.y}"


#: One shared :class:`Move` per cell of the largest board: a move is a value, so a game's
#: history can hold these and make no object of its own per move (for the cyclic GC to walk).
_CELLS: Final = tuple(Move(i % MAX_SIDE, i // MAX_SIDE) for i in range(MAX_SIDE * MAX_SIDE))


def move_at(x: int, y: int) -> Move:
    """The move at (``x``, ``y``): the shared one when it fits the largest board, else a new one."""
    if 0 <= x < MAX_SIDE and 0 <= y < MAX_SIDE:
        return _CELLS[y * MAX_SIDE + x]
    return Move(x, y)


class Termination(StrEnum):
    """Why a game ended; the value is the wire's ``reason``."""

    LINE = "line"
    DRAW = "draw"
    RESIGN = "resign"
    TIMEOUT = "timeout"
    DISCONNECT = "disconnect"
    ABANDONED = "abandoned"
    ADJUDICATED = "adjudicated"
    FORBIDDEN = "forbidden"
    FORFEIT = "forfeit"
    #: Game actions (server/core/round/actions.py): a draw both accepted, a game ended before both
    #: moved (no result), a win claimed over an opponent gone past half the reconnect grace.
    DRAW_AGREED = "draw_agreed"
    ABORTED = "aborted"
    OPPONENT_GONE = "opponent_gone"


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: the reason, the winning seat (None for a draw) and the winning cells."""

    termination: Termination
    winner: int | None
    line: tuple[Move, ...] = ()


class WinRule(StrEnum):
    """Which runs win: ``freestyle`` k or more, ``exact`` exactly k (an overline does not).

    ``renju``: black (the first colour) wins with exactly k and has forbidden moves, white wins
    with k or more.
    """

    FREESTYLE = "freestyle"
    EXACT = "exact"
    RENJU = "renju"


@dataclass(frozen=True, slots=True)
class Variant:
    """An m,n,k-game: board size, line length and the win rule.

    Rule differences between seats (renju's forbidden moves and exact five for black) go through
    :meth:`wins` and :meth:`forbidden`, so a renju variant overrides those two and nothing else.
    """

    name: str
    width: int
    height: int
    k: int
    rule: WinRule = WinRule.FREESTYLE

    def __post_init__(self) -> None:
        for side in (self.width, self.height):
            if not MIN_SIDE <= side <= MAX_SIDE:
                raise ValueError(f"board sides must be {MIN_SIDE}..{MAX_SIDE}")
        if not 3 <= self.k <= max(self.width, self.height):
            raise ValueError("k must be between 3 and the longer side")

    @property
    def cells(self) -> int:
        """The number of cells on the board."""
        return self.width * self.height

    def wins(self, run: int, seat: int) -> bool:
        """Whether a run of ``run`` same-coloured stones through the last move wins for ``seat``."""
        if self.rule is WinRule.EXACT or (self.rule is WinRule.RENJU and seat == 0):
            return run == self.k
        return run >= self.k

    def forbidden(self, board: Board, move: Move, seat: int) -> str | None:
        """Why colour ``seat`` may not play the empty cell ``move`` (renju's black); else None."""
        if self.rule is not WinRule.RENJU or seat != 0:
            return None
        return renju.foul(board.cells, self.width, self.height, board.index(move.x, move.y))

    def forbidden_points(self, board: Board, kept: renju.FoulMap | None = None) -> list[Move]:
        """Every empty cell the side to move may not play now (only renju's black has any);
        ``kept`` (for this board's size) is brought up to date instead of looking at every cell."""
        if self.rule is not WinRule.RENJU or board.to_move != 0:
            return []
        cells = board.cells
        found = kept.update(cells) if kept else renju.fouls(cells, self.width, self.height)
        return [Move(*board.xy(i)) for i, _ in found]

    def describe(self) -> dict[str, object]:
        """The variant as the wire's ``game`` map."""
        return {
            "name": self.name,
            "width": self.width,
            "height": self.height,
            "k": self.k,
            "rule": str(self.rule),
        }


class Board:
    """A mutable board for search: play/undo by cell index and a win check from the last move.

    Cells are ``y * width + x``; a cell holds :data:`EMPTY` or ``STONE[colour]`` (colour 0 is
    the first player, black). A board may start from a set position: ``base`` stones placed
    before the history, ``first`` the colour of the history's first stone. Nothing here
    validates: callers that take moves from outside use :class:`Game`.
    """

    __slots__ = ("base", "cells", "first", "height", "history", "k", "variant", "width")

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self.width = variant.width
        self.height = variant.height
        self.k = variant.k
        self.cells: list[int] = [EMPTY] * variant.cells
        self.history: list[int] = []
        self.base = 0
        self.first = 0

    def copy(self) -> Board:
        """An independent copy of this board."""
        other = Board(self.variant)
        other.cells = self.cells.copy()
        other.history = self.history.copy()
        other.base, other.first = self.base, self.first
        return other

    @property
    def to_move(self) -> int:
        """The colour whose stone goes next (ignoring whether the game is over)."""
        return (self.first + len(self.history)) & 1

    @property
    def full(self) -> bool:
        """Whether every cell is taken."""
        return self.base + len(self.history) == len(self.cells)

    def index(self, x: int, y: int) -> int:
        """The cell index of column ``x``, row ``y``."""
        return y * self.width + x

    def xy(self, index: int) -> tuple[int, int]:
        """The column and row of a cell index."""
        return index % self.width, index // self.width

    def play(self, index: int) -> None:
        """Put the side to move's stone on an empty cell."""
        self.cells[index] = STONE[(self.first + len(self.history)) & 1]
        self.history.append(index)

    def undo(self) -> int:
        """Take back the last stone and return its cell."""
        index = self.history.pop()
        self.cells[index] = EMPTY
        return index

    def legal(self) -> Iterator[int]:
        """Every empty cell, in index order."""
        return (i for i, c in enumerate(self.cells) if c == EMPTY)

    def winning_run(self, index: int) -> tuple[int, int, int, int] | None:
        """``(dx, dy, back, fwd)`` of a winning run through ``index``, or None (O(k) each way).

        The hot path of every move: loops inlined, and the variant's rule is only asked about
        runs of at least k stones (no rule wins with fewer).
        """
        cells, w, h, k = self.cells, self.width, self.height, self.k
        stone = cells[index]
        if stone == EMPTY:
            return None
        x0, y0 = index % w, index // w
        for dx, dy in _RAYS:
            back = 0
            x, y = x0 - dx, y0 - dy
            while 0 <= x < w and 0 <= y < h and cells[y * w + x] == stone:
                back += 1
                x -= dx
                y -= dy
            fwd = 0
            x, y = x0 + dx, y0 + dy
            while 0 <= x < w and 0 <= y < h and cells[y * w + x] == stone:
                fwd += 1
                x += dx
                y += dy
            if back + fwd + 1 >= k and self.variant.wins(back + fwd + 1, stone - 1):
                return dx, dy, back, fwd
        return None

    def wins_at(self, index: int) -> bool:
        """Whether the stone on ``index`` completes a winning line."""
        return self.winning_run(index) is not None

    def winning_line(self, index: int) -> tuple[Move, ...]:
        """The cells of the winning run through ``index`` (empty when there is none)."""
        found = self.winning_run(index)
        if found is None:
            return ()
        dx, dy, back, fwd = found
        x0, y0 = self.xy(index)
        return tuple(Move(x0 + i * dx, y0 + i * dy) for i in range(-back, fwd + 1))


@dataclass(slots=True)
class Game:
    """The validating path: a game that takes moves from outside and knows when it is over."""

    variant: Variant
    board: Board = field(init=False)
    moves: list[Move] = field(init=False, default_factory=list)
    outcome: Outcome | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.board = Board(self.variant)

    @classmethod
    def from_moves(cls, variant: Variant, moves: Iterable[Move | tuple[int, int]]) -> Game:
        """Replay a move list from the empty board, validating every move."""
        game = cls(variant)
        for m in moves:
            game.push(m if isinstance(m, Move) else move_at(*m))
        return game

    @classmethod
    def from_position(
        cls, variant: Variant, black: Iterable[Move], white: Iterable[Move], to_move: int
    ) -> Game:
        """A game set up from a position; IllegalMoveError for a bad cell, GameOverError if won."""
        game = cls(variant)
        board = game.board
        for colour, stones in enumerate((black, white)):
            for m in stones:
                if not (0 <= m.x < variant.width and 0 <= m.y < variant.height):
                    raise IllegalMoveError(f"{m} is off the {variant.width}x{variant.height} board")
                if board.cells[board.index(m.x, m.y)] != EMPTY:
                    raise IllegalMoveError(f"{m} is taken twice")
                board.cells[board.index(m.x, m.y)] = STONE[colour]
                board.base += 1
        board.first = to_move & 1
        for index, cell in enumerate(board.cells):
            if cell != EMPTY and board.wins_at(index):
                raise GameOverError(f"{Move(*board.xy(index))} is already in a winning line")
        if board.full:
            raise GameOverError("the board is full")
        return game

    @property
    def ply(self) -> int:
        """The number of moves played (stones on the board beyond a set-up position)."""
        return len(self.moves)

    @property
    def over(self) -> bool:
        """Whether the game has ended."""
        return self.outcome is not None

    @property
    def to_move(self) -> int | None:
        """The seat to move, or None once the game is over."""
        return None if self.outcome else self.board.to_move

    @staticmethod
    def parse(x: object, y: object) -> Move:
        """A move from untrusted coordinates; :class:`MalformedMoveError` unless both are ints."""
        if type(x) is not int or type(y) is not int:
            raise MalformedMoveError("x and y must be integers")
        return move_at(x, y)

    def check(self, move: Move) -> None:
        """Raise unless ``move`` is legal for the side to move now."""
        self._cell(move)

    def _cell(self, move: Move) -> tuple[int, int]:
        """The cell index of ``move`` and the colour to play it; raise unless it is legal now."""
        if self.outcome is not None:
            raise GameOverError("the game is over")
        v, board = self.variant, self.board
        x, y = move.x, move.y
        if not (0 <= x < v.width and 0 <= y < v.height):
            raise IllegalMoveError(f"{move} is off the {v.width}x{v.height} board")
        index = y * v.width + x
        if board.cells[index] != EMPTY:
            raise IllegalMoveError(f"{move} is occupied")
        seat = (board.first + len(board.history)) & 1
        if v.rule is WinRule.RENJU:
            reason = v.forbidden(board, move, seat)
            if reason:
                raise ForbiddenMove(f"{move} is forbidden for black: {reason}")
        return index, seat

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` may be played now."""
        try:
            self.check(move)
        except (IllegalMoveError, GameOverError):
            return False
        return True

    def legal_moves(self) -> list[Move]:
        """Every legal move now (none once the game is over)."""
        if self.outcome is not None:
            return []
        w = self.variant.width
        return [Move(i % w, i // w) for i in self.board.legal()]

    def push(self, move: Move) -> Outcome | None:
        """Validate and play ``move``; return the outcome if it ended the game."""
        index, seat = self._cell(move)
        board = self.board
        cells, history = board.cells, board.history
        cells[index] = seat + 1  # STONE[seat]: Board.play, inlined (the server's hot path)
        history.append(index)
        self.moves.append(move)
        line = board.winning_line(index)
        if line:
            self.outcome = Outcome(Termination.LINE, seat, line)
        elif board.base + len(history) == len(cells):  # the board is full
            self.outcome = Outcome(Termination.DRAW, None)
        return self.outcome

    def pop(self) -> Move:
        """Take back the last move (as python-chess's ``Board.pop``): the position, the side to
        move and the outcome are as before that move's :meth:`push` (which a finished game did
        not allow, so none). ``IndexError`` when no move was played."""
        move = self.moves.pop()
        self.board.undo()
        self.outcome = None
        return move

    def end(
        self, termination: Termination, winner: int | None, line: tuple[Move, ...] = ()
    ) -> Outcome:
        """End the game from outside the board (resign, timeout, disconnect, adjudication; a
        restart gives a recorded ending's ``line`` back)."""
        if self.outcome is not None:
            raise GameOverError("the game is over")
        self.outcome = Outcome(termination, winner, line)
        return self.outcome
