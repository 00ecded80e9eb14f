"""Keyboard and mouse: pygame events routed to the focused input, a dialog or the scene."""

from __future__ import annotations

from collections.abc import Callable

import pygame

from client.account_actions import AuthForm
from client.actions import Actions
from client.geometry import BoardGeometry
from client.ratings import Leaderboard
from client.values import Cell
from client.views.lobby import lobby_layout
from client.views.ratings import leaderboard_rows
from client.widgets import Frame

ARROWS = {
    pygame.K_LEFT: (-1, 0),
    pygame.K_RIGHT: (1, 0),
    pygame.K_UP: (0, -1),
    pygame.K_DOWN: (0, 1),
}
ENTER = (pygame.K_RETURN, pygame.K_KP_ENTER)


class Controls(Actions):
    """The App's input handling (a mixin of :class:`client.app.App`), turning events into acts."""

    cursor: Cell | None
    cursor_visible: bool
    geo: BoardGeometry | None
    frame: Frame
    numbers: bool
    running: bool
    display: bool
    auth: AuthForm
    board_scroll: int
    shown_board: Callable[[], Leaderboard | None]  # AccountActions.shown_board
    study_click: Callable[[Cell], None]  # AnalysisActions.study_click
    auth_tab: Callable[[], None]  # AccountActions.auth_tab

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
        elif event.type == pygame.MOUSEWHEEL and self.scene in ("replay", "analysis"):
            self.replay_step(-event.y)
        elif event.type == pygame.MOUSEWHEEL and self.scene == "leaderboard":
            self.scroll_board(-event.y)
        elif event.type == pygame.MOUSEWHEEL and self.scene == "lobby":
            if lobby_layout(self.surface.get_size())["finished"].collidepoint(self.frame.mouse):
                self.scroll_history(-event.y)
        elif event.type in (pygame.KEYDOWN, pygame.TEXTINPUT):
            self.key(event)

    def click(self, pos: tuple[int, int]) -> None:
        """A left click: a button or input under the pointer, else a board cell."""
        spot = self.frame.hit(pos)
        if spot is not None:
            if not spot.action.startswith("focus_"):
                self.focus = None
            self.act(spot.action, spot.arg, pos)
            return
        self.focus = None
        if self.scene == "room" and self.geo is not None and self.confirm is None:
            cell = self.geo.cell_at(*pos)
            if cell is not None:
                self.cursor = cell
                self.play(cell)
        elif self.scene == "study" and self.geo is not None:
            cell = self.geo.cell_at(*pos)
            if cell is not None:
                self.study_click(cell)

    def key(self, event: pygame.event.Event) -> None:
        """Keyboard and text input, routed to the focused input, a dialog or the scene."""
        down = event.type == pygame.KEYDOWN
        if self.confirm is not None:
            if down and (event.key in ENTER or event.key == pygame.K_y):
                self.act(self.confirm, None)
            elif down and event.key in (pygame.K_ESCAPE, pygame.K_n):
                self.confirm = None
            return
        fields = {
            "chat": self.chat,
            "code": self.code,
            "server": self.server_field,
            "name": self.name_field,
        }
        field = fields.get(self.focus or "") or self.auth.box(self.focus)
        if field is not None:
            if down and event.key == pygame.K_TAB:  # the start screen: round its boxes
                if self.auth.box(self.focus) is not None:
                    self.auth_tab()
                else:
                    self.focus = None
                return
            result = field.feed(event)
            if result == "cancel":
                self.focus = None
                if self.scene == "login":  # the form is all the screen has: Esc leaves it
                    self.login_key(pygame.K_ESCAPE)
            elif result == "submit":
                submit = {
                    "chat": "send_chat",
                    "code": "join_code",
                    "server": "connect",
                    "name": "rename",
                }
                self.act(submit.get(self.focus or "code", "auth_submit"), None)
            return
        if not down:
            return
        handler = {
            "lobby": self.lobby_key,
            "room": self.room_key,
            "replay": self.replay_key_press,
            "analysis": self.replay_key_press,
            "study": self.study_key,
            "login": self.login_key,
            "leaderboard": self.board_key,
            "profile": self.board_key,
            "tournaments": self.board_key,
        }
        handler.get(self.scene, self.lobby_key)(event.key)

    def login_key(self, key: int) -> None:
        """Start screen keys: Enter submits, Tab types the name, Esc goes back to the lobby
        (when opened from there) or asks to quit."""
        if key in ENTER:
            self.act("auth_submit", None)
        elif key == pygame.K_TAB:
            self.auth_tab()
        elif key == pygame.K_ESCAPE and self.auth.from_lobby:
            self.act("auth_cancel", None)
        elif key == pygame.K_ESCAPE:
            self.act("quit", None)

    def board_key(self, key: int) -> None:
        """Leaderboard and profile keys: Esc goes back, ↑↓ scroll the board."""
        if key in (pygame.K_ESCAPE, pygame.K_BACKSPACE):
            self.act("back", None)
        elif key in (pygame.K_UP, pygame.K_DOWN) and self.scene == "leaderboard":
            self.scroll_board(1 if key == pygame.K_DOWN else -1)

    def scroll_board(self, delta: int) -> None:
        """Scroll the leaderboard's rows by ``delta``."""
        page = self.shown_board()
        rows = leaderboard_rows(self.surface.get_size())
        last = max(0, len(page.players) - rows) if page is not None else 0
        self.board_scroll = max(0, min(last, self.board_scroll + delta))

    def lobby_key(self, key: int) -> None:
        """Lobby keys: ↑↓ pick a room, J join, W watch, Enter create, Tab type a code, Esc quit."""
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
        elif key == pygame.K_ESCAPE:
            self.act("quit", None)

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
        elif key in (*ENTER, pygame.K_SPACE) and self.cursor is None:
            self.cursor = (room.game.width // 2, room.game.height // 2)  # show where it would go
            self.cursor_visible = True
            self.model.toast("Arrows move the cursor, Enter plays there.", "info")
        elif key in (*ENTER, pygame.K_SPACE):
            self.play(self.cursor)
        elif key == pygame.K_r:
            self.act("resign", None)
        elif key == pygame.K_h:
            self.act("hint", None)

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
        elif key == pygame.K_a and self.scene == "replay":
            self.act("analyse_game", None)
        elif key in (pygame.K_ESCAPE, pygame.K_BACKSPACE):
            self.act("replay_back" if self.scene == "replay" else "analysis_back", None)

    def study_key(self, key: int) -> None:
        """Analysis board keys: A analyse, B play the best move, Backspace take back, N
        numbers, Esc back."""
        actions = {
            pygame.K_a: "study_analyse",
            pygame.K_b: "study_best",
            pygame.K_BACKSPACE: "study_undo",
            pygame.K_ESCAPE: "study_back",
        }
        if key == pygame.K_n:
            self.numbers = not self.numbers
        elif key in actions:
            self.act(actions[key], None)
