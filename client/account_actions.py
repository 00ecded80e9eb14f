"""What the account and rating buttons do: log in, register, guest, log out, the leaderboard
and profiles (a mixin of :class:`client.app.App`, beside :class:`client.actions.Actions`).

The form's passwords and reset code live only in its text boxes: each is sent once (``login``,
``register``, ``reset_password`` or ``change_password``) and wiped when the answer comes. What
is remembered (client/settings.py) is the choice and, for an account, the session token the
server gave this device.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from client.labels import LABELS
from client.model import ClientModel
from client.ratings import Leaderboard
from client.settings import Remembered, Settings
from client.values import Message
from client.widgets import TextInput
from client.words import error_text

#: Names and passwords as the spec bounds them (a longer password gets ``long_password``; the
#: box stops a little beyond 128 so the server, not the box, says why).
NAME_MAX, PASSWORD_MAX, CODE_MAX = 32, 160, 64
#: Leaderboard pages the server serves at most.
MAX_PAGES = 10


#: The form's modes, and the boxes each shows in order (Tab goes round them).
MODE_FIELDS = {
    "login": ("auth_name", "auth_password"),
    "register": ("auth_name", "auth_password", "auth_repeat"),
    "reset": ("auth_name", "auth_code", "auth_password", "auth_repeat"),
    "change": ("auth_old", "auth_password", "auth_repeat"),
}


@dataclass
class AuthForm:
    """The start screen's form: log in, register (the password twice), reset a forgotten
    password with the operator's one-time code, or change it; the boxes, and what came back."""

    mode: str = "login"  # a key of MODE_FIELDS
    name: TextInput = field(default_factory=lambda: TextInput(max_len=NAME_MAX))
    password: TextInput = field(default_factory=lambda: TextInput(max_len=PASSWORD_MAX))
    #: The password again (register, reset, change): a typo must not lock the account.
    repeat: TextInput = field(default_factory=lambda: TextInput(max_len=PASSWORD_MAX))
    #: The operator's reset code (``mnk-server accounts reset NAME``), and the current password.
    code: TextInput = field(default_factory=lambda: TextInput(max_len=CODE_MAX))
    old: TextInput = field(default_factory=lambda: TextInput(max_len=PASSWORD_MAX))
    remember: bool = True
    #: The error the server gave the last attempt, in words (shown in the form, in red).
    error: str = ""
    #: The id of the request awaiting its answer.
    pending: int | None = None
    #: Opened from the lobby ("Log in" in the top bar): Esc goes back there.
    from_lobby: bool = False

    def box(self, focus: str | None) -> TextInput | None:
        """The text box a focus name types into (None: not one of the form's)."""
        boxes = {"auth_name": self.name, "auth_password": self.password}
        boxes |= {"auth_repeat": self.repeat, "auth_code": self.code, "auth_old": self.old}
        return boxes.get(focus or "")

    def wipe(self) -> None:
        """Forget every secret typed (after an answer, or leaving the form)."""
        for box in (self.password, self.repeat, self.code, self.old):
            box.text = ""

    def request(self) -> tuple[Message | None, str, str]:
        """The request the boxes ask for, or None with what is missing and where to type it."""
        name, password, mode = self.name.text.strip(), self.password.text, self.mode
        if mode != "change" and not name:
            return None, "Type your name first.", "auth_name"
        if mode == "change" and not self.old.text:
            return None, "Type your current password.", "auth_old"
        if mode == "reset" and not self.code.text.strip():
            return None, "Type the reset code the server's operator gave you.", "auth_code"
        if not password:
            return None, "Type your password.", "auth_password"
        if mode != "login" and self.repeat.text != password:
            return None, "The two passwords differ: type the same one twice.", "auth_repeat"
        if mode in ("login", "register"):
            return {"type": mode, "name": name, "password": password}, "", ""
        if mode == "reset":
            msg = {"type": "reset_password", "name": name, "code": self.code.text.strip()}
            return msg | {"new": password}, "", ""
        return {"type": "change_password", "old": self.old.text, "new": password}, "", ""


@dataclass
class BoardChoice:
    """Which leaderboard is on screen: a pool (game and speed), players or bots, a page."""

    game: str = "gomoku"
    speed: str = "blitz"
    bots: bool = False
    page: int = 0

    @property
    def pool(self) -> str:
        """The wire name of the pool, e.g. ``gomoku-blitz``."""
        return f"{self.game}-{self.speed}"


class AccountActions:
    """Log in / register / guest / log out, leaderboard and profile actions."""

    model: ClientModel
    net: Any
    scene: str
    focus: str | None
    auth: AuthForm
    board: BoardChoice
    settings: Settings
    #: Where the leaderboard or profile was opened from (Esc goes back there).
    back_to: str
    #: The profile's pool whose history the chart shows (None: the one with most games).
    profile_pool: str | None
    profile_name: str
    board_scroll: int
    #: The profile's pages of games gone through: each the (ended_at, game_id) it starts after.
    profile_pages: list[tuple[float, str]]

    send: Callable[[Message], int]  # Actions.send

    @property
    def url(self) -> str:
        """The server this client talks to (the key of its remembered settings)."""
        return str(getattr(self.net, "url", ""))

    # -- the start screen -------------------------------------------------------------------

    def do_auth_mode(self, mode: str, pos: Any = None) -> None:
        """Switch the form: log in, register, or reset a forgotten password."""
        if mode not in MODE_FIELDS:
            return
        self.auth.mode, self.auth.error = mode, ""
        self.auth.wipe()
        first = MODE_FIELDS[mode][0]
        self.focus = first if first != "auth_name" or not self.auth.name.text else "auth_password"
        if mode == "reset":
            self.focus = "auth_name" if not self.auth.name.text else "auth_code"

    def do_focus_auth(self, box: str, pos: Any = None) -> None:
        """Type in one of the form's boxes (``auth_name``, ``auth_password``, ...)."""
        if self.auth.box(box) is not None:
            self.focus = box

    def do_focus_auth_name(self, arg: Any, pos: Any = None) -> None:
        """Type the account's name."""
        self.focus = "auth_name"

    def do_focus_auth_password(self, arg: Any, pos: Any = None) -> None:
        """Type the password."""
        self.focus = "auth_password"

    def auth_tab(self) -> None:
        """Tab: the form's next box, round its mode's boxes."""
        order = MODE_FIELDS.get(self.auth.mode, MODE_FIELDS["login"])
        at = order.index(self.focus) if self.focus in order else -1
        self.focus = order[(at + 1) % len(order)]

    def do_auth_remember(self, arg: Any, pos: Any = None) -> None:
        """Toggle "remember me on this computer"."""
        self.auth.remember = not self.auth.remember

    def do_auth_submit(self, arg: Any, pos: Any = None) -> None:
        """Send what the form asks for (once; the answer is awaited)."""
        auth = self.auth
        msg, missing, where = auth.request()
        if msg is None:
            auth.error, self.focus = missing, where
            return
        if auth.pending is not None:
            return
        auth.error = ""
        auth.pending = self.send(msg)
        self.model.quiet_ids.add(auth.pending)  # its error goes to the form, not a toast
        self.focus = None

    def do_auth_cancel(self, arg: Any = None, pos: Any = None) -> None:
        """Leave the form for the lobby (changing the password: nothing sent), wiped."""
        self.auth.wipe()
        self.auth.mode, self.auth.error = "login", ""
        self.scene, self.focus = "lobby", None

    def do_change_password(self, arg: Any = None, pos: Any = None) -> None:
        """Open the form to change this account's password (the lobby's top bar)."""
        self.auth.mode, self.auth.error, self.auth.from_lobby = "change", "", True
        self.auth.wipe()
        self.scene, self.focus = "login", "auth_old"

    def do_play_guest(self, arg: Any, pos: Any = None) -> None:
        """Play without an account (remembered, so the next start goes straight to the lobby)."""
        self.auth.wipe()
        self.auth.error = ""
        if self.auth.remember:
            self.settings.save(self.url, Remembered("guest", self.model.name))
        self.scene, self.focus = "lobby", None

    def do_show_login(self, arg: Any, pos: Any = None) -> None:
        """Open the start screen to log in (from the lobby, as a guest)."""
        self.auth.error = ""
        self.auth.mode, self.auth.from_lobby = "login", True
        self.scene, self.focus = "login", "auth_name"

    def do_logout(self, arg: Any, pos: Any = None) -> None:
        """Log out this device (the server revokes its session; we become a guest again)."""
        self.send({"type": "logout"})
        self.settings.forget(self.url)

    def on_auth_reply(self, msg: Message) -> None:
        """A ``logged_in``/``logged_out``/``password_changed``, or the error of our request:
        update the form and what is remembered."""
        kind, auth = msg.get("type"), self.auth
        if kind == "logged_in":
            auth.pending, auth.error = None, ""
            auth.wipe()
            session = msg.get("session")
            if auth.remember and isinstance(session, str):
                self.settings.save(self.url, Remembered("account", self.model.name, session))
            self.model.toast(f"Logged in as {self.model.name}.", "info")
            if self.scene == "login":
                self.scene, self.focus = "lobby", None
            auth.mode = "login"
        elif kind == "password_changed":
            auth.pending, auth.error, auth.mode = None, "", "login"
            auth.wipe()
            self.model.toast("Password changed: your other devices are logged out.", "info")
            if self.scene == "login":
                self.scene, self.focus = "lobby", None
        elif kind == "logged_out":
            self.settings.forget(self.url)
            self.auth.mode, self.scene, self.focus = "login", "login", None
            self.auth.from_lobby = False
            self.model.toast("Logged out: you are a guest now.", "info")
        elif kind == "error" and msg.get("id") == auth.pending and auth.pending is not None:
            self.on_auth_error(msg)

    def on_auth_error(self, msg: Message) -> None:
        """The server refused our form's request: say why in it, and where to type again."""
        auth = self.auth
        auth.pending = None
        code = str(msg.get("code", ""))
        auth.error = error_text(code, str(msg.get("message", "")))
        if code == "bad_login" and auth.mode == "change":
            auth.error, auth.old.text, self.focus = "Wrong current password.", "", "auth_old"
        elif code == "bad_login" and auth.mode == "reset":
            auth.error = "Wrong name or reset code (a code works once, for 24 hours)."
            self.focus = "auth_code"
        elif code in ("bad_login", "weak_password", "long_password"):
            auth.password.text = auth.repeat.text = ""
            self.focus = "auth_password"
        elif code == "name_taken":
            self.focus = "auth_name"

    def remember_session(self, session: object) -> None:
        """A resumed account's ``welcome``: keep its session if the server gave a new one."""
        old = self.settings.load(self.url)
        fresh = isinstance(session, str) and old is not None and session != old.session
        if fresh and old is not None and old.mode == "account" and isinstance(session, str):
            self.settings.save(self.url, Remembered("account", self.model.name, session))

    def on_session_lost(self) -> None:
        """The remembered account session did not resume (revoked, expired or disabled)."""
        self.settings.forget(self.url)
        self.auth.error = "Your saved login is no longer valid: log in again, or play as a guest."
        self.auth.name.text = self.auth.name.text or self.model.name
        self.scene, self.focus = "login", "auth_password"

    # -- leaderboard and profiles -----------------------------------------------------------

    def ask_leaderboard(self) -> None:
        """Ask for the leaderboard page chosen (the old one stays until the answer comes)."""
        b = self.board
        self.send({"type": "leaderboard", "pool": b.pool, "bots": b.bots, "page": b.page})

    def shown_board(self) -> Leaderboard | None:
        """The page answered for the board on screen, if it has come (None: loading)."""
        return self.model.leaderboards.get((self.board.pool, self.board.bots, self.board.page))

    def do_leaderboard(self, arg: Any = None, pos: Any = None) -> None:
        """Open the leaderboard (of the pool last looked at)."""
        if self.scene not in ("leaderboard", "profile"):
            self.back_to = self.scene
        self.scene, self.focus = "leaderboard", None
        self.ask_leaderboard()

    def do_board_game(self, game: str, pos: Any = None) -> None:
        """Show another game's leaderboard (first page)."""
        if game in LABELS.pool_games:
            self.board.game, self.board.page, self.board_scroll = game, 0, 0
            self.ask_leaderboard()

    def do_board_speed(self, speed: str, pos: Any = None) -> None:
        """Show another speed's leaderboard (first page)."""
        if speed in LABELS.speeds:
            self.board.speed, self.board.page, self.board_scroll = speed, 0, 0
            self.ask_leaderboard()

    def do_board_bots(self, bots: bool, pos: Any = None) -> None:
        """Players' board or bots' board."""
        self.board.bots, self.board.page, self.board_scroll = bool(bots), 0, 0
        self.ask_leaderboard()

    def do_board_page(self, page: int, pos: Any = None) -> None:
        """Another page of the board (the server serves at most :data:`MAX_PAGES`)."""
        self.board.page, self.board_scroll = max(0, min(MAX_PAGES - 1, page)), 0
        self.ask_leaderboard()

    def do_profile(self, name: str, pos: Any = None) -> None:
        """Open ``name``'s profile (a click on a name)."""
        if not name:
            return
        if self.scene not in ("leaderboard", "profile"):
            self.back_to = self.scene
        self.model.profile = None  # "loading" until the answer
        self.profile_pool, self.profile_name, self.profile_pages = None, name, []
        self.scene, self.focus = "profile", None
        self.send({"type": "profile", "name": name})

    def do_profile_older(self, arg: Any = None, pos: Any = None) -> None:
        """The profile's next page of older games."""
        profile = self.model.profile
        last = profile.games[-1] if profile is not None and profile.games else None
        if last is None or last.ended_at is None or not profile or not profile.more:
            return
        self.profile_pages.append((last.ended_at, last.game_id))
        self.ask_profile_page()

    def do_profile_newer(self, arg: Any = None, pos: Any = None) -> None:
        """Back to the profile's page of newer games."""
        if self.profile_pages:
            self.profile_pages.pop()
            self.ask_profile_page()

    def ask_profile_page(self) -> None:
        """Ask for the profile again, its games starting after the page cursor (if any)."""
        msg: Message = {"type": "profile", "name": self.profile_name}
        if self.profile_pages:
            msg["before"], msg["before_id"] = self.profile_pages[-1]
        self.send(msg)

    def do_profile_pool(self, pool: str, pos: Any = None) -> None:
        """Chart another pool's rating history."""
        self.profile_pool = pool

    def do_back(self, arg: Any = None, pos: Any = None) -> None:
        """Leave the leaderboard or a profile for where it was opened from."""
        back = self.back_to if self.back_to in ("lobby", "room") else "lobby"
        if back == "room" and self.model.room is None:
            back = "lobby"
        self.scene, self.focus = back, None
