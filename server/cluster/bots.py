"""Bots across cluster nodes: a directory of every node's bots, and rooms seating bots that are
connected to other nodes, without ever overbooking a bot's capacity.

**Directory.** Each bus round (``RedisBus.round``, no extra round trip) a node writes the
``list_bots`` entries of the bots connected to it into its own hash ``mnk:DB:bots:NODE`` (by
player id, plus a ``~`` field, so the hash exists while the node lives), only when they changed
or Redis lost them, with the lobby's expiry; it reads the other nodes' hashes. ``list_bots``
shows them all; a dead node's bots leave with its hash.

**Seats.** The node a bot is connected to (its *home*) is the authority on its capacity. A
``create_room`` naming bots connected elsewhere is held here (the arena stays sans-I/O) while
each home is asked over the bus for a seat:

- ``SeatAsk(token, name, game, asker)``: lend a seat of the bot ``name`` for ``game``;
- ``Lent(token, grant)``: the answer (``grant`` None: no);
- ``Free(token)``: the room the seat was lent for is over (or was never made).

A home lends a seat only while its bot is free counting the seats it lent already
(:meth:`ClusterBots.lent_of`, which the arena's node counts in a bot's load), so two nodes asking
at once get one seat for a bot of capacity 1. Once every
seat is lent the room is made with the bots as remote members (their outputs go to their home,
which writes them to the bots' sockets: a bot sees what it sees when seated at home); no answer
within ``WAIT`` seconds or one refusal, and the asker gets ``no_bot_available``, and the seats
lent are given back. A seat goes back when its room is gone, or its game is over in a
director's room (which never rematches), or, in a human's room, over and left by the bot (a
rematch would play past its capacity otherwise): seen when the bot is sent something, and each
round. A home drops the seats of a node whose directory hash expired (a dead node).
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field

from redis.asyncio.client import Pipeline

from protocol import wire
from protocol.errors import NoBotAvailable, RateLimited
from protocol.vocab import Status
from protocol.wire import Message
from server.cluster.ops import Free, Grant, Lent, Op, SeatAsk
from server.cluster.ports import Link, Outbox
from server.core.game.members import Send
from server.core.outputs import Out, Reply
from server.core.players.botdesk import plays
from server.core.players.players import Player
from server.core.ports import BotLender, Members, Requests, RoomsView

#: Seconds a held ``create_room`` waits for the bots' homes before ``no_bot_available``.
WAIT = 5.0
#: ``create_room`` requests held here at once, in all and per player (a director makes
#: many rooms at once: as many as the rooms one player may have created).
MAX_HELD = 256
MAX_HELD_PER_PLAYER = 32
#: Seats this node's bots may be lent at once, in all (each bot also within its capacity).
MAX_LENT = 65_536
#: The field that keeps a node's directory hash alive while it lists no bot.
ALIVE = "~"


@dataclass(slots=True)
class Held:
    """A ``create_room`` waiting for the homes of the bots it names to lend their seats."""

    pid: str
    msg: Message
    asked: dict[int, str]
    granted: dict[int, tuple[str, Grant]] = field(default_factory=dict)
    refused: bool = False
    timer: asyncio.TimerHandle | None = None

    def wait(self, timer: asyncio.TimerHandle) -> None:
        """``timer`` ends the wait for the lenders if they do not answer in time."""
        self.timer = timer

    def refuse(self) -> None:
        """A lender refused: the ``create_room`` is answered with no bot."""
        self.refused = True


class ClusterBots:
    """One node's side of the bot directory and of seats lent across nodes (see the module)."""

    def __init__(
        self,
        arena: Requests,
        link: Link,
        outbox: Outbox,
        *,
        lease_s: float,
        members: Members,
        rooms: RoomsView,
        lender: BotLender,
    ) -> None:
        self.arena, self.link, self.outbox, self.lease_s = arena, link, outbox, lease_s
        #: Who is here, this node's rooms, and its bots that lend seats (core/ports.py).
        self.members, self.rooms, self.lender = members, rooms, lender
        self.node = link.node
        self.key = self.key_of(self.node)
        self._written: dict[str, str] | None = None
        #: Other nodes' bots: entries by player id, and each name's (node, player id).
        self.entries: dict[str, Message] = {}
        self.homes: dict[str, tuple[str, str]] = {}
        #: Nodes whose directory hash exists (alive, as far as Redis knows).
        self.live: set[str] = set()
        # -- asking: held requests by token, per player, and the seats lent to rooms here
        self._asks: dict[int, Held] = {}
        self._per_player: dict[str, int] = {}
        self._next = 0
        self._seats: dict[str, list[tuple[str, int, str]]] = {}
        self._rooms_of: dict[str, set[str]] = {}
        # -- lending: (node, token) -> (bot pid, when), and seats lent per bot
        self._lent: dict[tuple[str, int], tuple[str, float]] = {}
        self._lent_per_bot: dict[str, int] = {}

    def key_of(self, node: str) -> str:
        """The key of ``node``'s directory hash."""
        return f"{self.link.prefix}bots:{node}"

    # -- the directory (inside the bus round's pipelines) --------------------------------------

    def write(self, p: Pipeline) -> None:
        """Queue this round's writes of the directory hash (ending with its ``HLEN``)."""
        desk = self.lender
        lines = {b.pid: json.dumps(desk.bot_entry(b)) for b in desk.local_bots()}
        lines[ALIVE] = "1"
        if lines != self._written:
            p.delete(self.key)
            p.hset(self.key, mapping=lines)  # type: ignore[arg-type]
            self._written = lines
        p.pexpire(self.key, int(self.lease_s * 1000))
        p.hlen(self.key)

    def written(self, size: int) -> None:
        """The hash's size after the writes: shorter, Redis lost it: all again next round."""
        if self._written is not None and size != len(self._written):
            self._written = None

    def failed(self) -> None:
        """The round did not reach Redis: it may come back empty, so write everything again."""
        self._written = None

    def read(self, tables: dict[str, dict[bytes, bytes]]) -> None:
        """Take the other nodes' directory hashes, then give back what ended (each round)."""
        entries: dict[str, Message] = {}
        homes: dict[str, tuple[str, str]] = {}
        for node, table in tables.items():
            for pid, line in table.items():
                if pid.decode() == ALIVE:
                    continue
                entry = json.loads(line)
                entries[pid.decode()] = entry
                homes.setdefault(entry["name"], (node, pid.decode()))
        self.entries, self.homes = entries, homes
        self.live = {node for node, table in tables.items() if table}
        self._tidy()

    def listing(self) -> dict[str, Message]:
        """The ``list_bots`` entries of the bots online on other nodes, by player id."""
        return self.entries

    def elsewhere(self, name: str, game: str, asker: str) -> bool:
        """Whether the bot ``name`` is online on another node and plays ``game``."""
        home = self.homes.get(name)
        if home is None or home[1] == asker:
            return False
        return plays(self.entries[home[1]]["games"], game)

    def idle(self, game: str, level: int, asker: str) -> str | None:
        """The least busy bot online on another node that plays ``game`` at ``level``, as the
        arena picks among its own (``active`` as the last round read it: its node decides)."""
        best: tuple[tuple[int, bool], str] | None = None
        for pid, entry in self.entries.items():
            games, fixed = entry["games"], entry["level"]
            if pid == asker or fixed not in (None, level) or entry["active"] >= entry["capacity"]:
                continue
            if plays(games, game):
                rank = (entry["active"], fixed is None)
                if best is None or rank < best[0]:
                    best = (rank, entry["name"])
        return None if best is None else best[1]

    # -- asking for seats ----------------------------------------------------------------------

    def hold(self, player: Player, msg: Message, names: list[str], game: str) -> list[Out]:
        """Hold ``player``'s ``create_room`` and ask each named bot's home for a seat."""
        held_here = self._per_player.get(player.pid, 0)
        if sum(self._per_player.values()) >= MAX_HELD:
            raise RateLimited("too many rooms wait for bots on other nodes; try again")
        if held_here >= MAX_HELD_PER_PLAYER:
            raise RateLimited("wait for the rooms you asked for first")
        held = Held(player.pid, msg, {})
        for name in names:
            node, _pid = self.homes[name]
            self._next += 1
            if not self.link.queue(node, SeatAsk(self._next, name, game, player.pid)):
                for token in held.asked:  # a seat asked for already is freed when lent
                    self._asks.pop(token, None)
                raise RateLimited("the cluster bus is overloaded; try again")
            held.asked[self._next] = name
            self._asks[self._next] = held
        self._per_player[player.pid] = held_here + 1
        held.wait(asyncio.get_running_loop().call_later(WAIT, self._expire, held))
        return []

    def _on_lent(self, node: str, token: int, grant: Grant | None) -> None:
        held = self._asks.pop(token, None)
        if held is None:  # too late: the request was answered meanwhile
            if grant is not None:
                self.link.queue(node, Free(token))
            return
        held.asked.pop(token, None)
        if grant is not None:
            held.granted[token] = (node, grant)
        else:  # one refusal refuses the room: the other answers need not be waited for
            self._expire(held)
            return
        if not held.asked:
            self._finish(held)

    def _expire(self, held: Held) -> None:
        """A refusal, or no answer in time from some home: the request is refused (seats lent
        later go back as they come)."""
        for token in held.asked:
            self._asks.pop(token, None)
        held.asked.clear()
        held.refuse()
        self._finish(held)

    def _finish(self, held: Held) -> None:
        """Every home answered (or time ran out): make the room, or refuse it."""
        if held.timer is not None:
            held.timer.cancel()
        left = self._per_player.get(held.pid, 1) - 1
        if left:
            self._per_player[held.pid] = left
        else:
            self._per_player.pop(held.pid, None)
        arena = self.arena
        if held.refused:
            self._give_back(held)
            exc = NoBotAvailable("a bot named is not connected, or busy, or does not play that")
            error = wire.error(exc.code, exc.message, held.msg.get("id"))
            self.outbox.emit([Send((held.pid,), error)])
            return
        out: list[Out] = []
        players: dict[str, Player] = {}
        for node, grant in held.granted.values():
            # a remote member: its outputs go home
            out += self.link.attach(node, grant.pid, grant.name, "bot")
            bot = self.members.player(grant.pid)
            assert bot is not None  # attached just above
            bot.offer_play(frozenset(grant.games), grant.capacity, grant.level, bot.analyses)
            players[grant.name] = bot
        got, room = arena.create_held(held.pid, held.msg, players)
        if room is None:
            self._give_back(held)
        else:
            for token, (node, grant) in held.granted.items():
                self._seats.setdefault(room, []).append((node, token, grant.pid))
                self._rooms_of.setdefault(grant.pid, set()).add(room)
        out += [Send((held.pid,), i.message) if isinstance(i, Reply) else i for i in got]
        self.outbox.emit(out)

    def _give_back(self, held: Held) -> None:
        for token, (node, _grant) in held.granted.items():
            self.link.queue(node, Free(token))
        held.granted.clear()

    def delivered(self, pids: list[str]) -> None:
        """Outputs went to these remote members: a seat lent for a game now over goes back
        (before anything said later, so the bot is free again for the next room asked)."""
        rooms_of = self._rooms_of
        if not rooms_of:
            return
        for pid in pids:
            for room in list(rooms_of.get(pid, ())):
                if self._over(room):
                    self._free(room)

    def _over(self, room_id: str) -> bool:
        """Whether the seats lent for ``room_id`` are done with: the room is gone, or its game
        is over and, unless it is a director's room (they never rematch), the bots left it (a
        rematch would otherwise play past their capacity)."""
        room = self.rooms.get(room_id)
        if room is None:
            return True
        if room.status != Status.OVER:
            return False
        if "bots" in room.options:
            return True
        members = room.members
        return not any(pid in members for _node, _token, pid in self._seats.get(room_id, ()))

    def _free(self, room: str) -> None:
        for node, token, pid in self._seats.pop(room, ()):
            self.link.queue(node, Free(token))
            rooms = self._rooms_of.get(pid)
            if rooms is not None:
                rooms.discard(room)
                if not rooms:
                    del self._rooms_of[pid]

    def _tidy(self) -> None:
        """Give back seats of rooms gone or over; drop seats lent to nodes that are gone."""
        for room in [r for r in self._seats if self._over(r)]:
            self._free(room)
        if not self._lent:
            return
        now = time.monotonic()
        for (node, token), (_pid, at) in list(self._lent.items()):
            if node not in self.live and now - at > self.lease_s:
                self._on_free(node, token)

    # -- lending seats -------------------------------------------------------------------------

    def lent_of(self, pid: str) -> int:
        """Seats of this node's bot ``pid`` lent to rooms on other nodes (part of its load)."""
        return self._lent_per_bot.get(pid, 0)

    def _on_seat(self, node: str, token: int, name: str, game: str, asker: str) -> None:
        bot = self.lender.free_bot(name, game, asker)
        if bot is None or len(self._lent) >= MAX_LENT:
            self.link.queue(node, Lent(token, None))
            return
        self._lent[(node, token)] = (bot.pid, time.monotonic())
        self._lent_per_bot[bot.pid] = self._lent_per_bot.get(bot.pid, 0) + 1
        grant = Grant(bot.pid, bot.name, bot.level, bot.capacity, sorted(bot.games))
        self.link.queue(node, Lent(token, grant))

    def _on_free(self, node: str, token: int) -> None:
        got = self._lent.pop((node, token), None)
        if got is None:
            return
        lent = self._lent_per_bot
        left = lent.get(got[0], 1) - 1
        if left > 0:
            lent[got[0]] = left
        else:
            lent.pop(got[0], None)

    def handle(self, node: str, op: Op) -> None:
        """Carry out one of this module's bus ops from ``node``."""
        if isinstance(op, SeatAsk):
            self._on_seat(node, op.token, op.name, op.game, op.asker)
        elif isinstance(op, Lent):
            self._on_lent(node, op.token, op.grant)
        elif isinstance(op, Free):
            self._on_free(node, op.token)
        else:
            raise ValueError(f"not a bot seats' op: {op!r}")
