"""What the lobby's "new game" form does: pick the game, opponent, bot, colour, clock, opening
and rating, and create the room (a mixin of :class:`client.app.App`, beside
:class:`client.actions.Actions`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from client.forms import LobbyForm, create_request
from client.model import ClientModel
from client.values import Message


class NewGameActions:
    """The new-game form's actions: they change the form; only "create" sends it."""

    model: ClientModel
    form: LobbyForm

    send: Callable[[Message], int]  # Actions.send

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
