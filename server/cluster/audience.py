"""Each node's rooms' remote members, kept in Redis so that an adopter hears them at once.

A room's owner knows which of its members are connected to other nodes (the fan-out's remote
members: seated players and spectators whose requests came forwarded). Only the owner knows the
spectators (they are not in PostgreSQL), and the seated players' nodes only learn of an adoption
when the adopter's ``Adopted`` op reaches them. So every half second each node writes, per room
it owns that has any, the list of those members into its own hash ``mnk:DB:audience:NODE``
(only what changed; nothing at all when it has none), and the adopter of a lapsed node reads
that node's hash before it restores the rooms: their members are attached in the same step as
the rooms appear, before any move can be played in them, so every member hears every move
after the adoption. The members' own nodes still re-attach them on ``Adopted`` (and when the
lobby shows the room elsewhere): that covers a member who joined in the last half second, or a
hash lost with Redis. A member whose socket has gone since is detached again by its node's
answer to ``Adopted`` (an ``Offline``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from server.cluster.hashes import kept, queue_lines

#: Seconds an adopter waits for a lapsed node's hash before it adopts without it.
READ_TIMEOUT = 1.0
#: Members kept per room (a room's audience is bounded by the room itself; this bounds a hash).
MAX_PER_ROOM = 512


@dataclass(frozen=True, slots=True)
class RemoteMember:
    """A member of a room connected to another node than the room's owner."""

    pid: str
    node: str
    name: str
    kind: str
    watching: bool


#: Per room, its remote members.
Audience = dict[str, list[RemoteMember]]


def render(audience: Mapping[str, Iterable[RemoteMember]]) -> dict[str, str]:
    """Each room's line in the hash (stable: the same members give the same line)."""
    lines = {}
    for room, members in audience.items():
        rows = sorted([m.pid, m.node, m.name, m.kind, m.watching] for m in members)
        lines[room] = json.dumps(rows[:MAX_PER_ROOM], separators=(",", ":"))
    return lines


def parse(table: Mapping[bytes, bytes]) -> Audience:
    """The rooms' members from a node's hash (a malformed line is skipped, not trusted)."""
    audience: Audience = {}
    for room, line in table.items():
        try:
            rows = json.loads(line)
            members = [_member(row) for row in rows[:MAX_PER_ROOM]]
        except (ValueError, TypeError):
            continue
        audience[room.decode(errors="replace")] = members
    return audience


def _member(row: Any) -> RemoteMember:
    pid, node, name, kind, watching = row
    if not all(isinstance(v, str) for v in (pid, node, name, kind)) or type(watching) is not bool:
        raise TypeError("not a member")
    return RemoteMember(pid, node, name, kind, watching)


class AudienceHash:
    """This node's hash of its rooms' remote members, and the reading of another node's."""

    def __init__(self, redis: aioredis.Redis, prefix: str, node: str, *, ttl_s: float) -> None:
        self.redis, self.prefix, self.node = redis, prefix, node
        #: Milliseconds the hash outlives this node's last write: past the lease and a scan.
        self.ttl_ms = int(ttl_s * 1000)
        #: The lines as last written (None: write them all next time).
        self.written: dict[str, str] | None = None

    def key_of(self, node: str) -> str:
        """The key of ``node``'s audience hash."""
        return f"{self.prefix}audience:{node}"

    async def write(self, lines: dict[str, str]) -> None:
        """Write what changed since the last write (all of it after Redis lost the hash)."""
        written = self.written
        if not lines and written == {}:
            return  # nothing to say, and nothing said before
        key = self.key_of(self.node)
        async with self.redis.pipeline(transaction=True) as p:
            queue_lines(p, key, lines, written, self.ttl_ms)
            p.hlen(key)
            *_, size = await p.execute()
        self.written = kept(lines, size)

    async def read(self, node: str) -> Audience:
        """``node``'s rooms' remote members as it last wrote them (none when Redis is away)."""
        try:
            async with asyncio.timeout(READ_TIMEOUT):
                table = await self.redis.hgetall(self.key_of(node))
        except (RedisError, OSError, TimeoutError):
            return {}  # the members' nodes re-attach them on ``Adopted`` instead
        return parse(table)
