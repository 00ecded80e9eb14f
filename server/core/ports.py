"""The small interfaces the shell and a cluster node meet the core at, each implemented by one of
the arena's parts and handed to them where they are made (``cli.py``, ``ClusterNode``,
``ArenaServer``): no module outside ``core/`` reaches through ``arena.<part>``.

| interface | implemented by | used by |
|---|---|---|
| :class:`Members` | ``Presence`` | forwarding, failover, adoption, bots lent, pairing, lag, ends |
| :class:`RoomsView` | the ``RoomRegistry`` | failover, bots lent |
| :class:`LobbyFeed` | ``Lobby`` | the lobby bus |
| :class:`EventsFeed` | ``EventBoard`` | the lobby bus, a cluster's scheduled occurrences |
| :class:`BotLender` | ``BotDesk`` | bots lent across nodes (and their directory) |
| :class:`Requests` | ``Arena`` | forwarding, bots lent, adoption: work handed to the arena |
| :class:`PasswordDesk` | ``Accounts`` | the password jobs (``shell/hasher.py``) |
| :class:`LookupDesk` | ``Admission`` | the store lookups (``shell/lookups.py``) |
| :class:`GameFinder` | ``Analysis`` | the store lookups (a game analysed by id) |
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator
from typing import Protocol

from protocol.wire import Message
from server.core.game.room import Room
from server.core.journal.rows import Snapshot
from server.core.limits import Limits
from server.core.outputs import Auth, AuthResult, Out
from server.core.players.players import Conn, Player
from server.core.tournament.board import Occurrences


class Members(Protocol):
    """Who is here: players by id, remote members attached, rooms' members coming back."""

    def player(self, pid: str) -> Player | None:
        """The player ``pid``, if known here."""
        ...

    def attach_remote(self, pid: str, name: str, kind: str, resend: bool = False) -> list[Out]:
        """``pid``, connected to another node, is online in its rooms here."""
        ...

    def back_online(self, room_ids: Iterable[str]) -> tuple[list[Out], list[tuple[Room, str]]]:
        """The members of rooms adopted here who are online here."""
        ...

    def states(self, welcomed: Iterable[tuple[Room, str]]) -> list[Out]:
        """A ``state`` for each (room, member)."""
        ...

    def forget(self, pid: str) -> None:
        """A remote member made here has left every room here: it is forgotten."""
        ...

    def engaged(self, conn: Conn) -> bool:
        """Whether ``conn``'s player is in a room or is a bot (its end goes first)."""
        ...

    def worth(self, conn: Conn) -> int:
        """What keeping ``conn`` is worth to a full server."""
        ...


class RoomsView(Protocol):
    """This node's rooms, by code."""

    def get(self, room_id: str) -> Room | None:
        """The room ``room_id`` if this node holds it."""
        ...

    def __iter__(self) -> Iterator[Room]: ...


class LobbyFeed(Protocol):
    """The lobby as a node publishes it: its version, its own rooms, the other nodes' lines."""

    version: int

    def own(self) -> Iterable[Room]:
        """This node's rooms."""
        ...

    def set_remote(self, lines: dict[str, Message]) -> None:
        """The other nodes' lobby lines, as the last round read them."""
        ...


class EventsFeed(Protocol):
    """The events (tournaments) as a node publishes them, and the other nodes' lines."""

    def lines_version(self) -> Hashable:
        """Changes whenever a line of :meth:`lines` does."""
        ...

    def lines(self) -> dict[str, Message]:
        """This node's events' ``tournaments`` lines, by id."""
        ...

    def set_remote(self, lines: dict[str, Message]) -> None:
        """The other nodes' events' lines, as the last round read them."""
        ...

    def entered(self, pid: str) -> bool:
        """Whether ``pid`` is in an event here that is not over."""
        ...

    def claim_with(self, claims: Occurrences) -> None:
        """Claim each scheduled occurrence with ``claims`` before opening it."""
        ...


class BotLender(Protocol):
    """The bots connected here that another node may borrow a seat of."""

    def free_bot(self, name: str, game: str, asker: str) -> Player | None:
        """The bot ``name`` if it is here, plays ``game`` and has a seat free."""
        ...

    def local_bots(self) -> list[Player]:
        """The bots connected here (the cluster's bot directory lists them)."""
        ...

    def bot_entry(self, p: Player) -> Message:
        """``p``'s ``list_bots`` entry."""
        ...


class Requests(Protocol):
    """The arena as a node's parts hand it work: a remote member's frame and its leaving, a
    ``create_room`` held for other nodes' bots going on, a lapsed node's rooms restored."""

    limits: Limits

    def receive(self, conn: Conn, frame: bytes | str) -> list[Out]:
        """What the arena answers ``conn``'s ``frame``."""
        ...

    def disconnect(self, conn: Conn) -> list[Out]:
        """``conn`` is gone."""
        ...

    def create_held(
        self, pid: str, msg: Message, granted: dict[str, Player]
    ) -> tuple[list[Out], str | None]:
        """Go on with ``pid``'s held ``create_room`` with the bots ``granted``: its outputs and
        the room made (None: refused, or its asker left)."""
        ...

    def restore(self, snapshot: Snapshot) -> None:
        """Put the rooms and players of ``snapshot`` back (a restart's, or a lapsed node's)."""
        ...


class PasswordDesk(Protocol):
    """Where a password job's answer goes."""

    def answer(self, conn: Conn, auth: Auth, result: AuthResult) -> list[Out]:
        """``conn``'s job ``auth`` found ``result``."""
        ...

    def dropped(self, conn: Conn, auth: Auth) -> None:
        """``conn``'s job ``auth`` is over unanswered (its connection left)."""
        ...


class LookupDesk(Protocol):
    """The count of store lookups in flight."""

    def done(self, conn: Conn) -> None:
        """A lookup of ``conn`` was answered or dropped."""
        ...

    def drop_hello(self, conn: Conn) -> None:
        """``conn``'s session lookup is over."""
        ...


class GameFinder(Protocol):
    """Where the store's answer to a game looked up for analysis goes."""

    def found(self, conn: Conn, reply: Message) -> list[Out]:
        """The store's answer for ``conn``'s lookup."""
        ...
