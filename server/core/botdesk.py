"""The arena's bots: who a bot's key makes it, which bot a room gets, how busy each one is."""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING

from protocol.errors import BadKey, NoBotAvailable, UnknownGame
from protocol.wire import Message
from server.core.keys import KeyRing, hash_key
from server.core.paging import bot_cursor, page, page_size
from server.core.peers import BotSeats, Elsewhere, Limits, Out, Player, Reply, bot_pid, hash_token
from server.core.room import Room, Send


def plays(games: Collection[str], game: str) -> bool:
    """Whether a bot whose ``hello`` listed ``games`` plays ``game`` (``*``: every game)."""
    return game in games or "*" in games


class BotDesk:
    """Bot identities, bot choice and bot load for the arena (a mixin: see the module)."""

    limits: Limits
    players: dict[str, Player]
    keys: KeyRing
    shared_sessions: bool
    bot_seats: BotSeats | None
    remote_members: Mapping[str, str]
    lent: dict[str, int]
    _bot_pid: dict[str, str]
    _by_token: dict[str, str]
    _granted: dict[str, Player]

    if TYPE_CHECKING:  # the arena's own, used here

        def _add_player(self, player: Player) -> None: ...
        def _save_player(self, p: Player) -> None: ...
        def _rooms_of(self, player: Player) -> list[Room]: ...
        def _mark_played(self, room: Room) -> None: ...

    def _bot_owner(self, msg: Message) -> str:
        """The name of the bot whose key ``msg`` shows (BadKey without a valid one)."""
        key = msg.get("key")
        owner = None if key is None else self.keys.identify(key)
        if key is None or owner is None:
            raise BadKey("a bot needs a valid key from the server's operator")
        return owner

    def _bot_hello(self, msg: Message, owner: str) -> tuple[Player, str]:
        """The bot ``owner`` (its key's name): one player per key name, whatever its session
        says.

        The key fixes the name (the ``hello`` name is replaced). A session is kept when it is
        the bot's own, otherwise a fresh one is issued; either way the bot is back in its seats.
        """
        key = msg["key"]
        pid = self._bot_pid.get(owner)
        player = self.players.get(pid) if pid is not None else None
        token = msg.get("session")
        if player is None and self.shared_sessions:  # the same id on every node, even when
            player = self.players.get(bot_pid(owner))  # two nodes make it at once; maybe a
            if player is not None:  # remote member here already
                self._bot_pid[owner] = player.pid
        if player is None:
            token = secrets.token_urlsafe(24)
            new = bot_pid(owner) if self.shared_sessions else "p_" + secrets.token_hex(6)
            player = Player(new, owner, "bot", hash_token(token))
            self._bot_pid[owner] = player.pid
            self._add_player(player)
        elif token is None or not hmac.compare_digest(hash_token(token), player.token_hash):
            token = secrets.token_urlsafe(24)
            self._by_token.pop(player.token_hash, None)
            player.token_hash = hash_token(token)
            self._by_token[player.token_hash] = player.pid
            self._save_player(player)
        player.key_hash = hash_key(key)
        return player, token

    def _list_bots(self, player: Player, msg: Message) -> list[Out]:
        size = page_size(msg.get("limit"), self.limits.max_page)
        bots: dict[str, Player | Message] = {
            p.pid: p for p in self.players.values() if p.kind == "bot"
        }
        if self.bot_seats is not None:  # a cluster node: those online elsewhere as they are there
            for pid, entry in self.bot_seats.listing().items():
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
            "active": self._active_games(p),
            "online": p.online,
            "level": p.level,
        }

    def _named_bots(self, names: list[object], game: str, asker: Player) -> list[Player]:
        if len(names) != 2 or not all(isinstance(n, str) for n in names) or names[0] == names[1]:
            raise UnknownGame("bots must name two different bots")
        found: list[Player] = []
        away: list[str] = []
        for name in names:
            try:
                found.append(self._free_bot_named(name, game, asker))  # type: ignore[arg-type]
            except Elsewhere:
                away.append(name)  # type: ignore[arg-type]
        if away:
            raise Elsewhere(away)
        return found

    def _free_bot_named(self, name: str, game: str, asker: Player) -> Player:
        granted = self._granted.get(name)
        if granted is not None:  # its node lent it a seat (and checked it)
            return granted
        bots = [p for p in self._online_bots(asker) if p.name == name]
        free = [p for p in bots if self._plays(p, game) and self._has_room(p)]
        if not free:
            seats = self.bot_seats
            if not bots and seats is not None and seats.elsewhere(name, game, asker.pid):
                raise Elsewhere([name])
            raise NoBotAvailable(f"bot {name!r} is not connected, or busy, or does not play {game}")
        return free[0]

    @staticmethod
    def _plays(bot: Player, game: str) -> bool:
        return plays(bot.games, game)

    def _has_room(self, bot: Player) -> bool:
        return self._active_games(bot) < bot.capacity

    def _online_bots(self, asker: Player) -> list[Player]:
        """Every keyed bot that is connected here, except the one asking (never its own
        opponent)."""
        return [p for p in self.local_bots() if p.pid != asker.pid]

    def _online_here(self, p: Player) -> bool:
        """Whether ``p`` is connected to this node (a remote member is online elsewhere)."""
        return p.online and p.pid not in self.remote_members

    def free_bot(self, name: str, game: str, asker: str) -> Player | None:
        """The bot ``name`` if it is connected here, plays ``game`` and has a seat free (counting
        those lent to other nodes): a cluster node lends it to a room elsewhere."""
        for p in self.local_bots():
            if p.name == name and p.pid != asker and self._plays(p, game) and self._has_room(p):
                return p
        return None

    def local_bots(self) -> list[Player]:
        """The keyed bots connected to this node (a cluster's directory lists them)."""
        bots = [self.players.get(pid) for pid in self._bot_pid.values()]
        return [p for p in bots if p is not None and self._online_here(p)]

    def _idle_bot(self, game: str, level: int, asker: Player) -> Player:
        """The least busy bot that plays ``game`` at ``level`` (never the asker itself).

        A bot for any level and one fixed at exactly this level both qualify (on a tie in load
        the fixed one); a bot fixed at another level, or at none, never does. None free here:
        on a cluster node, one connected to another node (whose node lends it a seat).
        """
        for granted in self._granted.values():  # the one picked elsewhere: its node lent it
            return granted
        candidates = [
            p for p in self._online_bots(asker) if self._plays(p, game) and p.level in (None, level)
        ]
        load = {p.pid: self._active_games(p) for p in candidates}
        free = [p for p in candidates if load[p.pid] < p.capacity]
        if not free:
            away = None if self.bot_seats is None else self.bot_seats.idle(game, level, asker.pid)
            if away is not None:
                raise Elsewhere([away])
            raise NoBotAvailable(f"no bot is free to play {game} at level {level} right now")
        return min(free, key=lambda p: (load[p.pid], p.level is None))

    def _active_games(self, player: Player) -> int:
        here = sum(room.status != "over" for room in self._rooms_of(player))
        return here + self.lent.get(player.pid, 0) if self.lent else here

    def _seat_bot(self, bot: Player, room: Room, seat: int, level: int | None) -> list[Out]:
        out: list[Out] = []
        for send in room.join(bot.member(), seat=seat):
            if send.reply:  # the bot's own ``joined``: not a reply to the human's request
                extra = {} if level is None else {"level": level}
                send = Send(send.to, {**send.message, **extra})
            out.append(send)
        bot.rooms.add(room.id)
        self._mark_played(room)
        return out
