"""The wire's value types: games, results, room rows, history rows, clocks, chat and toasts.

Each ``from_wire`` builds an immutable value from one decoded map, tolerating missing fields.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from client.labels import LABELS, MAX_LABEL
from protocol.rules import MAX_SIDE, MIN_SIDE

Message = dict[str, Any]
Cell = tuple[int, int]


@dataclass(frozen=True, slots=True)
class GameInfo:
    """A game description as in ``state``: name, board size, k and win rule."""

    name: str
    width: int
    height: int
    k: int
    rule: str = "freestyle"
    #: The title the server says for it (``title``: ``7\u00d76, 4 in a row``); none said: its label.
    said: str = field(default="", compare=False)

    @classmethod
    def from_wire(cls, game: Message) -> GameInfo:
        """Build from the wire's ``game`` map, tolerating missing fields.

        Raises ValueError for a board the protocol does not allow (the sides are drawn and
        indexed): the caller drops that message.
        """
        if not isinstance(game, dict):
            raise ValueError(f"game is not a map: {game!r:.40}")
        name = str(game.get("name", "mnk"))
        width = _side(game.get("width", 3))
        return cls(
            name=name,
            width=width,
            height=_side(game.get("height", width)),
            k=_int(game.get("k", 3)),
            rule=str(game.get("rule", "freestyle")),
            said=str(game.get("title") or "")[:MAX_LABEL],
        )

    @property
    def uses_marks(self) -> bool:
        """Whether to draw X and O in squares (tic-tac-toe-like) rather than stones."""
        return max(self.width, self.height) <= 5

    @property
    def title(self) -> str:
        """The game's title as the server says it (``Gomoku``, ``7x6, 4 in a row``); when it
        said none, the game's label (the client formats no title of its own)."""
        return self.said or LABELS.game(self.name)


@dataclass(frozen=True, slots=True)
class Result:
    """How a game ended: winning seat (None for a draw), reason and the winning cells."""

    winner: int | None
    reason: str
    line: tuple[Cell, ...] = ()
    #: How a forfeiting engine failed (``crash``, ``hang``…), with reason ``forfeit``.
    fault: str | None = None

    @classmethod
    def from_wire(cls, msg: Message) -> Result:
        """Build from a ``result`` map or a ``game_over`` message.

        A winner other than seat 0 or 1 reads as none; a malformed winning line is left out.
        """
        try:
            line = tuple(xy(c) for c in msg.get("line") or ())
        except (KeyError, TypeError, ValueError):
            line = ()
        fault = msg.get("fault")
        fault = fault if isinstance(fault, str) else None
        return cls(seat_of(msg.get("winner")), str(msg.get("reason", "")), line, fault)


@dataclass(frozen=True, slots=True)
class BotSummary:
    """A bot on the server (a ``list_bots`` row): its name and the level it plays."""

    name: str
    #: None: any level asked; 1-10: only that one; 0: no levels.
    level: int | None
    online: bool

    @classmethod
    def from_wire(cls, row: Message) -> BotSummary:
        """Build from a ``bots`` row (a level out of range reads as "any")."""
        level = row.get("level")
        level = level if type(level) is int and 0 <= level <= 10 else None
        return cls(str(row.get("name", "?"))[:32], level, bool(row.get("online")))

    @property
    def label(self) -> str:
        """The name with its level, as the lobby shows it."""
        if self.level is None:
            return f"{self.name} (any level)"
        return f"{self.name} (level {self.level})" if self.level else self.name


@dataclass(frozen=True, slots=True)
class RoomSummary:
    """One row of the lobby's room list."""

    room: str
    game: str
    status: str
    players: tuple[str | None, str | None]
    spectators: int
    #: ``swap1`` / ``swap2`` when the room opens with that rule.
    opening_rule: str | None = None
    #: Which seats are accounts (None: the server does not say) and whether the room is rated.
    accounts: tuple[bool, bool] | None = None
    rated: bool = False
    #: The game's title as the server says it (``7\u00d76, 4 in a row``); none said: its label.
    title: str = ""

    @classmethod
    def from_wire(cls, row: Message) -> RoomSummary:
        """Build from a row of ``rooms``."""
        rule = row.get("opening_rule")
        accounts = row.get("accounts")
        return cls(
            room=str(row.get("room", "?")),
            game=str(row.get("game", "?")),
            status=str(row.get("status", "?")),
            players=players_of(row.get("players")),
            spectators=count_of(row.get("spectators")),
            opening_rule=rule if isinstance(rule, str) else None,
            accounts=(bool(accounts[0]), bool(accounts[1]))
            if isinstance(accounts, list) and len(accounts) == 2
            else None,
            rated=row.get("rated") is True,
            title=str(row.get("title") or "")[:MAX_LABEL],
        )

    def shown_name(self, seat: int) -> str:
        """A seat's name as the lobby shows it: a dash when empty, guests marked."""
        name = self.players[seat]
        if not name:
            return "\u2014"
        guest = self.accounts is not None and not self.accounts[seat]
        return f"{name} (guest)" if guest else name


@dataclass(frozen=True, slots=True)
class ChatLine:
    """One chat message in a room (``seat`` None for a spectator, ``system`` for notices)."""

    sender: str
    seat: int | None
    text: str
    system: bool = False
    #: The sender is a guest (the server said its line is no account's): its name is marked.
    guest: bool = False

    @property
    def who(self) -> str:
        """The sender as shown: a guest's name marked "(guest)", an account's plain."""
        return f"{self.sender} (guest)" if self.guest else self.sender


@dataclass(frozen=True, slots=True)
class Toast:
    """A short message shown for a few seconds (``kind`` is "error" or "info")."""

    text: str
    kind: str
    created: float


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """A finished game kept for replay: the board, the players, every move and the result."""

    #: The server's id of the game (from ``state``/``game_over`` or its history record).
    game_id: str
    room: str
    game: GameInfo
    players: tuple[str, str]
    moves: tuple[Cell, ...]
    result: Result
    game_no: int = 1
    #: Milliseconds each move took (``get_game``'s ``moves[i].ms``; None where not known, and
    #: empty for a game seen live and not fetched).
    times_ms: tuple[int | None, ...] = ()


@dataclass(frozen=True, slots=True)
class HistoryRow:
    """One finished game from the server's history (a row of ``games``; moves come separately)."""

    game_id: str
    room: str
    game: GameInfo
    players: tuple[str, str]
    result: Result
    started_at: float | None = None
    ended_at: float | None = None

    @classmethod
    def from_wire(cls, row: Message) -> HistoryRow | None:
        """Build from a ``games`` row (None when it has no ``game_id``)."""
        game_id = row.get("game_id")
        if not isinstance(game_id, str) or not game_id:
            return None
        game = row.get("game")
        players = [*names_of(row.get("players")), None, None]
        return cls(
            game_id=game_id,
            room=str(row.get("room") or ""),
            game=GameInfo.from_wire(game if isinstance(game, dict) else {}),
            players=(str(players[0] or "?"), str(players[1] or "?")),
            result=Result.from_wire(row),
            started_at=_number(row.get("started_at")),
            ended_at=_number(row.get("ended_at")),
        )


def _number(value: object) -> float | None:
    """``value`` as a float when it is a (non-bool) number, else None."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def _int(value: object) -> int:
    """``value`` as an int; ValueError unless it is an integer (not a bool)."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"not an integer: {value!r:.40}")
    return value


def _side(value: object) -> int:
    """A board side: an integer within the protocol's limits, else ValueError."""
    side = _int(value)
    if not MIN_SIDE <= side <= MAX_SIDE:
        raise ValueError(f"board side {side} outside {MIN_SIDE}..{MAX_SIDE}")
    return side


def count_of(value: object) -> int:
    """A count from the wire: a non-negative integer, else 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def seat_of(value: object) -> int | None:
    """``value`` when it names a seat (0 or 1), else None."""
    return value if value in (0, 1) and not isinstance(value, bool) else None  # type: ignore[return-value]


def names_of(value: object) -> list[Any]:
    """The first two entries of a ``players`` list (empty when it is not a list)."""
    return list(value[:2]) if isinstance(value, list | tuple) else []


def players_of(value: object) -> tuple[str | None, str | None]:
    """The two seats' names of a ``players`` list (None for an empty seat)."""
    names = [None if n is None else str(n) for n in names_of(value)] + [None, None]
    return names[0], names[1]


def xy(move: object) -> Cell:
    """A move from the wire: ``get_game`` sends ``{"x", "y", …}``, ``state`` sends ``[x, y]``.

    Raises ValueError (or KeyError) for anything else.
    """
    if isinstance(move, dict):
        return _int(move["x"]), _int(move["y"])
    if not isinstance(move, list | tuple) or len(move) != 2:
        raise ValueError(f"not a move: {move!r:.40}")
    return _int(move[0]), _int(move[1])


@dataclass(slots=True)
class Clocks:
    """Remaining seconds per seat as last told by the server, ticking locally in between."""

    remaining: list[float]
    received_at: float
    running: int | None
    initial_s: float | None = None
    increment_s: float | None = None

    def left(self, seat: int, now: float) -> float:
        """Seconds left for ``seat`` at monotonic time ``now`` (never below zero)."""
        value = self.remaining[seat]
        if self.running == seat:
            value -= now - self.received_at
        return max(0.0, value)


def parse_clocks(msg: Message, running: int | None, now: float) -> Clocks | None:
    """Clocks from a ``state``/``moved`` when present (``clocks`` list or ``clock`` map)."""
    clock = msg.get("clock")
    remaining = msg.get("clocks")
    initial = increment = None
    if isinstance(clock, dict):
        remaining = clock.get("remaining_s", clock.get("remaining", remaining))
        initial = clock.get("initial_s")
        increment = clock.get("increment_s")
    if not isinstance(remaining, list | tuple) or len(remaining) != 2:
        return None
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in remaining):
        return None
    if "clock_running" in msg:
        flag = msg["clock_running"]
        running = flag if flag in (0, 1) else None
    return Clocks([float(remaining[0]), float(remaining[1])], now, running, initial, increment)
