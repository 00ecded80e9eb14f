"""Forwarding across an owner's death: what a node forwarded to a room's owner goes to the
room's adopter, and the players here who sat in or watched the room are attached there.

Two signals say a room moved. The adopter tells every other node at once (an ``Adopted`` op,
with the players seated in the rooms it took): all of ``dead``'s rooms are its own
now (one survivor adopts a node whole). And, should that note be lost (Redis pub/sub and
streams are at most once while Redis is down), every half second each node compares where it
sent things with the lobby: a room listed under another node may have moved, and PostgreSQL's
rooms table says whether it did (right after an adoption the dead node's hash may still list
it). Unanswered requests are then sent
again as retries (:mod:`server.cluster.reroute` keeps them), players seated there are attached
(``Attach``: the adopter gives them the room's state) and spectators watch again (``Watch``: they
are not in PostgreSQL, only their node knows them). When the adopter is this node, all of that is
done here. A retried move the dead owner had committed (its answer lost) is answered by the
adopter with that move (:meth:`Failover.applied`, the room's own ``moved``), never applied twice
nor refused as stale.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from redis.exceptions import RedisError

from protocol import wire
from protocol.errors import BadFrame, StalePly
from protocol.rules import WinRule
from server.cluster.audience import Audience, AudienceHash, RemoteMember, render
from server.cluster.ops import Adopted, Attach, Offline, Op, Request, Watch
from server.cluster.ports import ClusterStore, Link, Lobbies, Outbox
from server.cluster.reroute import Pending, Rerouter
from server.cluster.targets import event_of
from server.cluster.targets import owners as owners_of
from server.core.game import messages
from server.core.game.members import Send
from server.core.game.room import Room
from server.core.outputs import Out, Reply
from server.core.players.players import Player
from server.core.ports import Members, RoomsView

log = logging.getLogger("mnk.cluster")

#: Seconds between two looks for rooms whose owner changed (their requests are sent again).
INTERVAL = 0.5
#: Players named per ``who`` op (a bus entry stays as small as a client's frame).
PIDS_PER_NOTE = 512
#: Seconds a node's audience hash outlives its last write beyond the lease: an adopter reads it
#: once the lease lapsed and its look for lapsed nodes found it (once a second).
AUDIENCE_SLACK_S = 60.0
#: Requests kept for the end of an adoption under way (past it, they are answered at once).
MAX_PARKED = 4_096


class Failover:
    """One node's side of rooms changing owner (see the module); the forwarder sends."""

    def __init__(
        self,
        link: Link,
        outbox: Outbox,
        *,
        store: ClusterStore,
        lobbies: Lobbies,
        lease_s: float,
        members: Members,
        rooms: RoomsView,
    ) -> None:
        #: Who is here and this node's rooms (the arena's, core/ports.py).
        self.members, self.rooms = members, rooms
        self.link, self.outbox, self.store, self.lobbies = link, outbox, store, lobbies
        self.rerouter = Rerouter()
        #: While an adoption is under way, the requests that found no room and the bus ops
        #: behind them: handled at its end (PostgreSQL names this node before the arena holds
        #: the rooms).
        self._parked: list[Callable[[], None]] | None = None
        #: This node's rooms' remote members in Redis, and the reading of a lapsed node's.
        self.audience = AudienceHash(
            link.redis, link.prefix, link.node, ttl_s=lease_s + AUDIENCE_SLACK_S
        )

    def handle(self, node: str, op: Op) -> bool:
        """Carry out ``op`` from ``node`` if it is failover's; whether it was."""
        if isinstance(op, Watch):
            self.on_watch(node, op.pid, op.name, op.kind, op.room)
        elif isinstance(op, Adopted):
            self.on_adopted(node, op.dead, op.pids)
        else:
            return False
        return True

    def started(self) -> None:
        """An adoption is under way: requests that find no room wait for its end."""
        if self._parked is None:
            self._parked = []

    def finished(self) -> None:
        """The adoption ended (done or failed): what waited is handled, in order."""
        parked, self._parked = self._parked or [], None
        for work in parked:
            try:
                work()
            except Exception:  # one that fails loses itself only
                log.exception("a request held for an adoption could not be handled")

    @property
    def parked(self) -> int:
        """How many requests wait for the end of the adoption under way."""
        return len(self._parked or ())

    def park(self, work: Callable[[], None]) -> bool:
        """Keep ``work`` (a request that found no room, or a bus op behind one) for the end of
        the adoption under way; whether it was kept (not when no adoption is under way, or too
        many wait)."""
        if self._parked is None or len(self._parked) >= MAX_PARKED:
            return False
        self._parked.append(work)
        return True

    async def audience_of(self, dead: str) -> Audience:
        """The remote members of ``dead``'s rooms, as it last wrote them (read before adopting)."""
        return await self.audience.read(dead)

    def adopted(self, dead: str, pids: list[str]) -> None:
        """This node adopted ``dead``'s rooms, where ``pids`` sit or watch: what this node sent
        there is handled here now, and every other node re-attaches those of its players (or
        detaches those it no longer holds)."""
        self._node_gone(dead, self.link.node)
        self.link.spawn(self._tell_adopted(dead, pids))

    def attach_audience(self, dead: str, audience: Audience) -> None:
        """Seat and seat again as spectators the adopted rooms' members on other nodes, before
        any move can be played in the rooms (their nodes' ``Attach`` would come after it)."""
        here, out = self.link.node, []
        for room_id, members in audience.items():
            if self.rooms.get(room_id) is None:
                continue  # over and gone, or not one of the rooms adopted
            # players first, so that the spectators' states show them online
            for m in sorted(members, key=lambda m: m.watching):
                if m.node in (here, dead):  # here: welcomed back; on ``dead``: gone with it
                    continue
                if m.watching:
                    self.on_watch(m.node, m.pid, m.name, m.kind, room_id)
                else:
                    out += self.link.attach(m.node, m.pid, m.name, m.kind)
        self.outbox.emit(out)

    async def _tell_adopted(self, dead: str, pids: list[str]) -> None:
        link = self.link
        try:
            nodes = await self.lobbies.nodes()
        except (RedisError, OSError):
            return  # they find the rooms' new owner in the lobby instead (``reroute``)
        for other in sorted(nodes):
            if other not in (link.node, dead):
                for i in range(0, max(1, len(pids)), PIDS_PER_NOTE):
                    link.queue(other, Adopted(dead, pids[i : i + PIDS_PER_NOTE]))

    def on_adopted(self, node: str, dead: str, pids: list[str]) -> None:
        """``node`` adopted ``dead``'s rooms: players here seated there are online there now,
        and what this node sent to ``dead`` goes to ``node``."""
        for pid in pids:
            player = self.members.player(pid)
            if self.outbox.connected(pid) and player is not None and player.online:
                self.link.went_via(pid, node)
                self.link.queue(node, Attach(pid, player.name, player.kind))
            else:  # if ``dead``'s audience named it here, it is not here any more
                self.link.queue(node, Offline(pid))
        self._node_gone(dead, node)

    def _node_gone(self, dead: str, node: str) -> None:
        for room in self.rerouter.rooms_on(dead):
            self._reroute(room, dead, node)

    async def run_forever(self) -> None:
        """Every :data:`INTERVAL` seconds: publish this node's rooms' remote members, and look
        at rooms whose owner changed."""
        while True:
            await asyncio.sleep(INTERVAL)
            try:
                if self.store.holds_lease():  # woken past it: adopted, its rooms are not its own
                    await self.audience.write(render(self.remote_members()))
            except (RedisError, OSError) as exc:
                self.link.warn(f"the rooms' remote members are not published ({exc})")
            try:
                await self.reroute()
            except Exception as exc:  # PostgreSQL unreachable: the next look tries again
                self.link.warn(f"rooms whose owner changed are not looked at ({exc})")

    def remote_members(self) -> Audience:
        """Per room here, its members connected to other nodes (what an adopter attaches)."""
        audience: Audience = {}
        rooms = self.rooms
        for pid, node in self.link.remote.items():
            player = self.members.player(pid)
            if player is None:
                continue
            for room_id in player.rooms:
                room = rooms.get(room_id)
                if room is not None and pid in room.members:
                    watching = room.seat_of(pid) is None
                    member = RemoteMember(pid, node, player.name, player.kind, watching)
                    audience.setdefault(room_id, []).append(member)
        return audience

    async def reroute(self) -> None:
        """Send again what went to rooms now listed under another node, once PostgreSQL says
        whose they are (right after an adoption the dead node's hash may still list them),
        and re-attach their members; rooms this node holds now are handled here."""
        here = self.link.node
        self.rerouter.expire(time.monotonic())
        suspects = sorted(self.rerouter.suspects(self._owner_now))
        if not suspects:
            return
        remote = sorted({room for room, _, new in suspects if new != here})
        owners = await asyncio.to_thread(owners_of, self.store, remote) if remote else {}
        for room, old, new in suspects:
            now = here if new == here else owners.get(room)
            if now == here and self.rooms.get(room) is None:
                continue  # being adopted here this very moment: ``adopted`` sees to it
            if now is not None and now != old and self._owner_now(room) is not None:
                self._reroute(room, old, now)

    def _owner_now(self, room: str) -> str | None:
        if self.rooms.get(room) is not None:
            return self.link.node
        return self.lobbies.owners.get(room)

    def _reroute(self, room: str, old: str, new: str) -> None:
        """``room`` moved from ``old`` to ``new``: its members here are attached there, and
        its unanswered requests sent again (handled here when ``new`` is this node)."""
        link = self.link
        again, members = self.rerouter.move(room, old, new, time.monotonic())
        here = new == link.node
        event = event_of(room)
        for pid, watching in members.items():
            player = self.members.player(pid)
            if player is None or not player.online:
                continue
            if event is not None:
                self._watch_event(new, player, event)
                continue
            if here:  # seated players here got the room back on adoption (``welcome_back``)
                if watching:
                    self.on_watch(new, pid, player.name, player.kind, room)
                continue
            link.went_via(pid, new)
            if watching:
                link.queue(new, Watch(pid, player.name, player.kind, room))
            else:
                link.queue(new, Attach(pid, player.name, player.kind))
        for seq, p in again:
            self._retry(seq, p, new)
        if here:
            for pid in members:
                self.rerouter.leave(pid, room)

    def _retry(self, seq: int, p: Pending, node: str) -> None:
        """Send ``p`` again to ``node``, marked as a retry (handled here if this node)."""
        link = self.link
        player = self.members.player(p.pid)
        if player is None or not player.online:
            self.rerouter.forget(seq)
        elif node == link.node:
            self.rerouter.forget(seq)
            link.on_request(node, p.pid, player.name, player.kind, p.frame, None, True)
        else:
            link.went_via(p.pid, node)
            again = Request(p.pid, player.name, player.kind, p.frame, seq, True, player.account)
            link.queue(node, again)

    def _watch_event(self, node: str, player: Player, event: str) -> None:
        """``player`` (connected here) watched ``event``, which ``node`` runs now (adopted):
        it watches it there again (watchers are not in PostgreSQL) and gets its state."""
        link, pid, name, kind = self.link, player.pid, player.name, player.kind
        frame = wire.encode({"type": "watch_tournament", "tournament": event})
        if node == link.node:
            link.on_request(node, pid, name, kind, frame, None, False)
            return
        link.went_via(pid, node)
        link.queue(node, Attach(pid, name, kind))
        link.queue(node, Request(pid, name, kind, frame, None, False, player.account))

    def on_watch(self, node: str, pid: str, name: str, kind: str, room_id: str) -> None:
        """``pid`` (connected to ``node``) watched ``room_id`` before this node adopted it: it
        watches it here again (spectators are not in PostgreSQL) and gets its state."""
        link = self.link
        out = [] if node == link.node else link.attach(node, pid, name, kind)
        room = self.rooms.get(room_id)
        if room is not None and pid not in room.members:
            join = wire.encode({"type": "join_room", "room": room_id, "spectate": True})
            out += [s for s in link.run(pid, join) if isinstance(s, Send) and not s.reply]
        self.outbox.emit(out)

    def applied(self, pid: str, frame: bytes) -> list[Out]:
        """A retried move its room already has (the dead owner committed it but its answer
        was lost): that move's ``moved`` again, not ``stale_ply``; a retried move the owner
        committed and a takeback then took off: ``stale_ply`` (never played twice); else
        nothing."""
        try:
            msg = wire.decode(frame)
        except BadFrame:
            return []
        room = self.rooms.get(str(msg.get("room")))
        if room is None or msg.get("type") != "move":
            return []
        moved = played(room, pid, msg)
        if moved is None and taken_back(room, msg):
            moved = wire.error(StalePly.code, f"ply {msg.get('ply')} was taken back")
        if moved is None:
            return []
        if "id" in msg:
            moved["id"] = msg["id"]
        return [Reply(moved)]


def played(room: Room, pid: str, msg: wire.Message) -> wire.Message | None:
    """The ``moved`` of ``msg``'s ply if ``pid``'s seat played exactly that stone there."""
    ply, x, y = msg.get("ply"), msg.get("x"), msg.get("y")
    moves, seat, colours = room.game.moves, room.seat_of(pid), room.colours
    if type(ply) is not int or not 0 <= ply < len(moves) or seat is None or colours is None:
        return None
    if room.opening_rule is not None:  # who placed an opening stone is not its colour's seat
        return None
    colour = (room.game.board.first + ply) & 1
    if (moves[ply].x, moves[ply].y) != (x, y) or colours[seat] != colour:
        return None
    return moved_again(room, ply, seat)


def taken_back(room: Room, msg: wire.Message) -> bool:
    """Whether ``msg``'s stone at its ply is one the room's last takeback took off (its move
    was committed, then undone: playing it again would undo the takeback)."""
    offers = room.offers
    if offers is None or offers.game_id != room.game_id:
        return False
    return (msg.get("ply"), msg.get("x"), msg.get("y")) in offers.undone


def moved_again(room: Room, ply: int, seat: int) -> wire.Message:
    """The ``moved`` of the stone ``seat`` played at ``ply``, again: a cluster node that
    adopted the room answers a retried move whose first answer was lost."""
    move, clocks = room.game.moves[ply], room.clocks[ply] if ply < len(room.clocks) else None
    snapshot = [round(c, 3) for c in clocks] if clocks else None
    last = ply == len(room.game.moves) - 1
    renju_black = room.variant.rule is WinRule.RENJU and room.game.to_move == 0
    forbidden = room.forbidden() if last and renju_black else None
    again = messages.moved(room.id, ply, seat, move.x, move.y, snapshot, forbidden)
    return again | messages.abort_note(room, ply, last and room.game.outcome is not None)
