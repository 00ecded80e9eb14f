"""The arena's bots: who a bot's key makes it, which bot a room gets, how busy each one is."""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Collection

from protocol.errors import BadKey, BadMessage, BadOptions, NoBotAvailable
from protocol.vocab import Status
from protocol.wire import Message
from server.core.game.members import Send
from server.core.game.options import RoomRequest
from server.core.game.room import Room
from server.core.journal.rows import AccountRow
from server.core.limits import GAME_NAMES, Limits
from server.core.lobby.paging import bot_cursor, page, page_size
from server.core.lobby.registry import RoomRegistry
from server.core.node import Elsewhere, Node
from server.core.outputs import Out, Reply
from server.core.players.keys import KeyRing, hash_key
from server.core.players.names import name_key
from server.core.players.players import Player, bot_pid, hash_token
from server.core.players.roster import Roster, rooms_of

#: The most ``analyse_job``s the server sends one bot at once, whatever its ``hello`` says.
MAX_BOT_ANALYSES = 8


def plays(games: Collection[str], game: str) -> bool:
    """Whether a bot whose ``hello`` listed ``games`` plays ``game`` (``*``: every game)."""
    return game in games or "*" in games


class BotDesk:
    """Bot identities, bot choice and bot load, for the arena that owns it."""

    def __init__(
        self, roster: Roster, rooms: RoomRegistry, keys: KeyRing, *, limits: Limits, node: Node
    ) -> None:
        self.roster, self.rooms, self.keys, self.limits, self.node = (
            roster, rooms, keys, limits, node
        )  # fmt: skip
        #: During ``Arena.create_held``: the players of the bots other nodes lent seats of.
        self.granted: dict[str, Player] = {}

    def grant(self, granted: dict[str, Player]) -> None:
        """The bots other nodes lent a seat for the ``create_room`` now made ({}: none)."""
        self.granted = granted

    def owner(self, msg: Message) -> str:
        """The name of the bot whose key ``msg`` shows (BadKey without a valid one)."""
        key = msg.get("key")
        owner = None if key is None else self.keys.identify(key)
        if key is None or owner is None:
            raise BadKey("a bot needs a valid key from the server's operator")
        return owner

    def hello(self, msg: Message, owner: str) -> tuple[Player, str]:
        """The bot ``owner`` (its key's name): one player per key name, whatever its session
        says.

        The key fixes the name (the ``hello`` name is replaced). A session is kept when it is
        the bot's own, otherwise a fresh one is issued; either way the bot is back in its seats.
        """
        key = msg["key"]
        pid = self.roster.bot_pid.get(owner)
        player = self.roster.players.get(pid) if pid is not None else None
        token = msg.get("session")
        made = player is None
        if player is None and self.node.shared_sessions:  # the same id on every node, even when
            player = self.roster.players.get(bot_pid(owner))  # two nodes make it at once; maybe a
            if player is not None:  # remote member here already
                self.roster.bot_pid[owner] = player.pid
        if player is None:
            token = secrets.token_urlsafe(24)
            new = bot_pid(owner) if self.node.shared_sessions else "p_" + secrets.token_hex(6)
            player = Player(new, owner, "bot", hash_token(token))
            self.roster.bot_pid[owner] = player.pid
            self.roster.add(player)
        elif token is None or not hmac.compare_digest(hash_token(token), player.token_hash):
            token = secrets.token_urlsafe(24)
            self.roster.retoken(player, hash_token(token))
            self.roster.save(player)
        player.prove_key(hash_key(key))
        if player.account != owner or made:  # new, of an older release, or a remote member
            player.log_in(owner)
            self.roster.save(player)
            now = self.roster.clock()  # its bot account (an insert that may find it made)
            self.roster.journal.record(
                AccountRow(owner, name_key(owner), player.pid, "bot", None, now)
            )
        games = msg.get("games") or []
        # only names this server knows are kept: what a bot lists cannot grow its record
        level = msg.get("level")
        if level is not None and not 0 <= level <= 10:
            raise BadMessage("level must be 0..10")
        player.offer_play(
            frozenset(g for g in games if isinstance(g, str) and g in GAME_NAMES),
            max(1, min(msg.get("capacity", 1), 256)),
            level,
            max(0, min(msg.get("analyses", 0), MAX_BOT_ANALYSES)),
        )
        return player, token

    def list_bots(self, player: Player, msg: Message) -> list[Out]:
        """A page of ``list_bots``: this node's bots, and those online on other nodes."""
        size = page_size(msg.get("limit"), self.limits.max_page)
        bots: dict[str, Player | Message] = {
            p.pid: p for p in self.roster.players.values() if p.kind == "bot"
        }
        if not self.node.standalone:  # a cluster node: those online elsewhere as they are there
            for pid, entry in self.node.other_bots().items():
                here = bots.get(pid)
                if not isinstance(here, Player) or not self._online_here(here):
                    bots[pid] = entry
        items = sorted(bots.items(), key=lambda item: item[0])
        entries, after = page(items, bot_cursor(msg.get("cursor")), size, self._bot_line)
        return [Reply({"type": "bots", "bots": entries, "next": after})]

    def _bot_line(self, item: Player | Message) -> Message:
        return self.bot_entry(item) if isinstance(item, Player) else item

    def bot_entry(self, p: Player) -> Message:
        """The bot ``p``'s ``list_bots`` entry."""
        return {
            "name": p.name,
            "player": p.pid,
            "games": sorted(p.games),
            "capacity": p.capacity,
            "active": self.active_games(p),
            "online": p.online,
            "level": p.level,
            "account": p.account is not None,  # a keyed bot is its bot account
        }

    def chosen(
        self, asked: RoomRequest, by_name: str | None, asker: Player
    ) -> tuple[list[Player], int | None, Message]:
        """The bots a ``create_room`` asks for, the level they play and the options that say
        so (Elsewhere: some are on other nodes; NoBotAvailable: none is free)."""
        game, level = asked.variant.name, asked.level
        if asked.named is not None:  # a director's two bots
            bots = self.named(asked.named, game, asker)
            return bots, level, {"opponent": "bot", "bots": [b.name for b in bots]}
        if by_name is not None:  # a human picked the bot by name
            bot = self.free_named(by_name, game, asker, against=True)
            level = bot.level if bot.level is not None else level or 5
            return [bot], level or None, {"opponent": "bot"}  # a bot of no level shows none
        if asked.options["opponent"] == "bot":
            return [self.idle(game, level or 5, asker)], level or 5, {}
        return [], level, {}

    def named(self, names: list[object], game: str, asker: Player) -> list[Player]:
        """The two bots a director's room names, free here (Elsewhere: some are on other
        nodes, to ask for seats)."""
        wanted = [n for n in names if isinstance(n, str)]
        if len(names) != 2 or len(wanted) != 2 or wanted[0] == wanted[1]:
            raise BadOptions("bots must name two different bots")
        found: list[Player] = []
        away: list[str] = []
        for name in wanted:
            try:
                found.append(self.free_named(name, game, asker))
            except Elsewhere:
                away.append(name)
        if away:
            raise Elsewhere(away)
        return found

    def free_named(self, name: str, game: str, asker: Player, against: bool = False) -> Player:
        """The bot ``name``, free to play ``game`` (lent by its node, or connected here); one
        to play ``against`` the asker must also have a seat free for the asker's address."""
        granted = self.granted.get(name)
        if granted is not None:  # its node lent it a seat (and checked it)
            return granted
        bots = [p for p in self._online_bots(asker) if p.name == name]
        free = [p for p in bots if self._plays(p, game) and self._has_room(p)]
        if against and free and not self.fair(free[0], asker):
            raise NoBotAvailable(f"your address already plays its share of {name!r}'s seats")
        if not free:
            if not bots and self.node.bot_elsewhere(name, game, asker.pid):
                raise Elsewhere([name])
            raise NoBotAvailable(f"bot {name!r} is not connected, or busy, or does not play {game}")
        return free[0]

    @staticmethod
    def _plays(bot: Player, game: str) -> bool:
        return plays(bot.games, game)

    def _has_room(self, bot: Player) -> bool:
        return self.active_games(bot) < bot.capacity

    def _online_bots(self, asker: Player) -> list[Player]:
        """Every keyed bot that is connected here, except the one asking (never its own
        opponent)."""
        return [p for p in self.local_bots() if p.pid != asker.pid]

    def _online_here(self, p: Player) -> bool:
        """Whether ``p`` is connected to this node (a remote member is online elsewhere)."""
        return p.online and not self.node.connected_elsewhere(p.pid)

    def free_bot(self, name: str, game: str, asker: str) -> Player | None:
        """The bot ``name`` if it is connected here, plays ``game`` and has a seat free (counting
        those lent to other nodes): a cluster node lends it to a room elsewhere."""
        for p in self.local_bots():
            if p.name == name and p.pid != asker and self._plays(p, game) and self._has_room(p):
                return p
        return None

    def local_bots(self) -> list[Player]:
        """The keyed bots connected to this node (a cluster's directory lists them)."""
        bots = [self.roster.players.get(pid) for pid in self.roster.bot_pid.values()]
        return [p for p in bots if p is not None and self._online_here(p)]

    def idle(self, game: str, level: int, asker: Player) -> Player:
        """The least busy bot that plays ``game`` at ``level`` (never the asker itself).

        A bot for any level and one fixed at exactly this level both qualify (on a tie in load
        the fixed one); a bot fixed at another level, or at none, never does. None free here:
        on a cluster node, one connected to another node (whose node lends it a seat).
        """
        for granted in self.granted.values():  # the one picked elsewhere: its node lent it
            return granted
        candidates = [
            p for p in self._online_bots(asker) if self._plays(p, game) and p.level in (None, level)
        ]
        load = {p.pid: self.active_games(p) for p in candidates}
        free = [p for p in candidates if load[p.pid] < p.capacity]
        fair = [p for p in free if self.fair(p, asker)]
        if free and not fair:
            raise NoBotAvailable("your address already plays its share of every free bot's seats")
        free = fair
        if not free:
            away = self.node.idle_bot_elsewhere(game, level, asker.pid)
            if away is not None:
                raise Elsewhere([away])
            raise NoBotAvailable(f"no bot is free to play {game} at level {level} right now")
        return min(free, key=lambda p: (load[p.pid], p.level is None))

    def fair(self, bot: Player, asker: Player) -> bool:
        """Whether ``asker``'s client address holds fewer than its share of ``bot``'s seats
        (``bot_seat_share`` of its capacity, at least one): two idle sockets cannot take all."""
        key, players = asker.address_key, self.roster.players
        if key is None:
            return True
        held = 0
        for room in rooms_of(self.rooms, bot):
            if room.status != Status.OVER:
                for m in room.seats:
                    opponent = players.get(m.pid) if m is not None and m.pid != bot.pid else None
                    held += opponent is not None and opponent.address_key == key
        return held < max(1, int(bot.capacity * self.limits.bot_seat_share))

    def active_games(self, player: Player) -> int:
        """Games ``player`` (a bot) is playing: here, and in seats lent to other nodes."""
        here = sum(room.status != Status.OVER for room in rooms_of(self.rooms, player))
        return here + self.node.seats_lent(player.pid)

    def seat(self, bot: Player, room: Room, seat: int, level: int | None) -> list[Out]:
        """Seat ``bot`` in ``room``; its ``joined`` tells it the level to play."""
        out: list[Out] = []
        for send in room.join(bot.member(), seat=seat):
            if send.reply:  # the bot's own ``joined``: not a reply to the human's request
                extra = {} if level is None else {"level": level}
                send = Send(send.to, {**send.message, **extra})
            out.append(send)
        bot.rooms.add(room.id)
        self.roster.mark_played(room)
        return out

    def revoked(self) -> list[str]:
        """Online bots whose key was revoked or replaced since their ``hello``: to cut off."""
        bots = [self.roster.players.get(pid) for pid in self.roster.bot_pid.values()]
        return [
            p.pid
            for p in bots
            if p is not None
            and p.online
            and (p.key_hash is None or not self.keys.holds(p.name, p.key_hash))
        ]
