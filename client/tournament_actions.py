"""What the tournaments view's buttons do: list the server's events, pick one (and watch it),
enter, leave, watch one of its games. The server decides everything; its answers (a
``tournaments`` list, a ``tournament`` state) are what the view shows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from client.model import ClientModel
from client.tournaments import LIST_LIMIT
from client.values import Message


class TournamentActions:
    """The tournaments scene's actions (a mixin of :class:`client.app.App`)."""

    model: ClientModel
    scene: str
    focus: str | None
    back_to: str

    send: Callable[[Message], int]  # Actions.send

    def do_tournaments(self, arg: Any = None, pos: Any = None) -> None:
        """Open the tournaments view and ask for the list (the selected event is watched)."""
        if self.scene in ("lobby", "room"):
            self.back_to = self.scene
        self.scene, self.focus = "tournaments", None
        self.do_tournaments_refresh()

    def do_tournaments_refresh(self, arg: Any = None, pos: Any = None) -> None:
        """Ask for the events again (running, open, then finished)."""
        self.send({"type": "list_tournaments", "limit": LIST_LIMIT})
        book = self.model.tournaments
        if book.selected is not None:
            self.send({"type": "get_tournament", "tournament": book.selected,
                       "page": book.game_page})  # fmt: skip

    def rewatch_tournament(self) -> None:
        """Back online: watch the event on screen again (a server's restart forgets watchers)."""
        book = self.model.tournaments
        if book.selected is not None:
            self.send({"type": "watch_tournament", "tournament": book.selected,
                       "page": book.game_page})  # fmt: skip

    def on_tournament_list(self) -> None:
        """A list came: with nothing picked yet, pick its first event."""
        book = self.model.tournaments
        if book.selected is None and book.listing:
            self.do_tournament_pick(book.listing[0].tid)

    def do_tournament_pick(self, tid: str, pos: Any = None) -> None:
        """Show event ``tid``: watch it (its changes are pushed); stop watching the last one
        shown unless we are in it (an entrant's pushes bring its news)."""
        book = self.model.tournaments
        old = book.shown
        if tid == book.selected:
            return
        if old is not None and not old.entered(self.model.player):
            self.send({"type": "watch_tournament", "tournament": old.line.tid, "watch": False})
        book.pick(tid)
        self.send({"type": "watch_tournament", "tournament": tid})

    def do_tournament_older(self, target: tuple[int, int], pos: Any = None) -> None:
        """ "Older": the event's older games (``(page, offset)``, as the view says)."""
        self.do_tournament_games(target)

    def do_tournament_newer(self, target: tuple[int, int], pos: Any = None) -> None:
        """ "Newer": the event's newer games (``(page, offset)``, as the view says)."""
        self.do_tournament_games(target)

    def do_tournament_games(self, target: tuple[int, int], pos: Any = None) -> None:
        """Show other games of the event on screen: ``(page, offset)``; a page not held is
        asked for (``get_tournament``'s ``page``)."""
        book = self.model.tournaments
        page, offset = target
        shown = book.shown
        book.game_page, book.game_offset = page, offset
        if book.selected is not None and (shown is None or shown.page != page):
            self.send({"type": "get_tournament", "tournament": book.selected, "page": page})

    def do_tournament_join(self, tid: str, pos: Any = None) -> None:
        """Enter event ``tid`` (or come back to a paused arena)."""
        self.send({"type": "join_tournament", "tournament": tid})

    def do_tournament_leave(self, tid: str, pos: Any = None) -> None:
        """Leave event ``tid`` (before its start: out; a running arena: paused; else withdrawn)."""
        self.send({"type": "leave_tournament", "tournament": tid})

    def do_tournament_game(self, room: str, pos: Any = None) -> None:
        """Watch one of the event's games in its room (the room scene opens on ``joined``)."""
        self.send({"type": "join_room", "room": room, "spectate": True})

    def do_tournament_play(self, room: str, pos: Any = None) -> None:
        """Back to our own game of the event (its room, in our seat)."""
        self.send({"type": "join_room", "room": room})
