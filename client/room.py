"""One room as the client knows it: built from ``state``, advanced by ``moved`` and ``game_over``.

The board is always the server's move list: a ``moved`` that does not follow on is refused
(the caller rejoins to refresh), nothing is guessed or played ahead.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from client.analysis import seen_words
from client.offers import RoomActions, actions_from_state
from client.ratings import Rating, RatingChange, rating_changes, seat_flags, seat_ratings
from client.values import (
    Cell,
    ChatLine,
    Clocks,
    FinishedGame,
    GameInfo,
    Message,
    Result,
    count_of,
    names_of,
    parse_clocks,
    players_of,
    seat_of,
    xy,
)
from client.words import result_text


@dataclass(frozen=True, slots=True)
class Opening:
    """A swap opening as ``state.opening`` describes it."""

    rule: str
    phase: str
    actor: int | None
    left: int
    choices: tuple[str, ...]

    @classmethod
    def from_wire(cls, raw: object) -> Opening | None:
        """Parse ``state.opening`` (None when the room has no opening rule)."""
        if not isinstance(raw, dict):
            return None
        choices = raw.get("choices") or ()
        return cls(
            rule=str(raw.get("rule", "")),
            phase=str(raw.get("phase", "done")),
            actor=seat_of(raw.get("actor")),
            left=count_of(raw.get("left")),
            choices=tuple(str(c) for c in choices if isinstance(c, str)),
        )


def _cells(raw: object) -> frozenset[Cell]:
    return frozenset(xy(c) for c in raw) if isinstance(raw, list) else frozenset()


@dataclass(slots=True)
class RoomState:
    """A room as the last ``state`` described it, plus the broadcasts applied since."""

    room: str
    game: GameInfo
    players: list[str | None]
    kinds: list[str]
    online: list[bool]
    seat: int | None
    moves: list[Cell]
    to_move: int | None
    status: str
    result: Result | None
    rematch: list[bool]
    spectators: int
    game_no: int
    #: The server's id of the game on the board (the key of its replay and its history row).
    game_id: str
    clocks: Clocks | None = None
    chat: list[ChatLine] = field(default_factory=list)
    #: Cells black may not play now (renju; empty otherwise), each seat's colour, the opening.
    forbidden: frozenset[Cell] = frozenset()
    colours: tuple[int, int] | None = (0, 1)
    opening: Opening | None = None
    #: A set-up position (``options.position``): its stones and the colour that moved first.
    setup: tuple[tuple[Cell, int], ...] = ()
    first: int = 0

    def colour_of(self, seat: int) -> int:
        """The colour a seat plays (its own index until an opening rule decides)."""
        return self.colours[seat] if self.colours else seat

    @property
    def in_opening(self) -> bool:
        """Whether a swap opening's phase is still going on."""
        return self.opening is not None and self.opening.phase != "done"

    @property
    def choosing(self) -> bool:
        """Whether this client must pick a colour (or swap2's two more stones) now."""
        op = self.opening
        return op is not None and op.phase == "choose" and self.my_turn

    #: The level the bot in this room plays (None: no bot, or one that knows no levels).
    level: int | None = None
    #: When (monotonic seconds) the seat to move got the turn, as far as this client saw it.
    turn_since: float = 0.0
    #: The server no longer has this room (it did not survive a restart): nothing to ask of it.
    gone: bool = False
    #: Offers standing, the first-move countdown, claims (client/offers.py).
    acts: RoomActions = field(default_factory=RoomActions)
    #: Which seats are accounts (None: an older server that does not say), whether the game is
    #: rated and in which pool, each seat's rating, and a rated game's changes once it is over.
    accounts: list[bool] | None = None
    rated: bool = False
    pool: str | None = None
    ratings: list[Rating | None] = field(default_factory=lambda: [None, None])
    changes: list[RatingChange] = field(default_factory=list)
    #: A training game (``options.hints``: casual, against a bot): hints and takebacks.
    hints: bool = False
    #: What the bot saw for its last move (its ``info``, sent to a training game's human).
    seen: str | None = None

    def guest(self, seat: int) -> bool:
        """Whether a seated player is a guest (unknown on an older server: no)."""
        return self.accounts is not None and bool(self.players[seat]) and not self.accounts[seat]

    def change(self, seat: int) -> RatingChange | None:
        """The rating change of ``seat`` in the finished rated game, if any."""
        return next((c for c in self.changes if c.seat == seat), None)

    @property
    def ply(self) -> int:
        """The number of stones on the board."""
        return len(self.moves)

    @property
    def stones(self) -> dict[Cell, int]:
        """Which seat's stone sits on each occupied cell."""
        placed = {cell: (self.first + i) & 1 for i, cell in enumerate(self.moves)}
        return dict(self.setup) | placed

    @property
    def last_move(self) -> Cell | None:
        """The most recent move, if any."""
        return self.moves[-1] if self.moves else None

    @property
    def my_turn(self) -> bool:
        """Whether this client holds the seat to move in a game in progress."""
        return self.status == "playing" and self.seat is not None and self.to_move == self.seat

    def thinking(self, now: float) -> float | None:
        """Seconds the bot to move has been thinking (None when no bot is to move)."""
        seat = self.to_move
        if self.status != "playing" or seat is None or seat == self.seat:
            return None
        if seat >= len(self.kinds) or self.kinds[seat] != "bot":
            return None
        return max(0.0, now - self.turn_since)

    def name(self, seat: int) -> str:
        """The display name of a seat ("waiting…" while empty)."""
        return self.players[seat] or "waiting…"

    def result_text(self) -> str:
        """A sentence for the result, e.g. ``alice wins with 5 in a row``."""
        if self.result is None:
            return ""
        return result_text(self.result, (self.name(0), self.name(1)), self.game.k)

    def finished(self) -> FinishedGame | None:
        """The game on the board as a finished game for replay (None until it has a result)."""
        if self.result is None:
            return None
        return FinishedGame(
            game_id=self.game_id,
            room=self.room,
            game=self.game,
            players=(self.name(0), self.name(1)),
            moves=tuple(self.moves),
            result=self.result,
            game_no=self.game_no,
        )


def room_from_state(msg: Message, now: float) -> RoomState:
    """A room from a ``state`` message (which must carry ``room``).

    Raises ValueError (or another ``Exception``) for a message it cannot make sense of; the
    fields used as indexes (seats, the board size, moves) are checked here.
    """
    players = list(players_of(msg.get("players")))
    status = str(msg.get("status", "waiting"))
    to_move = seat_of(msg.get("to_move")) if status == "playing" else None
    result = msg.get("result")
    room = str(msg["room"])
    game_no = count_of(msg.get("game_no")) or 1
    game_id = msg.get("game_id")
    kinds = [str(k) for k in names_of(msg.get("kinds"))]
    online = [bool(o) for o in names_of(msg.get("online"))]
    rematch = [bool(r) for r in names_of(msg.get("rematch"))]
    return RoomState(
        room=room,
        game=GameInfo.from_wire(msg.get("game") or {}),
        players=players,
        kinds=kinds + ["human"] * (2 - len(kinds)),
        online=online + [True] * (2 - len(online)),
        seat=seat_of(msg.get("seat")),
        moves=[xy(m) for m in msg.get("moves") or ()],
        to_move=to_move,
        status=status,
        result=Result.from_wire(result) if isinstance(result, dict) else None,
        rematch=rematch + [False] * (2 - len(rematch)),
        spectators=count_of(msg.get("spectators")),
        game_no=game_no,
        # A server from before ``game_id``: a local stand-in that no history row carries.
        game_id=game_id if isinstance(game_id, str) and game_id else f"{room}#{game_no}",
        clocks=parse_clocks(msg, to_move, now),
        forbidden=_cells(msg.get("forbidden")),
        colours=_colours(msg.get("colours", [0, 1])),
        opening=Opening.from_wire(msg.get("opening")),
        level=level_of(msg.get("options")),
        turn_since=now,
        chat=chat_of(msg.get("chat")),
        acts=actions_from_state(msg.get("actions"), online + [True] * (2 - len(online)), now),
        accounts=seat_flags(msg.get("accounts")),
        rated=msg.get("rated") is True,
        pool=msg.get("pool") if isinstance(msg.get("pool"), str) else None,
        ratings=seat_ratings(msg.get("ratings")),
        hints=hints_of(msg.get("options")),
        **_position(msg.get("options")),
    )


def chat_of(raw: object) -> list[ChatLine]:
    """The chat lines a ``state`` carries (the room's last few; none from older servers)."""
    lines = raw if isinstance(raw, list) else []
    return [
        ChatLine(
            str(c.get("from", "?")),
            seat_of(c.get("seat")),
            str(c.get("text", "")),
            guest=c.get("account") is False,
        )
        for c in lines
        if isinstance(c, dict)
    ]


def level_of(options: object) -> int | None:
    """The bot level a room was created with, when it has a sane one."""
    level = options.get("level") if isinstance(options, dict) else None
    return level if type(level) is int and 1 <= level <= 10 else None


def hints_of(options: object) -> bool:
    """Whether a room is a training game (``options.hints`` true: a Hint button)."""
    return isinstance(options, dict) and options.get("hints") is True


def _position(options: object) -> dict[str, object]:
    """The set-up stones and first colour from ``state.options.position`` (none: empty)."""
    raw = options.get("position") if isinstance(options, dict) else None
    if not isinstance(raw, dict):
        return {}
    setup = [
        (xy(c), colour) for colour, key in enumerate(("black", "white")) for c in raw.get(key) or ()
    ]
    return {"setup": tuple(setup), "first": 1 if raw.get("to_move") == 1 else 0}


def _colours(raw: object) -> tuple[int, int] | None:
    if isinstance(raw, list) and sorted(raw) == [0, 1]:
        return int(raw[0]), int(raw[1])
    return None


def _mover(room: RoomState, ply: int) -> int | None:
    """The seat whose stone is ply ``ply`` (None while an opening's actor is unknown)."""
    if room.in_opening:
        return room.opening.actor if room.opening else None
    return room.colours.index((room.first + ply) & 1) if room.colours else None


def apply_moved(room: RoomState, msg: Message, now: float) -> bool:
    """Add a ``moved`` to ``room``; False when it does not follow on (rejoin to refresh)."""
    ply, seat = msg.get("ply"), msg.get("seat")
    if ply != room.ply or seat != _mover(room, ply or 0):
        return isinstance(ply, int) and ply < room.ply  # an old one: already in our state
    cell = xy(msg)  # raises for a ``moved`` without a proper x and y: nothing changed yet
    room.moves.append(cell)
    room.seen = seen_words(msg.get("info"), room.players[int(seat or 0)] or "", room.game.height)
    room.forbidden = _cells(msg.get("forbidden"))
    playing = room.status == "playing"
    room.to_move = seat if room.in_opening else _mover(room, room.ply) if playing else None
    room.turn_since = now
    room.acts.moved(int(seat or 0), room.ply, now, msg.get("abort"))
    clocks = parse_clocks(msg, room.to_move, now)
    if clocks is not None:
        room.clocks = clocks
    elif room.clocks is not None:
        c = room.clocks
        c.remaining = [c.left(0, now), c.left(1, now)]
        if c.increment_s and seat in (0, 1):
            c.remaining[int(seat)] += c.increment_s
        c.received_at, c.running = now, room.to_move
    return True


def apply_game_over(room: RoomState, msg: Message, now: float) -> None:
    """End the game in ``room`` as a ``game_over`` says: result, stopped clocks, its id."""
    result = Result.from_wire(msg)
    clocks = parse_clocks(msg, None, now)
    if clocks is not None and room.clocks is not None:
        clocks.initial_s, clocks.increment_s = room.clocks.initial_s, room.clocks.increment_s
    if clocks is None and room.clocks is not None:
        c = clocks = room.clocks
        c.remaining = [c.left(0, now), c.left(1, now)]
        c.received_at, c.running = now, None
    room.clocks = clocks
    room.status = "over"
    room.to_move = None
    room.acts.offers.clear()
    room.acts.first_move_due = None
    room.result = result
    game_id = msg.get("game_id")
    if isinstance(game_id, str) and game_id:
        room.game_id = game_id
    room.changes = rating_changes(msg.get("ratings"))
