"""What the App's buttons and keys stand for: requests to the server and scene changes.

``Actions`` is a mixin of :class:`client.app.App`; the attributes it works on are set up in
``App.__init__`` and listed here for the reader. It holds the lobby's own actions (join, watch,
another server, another name, quit); a room's are in client/play_actions.py, the new-game
form's in client/form_actions.py, the history's and replays' in client/replay_actions.py.
"""

from __future__ import annotations

from typing import Any, Protocol

from client.address import server_url
from client.form_actions import NewGameActions
from client.model import ClientModel
from client.play_actions import PlayActions
from client.replay_actions import ReplayActions
from client.settings import Settings
from client.values import Message
from client.widgets import TextInput


class Transport(Protocol):
    """What the app needs from the net layer (``client.net.NetClient`` or a test double)."""

    def send(self, message: Message) -> int:
        """Queue a request; return its id."""
        ...

    def poll(self) -> list[Message]:
        """Messages received since the last call."""
        ...


class Actions(PlayActions, NewGameActions, ReplayActions):
    """The App's actions: ``act(name, arg)`` calls ``do_<name>``; the lobby's own are here."""

    net: Transport
    model: ClientModel
    scene: str
    code: TextInput
    server_field: TextInput
    name_field: TextInput
    focus: str | None
    selected: int
    confirm: str | None
    running: bool
    settings: Settings
    resuming: bool

    # -- requests -----------------------------------------------------------------------------

    def send(self, message: Message) -> int:
        """Send a request to the server (queued; never blocks)."""
        return self.net.send(message)

    # -- actions ----------------------------------------------------------------------------------

    def act(self, action: str, arg: Any, pos: tuple[int, int] | None = None) -> None:
        """Do what a button (or its key) stands for."""
        method = getattr(self, "do_" + action, None)
        if method is not None:
            method(arg, pos)

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

    def do_focus_server(self, arg: Any, pos: Any = None) -> None:
        """Start typing a server address."""
        self.focus = "server"

    def do_connect(self, arg: Any, pos: Any = None) -> None:
        """Leave this server for the one typed (``host``, ``host:port`` or a ws:// URL)."""
        url = server_url(self.server_field.text)
        switch = getattr(self.net, "switch", None)
        if url is None or switch is None:
            self.model.toast("Type a server address such as 192.168.1.20 or ws://host:8765.")
            return
        remembered = self.settings.load(url)  # how we signed in there last time, if we did
        session = remembered.session if remembered is not None else None
        if session is not None:
            switch(url, session)
        else:
            switch(url)
        self.resuming = session is not None
        self.server_field.text = ""
        self.focus = None
        self.model = ClientModel(name=self.model.name, connection_detail=url)
        self.scene = "lobby" if remembered is not None or not self.settings.path else "login"
        self.model.toast(f"Connecting to {url}…")

    def do_focus_name(self, arg: Any, pos: Any = None) -> None:
        """Start typing another name (it takes effect on Enter, as a new player)."""
        if self.focus != "name":
            self.name_field.text = self.model.name
        self.focus = "name"

    def do_rename(self, arg: Any, pos: Any = None) -> None:
        """Sign in again under the name typed (a refused name, or just another one)."""
        name = self.name_field.text.strip()[:32]
        rename = getattr(self.net, "rename", None)
        self.focus = None
        if not name or (name == self.model.name and not self.model.refused) or rename is None:
            return
        rename(name)
        self.model = ClientModel(name=name, connection_detail=str(getattr(self.net, "url", "")))
        self.scene = "lobby"
        self.model.toast(f"Signing in as {name}…")

    def do_quit(self, arg: Any, pos: Any = None) -> None:
        """Ask to confirm, then close the client (Esc in the lobby)."""
        if self.confirm != "quit":
            self.confirm = "quit"
            return
        self.confirm = None
        self.running = False

    def do_confirm_no(self, arg: Any, pos: Any = None) -> None:
        """Close the confirm dialog."""
        self.confirm = None
