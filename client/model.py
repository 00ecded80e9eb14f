"""The pure client model: everything the client knows, rebuilt from server messages only.

No pygame and no I/O here. ``ClientModel.apply`` takes one decoded server message (or one of
the net layer's ``_net`` status notes) and updates the model; the views draw whatever it holds.
The board of a room is always the server's move list: nothing is guessed or played ahead.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

Message = dict[str, Any]
Cell = tuple[int, int]

#: User-facing words for every stable error code of docs/PROTOCOL.md.
ERROR_WORDS: dict[str, str] = {
    "bad_frame": "The server could not read a message from this client.",
    "bad_message": "The server did not understand that request.",
    "unknown_type": "The server does not support that yet.",
    "not_hello": "Not signed in yet; please wait a moment.",
    "unsupported_protocol": "This client and the server speak different protocol versions.",
    "bad_session": "Your old session expired; you are signed in afresh.",
    "bad_options": "Those game settings are not allowed.",
    "no_such_room": "That room does not exist (any more).",
    "no_such_game": "That game is not in the history.",
    "no_history": "This server keeps no game history.",
    "room_full": "That room is full; you can still watch it.",
    "not_in_room": "You are not in that room.",
    "not_a_player": "Only the two players can do that; you are watching.",
    "not_your_turn": "It is not your turn.",
    "illegal_move": "You cannot play there.",
    "stale_ply": "The board changed before your move arrived; it has been refreshed.",
    "game_over": "The game is already over.",
    "rematch_unavailable": "A rematch needs a finished game and both players still here.",
    "no_bot_available": "No bot is free for that game right now; try again or play a human.",
    "rate_limited": "Slow down a little: too many actions at once.",
    "internal_error": "The server hit a problem with that request. Please try again.",
}

REASON_WORDS: dict[str, str] = {
    "line": "{winner} wins with {k} in a row",
    "draw": "Draw: the board is full",
    "resign": "{loser} resigned, {winner} wins",
    "timeout": "{loser} ran out of time, {winner} wins",
    "disconnect": "{loser} disconnected, {winner} wins",
    "abandoned": "Game abandoned",
    "adjudicated": "Adjudicated: {winner} wins",
    "forbidden": "{loser} played a forbidden move, {winner} wins",
}


def error_text(code: str, message: str = "") -> str:
    """The words to show a user for an ``error`` code (falls back to the server's message)."""
    words = ERROR_WORDS.get(code)
    if words is not None:
        return words
    return message or f"Something went wrong ({code})."


@dataclass(frozen=True, slots=True)
class GameInfo:
    """A game description as in ``state``: name, board size, k and win rule."""

    name: str
    width: int
    height: int
    k: int
    rule: str = "freestyle"

    @classmethod
    def from_wire(cls, game: Message) -> GameInfo:
        """Build from the wire's ``game`` map, tolerating missing fields."""
        name = str(game.get("name", "mnk"))
        width = int(game.get("width", 3))
        return cls(
            name=name,
            width=width,
            height=int(game.get("height", width)),
            k=int(game.get("k", 3)),
            rule=str(game.get("rule", "freestyle")),
        )

    @property
    def uses_marks(self) -> bool:
        """Whether to draw X and O in squares (tic-tac-toe-like) rather than stones."""
        return max(self.width, self.height) <= 5

    @property
    def title(self) -> str:
        """A short human title such as ``Gomoku`` or ``7x6, 4 in a row``."""
        return game_title(self.name, self.width, self.height, self.k, self.rule)


def game_title(name: str, width: int = 0, height: int = 0, k: int = 0, rule: str = "") -> str:
    """A human name for a game, e.g. ``Tic-tac-toe`` or a custom board size with k."""
    if name == "tictactoe":
        return "Tic-tac-toe"
    if name == "gomoku":
        return "Gomoku"
    if name == "gomoku-standard":
        return "Gomoku (exact five)"
    if width and height and k:
        exact = ", exact" if rule == "exact" else ""
        return f"{width}\u00d7{height}, {k} in a row{exact}"
    return name


@dataclass(frozen=True, slots=True)
class Result:
    """How a game ended: winning seat (None for a draw), reason and the winning cells."""

    winner: int | None
    reason: str
    line: tuple[Cell, ...] = ()

    @classmethod
    def from_wire(cls, msg: Message) -> Result:
        """Build from a ``result`` map or a ``game_over`` message."""
        line = tuple((int(c[0]), int(c[1])) for c in msg.get("line") or ())
        winner = msg.get("winner")
        return cls(winner if isinstance(winner, int) else None, str(msg.get("reason", "")), line)


@dataclass(frozen=True, slots=True)
class RoomSummary:
    """One row of the lobby's room list."""

    room: str
    game: str
    status: str
    players: tuple[str | None, str | None]
    spectators: int

    @classmethod
    def from_wire(cls, row: Message) -> RoomSummary:
        """Build from a row of ``rooms``."""
        players = list(row.get("players") or [None, None])[:2]
        players += [None] * (2 - len(players))
        return cls(
            room=str(row.get("room", "?")),
            game=str(row.get("game", "?")),
            status=str(row.get("status", "?")),
            players=(players[0], players[1]),
            spectators=int(row.get("spectators") or 0),
        )


@dataclass(frozen=True, slots=True)
class ChatLine:
    """One chat message in a room (``seat`` None for a spectator, ``system`` for notices)."""

    sender: str
    seat: int | None
    text: str
    system: bool = False


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """A finished game kept for replay: the board, the players, every move and the result."""

    key: str
    room: str
    game: GameInfo
    players: tuple[str, str]
    moves: tuple[Cell, ...]
    result: Result
    game_no: int = 1
    #: The server's id when the game came from its history (``get_game``), else None.
    game_id: str | None = None


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
        players = [*list(row.get("players") or ())[:2], None, None]
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
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


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
    clocks: Clocks | None = None
    chat: list[ChatLine] = field(default_factory=list)

    @property
    def ply(self) -> int:
        """The number of stones on the board."""
        return len(self.moves)

    @property
    def stones(self) -> dict[Cell, int]:
        """Which seat's stone sits on each occupied cell."""
        return {cell: i & 1 for i, cell in enumerate(self.moves)}

    @property
    def last_move(self) -> Cell | None:
        """The most recent move, if any."""
        return self.moves[-1] if self.moves else None

    @property
    def my_turn(self) -> bool:
        """Whether this client holds the seat to move in a game in progress."""
        return self.status == "playing" and self.seat is not None and self.to_move == self.seat

    def name(self, seat: int) -> str:
        """The display name of a seat ("waiting…" while empty)."""
        return self.players[seat] or "waiting…"

    def result_text(self) -> str:
        """A sentence for the result, e.g. ``alice wins with 5 in a row``."""
        if self.result is None:
            return ""
        return result_text(self.result, (self.name(0), self.name(1)), self.game.k)


def result_text(result: Result, names: tuple[str, str], k: int) -> str:
    """A sentence describing ``result`` between ``names`` (winner's name first)."""
    template = REASON_WORDS.get(result.reason, "Game over ({reason})")
    if result.winner is None:
        if result.reason in ("line", "adjudicated"):
            return "Draw"
        winner = loser = "nobody"
    else:
        winner, loser = names[result.winner], names[1 - result.winner]
    return template.format(winner=winner, loser=loser, k=k, reason=result.reason)


@dataclass(frozen=True, slots=True)
class Toast:
    """A short message shown for a few seconds (``kind`` is "error" or "info")."""

    text: str
    kind: str
    created: float


def _room_from_state(msg: Message, now: float) -> RoomState:
    players = list(msg.get("players") or [None, None])[:2]
    players += [None] * (2 - len(players))
    status = str(msg.get("status", "waiting"))
    to_move = msg.get("to_move")
    to_move = to_move if isinstance(to_move, int) and status == "playing" else None
    result = msg.get("result")
    seat = msg.get("seat")
    return RoomState(
        room=str(msg["room"]),
        game=GameInfo.from_wire(msg.get("game") or {}),
        players=players,
        kinds=[str(k) for k in (msg.get("kinds") or ["human", "human"])],
        online=[bool(o) for o in (msg.get("online") or [True, True])],
        seat=seat if isinstance(seat, int) else None,
        moves=[(int(m[0]), int(m[1])) for m in msg.get("moves") or ()],
        to_move=to_move,
        status=status,
        result=Result.from_wire(result) if isinstance(result, dict) else None,
        rematch=[bool(r) for r in (msg.get("rematch") or [False, False])],
        spectators=int(msg.get("spectators") or 0),
        game_no=int(msg.get("game_no") or 1),
        clocks=parse_clocks(msg, to_move, now),
    )


@dataclass
class ClientModel:
    """All client state that comes from the server, updated only by :meth:`apply`."""

    name: str = ""
    player: str | None = None
    session: str | None = None
    connection: str = "connecting"  # "connecting" | "online" | "offline"
    connection_detail: str = ""
    lobby: list[RoomSummary] = field(default_factory=list)
    rooms: dict[str, RoomState] = field(default_factory=dict)
    current: str | None = None
    finished: dict[str, FinishedGame] = field(default_factory=dict)
    toasts: list[Toast] = field(default_factory=list)
    #: Rooms whose board drifted from the server (a ``moved`` out of order): rejoin to refresh.
    resync: set[str] = field(default_factory=set)
    #: Request ids whose errors should not be shown (probes such as ``list_games``).
    quiet_ids: set[int] = field(default_factory=set)
    history_supported: bool | None = None
    #: The server's finished games (``list_games``), newest first, and whether it has more.
    history: list[HistoryRow] = field(default_factory=list)
    history_more: bool = False
    #: Request ids of ``list_games`` pages (``before`` set): their rows extend ``history``.
    page_ids: set[int] = field(default_factory=set)
    #: Rooms this client has left: late broadcasts for them are ignored until it joins again.
    ignored: set[str] = field(default_factory=set)

    @property
    def room(self) -> RoomState | None:
        """The room on screen, if any."""
        return self.rooms.get(self.current) if self.current else None

    def toast(self, text: str, kind: str = "info", now: float | None = None) -> None:
        """Queue a toast (the view shows the newest few and drops old ones).

        A toast repeating one still shown replaces it, so retries do not stack up.
        """
        self.toasts = [t for t in self.toasts if (t.text, t.kind) != (text, kind)]
        self.toasts.append(Toast(text, kind, time.monotonic() if now is None else now))
        del self.toasts[:-6]

    def live_toasts(self, now: float, ttl: float = 5.0) -> list[Toast]:
        """Toasts younger than ``ttl`` seconds, oldest first."""
        self.toasts = [t for t in self.toasts if now - t.created < ttl]
        return list(self.toasts)

    def apply(self, msg: Message, now: float | None = None) -> None:
        """Update the model with one message from the server (or a ``_net`` note)."""
        now = time.monotonic() if now is None else now
        handler = getattr(self, "_on_" + str(msg.get("type", "")).replace("-", "_"), None)
        if handler is not None:
            handler(msg, now)

    # -- session and connection -------------------------------------------------------------

    def _on__net(self, msg: Message, now: float) -> None:
        status = str(msg.get("status", "offline"))
        was = self.connection
        self.connection = status
        self.connection_detail = str(msg.get("detail", ""))
        if status == "online" and was == "offline":
            self.toast("Reconnected.", "info", now)

    def _on_welcome(self, msg: Message, now: float) -> None:
        if self.player is not None and msg.get("player") != self.player:
            self.rooms.clear()  # a new identity (the old session expired): our seats are gone
            self.current = None
        self.player = msg.get("player")
        self.session = msg.get("session")
        self.name = str(msg.get("name", self.name))
        self.connection = "online"

    # -- lobby ------------------------------------------------------------------------------

    def _on_rooms(self, msg: Message, now: float) -> None:
        self.lobby = [
            RoomSummary.from_wire(r) for r in msg.get("rooms") or () if isinstance(r, dict)
        ]

    def leave(self, room: str) -> None:
        """Forget ``room`` locally at once (the ``leave_room`` request is sent by the app)."""
        self.rooms.pop(room, None)
        self.ignored.add(room)
        if self.current == room:
            self.current = None

    def _on_joined(self, msg: Message, now: float) -> None:
        self.current = str(msg.get("room"))
        self.ignored.discard(self.current)
        # In a room now: earlier failures to get into one (e.g. retries for a bot) are moot.
        stale = {ERROR_WORDS[c] for c in ("no_bot_available", "room_full", "no_such_room")}
        self.toasts = [t for t in self.toasts if t.text not in stale]

    def _on_left(self, msg: Message, now: float) -> None:
        room = str(msg.get("room"))
        self.rooms.pop(room, None)
        if self.current == room:
            self.current = None

    # -- play -------------------------------------------------------------------------------

    def _on_state(self, msg: Message, now: float) -> None:
        if "room" not in msg or str(msg["room"]) in self.ignored:
            return
        fresh = _room_from_state(msg, now)
        old = self.rooms.get(fresh.room)
        if old is not None:
            fresh.chat = old.chat
            if old.game_no != fresh.game_no and fresh.status == "playing":
                fresh.chat.append(ChatLine("", None, f"Game {fresh.game_no} starts.", True))
        self.rooms[fresh.room] = fresh
        self.resync.discard(fresh.room)
        if self.current is None:
            self.current = fresh.room
        if fresh.status == "over" and fresh.result is not None:
            self._archive(fresh)

    def _on_moved(self, msg: Message, now: float) -> None:
        room = self.rooms.get(str(msg.get("room")))
        if room is None:
            return
        ply, seat = msg.get("ply"), msg.get("seat")
        if ply != room.ply or seat != (ply or 0) & 1:
            if isinstance(ply, int) and ply < room.ply:
                return  # already in the state we have
            self.resync.add(room.room)
            return
        room.moves.append((int(msg["x"]), int(msg["y"])))
        room.to_move = 1 - int(seat) if room.status == "playing" else None
        clocks = parse_clocks(msg, room.to_move, now)
        if clocks is not None:
            room.clocks = clocks
        elif room.clocks is not None:
            c = room.clocks
            c.remaining = [c.left(0, now), c.left(1, now)]
            if c.increment_s and seat in (0, 1):
                c.remaining[int(seat)] += c.increment_s
            c.received_at, c.running = now, room.to_move

    def _on_game_over(self, msg: Message, now: float) -> None:
        room = self.rooms.get(str(msg.get("room")))
        if room is None:
            return
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
        room.result = Result.from_wire(msg)
        self._archive(room)

    def _on_rematch_offered(self, msg: Message, now: float) -> None:
        room = self.rooms.get(str(msg.get("room")))
        seat = msg.get("seat")
        if room is None or seat not in (0, 1):
            return
        room.rematch[int(seat)] = True
        who = "You" if seat == room.seat else room.name(int(seat))
        room.chat.append(ChatLine("", None, f"{who} asked for a rematch.", True))

    def _on_chat(self, msg: Message, now: float) -> None:
        room = self.rooms.get(str(msg.get("room")))
        if room is None:
            return
        seat = msg.get("seat")
        room.chat.append(
            ChatLine(
                str(msg.get("from", "?")),
                seat if isinstance(seat, int) else None,
                str(msg.get("text", "")),
            )
        )
        del room.chat[:-200]

    def _on_error(self, msg: Message, now: float) -> None:
        code = str(msg.get("code", "internal_error"))
        rid = msg.get("id")
        if isinstance(rid, int) and rid in self.quiet_ids:
            self.quiet_ids.discard(rid)
            if code in ("unknown_type", "no_history"):
                self.history_supported = False
            return
        if code == "stale_ply" and self.current:
            self.resync.add(self.current)
        self.toast(error_text(code, str(msg.get("message", ""))), "error", now)

    # -- history (list_games / get_game; optional on the server) ----------------------------

    def _on_games(self, msg: Message, now: float) -> None:
        self.history_supported = True
        rid = msg.get("id")
        page = isinstance(rid, int) and rid in self.page_ids
        self.page_ids.discard(rid)  # type: ignore[arg-type]
        rows = [r for r in msg.get("games") or () if isinstance(r, dict)]
        fresh = [h for h in map(HistoryRow.from_wire, rows) if h is not None]
        if page:
            seen = {h.game_id for h in self.history}
            self.history += [h for h in fresh if h.game_id not in seen]
        else:
            self.history = fresh
        self.history_more = bool(msg.get("more"))
        for row in rows:
            if isinstance(row.get("moves"), list):
                self._archive_wire(row)

    def _on_game(self, msg: Message, now: float) -> None:
        self.history_supported = True
        self._archive_wire(msg.get("game") if isinstance(msg.get("game"), dict) else msg)

    # -- finished games for the lobby and the replay ----------------------------------------

    def local_matches(self) -> dict[str, str]:
        """Server ``game_id`` -> key of the same game archived from a room this session.

        ``state`` carries no ``game_id``, so a game seen live is paired with a history row by
        room, players and result, and only when that pairing is unambiguous both ways (a wrong
        pair would replay another game's moves; an unpaired row is fetched with ``get_game``).
        """
        local = [g for g in self.finished.values() if g.game_id is None]
        rows: dict[str, list[str]] = {}
        games: dict[str, list[str]] = {}
        for row in self.history:
            for g in local:
                if (
                    g.room == row.room
                    and g.players == row.players
                    and (g.result.winner, g.result.reason) == (row.result.winner, row.result.reason)
                ):
                    rows.setdefault(row.game_id, []).append(g.key)
                    games.setdefault(g.key, []).append(row.game_id)
        return {
            game_id: keys[0]
            for game_id, keys in rows.items()
            if len(keys) == 1 and len(games[keys[0]]) == 1
        }

    def replay_key(self, key: str) -> str | None:
        """The ``finished`` key holding the moves of ``key`` (a finished key or a game id)."""
        if key in self.finished:
            return key
        return self.local_matches().get(key)

    def lobby_games(self) -> list[tuple[HistoryRow | FinishedGame, FinishedGame | None]]:
        """The lobby's finished games, newest first, each with its moves when they are here.

        The server's history when it keeps one, after any game seen here that the history
        does not list (yet); with no history, just the games seen here.
        """
        pairs = self.local_matches()
        listed = set(pairs.values()) | {h.game_id for h in self.history}
        extra = [g for g in reversed(self.finished.values()) if g.key not in listed]
        rows: list[tuple[HistoryRow | FinishedGame, FinishedGame | None]] = [(g, g) for g in extra]
        for h in self.history:
            key = h.game_id if h.game_id in self.finished else pairs.get(h.game_id)
            rows.append((h, self.finished.get(key) if key else None))
        return rows

    def _archive_wire(self, row: Message) -> None:
        if not isinstance(row.get("moves"), list):
            return
        game = row.get("game") if isinstance(row.get("game"), dict) else row.get("variant")
        players = [*list(row.get("players") or ["?", "?"])[:2], "?", "?"]
        result = row.get("result") if isinstance(row.get("result"), dict) else row
        key = str(row.get("game_id", row.get("id", f"{row.get('room')}#{row.get('game_no', 1)}")))
        self.finished[key] = FinishedGame(
            key=key,
            room=str(row.get("room", key)),
            game=GameInfo.from_wire(game or {}),
            players=(str(players[0] or "?"), str(players[1] or "?")),
            moves=tuple(_xy(m) for m in row["moves"]),
            result=Result.from_wire(result),
            game_no=int(row.get("game_no") or 1),
            game_id=key if isinstance(row.get("game_id"), str) else None,
        )

    def _archive(self, room: RoomState) -> None:
        if room.result is None:
            return
        key = f"{room.room}#{room.game_no}"
        self.finished[key] = FinishedGame(
            key=key,
            room=room.room,
            game=room.game,
            players=(room.name(0), room.name(1)),
            moves=tuple(room.moves),
            result=room.result,
            game_no=room.game_no,
        )


def _xy(move: object) -> tuple[int, int]:
    """A move from history: ``get_game`` sends ``{"x", "y", …}``, ``state`` sends ``[x, y]``."""
    if isinstance(move, dict):
        return int(move["x"]), int(move["y"])
    x, y = move  # type: ignore[misc]
    return int(x), int(y)
