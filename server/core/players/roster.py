"""Who the arena knows: players by id, session token and bot name, which of them the store must
keep, and when an offline one is forgotten."""

from __future__ import annotations

import secrets
from collections.abc import Callable

from protocol.errors import BadKey, BadSession
from server.core.game.room import Room
from server.core.journal.recovery import Journal
from server.core.journal.rows import AccountRow, PlayerRow, Snapshot
from server.core.lobby.registry import RoomRegistry
from server.core.players.players import Player, hash_token


class Roster:
    """The players of one arena and their rows in the journal."""

    def __init__(self, journal: Journal, clock: Callable[[], float], ttl: float) -> None:
        self.journal = journal
        self.clock = clock
        self.ttl = ttl
        self.players: dict[str, Player] = {}
        self.by_token: dict[str, str] = {}
        #: The one player id of each bot name here.
        self.bot_pid: dict[str, str] = {}
        #: Offline players who may be pruned, oldest first, with when they went offline.
        self._offline: dict[str, float] = {}
        #: Spectators not saved yet: written together on the next full sweep, off the replies'
        #: path (nothing sent depends on a spectator's row; it only lets the session resume).
        self._unsaved_watchers: dict[str, Player] = {}

    def add(self, player: Player) -> None:
        """A new identity; a bot's row is written at once (keys bound how many there are), a
        human's only when it first matters (:meth:`keep`)."""
        self.players[player.pid] = player
        self.by_token[player.token_hash] = player.pid
        if player.kind == "bot":
            self.save(player)

    def save(self, p: Player) -> None:
        """Write ``p``'s row (again: its name or token changed)."""
        p.mark_saved()
        self.journal.player(p.pid, p.name, p.kind, p.token_hash, self.clock(), p.account)

    def keep(self, player: Player, *, watching: bool = False) -> None:
        """``player`` now matters after a restart: a seat or a created room needs its row in
        the same commit (a seat must resume after ``kill -9``); a spectator's can wait for the
        next full sweep."""
        if player.saved:
            return
        if watching:
            self._unsaved_watchers[player.pid] = player
        else:
            self._unsaved_watchers.pop(player.pid, None)
            self.save(player)

    def retoken(self, player: Player, token_hash: str) -> None:
        """``player``'s session token is now the one hashed ``token_hash``."""
        self.by_token.pop(player.token_hash, None)
        player.retoken(token_hash)
        self.by_token[token_hash] = player.pid

    def online(self, player: Player) -> None:
        """``player`` connected (here, or on another node through a room here)."""
        player.came_online()
        self._offline.pop(player.pid, None)

    def offline(self, player: Player, now: float) -> None:
        """``player``'s connection closed: it may be pruned later unless it has history."""
        player.went_offline(now)
        if not player.played and player.account is None:  # an account's id is kept forever
            self._offline[player.pid] = now

    def resume(self, name: str, token: str) -> Player:
        """The human ``token`` resumes (renamed to ``name``)."""
        pid = self.by_token.get(hash_token(token))
        if pid is None:
            raise BadSession("unknown session; say hello without one to start anew")
        player = self.players[pid]
        if player.kind == "bot":
            raise BadKey("this session is a bot's: it resumes only with the bot's key")
        if player.account is not None:  # its sessions are the account's, looked up in the store
            raise BadSession("unknown session; say hello without one to start anew")
        if player.name != name:
            player.rename(name)
            if player.saved:  # else the new name is written with the row, when it is
                self.save(player)
        return player

    def new_human(self, name: str) -> tuple[Player, str]:
        """A new human named ``name``, and its session token."""
        token = secrets.token_urlsafe(24)
        player = Player("p_" + secrets.token_hex(6), name, "human", hash_token(token))
        self.add(player)
        return player, token

    def load(self, row: PlayerRow) -> None:
        """A player another node saved, resuming here: never pruned (nor deleted) from here, as
        it may sit in other nodes' rooms (as an attached remote member)."""
        player = self.players.get(row.pid)
        if player is None:
            player = self.players[row.pid] = Player(
                row.pid, row.name, row.kind, row.token_hash, saved=True, account=row.account
            )
        else:  # a remote member here (no token known), or one whose token changed meanwhile
            self.by_token.pop(player.token_hash, None)
            player.retoken(row.token_hash)
        player.mark_played()
        self.by_token[row.token_hash] = row.pid

    def account_player(self, account: AccountRow) -> Player:
        """The one player of ``account`` (made here when its row is only in the store, or on
        another node: saved again when it first matters, an upsert of the same row)."""
        player = self.players.get(account.pid)
        if player is None:  # its players row's token is never given out: it resumes nobody
            token_hash = hash_token(secrets.token_urlsafe(24))
            player = Player(account.pid, account.name, account.kind, token_hash)
            self.add(player)
        player.log_in(account.name)
        if player.name != account.name:  # a guest name it had on another node before
            player.rename(account.name)
        return player

    def remote(self, pid: str, name: str, kind: str) -> Player:
        """A player connected to another node, here as a member of rooms here (its own node
        saves it and knows its token: never journaled nor pruned here)."""
        player = self.players.get(pid)
        if player is None:
            player = self.players[pid] = Player(pid, name, kind, token_hash="", saved=True)
        player.mark_played()
        return player

    def restore(self, snapshot: Snapshot, now: float) -> None:
        """Take back the players of a snapshot; those known already are kept as they are."""
        for row in sorted(snapshot.players, key=lambda r: r.created_at):
            if row.pid in self.players:
                continue
            played = row.pid in snapshot.played
            player = Player(
                row.pid, row.name, row.kind, row.token_hash, saved=True, account=row.account,
                played=played,
            )  # fmt: skip
            self.players[row.pid] = player
            self.by_token[row.token_hash] = row.pid
            if not player.played and row.account is None:
                self._offline[row.pid] = now
            if row.kind == "bot":  # the newest player of a bot's name, unless one is connected
                current = self.players.get(self.bot_pid.get(row.name, ""))
                if current is None or not current.online:
                    self.bot_pid[row.name] = row.pid

    def mark_played(self, room: Room) -> None:
        """Once a game starts, its players have history: they are never pruned."""
        if room.started:
            for member in room.seats:
                player = self.players.get(member.pid) if member is not None else None
                if player is not None:
                    player.mark_played()

    def prune(self, now: float) -> None:
        """Forget players offline past the TTL with no room and no game in the history."""
        offline = self._offline
        while offline:
            pid, since = next(iter(offline.items()))
            if now - since < self.ttl:
                return
            del offline[pid]
            player = self.players.get(pid)
            if player is None or player.online or player.played:
                continue
            if player.rooms or player.created:
                offline[pid] = now  # look again later, when its rooms are gone
                continue
            del self.players[pid]
            self.by_token.pop(player.token_hash, None)
            self._unsaved_watchers.pop(pid, None)
            if player.saved:
                self.journal.player_gone(pid)

    def save_watchers(self) -> None:
        """Write the rows of spectators still unsaved, all in the sweep's one commit."""
        watchers, self._unsaved_watchers = self._unsaved_watchers, {}
        for player in watchers.values():
            if not player.saved and self.players.get(player.pid) is player:
                self.save(player)


def rooms_of(rooms: RoomRegistry, player: Player) -> list[Room]:
    """The rooms ``player`` is in (seated or watching), in a stable order."""
    found = [rooms.get(r) for r in sorted(player.rooms)]
    return [r for r in found if r is not None]
