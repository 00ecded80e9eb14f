"""What a room's buttons and the board do while a game is played or watched: moves, opening
choices, chat, resign, offers and their answers, abort, claim, leave and rematch (a mixin of
:class:`client.app.App`, beside :class:`client.actions.Actions`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from client.model import ClientModel
from client.values import Cell, Message
from client.widgets import TextInput
from client.words import ERROR_WORDS


class PlayActions:
    """A room's actions: each request names the room, sent only when it can apply there."""

    model: ClientModel
    scene: str
    chat: TextInput
    focus: str | None
    confirm: str | None
    pending_ply: int | None
    move_request: int | None

    send: Callable[[Message], int]  # Actions.send

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

    def do_focus_chat(self, arg: Any, pos: Any = None) -> None:
        """Start typing in the chat."""
        self.focus = "chat"

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

    def do_rematch(self, arg: Any, pos: Any = None) -> None:
        """Offer (or accept) a rematch."""
        room = self.model.room
        if room is not None and room.seat is not None and not room.rematch[room.seat]:
            self.send({"type": "rematch", "room": room.room})
