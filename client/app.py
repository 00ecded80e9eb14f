"""The wiring: one App owns the model, the net link and the UI state, and runs frame by frame.

``App.step(events)`` handles whatever the server sent, then the given pygame events, then draws
one frame. It never blocks, so tests (and an end-to-end test against the real server) drive the
client with synthetic events; ``App.run()`` is the real window loop around it.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any, Protocol

import pygame

from client import theme
from client.forms import LobbyForm, create_request
from client.geometry import BoardGeometry
from client.model import Cell, ClientModel, FinishedGame, Message, RoomState
from client.views.board import BoardPicture, board_geometry, draw_board
from client.views.common import draw_confirm, draw_header, draw_offline_banner, draw_toasts
from client.views.lobby import draw_lobby, finished_rows, lobby_layout
from client.views.panel import draw_room_panel
from client.views.replay import draw_replay, room_layout
from client.widgets import Frame, Hotspot, TextInput

ARROWS = {
    pygame.K_LEFT: (-1, 0),
    pygame.K_RIGHT: (1, 0),
    pygame.K_UP: (0, -1),
    pygame.K_DOWN: (0, 1),
}
ENTER = (pygame.K_RETURN, pygame.K_KP_ENTER)
ANY: Any = object()
#: Finished games asked for per ``list_games`` page.
HISTORY_PAGE = 20


class Transport(Protocol):
    """What the app needs from the net layer (``client.net.NetClient`` or a test double)."""

    def send(self, message: Message) -> int:
        """Queue a request; return its id."""
        ...

    def poll(self) -> list[Message]:
        """Messages received since the last call."""
        ...


class App:
    """The client application: scenes lobby / room / replay over one model and one link."""

    def __init__(
        self,
        net: Transport,
        *,
        name: str = "",
        surface: pygame.Surface | None = None,
        size: tuple[int, int] = (1180, 760),
    ) -> None:
        if not pygame.font.get_init():
            pygame.font.init()
        self.net = net
        self.model = ClientModel(name=name)
        self.surface = surface if surface is not None else pygame.Surface(size)
        self.frame = Frame(self.surface)
        self.scene = "lobby"
        self.form = LobbyForm()
        self.code = TextInput(max_len=64)
        self.chat = TextInput(max_len=500)
        self.focus: str | None = None
        self.selected = 0
        self.cursor: Cell | None = None
        self.cursor_visible = False
        self.numbers = False
        self.confirm: str | None = None
        self.replay_key: str | None = None
        self.replay_ply = 0
        self.replay_from = "lobby"
        self.geo: BoardGeometry | None = None
        self.pending_ply: int | None = None
        #: The game id whose ``get_game`` answer opens the replay, and that request's id.
        self.replay_wanted: str | None = None
        self.replay_request: int | None = None
        self.history_scroll = 0
        self.history_page_asked = False
        self.shown_scene = self.scene
        self.running = True
        self.display = False

    # -- the frame ----------------------------------------------------------------------------

    def step(self, events: Iterable[pygame.event.Event] = (), now: float | None = None) -> bool:
        """Apply server messages, handle ``events``, draw one frame; False once the user quit."""
        now = time.monotonic() if now is None else now
        for msg in self.net.poll():
            self.on_message(msg, now)
        for event in events:
            self.handle_event(event)
        if self.scene != self.shown_scene:
            if self.scene == "lobby":
                self.refresh_history()  # back in the lobby: games may have ended meanwhile
            self.shown_scene = self.scene
        self.draw(now)
        return self.running

    def run(self, fps: int = 60) -> None:
        """The real window loop (opens a resizable window and returns when it is closed)."""
        pygame.init()
        pygame.display.set_caption("mnk-arena")
        self.surface = pygame.display.set_mode(self.surface.get_size(), pygame.RESIZABLE)
        self.display = True
        clock = pygame.time.Clock()
        while self.step(pygame.event.get()):
            pygame.display.flip()
            clock.tick(fps)

    def send(self, message: Message) -> int:
        """Send a request to the server (queued; never blocks)."""
        return self.net.send(message)

    def refresh_history(self) -> None:
        """Ask for the newest page of finished games (unless the server keeps no history)."""
        model = self.model
        if model.history_supported is False or model.connection != "online":
            return
        model.quiet_ids.add(self.send({"type": "list_games", "limit": HISTORY_PAGE}))
        self.history_page_asked = False

    def more_history(self) -> None:
        """Ask for the page of finished games after the oldest one listed (once per page)."""
        model = self.model
        if self.history_page_asked or not model.history_more or not model.history:
            return
        before = model.history[-1].ended_at
        if before is None:
            return
        rid = self.send({"type": "list_games", "limit": HISTORY_PAGE, "before": before})
        model.quiet_ids.add(rid)
        model.page_ids.add(rid)
        self.history_page_asked = True

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
        """Feed one server message to the model and follow up (subscriptions, scene changes)."""
        model = self.model
        had_room = model.current
        model.apply(msg, now)
        kind = msg.get("type")
        if kind == "welcome":
            self.replay_wanted = self.replay_request = None  # an answer in flight was lost
            self.send({"type": "list_rooms", "subscribe": True})
            self.refresh_history()
            room = model.room
            if room is not None and room.seat is None:
                self.send({"type": "join_room", "room": room.room, "spectate": True})
        for room_id in sorted(model.resync):
            room = model.rooms.get(room_id)
            spectate = room is not None and room.seat is None
            self.send({"type": "join_room", "room": room_id, "spectate": spectate})
            model.resync.discard(room_id)
        if model.current != had_room or kind == "joined":
            self.pending_ply = None
            self.cursor = None
            self.confirm = None
            if model.current is not None and self.scene == "lobby":
                self.scene = "room"
        if model.current is None and self.scene == "room":
            self.scene = "lobby"
        if kind == "game_over" and str(msg.get("room")) in model.rooms:
            self.refresh_history()  # one of our games ended: the history has a new row
        elif kind == "games":
            self.history_page_asked = False
        elif kind == "game":
            self.on_game_record(msg)
        elif kind == "error" and msg.get("id") == self.replay_request:
            self.replay_wanted = self.replay_request = None

    def on_game_record(self, msg: Message) -> None:
        """A ``get_game`` answer: open its replay if the user asked for it from the lobby."""
        game = msg.get("game")
        game_id = game.get("game_id") if isinstance(game, dict) else None
        if game_id is None or game_id != self.replay_wanted:
            return
        self.replay_wanted = self.replay_request = None
        if self.scene == "lobby" and game_id in self.model.finished:
            self.do_replay(game_id)

    # -- events ---------------------------------------------------------------------------------

    def handle_event(self, event: pygame.event.Event) -> None:
        """Handle one pygame event (keyboard, mouse, text input, resize, quit)."""
        if event.type == pygame.QUIT:
            self.running = False
        elif event.type == pygame.VIDEORESIZE:
            if self.display:
                self.surface = pygame.display.get_surface()
            else:
                self.surface = pygame.Surface((max(320, event.w), max(240, event.h)))
        elif event.type == pygame.MOUSEMOTION:
            self.frame.mouse = event.pos
            self.cursor_visible = False
        elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            self.frame.mouse = event.pos
            self.click(event.pos)
        elif event.type == pygame.MOUSEWHEEL and self.scene == "replay":
            self.replay_step(-event.y)
        elif event.type == pygame.MOUSEWHEEL and self.scene == "lobby":
            if lobby_layout(self.surface.get_size())["finished"].collidepoint(self.frame.mouse):
                self.scroll_history(-event.y)
        elif event.type in (pygame.KEYDOWN, pygame.TEXTINPUT):
            self.key(event)

    def click(self, pos: tuple[int, int]) -> None:
        """A left click: a button or input under the pointer, else a board cell."""
        spot = self.frame.hit(pos)
        if spot is not None:
            if spot.action not in ("focus_chat", "focus_code"):
                self.focus = None
            self.act(spot.action, spot.arg, pos)
            return
        self.focus = None
        if self.scene == "room" and self.geo is not None and self.confirm is None:
            cell = self.geo.cell_at(*pos)
            if cell is not None:
                self.cursor = cell
                self.play(cell)

    def key(self, event: pygame.event.Event) -> None:
        """Keyboard and text input, routed to the focused input, a dialog or the scene."""
        down = event.type == pygame.KEYDOWN
        if self.confirm is not None:
            if down and (event.key in ENTER or event.key == pygame.K_y):
                self.act(self.confirm, None)
            elif down and event.key in (pygame.K_ESCAPE, pygame.K_n):
                self.confirm = None
            return
        field = {"chat": self.chat, "code": self.code}.get(self.focus or "")
        if field is not None:
            if down and event.key == pygame.K_TAB:
                self.focus = None
                return
            result = field.feed(event)
            if result == "cancel":
                self.focus = None
            elif result == "submit":
                self.act("send_chat" if self.focus == "chat" else "join_code", None)
            return
        if not down:
            return
        handler = {"lobby": self.lobby_key, "room": self.room_key, "replay": self.replay_key_press}
        handler[self.scene](event.key)

    def lobby_key(self, key: int) -> None:
        """Lobby keys: ↑↓ pick a room, J join, W watch, Enter create, Tab type a code."""
        rows = self.model.lobby
        if key in (pygame.K_UP, pygame.K_DOWN) and rows:
            self.selected = max(
                0, min(len(rows) - 1, self.selected + (1 if key == pygame.K_DOWN else -1))
            )
        elif key in (pygame.K_j, pygame.K_w) and rows:
            room = rows[min(self.selected, len(rows) - 1)].room
            self.act("join" if key == pygame.K_j else "watch", room)
        elif key in ENTER:
            self.act("create", None)
        elif key == pygame.K_TAB:
            self.focus = "code"

    def room_key(self, key: int) -> None:
        """Room keys: arrows + Enter/Space play, R resign, N numbers, Esc leave, Tab chat."""
        room = self.model.room
        if key == pygame.K_TAB:
            self.focus = "chat"
        elif key == pygame.K_n:
            self.numbers = not self.numbers
        elif key == pygame.K_ESCAPE:
            self.act("leave", None)
        elif room is None:
            return
        elif key in ARROWS:
            dx, dy = ARROWS[key]
            x, y = self.cursor or (room.game.width // 2, room.game.height // 2)
            if self.cursor_visible or self.cursor is not None:
                x = max(0, min(room.game.width - 1, x + dx))
                y = max(0, min(room.game.height - 1, y + dy))
            self.cursor = (x, y)
            self.cursor_visible = True
        elif key in (*ENTER, pygame.K_SPACE) and self.cursor is not None:
            self.play(self.cursor)
        elif key == pygame.K_r:
            self.act("resign", None)

    def replay_key_press(self, key: int) -> None:
        """Replay keys: ←/→ step, Home/End jump, N numbers, Esc back."""
        steps = {pygame.K_LEFT: -1, pygame.K_RIGHT: 1, pygame.K_UP: -1, pygame.K_DOWN: 1}
        if key in steps:
            self.replay_step(steps[key])
        elif key == pygame.K_HOME:
            self.replay_ply = 0
        elif key == pygame.K_END:
            self.act("replay_to", -1)
        elif key == pygame.K_n:
            self.numbers = not self.numbers
        elif key in (pygame.K_ESCAPE, pygame.K_BACKSPACE):
            self.act("replay_back", None)

    # -- actions ----------------------------------------------------------------------------------

    def act(self, action: str, arg: Any, pos: tuple[int, int] | None = None) -> None:
        """Do what a button (or its key) stands for."""
        method = getattr(self, "do_" + action, None)
        if method is not None:
            method(arg, pos)

    def play(self, cell: Cell) -> None:
        """Send a move at ``cell`` when it is our turn; the board changes only on ``moved``."""
        room = self.model.room
        if room is None or room.seat is None:
            return
        if room.status != "playing":
            if room.status == "waiting":
                self.model.toast("Waiting for an opponent to join.", "info")
            return
        if not room.my_turn:
            self.model.toast("It is not your turn.", "info")
            return
        if cell in room.stones or self.pending_ply == room.ply:
            return
        self.pending_ply = room.ply
        self.send({"type": "move", "room": room.room, "x": cell[0], "y": cell[1], "ply": room.ply})

    def do_room_click(self, room: str, pos: Any) -> None:
        """Select a row; clicking the selected row again joins (or watches) it."""
        for i, row in enumerate(self.model.lobby):
            if row.room == room:
                if self.selected == i:
                    self.act("join" if row.status == "waiting" else "watch", room)
                self.selected = i

    def do_join(self, room: str, pos: Any = None) -> None:
        """Take the free seat of ``room``."""
        self.send({"type": "join_room", "room": room})

    def do_watch(self, room: str, pos: Any = None) -> None:
        """Spectate ``room``."""
        self.send({"type": "join_room", "room": room, "spectate": True})

    def do_join_code(self, arg: Any, pos: Any = None) -> None:
        """Join the room whose code was typed."""
        code = self.code.text.strip()
        if code:
            self.do_join(code)
            self.code.text = ""
            self.focus = None

    def do_watch_code(self, arg: Any, pos: Any = None) -> None:
        """Watch the room whose code was typed."""
        code = self.code.text.strip()
        if code:
            self.do_watch(code)
            self.code.text = ""
            self.focus = None

    def do_focus_code(self, arg: Any, pos: Any = None) -> None:
        """Start typing a room code."""
        self.focus = "code"

    def do_focus_chat(self, arg: Any, pos: Any = None) -> None:
        """Start typing in the chat."""
        self.focus = "chat"

    def do_create(self, arg: Any, pos: Any = None) -> None:
        """Create a room from the "new game" form."""
        self.send(create_request(self.form))

    def do_form_game(self, game: str, pos: Any = None) -> None:
        """Pick the game in the form."""
        self.form.game = game

    def do_form_opponent(self, opponent: str, pos: Any = None) -> None:
        """Pick bot or human."""
        self.form.opponent = opponent

    def do_form_seat(self, seat: int | None, pos: Any = None) -> None:
        """Pick a colour (None: random)."""
        self.form.seat = seat

    def do_form_clock(self, index: int, pos: Any = None) -> None:
        """Pick a clock preset."""
        self.form.clock = index

    def do_form_exact(self, arg: Any, pos: Any = None) -> None:
        """Toggle exactly-k for a custom game."""
        self.form.exact = not self.form.exact

    def do_form_step(self, arg: tuple[str, int], pos: Any = None) -> None:
        """Change a number in the form."""
        self.form.step(*arg)

    def do_send_chat(self, arg: Any, pos: Any = None) -> None:
        """Send the chat line (if any) to the room."""
        room, text = self.model.room, self.chat.text.strip()
        if room is not None and text:
            self.send({"type": "chat", "room": room.room, "text": text[:500]})
            self.chat.text = ""

    def do_resign(self, arg: Any, pos: Any = None) -> None:
        """Ask to confirm, then resign."""
        room = self.model.room
        if room is None or room.seat is None or room.status != "playing":
            return
        if self.confirm != "resign":
            self.confirm = "resign"
            return
        self.confirm = None
        self.send({"type": "resign", "room": room.room})

    def do_leave(self, arg: Any, pos: Any = None) -> None:
        """Leave the room (confirming first when that resigns a game in progress)."""
        room = self.model.room
        if (
            room is not None
            and room.seat is not None
            and room.status == "playing"
            and self.confirm != "leave"
        ):
            self.confirm = "leave"
            return
        self.confirm = None
        if self.model.current is not None:
            self.send({"type": "leave_room", "room": self.model.current})
            self.model.leave(self.model.current)
        self.scene = "lobby"
        self.focus = None

    def do_confirm_no(self, arg: Any, pos: Any = None) -> None:
        """Close the confirm dialog."""
        self.confirm = None

    def do_rematch(self, arg: Any, pos: Any = None) -> None:
        """Offer (or accept) a rematch."""
        room = self.model.room
        if room is not None and room.seat is not None and not room.rematch[room.seat]:
            self.send({"type": "rematch", "room": room.room})

    def scroll_history(self, delta: int) -> None:
        """Scroll the lobby's finished games by ``delta`` rows (fetching more at the end)."""
        rows = finished_rows(self.surface.get_size())
        last = max(0, len(self.model.lobby_games()) - rows)
        self.history_scroll = max(0, min(last, self.history_scroll + delta))
        if delta > 0 and self.history_scroll >= last:
            self.more_history()

    def do_replay(self, key: str, pos: Any = None) -> None:
        """Open a finished game in the replay scene at its last move.

        ``key`` is a key of ``model.finished`` or a server game id; a game whose moves are not
        here yet is fetched with ``get_game`` and opened when the answer arrives.
        """
        found = self.model.replay_key(key)
        game = self.model.finished.get(found) if found is not None else None
        if game is None:
            if any(h.game_id == key for h in self.model.history) and self.replay_wanted != key:
                self.replay_wanted = key
                self.replay_request = self.send({"type": "get_game", "game_id": key})
            return
        key = game.key
        self.replay_from = self.scene if self.scene != "replay" else self.replay_from
        self.replay_key, self.replay_ply, self.scene, self.focus = (
            key,
            len(game.moves),
            "replay",
            None,
        )

    def do_replay_current(self, arg: Any, pos: Any = None) -> None:
        """Replay the finished game of the current room."""
        room = self.model.room
        if room is not None:
            self.do_replay(f"{room.room}#{room.game_no}")

    def do_replay_step(self, delta: int, pos: Any = None) -> None:
        """Step the replay by ``delta`` moves."""
        self.replay_step(delta)

    def do_replay_to(self, ply: int, pos: Any = None) -> None:
        """Jump to ``ply`` (-1: the end)."""
        game = self.replay_game
        if game is not None:
            self.replay_ply = len(game.moves) if ply < 0 else min(ply, len(game.moves))

    def do_replay_seek(self, bar: pygame.Rect, pos: tuple[int, int] | None) -> None:
        """Jump to the ply under the pointer on the progress bar."""
        game = self.replay_game
        if game is not None and pos is not None and bar.w:
            frac = min(1.0, max(0.0, (pos[0] - bar.x) / bar.w))
            self.replay_ply = round(frac * len(game.moves))

    def do_replay_back(self, arg: Any, pos: Any = None) -> None:
        """Leave the replay for where it was opened from."""
        self.scene = "room" if self.replay_from == "room" and self.model.room else "lobby"

    @property
    def replay_game(self) -> FinishedGame | None:
        """The game being replayed."""
        return self.model.finished.get(self.replay_key or "")

    def replay_step(self, delta: int) -> None:
        """Move the replay by ``delta`` plies, within the game."""
        game = self.replay_game
        if game is not None:
            self.replay_ply = max(0, min(len(game.moves), self.replay_ply + delta))

    # -- drawing ----------------------------------------------------------------------------------

    def draw(self, now: float) -> None:
        """Draw the current scene, the banner, toasts and any dialog."""
        surf = self.surface
        mouse = self.frame.mouse
        self.frame = Frame(surf, mouse)
        surf.fill(theme.BG)
        self.geo = None
        room = self.model.room
        if self.scene == "replay" and self.replay_game is not None:
            draw_header(self.frame, self.model, "replay")
            draw_replay(self.frame, self.replay_game, self.replay_ply, self.numbers)
        elif self.scene == "room" and room is not None:
            draw_header(self.frame, self.model, room.game.title)
            self.draw_room(room, now)
        elif self.scene == "room":
            draw_header(self.frame, self.model)
            theme.text(surf, "Joining…", surf.get_rect().center, 20, theme.MUTED, anchor="center")
        else:
            self.scene = "lobby"
            draw_header(self.frame, self.model, "lobby")
            draw_lobby(
                self.frame,
                self.model,
                self.form,
                self.code,
                self.focus == "code",
                self.selected,
                self.history_scroll,
                self.replay_wanted,
            )
        draw_offline_banner(self.frame, self.model)
        if self.confirm == "resign":
            draw_confirm(self.frame, "Resign this game?", "Resign", "resign")
        elif self.confirm == "leave":
            draw_confirm(self.frame, "Leave and resign this game?", "Leave", "leave")
        draw_toasts(self.frame, self.model.live_toasts(now))

    def draw_room(self, room: RoomState, now: float) -> None:
        """The board with hover, cursor and winning line, and the side panel."""
        board_area, side = room_layout(self.surface.get_size())
        self.geo = geo = board_geometry(room.game, board_area)
        hover = None
        if room.my_turn and self.confirm is None and self.pending_ply != room.ply:
            hover = self.cursor if self.cursor_visible else geo.cell_at(*self.frame.mouse)
        picture = BoardPicture(
            game=room.game,
            moves=room.moves,
            line=room.result.line if room.result else (),
            hover=hover,
            hover_seat=room.seat,
            cursor=self.cursor if self.cursor_visible else None,
            numbers=self.numbers,
        )
        draw_board(self.surface, geo, picture)
        draw_room_panel(self.frame, side, room, now, self.chat, self.focus == "chat")
