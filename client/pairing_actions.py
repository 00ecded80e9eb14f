"""What the Quick pairing buttons do: seek from a tile or the custom form, cancel, accept an
open seek, page the open seeks (a mixin of :class:`client.app.App`).

Our seeks live while the lobby is on screen: leaving it (for a room, the leaderboard, a
profile) or quitting cancels them, so nobody is paired with a player who walked away; a seek
the server answers after that is cancelled as soon as its ``seeking`` arrives.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from client.model import ClientModel
from client.seeks import (
    SEEK_PAGE,
    PairingChoice,
    own_rating,
    seek_games,
    seek_request,
    tile_request,
)
from client.values import Message


class PairingActions:
    """Seek, cancel, accept, page: the pairing panel's buttons."""

    model: ClientModel
    scene: str
    pairing: PairingChoice
    send: Callable[[Message], int]  # Actions.send

    def subscribe_seeks(self) -> None:
        """Ask for the pools and the first page of open seeks, and for news of them
        (quietly: an older server does not know ``list_seeks``)."""
        book = self.model.seeks
        book.forget_pages()
        rid = self.send({"type": "list_seeks", "limit": SEEK_PAGE, "subscribe": True})
        book.subscribe_request = rid
        self.model.quiet_ids.add(rid)

    def cancel_seeks(self) -> None:
        """Cancel every open seek of ours (leaving the lobby, or quitting)."""
        for seek_id in list(self.model.seeks.mine):
            self.do_cancel_seek(seek_id)

    def on_seeking(self, msg: Message) -> None:
        """A ``seeking``: the answer to a seek of ours that came after we left the lobby is
        cancelled at once; one without an id is a seek the server put back in its pool (the
        game it paired was aborted: the opponent never moved), and it is said so."""
        seek = msg.get("seek")
        if not isinstance(seek, dict) or not seek.get("seek"):
            return
        if msg.get("id") is None:
            mine = self.model.seeks.mine.get(str(seek["seek"]))
            terms = mine.seek.terms if mine is not None else "game"
            self.model.toast(f"Your opponent did not move: you are seeking a {terms} again.")
        elif self.scene != "lobby":
            self.do_cancel_seek(str(seek["seek"]))

    # -- the panel ----------------------------------------------------------------------------

    def do_lobby_tab(self, tab: str, pos: Any = None) -> None:
        """Show Quick pairing, the open seeks, or the open rooms."""
        if tab in ("quick", "seeks", "rooms"):
            self.pairing.tab = tab

    def do_seek_game(self, game: str, pos: Any = None) -> None:
        """Show another game's tiles (and make it the custom form's game)."""
        if game in dict(seek_games()):
            self.pairing.game = self.pairing.form.game = game

    def do_seek_tile(self, pool: str, pos: Any = None) -> None:
        """A tile: seek a game in its pool, or cancel our seek there (a second click)."""
        book = self.model.seeks
        mine = book.seeking_in(pool)
        if mine is not None:
            self.do_cancel_seek(mine.seek.seek)
            return
        tile = next((t for t in book.pools if t.pool == pool), None)
        if tile is None or book.placing(pool):
            return
        if tile.rated and not self.model.account:
            self.model.toast("Rated games are for players with an account: log in first.")
            return
        book.pending[self.send(tile_request(tile))] = pool

    def do_cancel_seek(self, seek_id: str, pos: Any = None) -> None:
        """Cancel a seek of ours (forgotten at once; the server confirms)."""
        book = self.model.seeks
        book.ended(seek_id)
        book.cancels.add(self.send({"type": "cancel_seek", "seek": seek_id}))
        book.cancels.difference_update(sorted(book.cancels)[:-64])  # bounded, whatever comes

    def do_accept_seek(self, seek_id: str, pos: Any = None) -> None:
        """Accept someone's open seek: the server answers with the new room."""
        self.send({"type": "accept_seek", "seek": seek_id})

    def do_seeks_page(self, delta: int, pos: Any = None) -> None:
        """The next or the previous page of open seeks (the first one is kept fresh)."""
        book = self.model.seeks
        if delta > 0 and book.next is not None and book.page_request is None:
            book.cursors.append(book.next)
        elif delta < 0 and book.cursors:
            book.cursors.pop()
        else:
            return
        msg: Message = {"type": "list_seeks", "limit": SEEK_PAGE}
        if book.cursors:
            msg["cursor"] = book.cursors[-1]
            book.page_request = self.send(msg)
        else:
            book.page_request = None
            self.send(msg)  # the first page again (pushes keep it fresh from now on)

    # -- the custom seek form ----------------------------------------------------------------

    def do_custom_open(self, open_: bool, pos: Any = None) -> None:
        """Open (or close) the custom seek form in place of the tiles."""
        self.pairing.custom = bool(open_)
        self.pairing.form.game = self.pairing.game

    def do_custom_step(self, arg: tuple[str, int], pos: Any = None) -> None:
        """Step the clock, the rating range or the bot delay."""
        self.pairing.form.step(*arg)

    def do_custom_rated(self, arg: Any = None, pos: Any = None) -> None:
        """Rated or casual."""
        self.pairing.form.toggle_rated()

    def do_custom_seek(self, arg: Any = None, pos: Any = None) -> None:
        """Place the custom seek (the form closes; its waiting line shows under the tiles)."""
        form, model = self.pairing.form, self.model
        clock = form.chosen_clock
        if form.rated and not model.account:
            model.toast("Rated games are for players with an account: log in first.")
            return
        rating = own_rating(model.ratings, model.rating_pools, form.game, clock)
        msg = seek_request(form, model.account, rating)
        terms = (form.game, clock, msg["rated"])
        model.seeks.pending[self.send(msg)] = model.seeks.pool_of(*terms)  # the server's name
        self.pairing.custom = False
        self.pairing.game = form.game
