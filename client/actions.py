"""What the App's buttons and keys stand for: requests to the server and scene changes.

``Actions`` is a mixin of :class:`client.app.App`; the attributes it works on are set up in
``App.__init__`` and listed here for the reader.
"""

from __future__ import annotations

from typing import Any, Protocol

import pygame

from client.address import server_url
from client.forms import LobbyForm, create_request
from client.model import ClientModel
from client.settings import Settings
from client.values import Cell, FinishedGame, Message
from client.views.lobby import finished_rows
from client.widgets import TextInput
from client.words import ERROR_WORDS

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


class Actions:
    """The App's actions: ``act(name, arg)`` calls ``do_<name>``; also moves and history pages."""

    net: Transport
    model: ClientModel
    surface: pygame.Surface
    scene: str
    form: LobbyForm
    code: TextInput
    chat: TextInput
    server_field: TextInput
    name_field: TextInput
    focus: str | None
    selected: int
    confirm: str | None
    pending_ply: int | None
    move_request: int | None
    replay_key: str | None
    replay_ply: int
    replay_from: str
    replay_wanted: str | None
    replay_request: int | None
    running: bool
    history_scroll: int
    history_page_asked: bool
    settings: Settings
    resuming: bool

    # -- requests -----------------------------------------------------------------------------

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
        if self.model.connection != "online":  # never queued to be played behind our back
            self.model.toast("Offline: that move was not sent. Play it once reconnected.", "error")
            return
        if room.choosing:
            self.model.toast("Choose first: use the buttons in the side panel.", "info")
            return
        if cell in room.forbidden:
            self.model.toast(ERROR_WORDS["forbidden_move"], "error")
            return
        if cell in room.stones:
            self.model.toast("That point is taken: pick a free one.", "info")
            return
        if self.pending_ply == room.ply:
            return
        self.pending_ply = room.ply
        move = {"type": "move", "room": room.room, "x": cell[0], "y": cell[1], "ply": room.ply}
        self.move_request = self.send(move)

    def do_choose(self, choice: str, pos: Any = None) -> None:
        """An opening choice: take black, take white, or (swap2) place two more stones."""
        room = self.model.room
        if self.model.connection != "online":
            self.model.toast("Offline: choose again once reconnected.", "error")
            return
        if room is not None and room.choosing and room.opening and choice in room.opening.choices:
            self.send({"type": "choose", "room": room.room, "choice": choice})

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

    def do_focus_chat(self, arg: Any, pos: Any = None) -> None:
        """Start typing in the chat."""
        self.focus = "chat"

    def do_create(self, arg: Any, pos: Any = None) -> None:
        """Create a room from the "new game" form (it is sent once the server is reached)."""
        if self.model.connection != "online":
            self.model.toast("Not connected yet: the game starts once the server answers.")
        self.send(create_request(self.form, self.model.account, self.model.rating_pools))

    def do_form_full(self, arg: Any = None, pos: Any = None) -> None:
        """Toggle full strength: the bot uses its whole clock, not a human's pace."""
        self.form.full_strength = not self.form.full_strength

    def do_form_game(self, game: str, pos: Any = None) -> None:
        """Pick the game in the form."""
        self.form.game = game

    def do_form_opponent(self, opponent: str, pos: Any = None) -> None:
        """Pick bot or human (asking the server which bots there are)."""
        self.form.opponent = opponent
        if opponent == "bot":
            self.ask_bots()

    def do_form_bot(self, name: str | None, pos: Any = None) -> None:
        """Pick a bot by name, or None for any bot that plays the level chosen."""
        self.form.bot = name
        self.ask_bots()  # keep the list fresh while choosing

    def do_bot_page(self, page: int, pos: Any = None) -> None:
        """Show another page of the bots online in the form."""
        self.form.bot_page = page

    def ask_bots(self) -> None:
        """Ask which bots are online (quietly: an older server may not know ``list_bots``)."""
        self.model.quiet_ids.add(self.send({"type": "list_bots"}))

    def do_form_seat(self, seat: int | None, pos: Any = None) -> None:
        """Pick a colour (None: random)."""
        self.form.seat = seat

    def do_form_clock(self, index: int, pos: Any = None) -> None:
        """Pick a clock preset ("No clock" makes the game casual: rated games need a clock)."""
        self.form.clock = index
        if self.form.chosen_clock is None:
            self.form.rated = False

    def do_form_rated(self, arg: Any, pos: Any = None) -> None:
        """Toggle a rated game (picking a clock when there is none: rated games need one)."""
        self.form.rated = not self.form.rated
        self.form.hints = self.form.hints and not self.form.rated  # training is casual
        if self.form.rated and self.form.chosen_clock is None:
            self.form.clock = self.form.rated_clock  # the server's starting clock

    def do_form_opening(self, rule: str | None, pos: Any = None) -> None:
        """Pick the opening rule (swap1, swap2 or none) for 15x15 games."""
        self.form.opening_rule = rule

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

    def do_offer(self, kind: str, pos: Any = None) -> None:
        """Offer a draw (``draw``) or ask for a takeback (``takeback``) in this room."""
        room = self.model.room
        if room is not None and room.seat is not None and room.status == "playing":
            self.send({"type": f"{kind}_offer", "room": room.room})

    def do_answer(self, arg: tuple[str, bool], pos: Any = None) -> None:
        """Accept or decline the opponent's standing offer of ``arg[0]``."""
        room, (kind, accept) = self.model.room, arg
        if room is None or room.seat is None:
            return
        room.acts.answered(kind, 1 - room.seat)
        self.send({"type": f"{kind}_answer", "room": room.room, "accept": accept})

    def do_abort(self, arg: Any, pos: Any = None) -> None:
        """End the game before both have moved (no result)."""
        room = self.model.room
        if room is not None and room.seat is not None and room.status == "playing":
            self.send({"type": "abort", "room": room.room})

    def do_claim(self, arg: Any, pos: Any = None) -> None:
        """Claim the win over an opponent gone past half the reconnect grace."""
        room = self.model.room
        if room is not None and room.seat is not None and room.status == "playing":
            self.send({"type": "claim_victory", "room": room.room})

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

    def do_replay(self, game_id: str, pos: Any = None) -> None:
        """Open a finished game in the replay scene at its last move.

        A history row whose moves are not here yet is fetched with ``get_game`` and opened
        when the answer arrives.
        """
        game = self.model.finished.get(game_id)
        if game is None:
            profile = self.model.profile
            rows = [*self.model.history, *(profile.games if profile is not None else ())]
            listed = any(h.game_id == game_id for h in rows)
            if listed and self.replay_wanted != game_id:
                self.replay_wanted = game_id
                self.replay_request = self.send({"type": "get_game", "game_id": game_id})
            return
        self.replay_from = self.scene if self.scene != "replay" else self.replay_from
        self.replay_key, self.replay_ply, self.scene, self.focus = (
            game_id,
            len(game.moves),
            "replay",
            None,
        )

    def do_replay_current(self, arg: Any, pos: Any = None) -> None:
        """Replay the finished game of the current room."""
        room = self.model.room
        if room is not None:
            self.do_replay(room.game_id)

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
        back = self.replay_from
        if (back == "room" and self.model.room is None) or back not in ("room", "profile"):
            back = "lobby"
        self.scene = back

    @property
    def replay_game(self) -> FinishedGame | None:
        """The game being replayed."""
        return self.model.finished.get(self.replay_key or "")

    def replay_step(self, delta: int) -> None:
        """Move the replay by ``delta`` plies, within the game."""
        game = self.replay_game
        if game is not None:
            self.replay_ply = max(0, min(len(game.moves), self.replay_ply + delta))
