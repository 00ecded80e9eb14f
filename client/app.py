"""The wiring: one App owns the model, the net link and the UI state, and runs frame by frame.

``App.step(events)`` handles whatever the server sent, then the given pygame events, then draws
one frame. It never blocks, so tests (and an end-to-end test against the real server) drive the
client with synthetic events; ``App.run()`` is the real window loop around it. Input handling
is in client/controls.py and what buttons do in client/actions.py and the ``*_actions.py``
modules beside it (a room's play, the new-game form, replays, accounts, pairing, analysis,
tournaments).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from typing import Any

import pygame

from client import theme
from client.account_actions import AccountActions, AuthForm, BoardChoice
from client.actions import Transport
from client.analysis_actions import AnalysisActions
from client.controls import Controls
from client.forms import LobbyForm
from client.geometry import BoardGeometry
from client.model import ClientModel
from client.pairing_actions import PairingActions
from client.room import RoomState
from client.seeks import PairingChoice
from client.settings import Settings
from client.tournament_actions import TournamentActions
from client.values import Cell, Message
from client.views.account import draw_auth
from client.views.analysis import draw_analysis, draw_line
from client.views.board import BoardPicture, board_geometry, draw_board
from client.views.common import draw_confirm, draw_header, draw_offline_banner, draw_toasts
from client.views.lobby import draw_lobby
from client.views.panel import draw_room_panel
from client.views.ratings import draw_leaderboard, draw_profile
from client.views.replay import draw_replay, room_layout
from client.views.study import draw_study
from client.views.tournaments import draw_tournaments
from client.widgets import Frame, Hotspot, TextInput

ANY: Any = object()
#: How long an idle window loop sleeps before it looks at input and the network again.
WAKE_S = 0.02
#: Seconds between two ``list_bots`` while the lobby is on screen: bots come and go, and the
#: server pushes no news of them (one small request; the rooms list is pushed).
BOTS_REFRESH_S = 5.0
#: The window's first size: fits a 1366x768 laptop screen with a title bar and a task bar.
DEFAULT_SIZE = (1200, 680)
#: The confirm dialogs: the question and its button, by what is to be confirmed.
CONFIRMS = {
    "resign": ("Resign this game?", "Resign"),
    "leave": ("Leave and resign this game?", "Leave"),
    "quit": ("Quit mnk-arena?", "Quit"),
}

log = logging.getLogger("mnk.client")


class App(Controls, AccountActions, PairingActions, AnalysisActions, TournamentActions):
    """The client application: scenes login / lobby / room / replay / leaderboard / profile
    over one model and one link."""

    def __init__(
        self,
        net: Transport,
        *,
        name: str = "",
        surface: pygame.Surface | None = None,
        size: tuple[int, int] = DEFAULT_SIZE,
        scene: str = "lobby",
        settings: Settings | None = None,
        resuming: bool = False,
    ) -> None:
        """``scene`` "login" opens on the start screen (no choice remembered yet); ``resuming``
        says the net resumes a remembered account session (if the server no longer takes it,
        the start screen comes back); ``settings`` is where choices are remembered."""
        if not pygame.font.get_init():
            pygame.font.init()
        self.net = net
        self.model = ClientModel(name=name)
        self.surface = surface if surface is not None else pygame.Surface(size)
        self.frame = Frame(self.surface)
        self.scene = scene
        self.settings = settings if settings is not None else Settings(None)
        self.resuming = resuming
        self.focus: str | None = None
        self.confirm: str | None = None
        self.init_accounts(name if scene == "login" else "")
        self.init_lobby()
        self.init_room()
        self.init_replay()
        self.shown_scene = self.scene
        self.running = True
        self.display = False
        #: Whether the last step drew a frame, and when the next one is due without news.
        self.drawn = False
        self.redraw_at = 0.0
        self.init_analysis()

    def init_accounts(self, name: str) -> None:
        """The start screen's form (``name`` in its name box), the leaderboard and profiles."""
        self.auth = AuthForm()
        self.auth.name.text = name
        self.board = BoardChoice()
        self.board_scroll = 0
        self.back_to = "lobby"
        self.profile_pool: str | None = None
        #: The name whose profile was asked for last (shown while it loads).
        self.profile_name = ""
        self.profile_pages: list[tuple[float, str]] = []

    def init_lobby(self) -> None:
        """The lobby's forms, text boxes, selected row and history page."""
        self.form = LobbyForm()
        #: The lobby's pairing panel: its tab, the tiles' game and the custom seek form.
        self.pairing = PairingChoice()
        self.code = TextInput(max_len=64)
        #: A server address being typed (the lobby's "Connect").
        self.server_field = TextInput(max_len=200)
        #: Another name being typed (a click on the name in the header, or a refused name).
        self.name_field = TextInput(max_len=32)
        self.selected = 0
        self.history_scroll = 0
        self.history_page_asked = False
        #: When the bots online were last asked for.
        self.bots_asked = 0.0

    def init_room(self) -> None:
        """A room's chat box, board cursor and move in flight."""
        self.chat = TextInput(max_len=500)
        self.cursor: Cell | None = None
        self.cursor_visible = False
        self.numbers = False
        self.geo: BoardGeometry | None = None
        #: The ply our last ``move`` was sent at (no second move while it is unanswered), and
        #: that request's id (an ``error`` for it frees the board again).
        self.pending_ply: int | None = None
        self.move_request: int | None = None

    def init_replay(self) -> None:
        """The game replayed, its ply, where it was opened from, and one being fetched."""
        self.replay_key: str | None = None
        self.replay_ply = 0
        self.replay_from = "lobby"
        #: The game id whose ``get_game`` answer opens the replay, and that request's id.
        self.replay_wanted: str | None = None
        self.replay_request: int | None = None

    # -- the frame ----------------------------------------------------------------------------

    def step(
        self,
        events: Iterable[pygame.event.Event] = (),
        now: float | None = None,
        lazy: bool = False,
    ) -> bool:
        """Apply server messages, handle ``events``, draw one frame; False once the user quit.

        ``lazy`` (the window loop) skips the drawing when nothing came in and nothing on screen
        moves on its own yet (:meth:`next_draw`); :attr:`drawn` says whether it drew.
        """
        now = time.monotonic() if now is None else now
        messages = self.net.poll()
        for msg in messages:
            try:
                self.on_message(msg, now)
            except Exception as exc:
                self.on_bad_message(msg, exc)
        events = list(events)
        for event in events:
            self.handle_event(event)
        self.tick_analysis(now)
        online = self.model.connection == "online"
        if self.scene == "lobby" and online and now - self.bots_asked >= BOTS_REFRESH_S:
            self.bots_asked = now
            self.ask_bots()
        if not self.running or (self.scene != self.shown_scene and self.shown_scene == "lobby"):
            self.cancel_seeks()  # our seeks live while the lobby is on screen
        if self.scene != self.shown_scene:
            if self.scene == "lobby":
                self.refresh_history()  # back in the lobby: games may have ended meanwhile
            self.shown_scene = self.scene
        self.drawn = not lazy or bool(messages or events) or now >= self.redraw_at
        if self.drawn:
            self.draw(now)
            self.redraw_at = now + self.redraw_interval()
        return self.running

    def redraw_interval(self) -> float:
        """How long the screen stays right without news: a running clock shows tenths."""
        room = self.model.room
        clocks = room.clocks if self.scene == "room" and room is not None else None
        if clocks is not None and clocks.running is not None:
            return 0.1
        if (
            self.scene == "room"
            and room is not None
            and room.thinking(time.monotonic()) is not None
        ):
            return 0.5  # the bot's thinking indicator counts the seconds
        if self.scene == "lobby" and self.model.seeks.mine:
            return 0.5  # a seek waiting counts the seconds
        return 0.5 if self.model.toasts else 5.0  # toasts expire; else nothing moves by itself

    def run(self, fps: int = 60) -> None:
        """The real window loop (opens a resizable window and returns when it is closed).

        When nothing happened it sleeps :data:`WAKE_S` before looking at input and the network
        again, and it draws only when something changed, so an idle client costs next to no
        CPU; ``fps`` caps the frame rate while things do change.
        """
        pygame.display.init()  # not pygame.init(): that opens the mixer (no sound here)
        pygame.font.init()
        pygame.display.set_caption(self.title())
        self.surface = pygame.display.set_mode(self.surface.get_size(), pygame.RESIZABLE)
        self.display = True
        clock = pygame.time.Clock()
        while True:
            events = pygame.event.get()
            if not self.step(events, lazy=True):
                return
            if self.drawn:
                pygame.display.set_caption(self.title())
                pygame.display.flip()
                clock.tick(fps)
            elif not events:
                time.sleep(WAKE_S)  # not pygame.event.wait: some SDL drivers poll inside it

    def title(self) -> str:
        """The window's title: what is on screen, who we are and where (many windows differ)."""
        room = self.model.room
        if self.scene == "room" and room is not None:
            what = f"{room.game.title}: {room.name(0)} vs {room.name(1)}"
        else:
            words = {"login": "sign in", "profile": f"{self.profile_name}'s profile"}
            what = words.get(self.scene, self.scene if self.scene != "room" else "lobby")
        server = str(getattr(self.net, "url", "")).removeprefix("ws://").removeprefix("wss://")
        who = f"{self.model.name} @ {server}" if server else self.model.name
        return f"{what} — {who} — mnk-arena"

    def hotspot(self, action: str, arg: Any = ANY) -> Hotspot | None:
        """The clickable area of ``action`` (and ``arg``) in the last frame, for tests and tools."""
        for spot in self.frame.hotspots:
            if spot.action == action and (arg is ANY or spot.arg == arg):
                return spot
        return None

    def cell_pixel(self, x: int, y: int) -> tuple[int, int] | None:
        """The pixel at the centre of board cell (x, y) in the last frame, if a board is shown."""
        return self.geo.center(x, y) if self.geo is not None else None

    # -- server messages ------------------------------------------------------------------------

    def on_message(self, msg: Message, now: float) -> None:
        """Feed one server message to the model and follow up: its kind's first handler, the
        rooms the model now holds (resyncs, scene), then its kind's last handler."""
        model = self.model
        had_room = model.current
        was_account = model.account or self.resuming
        if self.on_analysis_message(msg, now):
            return  # an answer (or a refusal) of an ``analyse`` of ours
        model.apply(msg, now)
        kind = str(msg.get("type"))
        if kind == "welcome":
            self.on_welcome(msg, was_account)
        first = self.first_handlers().get(kind)
        if first is not None:
            first(msg)
        self.send_resyncs()
        self.follow_rooms(had_room, kind)
        last = self.last_handlers().get(kind)
        if last is not None:
            last(msg)

    def first_handlers(self) -> dict[str, Callable[[Message], None]]:
        """What a message of each kind does before the rooms are followed: accounts, the link."""
        return {
            "logged_in": self.on_player_changed,
            "logged_out": self.on_player_changed,
            "password_changed": self.on_auth_reply,
            "error": self.on_auth_reply,
            "_net": self.on_link,
        }

    def last_handlers(self) -> dict[str, Callable[[Message], None]]:
        """What a message of each kind does once the rooms are followed: pairing, tournaments,
        the history, a replay asked for, a move in flight."""
        return {
            "seeking": self.on_seeking,
            "tournaments": lambda msg: self.on_tournament_list(),
            "game_over": self.on_game_over,
            "games": self.on_history_page,
            "game": self.on_game_record,
            "state": self.on_state,
            "error": self.on_refusal,
        }

    def on_link(self, msg: Message) -> None:
        """The link's news (``_net``): a login whose answer may be lost, a refused name."""
        if msg.get("status") != "online" and self.auth.pending is not None:
            self.auth.pending = None  # its answer may never come: let the user try again
            self.auth.error = "The connection dropped before the server answered: try again."
        if self.model.refused:  # e.g. a bot's name: let the player type another
            self.focus = "name"
            self.name_field.text = ""

    def on_welcome(self, msg: Message, was_account: bool) -> None:
        """(Re)connected: the forms' clocks, the session, and every subscription anew."""
        model = self.model
        self.resuming = False
        seek = self.pairing.form
        seek.offer(msg.get("seek_form"))  # the clocks every form offers
        self.form.offer_clocks(seek.clocks, seek.clock_texts, seek.start)
        if was_account and not model.account:
            self.on_session_lost()
        elif model.account:
            self.remember_session(msg.get("session"))
        self.replay_wanted = self.replay_request = None  # an answer in flight was lost
        self.pending_ply = self.move_request = None  # so was a move without its answer
        self.subscribe_lobby()
        self.rewatch_tournament()
        room = model.room
        if room is not None and room.seat is None:
            self.send({"type": "join_room", "room": room.room, "spectate": True})
        elif room is not None and room.status == "over" and not room.gone:
            # a finished room may not have survived a server restart: ask, quietly
            rid = self.send({"type": "join_room", "room": room.room})
            model.probes[rid] = room.room

    def on_player_changed(self, msg: Message) -> None:
        """Logged in or out: another player now, so the lobby anew."""
        self.on_auth_reply(msg)
        self.subscribe_lobby()

    def subscribe_lobby(self) -> None:
        """Ask for the rooms (pushed from now on), the seeks, the bots and the history."""
        self.send({"type": "list_rooms", "subscribe": True})
        self.subscribe_seeks()
        self.ask_bots()
        self.refresh_history()

    def follow_rooms(self, had_room: str | None, kind: str) -> None:
        """Into the room the model now shows (a new one forgets the cursor, a move in flight
        and a dialog), or back to the lobby when there is none."""
        model = self.model
        if model.current != had_room or kind == "joined":
            self.pending_ply = self.move_request = None
            self.cursor = None
            self.confirm = None
            away = ("lobby", "leaderboard", "profile", "tournaments")
            if model.current is not None and self.scene in away:
                self.scene = "room"
        if model.current is None and self.scene == "room":
            self.scene = "lobby"

    def on_game_over(self, msg: Message) -> None:
        """One of our games ended: the history has a new row."""
        if str(msg.get("room")) in self.model.rooms:
            self.refresh_history()

    def on_history_page(self, msg: Message) -> None:
        """A page of finished games came: the next may be asked for."""
        self.history_page_asked = False

    def on_state(self, msg: Message) -> None:
        """The current room's whole state: the board as the server has it now."""
        current = self.model.current
        if current is not None and msg.get("room") == current:
            self.pending_ply = self.move_request = None

    def on_refusal(self, msg: Message) -> None:
        """An ``error`` for a request of ours: a replay fetch or a move, refused or lost."""
        if msg.get("id") is None:
            return
        if msg.get("id") == self.replay_request:
            self.replay_wanted = self.replay_request = None
        if msg.get("id") == self.move_request:
            self.pending_ply = self.move_request = None  # refused or lost: try again

    def on_bad_message(self, msg: Any, exc: Exception) -> None:
        """A message the client could not apply: log and drop it, and rebuild its room.

        The model is updated only once a message has been read in full, so dropping one leaves
        it as it was; the room it was about (if we are in it) is asked for again, and the
        ``state`` that answers replaces it. A bad ``state`` is not asked for again (that would
        ask the server for the same ``state`` over and over): the room stays as it was.
        """
        log.warning("dropped a server message (%s: %s): %.200r", type(exc).__name__, exc, msg)
        room = msg.get("room") if isinstance(msg, dict) else None
        kind = msg.get("type") if isinstance(msg, dict) else None
        if isinstance(room, str) and room in self.model.rooms and kind != "state":
            self.model.resync.add(room)
        try:
            self.send_resyncs()
        except Exception:  # pragma: no cover - the transport itself failed; nothing to redo
            log.warning("could not ask for a fresh state", exc_info=True)

    def send_resyncs(self) -> None:
        """Rejoin every room whose board drifted from the server's, to get a fresh ``state``."""
        model = self.model
        for room_id in sorted(model.resync):
            room = model.rooms.get(room_id)
            spectate = room is not None and room.seat is None
            self.send({"type": "join_room", "room": room_id, "spectate": spectate})
            model.resync.discard(room_id)

    def on_game_record(self, msg: Message) -> None:
        """A ``get_game`` answer: open its replay if the user asked for it from the lobby."""
        game = msg.get("game")
        game_id = game.get("game_id") if isinstance(game, dict) else None
        if game_id is None or game_id != self.replay_wanted:
            return
        self.replay_wanted = self.replay_request = None
        if self.scene in ("lobby", "profile") and game_id in self.model.finished:
            self.do_replay(game_id)

    # -- drawing ----------------------------------------------------------------------------------

    def draw(self, now: float) -> None:
        """Draw the current scene, the banner, toasts and any dialog."""
        surf = self.surface
        mouse = self.frame.mouse
        self.frame = Frame(surf, mouse)
        surf.fill(theme.BG)
        self.geo = None
        self.draw_scene(now)
        draw_offline_banner(self.frame, self.model)
        if self.confirm in CONFIRMS:
            question, button = CONFIRMS[self.confirm]
            draw_confirm(self.frame, question, button, self.confirm)
        draw_toasts(self.frame, self.model.live_toasts(now))

    def draw_scene(self, now: float) -> None:
        """The header and the current scene (the lobby when it has nothing to show)."""
        surf = self.surface
        room = self.model.room
        if self.scene == "replay" and self.replay_game is not None:
            draw_header(self.frame, self.model, "replay", self.typing_name)
            draw_replay(self.frame, self.replay_game, self.replay_ply, self.numbers)
        elif self.scene == "analysis" and self.replay_game is not None:
            draw_header(self.frame, self.model, "analysis", self.typing_name)
            game, walk = self.replay_game, self.walk
            walk = walk if walk is not None and walk.game.game_id == game.game_id else None
            self.geo = draw_analysis(self.frame, game, self.replay_ply, walk, self.numbers)
        elif self.scene == "study":
            draw_header(self.frame, self.model, "analysis board", self.typing_name)
            waiting = self.analyst.busy_with("board")
            self.geo = draw_study(self.frame, self.study, self.numbers, waiting)
        elif self.scene == "room" and room is not None:
            draw_header(self.frame, self.model, room.game.title, self.typing_name)
            self.draw_room(room, now)
        elif self.scene == "room":
            draw_header(self.frame, self.model, "", self.typing_name)
            theme.text(surf, "Joining…", surf.get_rect().center, 20, theme.MUTED, anchor="center")
        elif self.scene == "login":
            draw_header(self.frame, self.model, "sign in", menus=False)
            online = self.model.connection == "online"
            draw_auth(self.frame, self.auth, self.focus, self.model.name, online)
        elif self.scene == "leaderboard":
            draw_header(self.frame, self.model, "leaderboard", self.typing_name)
            draw_leaderboard(self.frame, self.board, self.shown_board(), self.board_scroll)
        elif self.scene == "tournaments":
            draw_header(self.frame, self.model, "tournaments", self.typing_name)
            online = self.model.connection == "online"
            me = self.model.player
            draw_tournaments(self.frame, self.model.tournaments, me, time.time(), online)
        elif self.scene == "profile":
            draw_header(self.frame, self.model, "profile", self.typing_name)
            profile, name, pool = self.model.profile, self.profile_name, self.profile_pool
            paged = bool(self.profile_pages)
            draw_profile(self.frame, profile, name, pool, self.replay_wanted, paged)
        else:
            self.scene = "lobby"
            draw_header(self.frame, self.model, "lobby", self.typing_name)
            self.draw_lobby_scene(now)

    def draw_lobby_scene(self, now: float) -> None:
        """The lobby: the rooms, the forms and boxes, the history, the pairing panel."""
        draw_lobby(
            self.frame,
            self.model,
            self.form,
            self.code,
            self.server_field,
            self.focus,
            self.selected,
            self.history_scroll,
            self.replay_wanted,
            str(getattr(self.net, "url", "")),
            self.pairing,
            now,
        )

    @property
    def typing_name(self) -> TextInput | None:
        """The name box while the player types another name, else None."""
        return self.name_field if self.focus == "name" else None

    def draw_room(self, room: RoomState, now: float) -> None:
        """The board with hover, cursor and winning line, and the side panel."""
        board_area, side = room_layout(self.surface.get_size())
        self.geo = geo = board_geometry(room.game, board_area)
        hover = None
        online = self.model.connection == "online"
        if room.my_turn and online and self.confirm is None and self.pending_ply != room.ply:
            hover = self.cursor if self.cursor_visible else geo.cell_at(*self.frame.mouse)
        picture = BoardPicture(
            game=room.game,
            moves=room.moves,
            line=room.result.line if room.result else (),
            hover=hover,
            hover_seat=room.colour_of(room.seat) if room.seat is not None else None,
            cursor=self.cursor if self.cursor_visible else None,
            numbers=self.numbers,
            forbidden=room.forbidden,
            setup=room.setup,
            first=room.first,
        )
        draw_board(self.surface, geo, picture)
        hint = self.shown_hint()
        if hint is not None:
            taken = set(room.stones)
            draw_line(self.surface, geo, hint.best, taken, info=room.game, first=hint.to_move)
        live = self.model.connection == "online"
        asked = self.analyst.busy_with("hint")
        panel = (self.chat, self.focus == "chat", live, hint, asked)
        draw_room_panel(self.frame, side, room, now, *panel)
