"""Forwarding across an owner's death: what a node forwarded to a room's owner goes to the
room's adopter, and the players here who sat in or watched the room are attached there.

Two signals say a room moved. The adopter tells every other node at once (``["who", dead,
[pid, …]]``, with the players seated in the rooms it took): all of ``dead``'s rooms are its own
now (one survivor adopts a node whole). And, should that note be lost (Redis pub/sub and
streams are at most once while Redis is down), every half second each node compares where it
sent things with the lobby: a room listed under another node may have moved, and PostgreSQL's
rooms table says whether it did (right after an adoption the dead node's hash may still list
it). Unanswered requests are then sent
again as retries (:mod:`server.cluster.reroute` keeps them), players seated there are attached
(``att``: the adopter gives them the room's state) and spectators watch again (``sp``: they are
not in PostgreSQL, only their node knows them). When the adopter is this node, all of that is
done here. A retried move the dead owner had committed (its answer lost) is answered by the
adopter with that move (:func:`applied`), never applied twice nor refused as stale.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from redis.exceptions import RedisError

from protocol import wire
from protocol.errors import BadFrame
from server.cluster.reroute import Pending, Rerouter
from server.core.peers import Out, Reply
from server.core.room import Room, Send

if TYPE_CHECKING:
    from server.cluster.forward import Forwarder

#: Seconds between two looks for rooms whose owner changed (their requests are sent again).
INTERVAL = 0.5
#: Players named per ``who`` op (a bus entry stays as small as a client's frame).
PIDS_PER_NOTE = 512


class Failover:
    """One node's side of rooms changing owner (see the module); the forwarder sends."""

    def __init__(self, fwd: Forwarder) -> None:
        self.fwd = fwd
        self.rerouter = Rerouter()

    def adopted(self, dead: str, pids: list[str]) -> None:
        """This node adopted ``dead``'s rooms, where ``pids`` sit: what this node sent there is
        handled here now, and every other node re-attaches those of its players to this one."""
        self._node_gone(dead, self.fwd.node)
        self.fwd.spawn(self._tell_adopted(dead, pids))

    async def _tell_adopted(self, dead: str, pids: list[str]) -> None:
        fwd = self.fwd
        try:
            nodes = await fwd.redis.smembers(fwd.bus.nodes_key)
        except (RedisError, OSError):
            return  # they find the rooms' new owner in the lobby instead (``reroute``)
        for other in sorted(n.decode() for n in nodes):
            if other not in (fwd.node, dead):
                for i in range(0, max(1, len(pids)), PIDS_PER_NOTE):
                    fwd.queue(other, ["who", dead, pids[i : i + PIDS_PER_NOTE]])

    def on_adopted(self, node: str, dead: str, pids: list[str]) -> None:
        """``node`` adopted ``dead``'s rooms: players here seated there are online there now,
        and what this node sent to ``dead`` goes to ``node``."""
        fwd = self.fwd
        for pid in pids:
            player = fwd.arena.players.get(pid)
            if pid in fwd.fanout.sockets and player is not None and player.online:
                fwd._went_via(pid, node)
                fwd.queue(node, ["att", pid, player.name, player.kind])
        self._node_gone(dead, node)

    def _node_gone(self, dead: str, node: str) -> None:
        for room in self.rerouter.rooms_on(dead):
            self._reroute(room, dead, node)

    async def run_forever(self) -> None:
        """Look at rooms whose owner changed every :data:`INTERVAL` seconds."""
        while True:
            await asyncio.sleep(INTERVAL)
            try:
                await self.reroute()
            except Exception as exc:  # PostgreSQL unreachable: the next look tries again
                self.fwd._warn(f"rooms whose owner changed are not looked at ({exc})")

    async def reroute(self) -> None:
        """Send again what went to rooms now listed under another node, once PostgreSQL says
        whose they are (right after an adoption the dead node's hash may still list them),
        and re-attach their members; rooms this node holds now are handled here."""
        fwd = self.fwd
        self.rerouter.expire(time.monotonic())
        suspects = sorted(self.rerouter.suspects(self._owner_now))
        if not suspects:
            return
        remote = sorted({room for room, _, new in suspects if new != fwd.node})
        owners = await asyncio.to_thread(fwd.store.room_owners, remote) if remote else {}
        for room, old, new in suspects:
            now = fwd.node if new == fwd.node else owners.get(room)
            if now == fwd.node and fwd.arena.rooms.get(room) is None:
                continue  # being adopted here this very moment: ``adopted`` sees to it
            if now is not None and now != old and self._owner_now(room) is not None:
                self._reroute(room, old, now)

    def _owner_now(self, room: str) -> str | None:
        fwd = self.fwd
        return fwd.node if fwd.arena.rooms.get(room) is not None else fwd.bus.owners.get(room)

    def _reroute(self, room: str, old: str, new: str) -> None:
        """``room`` moved from ``old`` to ``new``: its members here are attached there, and
        its unanswered requests sent again (handled here when ``new`` is this node)."""
        fwd = self.fwd
        again, members = self.rerouter.move(room, old, new, time.monotonic())
        here = new == fwd.node
        for pid, watching in members.items():
            player = fwd.arena.players.get(pid)
            if player is None or not player.online:
                continue
            if here:  # seated players here got the room back on adoption (``welcome_back``)
                if watching:
                    self.on_watch(new, pid, player.name, player.kind, room)
                continue
            fwd._went_via(pid, new)
            if watching:
                fwd.queue(new, ["sp", pid, player.name, player.kind, room])
            else:
                fwd.queue(new, ["att", pid, player.name, player.kind])
        for seq, p in again:
            self._retry(seq, p, new)
        if here:
            for pid in members:
                self.rerouter.leave(pid, room)

    def _retry(self, seq: int, p: Pending, node: str) -> None:
        """Send ``p`` again to ``node``, marked as a retry (handled here if this node)."""
        fwd = self.fwd
        player = fwd.arena.players.get(p.pid)
        if player is None or not player.online:
            self.rerouter.forget(seq)
        elif node == fwd.node:
            self.rerouter.forget(seq)
            fwd._on_request(node, p.pid, player.name, player.kind, p.frame, None, True)
        else:
            fwd._went_via(p.pid, node)
            fwd.queue(node, ["req", p.pid, player.name, player.kind, p.frame, seq, True])

    def on_watch(self, node: str, pid: str, name: str, kind: str, room_id: str) -> None:
        """``pid`` (connected to ``node``) watched ``room_id`` before this node adopted it: it
        watches it here again (spectators are not in PostgreSQL) and gets its state."""
        fwd = self.fwd
        out = [] if node == fwd.node else fwd._attach(node, pid, name, kind)
        room = fwd.arena.rooms.get(room_id)
        if room is not None and pid not in room.members:
            join = wire.encode({"type": "join_room", "room": room_id, "spectate": True})
            out += [s for s in fwd._run(pid, join) if isinstance(s, Send) and not s.reply]
        fwd.server._emit(None, out, fwd.arena.drain())

    def applied(self, pid: str, frame: bytes) -> list[Out]:
        """A retried move its room already has (the dead owner committed it but its answer
        was lost): that move's ``moved`` again, not ``stale_ply``; else nothing."""
        try:
            msg = wire.decode(frame)
        except BadFrame:
            return []
        room = self.fwd.arena.rooms.get(str(msg.get("room")))
        moved = None if room is None or msg.get("type") != "move" else played(room, pid, msg)
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
    moved: wire.Message = {"type": "moved", "room": room.id, "ply": ply, "seat": seat, "x": x}
    moved["y"] = y
    clocks = room.clocks[ply] if ply < len(room.clocks) else None
    if clocks:
        moved["clocks"] = [round(c, 3) for c in clocks]
    return moved
