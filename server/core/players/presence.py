"""Players coming online in rooms without a ``hello`` here: a cluster node's remote members
(connected to another node) and the players of rooms this node just adopted; and who watches:
each room's members told its spectator count when it changed."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from protocol.rules import Termination
from protocol.vocab import Status
from server.core.game.members import Send
from server.core.game.room import Room
from server.core.journal.recovery import restore_room
from server.core.journal.rows import Snapshot
from server.core.lobby.registry import RoomRegistry
from server.core.lobby.rooms import Lobby
from server.core.outputs import Out
from server.core.players.players import Conn, Player
from server.core.players.roster import Roster, rooms_of

#: What a connection is worth to a full server (:meth:`Presence.worth`), least first.
LOBBY, WATCHING, SEATED, KEEP = range(4)


class Presence:
    """Marks players online or offline in rooms here, and gives those back the rooms' state."""

    def __init__(self, rooms: RoomRegistry, roster: Roster, lobby: Lobby) -> None:
        self.rooms, self.roster, self.lobby = rooms, roster, lobby
        #: Each room's spectator count as its members were last told it (none: 0).
        self.told: dict[str, int] = {}

    def audience_news(self, rooms: Iterable[Room]) -> list[Out]:
        """An ``audience`` note to everyone in each of ``rooms`` whose spectator count changed
        since the last call, so the players see who watches, not only the spectators' own
        ``state``. The arena calls it once a full sweep: a crowd arriving costs one note per
        member per sweep, not one per arrival (and a room gone is forgotten here)."""
        out: list[Out] = []
        told, self.told = self.told, {}
        for room in rooms:
            count = self.told[room.id] = len(room.spectators)
            if count != told.get(room.id, 0) and room.audience:
                note = {"type": "audience", "room": room.id, "spectators": count}
                out.append(Send(room.audience, note))
        return out

    def restore(self, snapshot: Snapshot, clock: Callable[[], float]) -> list[Room]:
        """The players and live rooms of ``snapshot`` (after a restart, or a lapsed node's),
        everyone offline: a seated player's grace starts now, and no clock is charged for the
        downtime. Players known already are kept as they are."""
        now = clock()
        self.roster.restore(snapshot, now)
        players, rooms = self.roster.players, []
        for room_row, game, moves in snapshot.rooms:
            room = restore_room(room_row, game, moves, clock, snapshot.alive_at)
            rooms.append(room)
            for seat, member in enumerate(room.seats):
                player = players.get(member.pid) if member is not None else None
                if player is not None and player.account is not None:  # shown as an account
                    room.seats[seat] = player.member()
                if player is not None and room.status != Status.OVER:
                    player.rooms.add(room.id)
                    if not player.online:
                        room.offline_since[player.pid] = now
        self.lobby.changed()
        return rooms

    def offline(self, player: Player, now: float) -> list[Out]:
        """``player``'s connection closed: offline in its seats (kept for the grace), gone from
        the rooms it only watched (no dead weight)."""
        out: list[Out] = []
        for room in rooms_of(self.rooms, player):
            if room.seat_of(player.pid) is None:
                room.drop_spectator(player.pid)
                player.rooms.discard(room.id)
                self.lobby.changed()
            else:
                out += room.set_online(player.pid, False, now)
        return out

    def player(self, pid: str) -> Player | None:
        """The player ``pid``, if known here (the ``Members`` port, core/ports.py)."""
        return self.roster.players.get(pid)

    def forget(self, pid: str) -> None:
        """A remote member made here has left every room here: it is forgotten."""
        self.roster.players.pop(pid, None)

    def engaged(self, conn: Conn) -> bool:
        """Whether ``conn``'s player is in a room (seated, waiting or watching) or is a bot: a
        connection that must not be closed for being idle."""
        player = self.roster.players.get(conn.pid) if conn.pid is not None else None
        return player is not None and (bool(player.rooms) or player.kind == "bot")

    def worth(self, conn: Conn) -> int:
        """What keeping ``conn`` is worth when a full server must close one for a newcomer
        (whatever it sends): ``KEEP`` for a bot or a player seated in a live game (never
        closed), then a seat in a waiting room (``SEATED``), watching (``WATCHING``), nothing
        (``LOBBY``)."""
        player = self.roster.players.get(conn.pid) if conn.pid is not None else None
        if player is None:
            return LOBBY
        if player.kind == "bot":
            return KEEP
        worth = LOBBY
        for room in filter(None, map(self.rooms.get, player.rooms)):
            if room.seat_of(player.pid) is None:
                worth = max(worth, WATCHING)
            elif room.status == Status.PLAYING:
                return KEEP
            else:
                worth = max(worth, SEATED)
        return worth

    def welcome_back(self, room_ids: Iterable[str]) -> list[Out]:
        """Players online here seated in rooms just adopted (from a lapsed cluster node) are
        online in them again, and get their state: their requests are no longer forwarded."""
        out, welcomed = self.back_online(room_ids)
        return out + self.states(welcomed)

    def back_online(self, room_ids: Iterable[str]) -> tuple[list[Out], list[tuple[Room, str]]]:
        """:meth:`welcome_back` without the states: the presence notes, and who is owed a state
        (sent once every member is back, so that each state shows them all)."""
        out: list[Out] = []
        welcomed: list[tuple[Room, str]] = []
        players = self.roster.players
        for room in filter(None, map(self.rooms.get, room_ids)):
            for member in room.seats:
                player = players.get(member.pid) if member is not None else None
                if player is not None and player.online and player.pid not in room.online:
                    out += room.set_online(player.pid, True)
                    welcomed.append((room, player.pid))
        return out, welcomed

    def states(self, welcomed: Iterable[tuple[Room, str]]) -> list[Out]:
        """Each room's ``state`` for each of its players named."""
        return [Send((pid,), room.state_for(pid)) for room, pid in welcomed]

    def attach_remote(self, pid: str, name: str, kind: str, resend: bool = False) -> list[Out]:
        """A player connected to another cluster node asks about a room here: it is online
        here, and gets the state of each room it holds here (as a ``hello`` would give), also
        when it was online already but ``resend`` (it came through another node)."""
        player = self.roster.remote(pid, name, kind)
        was_online = player.online
        if was_online and not resend:
            return []
        self.roster.online(player)
        out: list[Out] = []
        for room in rooms_of(self.rooms, player):
            if not was_online:
                out += room.set_online(pid, True)
            out.append(Send((pid,), room.state_for(pid)))
        return out


def expired_seats(room: Room, now: float, grace: float) -> list[Out]:
    """End ``room``'s game if a seated player has been offline past ``grace``: lost by
    ``disconnect``, or ``abandoned`` when both are gone."""
    if room.status != Status.PLAYING or not room.offline_since:
        return []
    gone = [
        seat
        for seat, m in enumerate(room.seats)
        if m is not None and now - room.offline_since.get(m.pid, now) >= grace
    ]
    if not gone:
        return []
    if len(gone) == 2:
        return list(room.end(Termination.ABANDONED, None))
    return list(room.end(Termination.DISCONNECT, 1 - gone[0]))
