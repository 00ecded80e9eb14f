"""A connection's ``hello``: a new or resumed human, a bot proving its key, or a session to look
up in a cluster's shared players table first."""

from __future__ import annotations

import logging
from collections.abc import Callable

from protocol import wire
from protocol.errors import BadMessage, NotHello, UnsupportedProtocol
from protocol.wire import Message
from server.core.admission import Admission
from server.core.botdesk import BotDesk
from server.core.journal import PlayerRow
from server.core.names import clean_name
from server.core.outputs import Out, Reply, Resolve
from server.core.players import Conn, hash_token
from server.core.ratelimit import TokenBucket
from server.core.registry import RoomRegistry
from server.core.roster import Roster, rooms_of

log = logging.getLogger("mnk.arena")


class Greeter:
    """Turns a ``hello`` into a player online on its connection, with its rooms' state."""

    def __init__(
        self,
        roster: Roster,
        bots: BotDesk,
        admission: Admission,
        rooms: RoomRegistry,
        clock: Callable[[], float],
    ) -> None:
        self.roster, self.bots, self.admission, self.rooms, self.clock = (
            roster, bots, admission, rooms, clock
        )  # fmt: skip
        #: The desk's: the bot keys, the limits, and the node (whether sessions are shared).
        self.keys, self.limits, self.node = bots.keys, bots.limits, bots.node

    def hello(self, conn: Conn, msg: Message, resolved: bool = False) -> list[Out]:
        """Welcome ``conn``'s player, or park the ``hello`` while its session is looked up."""
        if msg["type"] != "hello":
            raise NotHello("say hello first")
        if msg["protocol"] != wire.PROTOCOL_VERSION:
            raise UnsupportedProtocol(f"this server speaks protocol {wire.PROTOCOL_VERSION}")
        name = clean_name(msg["name"])
        if len(msg.get("games") or ()) > self.limits.max_hello_games:
            raise BadMessage(f"games lists at most {self.limits.max_hello_games} games")
        session = msg.get("session")
        ask = self.node.shared_sessions and not resolved  # the shared table may know more
        roster = self.roster
        if msg["kind"] == "bot":
            owner = self.bots.owner(msg)
            if ask and owner not in roster.bot_pid:  # known elsewhere?
                return self.admission.park_hello(conn, msg, Resolve("", bot=owner), self.clock())
            player, token = self.bots.hello(msg, owner)
            conn.bucket = TokenBucket(self.limits.bot_rate, self.limits.bot_burst)
            log.info("bot %s (%s) joined, capacity %d", player.name, player.pid, player.capacity)
        elif ask and session is not None and hash_token(session) not in roster.by_token:
            return self.admission.park_hello(conn, msg, Resolve(hash_token(session)), self.clock())
        elif self.keys.owns(name):
            raise BadMessage(f"the name {name!r} belongs to a bot; choose another")
        elif session is None:
            player, token = roster.new_human(name)
        else:
            player, token = roster.resume(name, session), session
        pid = conn.pid = player.pid
        player.address_key = conn.address_key if player.kind == "human" else None
        roster.online(player)
        welcome = {"type": "welcome", "protocol": wire.PROTOCOL_VERSION, "player": pid}
        welcome |= {"session": token, "name": player.name}
        out: list[Out] = [Reply(welcome)]
        for room in rooms_of(self.rooms, player):
            out += room.set_online(pid, True)
            out.append(Reply(room.state_for(pid)))
        return out

    def found(self, row: PlayerRow | None) -> None:
        """The shared table's answer to a parked ``hello``: load the player it names."""
        if row is not None and row.token_hash not in self.roster.by_token:
            self.roster.load(row)
        if row is not None and row.kind == "bot":  # one identity per bot in the cluster
            self.roster.bot_pid.setdefault(row.name, row.pid)
