"""What the finished games' buttons and keys do: page through the lobby's history, open a game
in the replay scene and step through it (a mixin of :class:`client.app.App`, beside
:class:`client.actions.Actions`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pygame

from client.model import ClientModel
from client.values import FinishedGame, Message
from client.views.lobby import finished_rows

#: Finished games asked for per ``list_games`` page.
HISTORY_PAGE = 20


class ReplayActions:
    """The history's pages and the replay scene's actions."""

    model: ClientModel
    surface: pygame.Surface
    scene: str
    focus: str | None
    replay_key: str | None
    replay_ply: int
    replay_from: str
    replay_wanted: str | None
    replay_request: int | None
    history_scroll: int
    history_page_asked: bool

    send: Callable[[Message], int]  # Actions.send

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
