"""A connection's ``hello``: a new or resumed human, a bot proving its key, or a session to look
up in a cluster's shared players table first."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from protocol import wire
from protocol.errors import BadMessage, NotHello, UnsupportedProtocol
from protocol.wire import Message
from server.core.journal.rows import AccountRow, PlayerRow
from server.core.lobby.registry import RoomRegistry
from server.core.outputs import Out, Reply, Resolve
from server.core.players.admission import Admission
from server.core.players.botdesk import BotDesk
from server.core.players.names import clean_name
from server.core.players.players import Conn, Player, hash_token
from server.core.players.roster import Roster, rooms_of
from server.core.ratelimit import TokenBucket

log = logging.getLogger("mnk.arena")
#: An account's ratings by pool (the rating domain's, given at construction).
RatingsOf = Callable[[str | None], dict[str, Any]]


class Greeter:
    """Turns a ``hello`` into a player online on its connection, with its rooms' state."""

    def __init__(
        self,
        roster: Roster,
        bots: BotDesk,
        admission: Admission,
        *,
        rooms: RoomRegistry,
        clock: Callable[[], float],
        ratings_of: RatingsOf | None = None,
        forms: Message | None = None,
    ) -> None:
        self.roster, self.bots, self.admission, self.rooms, self.clock = (
            roster, bots, admission, rooms, clock
        )  # fmt: skip
        #: The ratings ``welcome`` and ``logged_in`` show (none without).
        self.ratings_of = ratings_of
        #: What every ``welcome`` carries from other domains (``rating_pools``, ``seek_form``).
        self.forms: Message = forms or {}
        #: The desk's: the bot keys, the limits, and the node (whether sessions are shared).
        self.keys, self.limits, self.node = bots.keys, bots.limits, bots.node

    def hello(
        self,
        conn: Conn,
        msg: Message,
        resolved: bool = False,
        account: AccountRow | None = None,
    ) -> list[Out]:
        """Welcome ``conn``'s player, or park the ``hello`` while its session is looked up (an
        account's session, or a cluster's shared player: ``account`` is what that found)."""
        if msg["type"] != "hello":
            raise NotHello("say hello first")
        if msg["protocol"] != wire.PROTOCOL_VERSION:
            raise UnsupportedProtocol(f"this server speaks protocol {wire.PROTOCOL_VERSION}")
        name = clean_name(msg["name"])
        if len(msg.get("games") or ()) > self.limits.max_hello_games:
            raise BadMessage(f"games lists at most {self.limits.max_hello_games} games")
        session = msg.get("session")
        # the store may know more: an account's session (never kept here), a cluster's player
        ask = (self.node.shared_sessions or self.roster.journal.enabled) and not resolved
        roster = self.roster
        if msg["kind"] == "bot":
            owner = self.bots.owner(msg)
            if ask and self.node.shared_sessions and owner not in roster.bot_pid:
                return self.admission.park_hello(conn, msg, Resolve("", bot=owner), self.clock())
            player, token = self.bots.hello(msg, owner)
            conn.rate(TokenBucket(self.limits.bot_rate, self.limits.bot_burst))
            log.info("bot %s (%s) joined, capacity %d", player.name, player.pid, player.capacity)
        elif ask and session is not None and hash_token(session) not in roster.by_token:
            return self.admission.park_hello(conn, msg, Resolve(hash_token(session)), self.clock())
        elif account is not None and account.disabled_at is None and account.kind == "human":
            assert session is not None
            player, token = roster.account_player(account), session
            conn.sign_in(hash_token(session))
        elif self.keys.owns(name):
            raise BadMessage(f"the name {name!r} belongs to a bot; choose another")
        elif session is None or account is not None:  # a disabled account's: a fresh guest
            player, token = roster.new_human(name)
        else:
            player, token = roster.resume(name, session), session
        conn.as_guest(name)
        return self.welcome(conn, player, token)

    def welcome(self, conn: Conn, player: Player, token: str) -> list[Out]:
        """``player`` online on ``conn`` (its session ``token``), with its rooms' state."""
        pid = player.pid
        conn.identify(pid)
        player.at_address(conn.address_key if player.kind == "human" else None)
        self.roster.online(player)
        welcome = {"type": "welcome", "protocol": wire.PROTOCOL_VERSION, "player": pid}
        welcome |= {"session": token, "name": player.name, "account": player.account is not None}
        welcome |= self.forms
        if player.account is not None:
            welcome["ratings"] = self.ratings(player)
        out: list[Out] = [Reply(welcome)]
        for room in rooms_of(self.rooms, player):
            out += room.set_online(pid, True)
            out.append(Reply(room.state_for(pid)))
        return out

    def ratings(self, player: Player) -> dict[str, Any]:
        """An account's ratings by pool, as ``welcome`` and ``logged_in`` carry them."""
        return {} if self.ratings_of is None else self.ratings_of(player.account)

    def found(self, row: PlayerRow | AccountRow | None) -> AccountRow | None:
        """The store's answer to a parked ``hello``: the account whose session it is, or the
        player it names (loaded here)."""
        if isinstance(row, AccountRow):
            return row
        if row is not None and row.token_hash not in self.roster.by_token:
            self.roster.load(row)
        if row is not None and row.kind == "bot":  # one identity per bot in the cluster
            self.roster.bot_pid.setdefault(row.name, row.pid)
        return None
