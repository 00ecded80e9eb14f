"""The pure client model: everything the client knows, rebuilt from server messages only.

No pygame and no I/O here. ``ClientModel.apply`` takes one decoded server message (or one of
the net layer's ``_net`` status notes) and updates the model; the views draw whatever it holds.
The values it holds are in client/values.py, a room in client/room.py, and the finished games
in client/history.py.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from client.history import LobbyGame, extend_history, lobby_list, parse_rows, record_game
from client.labels import LABELS
from client.offers import KIND_WORDS
from client.ratings import FormPools, Leaderboard, Profile, Rating, form_pools, ratings_by_pool
from client.room import RoomState, apply_game_over, apply_moved, room_from_state
from client.seeks import SeekBook
from client.tournaments import TournamentBook
from client.values import (
    BotSummary,
    ChatLine,
    FinishedGame,
    HistoryRow,
    Message,
    RoomSummary,
    Toast,
    count_of,
)
from client.words import ERROR_WORDS, error_text

#: An opening choice (``chosen``) as the room's chat announces it, after the chooser's name.
CHOICE_WORDS = {
    "black": "took black",
    "white": "took white",
    "place": "chose to place 2 more stones and hand the choice back",
}
#: What a room the server no longer has says in its chat.
GONE_NOTICE = "This room is gone: the server restarted without it. Leave to start another game."


#: Leaderboard pages kept at once (16 pools x players/bots x a few pages each).
MAX_BOARD_PAGES = 64


@dataclass
class ClientModel:
    """All client state that comes from the server, updated only by :meth:`apply`."""

    name: str = ""
    player: str | None = None
    session: str | None = None
    connection: str = "connecting"  # "connecting" | "online" | "offline"
    connection_detail: str = ""
    #: Whether this client was ever connected (a drop then is "lost", else "cannot reach").
    ever_online: bool = False
    #: Whether the link dropped since it was last online.
    dropped: bool = False
    #: The error code with which the server refused our ``hello`` (e.g. a bot's name), if so.
    refused: str = ""
    #: Whether the server said it is shutting down (a restart, not a crash), until back online.
    server_stopped: bool = False
    lobby: list[RoomSummary] = field(default_factory=list)
    #: The server's bots that are online (``list_bots``), by name.
    bots: list[BotSummary] = field(default_factory=list)
    rooms: dict[str, RoomState] = field(default_factory=dict)
    current: str | None = None
    #: Finished games whose moves are here (seen live or fetched), by ``game_id``.
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
    #: Request ids of the rejoins sent after a reconnect, with their room (``no_such_room``
    #: for one means the room did not survive a server restart).
    probes: dict[int, str] = field(default_factory=dict)

    #: Whether we are logged in to an account (``welcome.account``, ``logged_in``), and its
    #: ratings by pool; a guest plays unrated.
    account: bool = False
    ratings: dict[str, Rating] = field(default_factory=dict)
    #: The rating pool of each form clock and game, as ``welcome`` says (the server's rule).
    rating_pools: FormPools = field(default_factory=dict)
    #: The last ``leaderboard`` page and ``profile`` answered (their scenes show them), and the
    #: pages answered by (pool, bots, page): replies come back in any order (the server reads
    #: them off its loop), so the board on screen is looked up, never the last one to arrive.
    leaderboard: Leaderboard | None = None
    leaderboards: dict[tuple[str, bool, int], Leaderboard] = field(default_factory=dict)
    profile: Profile | None = None
    #: Quick pairing: the pools, the open seeks on screen and our own seeks (client/seeks.py).
    seeks: SeekBook = field(default_factory=SeekBook)
    #: The server's tournaments: the list, each one's latest state, the one on screen.
    tournaments: TournamentBook = field(default_factory=TournamentBook)

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
        detail = str(msg.get("detail", ""))
        if status == "connecting" and self.connection == "offline":
            return  # another attempt: keep saying why the last one failed until one works
        self.connection, self.connection_detail = status, detail
        self.refused = str(msg.get("code") or "") if status == "offline" else ""
        if status == "offline" and self.ever_online:
            self.dropped = True
        if status == "online":
            self.server_stopped = False
            if self.dropped:
                self.toast("Reconnected.", "info", now)
            self.ever_online, self.dropped = True, False

    def _on_server_shutdown(self, msg: Message, now: float) -> None:
        self.server_stopped = True

    def _on_welcome(self, msg: Message, now: float) -> None:
        if self.player is not None and msg.get("player") != self.player:
            self.rooms.clear()  # a new identity (the old session expired): our seats are gone
            self.current = None
        self.player = msg.get("player")
        self.session = msg.get("session")
        self.name = str(msg.get("name", self.name))
        self.account = msg.get("account") is True
        self.ratings = ratings_by_pool(msg.get("ratings")) if self.account else {}
        self.rating_pools = form_pools(msg.get("rating_pools"))
        if "labels" in msg:  # the server's words for games, pools and clocks
            LABELS.take(msg["labels"])
        self.connection, self.ever_online = "online", True
        self.seeks.mine.clear()  # seeks die with their player's last connection
        self.seeks.pending.clear()
        self.seeks.forget_pages()

    def _on_logged_in(self, msg: Message, now: float) -> None:
        self._new_identity(msg)
        self.account = True
        self.ratings = ratings_by_pool(msg.get("ratings"))

    def _on_logged_out(self, msg: Message, now: float) -> None:
        self._new_identity(msg)
        self.account, self.ratings = False, {}

    def _new_identity(self, msg: Message) -> None:
        """Another player now (logged in or out): rooms seen as the old one are not ours."""
        self.seeks.mine.clear()  # the server ends the old identity's seeks
        if msg.get("player") != self.player:
            self.rooms.clear()
            self.current = None
        self.player = msg.get("player") or self.player
        self.session = msg.get("session") or self.session
        self.name = str(msg.get("name") or self.name)[:32]

    def _on_tournaments(self, msg: Message, now: float) -> None:
        self.tournaments.listed(msg)

    def _on_tournament(self, msg: Message, now: float) -> None:
        self.tournaments.updated(msg)

    def _on_leaderboard(self, msg: Message, now: float) -> None:
        self.leaderboard = board = Leaderboard.from_wire(msg)
        if len(self.leaderboards) >= MAX_BOARD_PAGES:  # bounded whatever a server sends
            self.leaderboards.pop(next(iter(self.leaderboards)))
        self.leaderboards[(board.pool, board.bots, board.page)] = board

    def _on_profile(self, msg: Message, now: float) -> None:
        self.profile = Profile.from_wire(msg)

    # -- quick pairing ------------------------------------------------------------------------

    def _on_seeks(self, msg: Message, now: float) -> None:
        self.seeks.on_seeks(msg)

    def _on_seeking(self, msg: Message, now: float) -> None:
        self.seeks.on_seeking(msg, now)

    def _on_seek_cancelled(self, msg: Message, now: float) -> None:
        self.seeks.ended(msg.get("seek"))

    def _on_seek_ended(self, msg: Message, now: float) -> None:
        gone = self.seeks.ended(msg.get("seek"))
        if gone is not None and msg.get("reason") == "expired":
            self.toast(f"Nobody took your {gone.seek.terms} seek in 30 minutes.", "info", now)
        elif gone is not None and msg.get("message"):  # e.g. no more games this hour
            self.toast(
                f"Your {gone.seek.terms} seek ended: {str(msg['message'])[:200]}", "info", now
            )

    # -- lobby ------------------------------------------------------------------------------

    def _on_bots(self, msg: Message, now: float) -> None:
        rows = [BotSummary.from_wire(r) for r in msg.get("bots") or () if isinstance(r, dict)]
        self.bots = sorted((b for b in rows if b.online), key=lambda b: b.name)[:50]

    def _on_rooms(self, msg: Message, now: float) -> None:
        rows = [RoomSummary.from_wire(r) for r in msg.get("rooms") or () if isinstance(r, dict)]
        self.lobby = [r for r in rows if r.status != "over"]  # finished ones are in the history
        for row in rows:  # the only news of a spectator leaving: the room's count here
            room = self.rooms.get(row.room)
            if room is not None:
                room.spectators = row.spectators

    def leave(self, room: str) -> None:
        """Forget ``room`` locally at once (the ``leave_room`` request is sent by the app)."""
        self.rooms.pop(room, None)
        self.ignored.add(room)
        if self.current == room:
            self.current = None

    def _on_joined(self, msg: Message, now: float) -> None:
        self.probes.pop(msg.get("id"), None)  # type: ignore[arg-type]  (the room is there)
        if msg.get("seek") is not None:  # a pairing: that seek of ours is done
            self.seeks.ended(msg.get("seek"))
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
        fresh = room_from_state(msg, now)
        old = self.rooms.get(fresh.room)
        if old is not None and (old.chat or not fresh.chat):
            fresh.chat = old.chat  # ours has the notices too; a late joiner takes the server's
            if old.game_id == fresh.game_id:
                fresh.changes = old.changes  # a rated game's result: state does not repeat it
            if old.game_no != fresh.game_no and fresh.status == "playing":
                fresh.chat.append(ChatLine("", None, f"Game {fresh.game_no} starts.", True))
        self.rooms[fresh.room] = fresh
        self.resync.discard(fresh.room)
        if self.current is None:
            self.current = fresh.room
        if fresh.status == "over":
            self._archive(fresh.finished())

    def _on_moved(self, msg: Message, now: float) -> None:
        room = self.rooms.get(str(msg.get("room")))
        if room is not None and not apply_moved(room, msg, now):
            self.resync.add(room.room)

    def _on_game_over(self, msg: Message, now: float) -> None:
        room = self.rooms.get(str(msg.get("room")))
        if room is None:
            return
        apply_game_over(room, msg, now)
        self._archive(room.finished())
        if room.changes:
            moves = ", ".join(f"{room.name(c.seat)} {c.label}" for c in room.changes)
            room.chat.append(ChatLine("", None, f"Rated game: {moves}.", True))
        mine = room.change(room.seat) if room.seat is not None else None
        if mine is not None and self.account:  # our own rating moved: the form shows it
            old = self.ratings.get(mine.pool)
            games = old.games + 1 if old is not None else 1
            self.ratings[mine.pool] = Rating(mine.after, 0, mine.provisional, games)

    def _on_rematch_offered(self, msg: Message, now: float) -> None:
        room = self.rooms.get(str(msg.get("room")))
        seat = msg.get("seat")
        if room is None or seat not in (0, 1):
            return
        room.rematch[int(seat)] = True
        who = "You" if seat == room.seat else room.name(int(seat))
        room.chat.append(ChatLine("", None, f"{who} asked for a rematch.", True))

    def _on_offer(self, msg: Message, now: float) -> None:
        room, by = self.rooms.get(str(msg.get("room"))), msg.get("by")
        if room is None or by not in (0, 1) or room.status != "playing":
            return
        kind = str(msg.get("kind"))
        room.acts.offered(kind, int(by), now)
        who = "You" if by == room.seat else room.name(int(by))
        what = KIND_WORDS.get(kind, kind)
        room.chat.append(ChatLine("", None, f"{who} offered {what}.", True))

    def _on_offer_declined(self, msg: Message, now: float) -> None:
        room, by = self.rooms.get(str(msg.get("room"))), msg.get("by")
        if room is None or by not in (0, 1):
            return
        kind = str(msg.get("kind"))
        room.acts.answered(kind, int(by))
        what = KIND_WORDS.get(kind, kind).capitalize()
        room.chat.append(ChatLine("", None, f"{what} was declined.", True))

    def _on_taken_back(self, msg: Message, now: float) -> None:
        room, by = self.rooms.get(str(msg.get("room"))), msg.get("by")
        if room is not None and by in (0, 1):  # the ``state`` that follows redraws the board
            who = "Your" if by == room.seat else f"{room.name(int(by))}'s"
            room.chat.append(ChatLine("", None, f"{who} move was taken back.", True))

    def _on_presence(self, msg: Message, now: float) -> None:
        room, seat = self.rooms.get(str(msg.get("room"))), msg.get("seat")
        if room is None or seat not in (0, 1):
            return
        online = bool(msg.get("online"))
        room.online[int(seat)] = online
        if online:
            room.acts.gone_since.pop(int(seat), None)
        else:
            room.acts.gone_since[int(seat)] = now

    def _on_audience(self, msg: Message, now: float) -> None:
        """How many watch the room changed (the players see it as the spectators do)."""
        room = self.rooms.get(str(msg.get("room")))
        if room is not None:
            room.spectators = count_of(msg.get("spectators"))

    def _on_chosen(self, msg: Message, now: float) -> None:
        room = self.rooms.get(str(msg.get("room")))
        seat, choice = msg.get("seat"), str(msg.get("choice"))
        if room is None or seat not in (0, 1):
            return
        who = "You" if seat == room.seat else room.name(int(seat))
        what = CHOICE_WORDS.get(choice, f"chose {choice}")
        room.chat.append(ChatLine("", None, f"{who} {what}.", True))

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
                guest=msg.get("account") is False,
            )
        )
        del room.chat[:-200]

    def _on_error(self, msg: Message, now: float) -> None:
        code = str(msg.get("code", "internal_error"))
        rid = msg.get("id")
        pairing = rid is not None and rid == self.seeks.subscribe_request
        if self.seeks.failed(rid):
            return
        if isinstance(rid, int) and rid in self.quiet_ids:
            self.quiet_ids.discard(rid)
            if code in ("unknown_type", "no_history") and not pairing:
                self.history_supported = False
            return
        if code == "stale_ply" and self.current:
            self.resync.add(self.current)
        room = self.room
        if code == "game_over" and room is not None and room.status == "over":
            return  # a click that crossed the result on the wire: the board already says so
        probed = self.probes.pop(rid, None) if isinstance(rid, int) else None
        if probed is not None:  # a rejoin after a reconnect: is the room still there?
            room = self.rooms.get(probed)
            if code == "no_such_room" and room is not None:
                room.gone = True
                room.chat.append(ChatLine("", None, GONE_NOTICE, True))
            return
        self.toast(error_text(code, str(msg.get("message", ""))), "error", now)

    # -- history (list_games / get_game; optional on the server) ----------------------------

    def _on_games(self, msg: Message, now: float) -> None:
        self.history_supported = True
        rid = msg.get("id")
        page = isinstance(rid, int) and rid in self.page_ids
        self.page_ids.discard(rid)  # type: ignore[arg-type]
        rows = [r for r in msg.get("games") or () if isinstance(r, dict)]
        fresh = parse_rows(rows)
        self.history = extend_history(self.history, fresh) if page else fresh
        self.history_more = bool(msg.get("more"))
        for row in rows:
            self._archive(record_game(row))

    def _on_game(self, msg: Message, now: float) -> None:
        self.history_supported = True
        game = msg.get("game")
        self._archive(record_game(game if isinstance(game, dict) else msg))

    def _archive(self, game: FinishedGame | None) -> None:
        if game is None:
            return
        old = self.finished.get(game.game_id)
        if old is not None and old.times_ms and not game.times_ms and old.moves == game.moves:
            game = replace(game, times_ms=old.times_ms)  # a later ``state`` says no times
        self.finished[game.game_id] = game

    def lobby_games(self) -> list[LobbyGame]:
        """The lobby's finished games, newest first, each with its moves when they are here."""
        return lobby_list(self.history, self.finished)
