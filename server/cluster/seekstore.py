"""The cluster's one pool of seeks, in Redis: every node's open seeks where every node reads
them, a lock electing the node that runs a pairing wave, and the atomic claim that takes seeks
out of the pool at most once.

Keys (``mnk:DB:`` first, as the bus's):

- ``seeks:NODE``: a hash of ``NODE``'s open seeks (seek id → the seek's record, a JSON line the
  caller makes), plus a ``~`` field so the hash exists while its node lives. Its node writes it
  (only what changed) and renews its expiry each round: the seeks of a node that died, or whose
  lease lapsed, leave the pool with the hash, by themselves.
- ``pairing:wave``: the wave lock, ``SET NX PX``: the node that sets it pairs the whole pool
  this wave; the others only list it.

- ``taken:SEEK``: a claimed seek's tombstone, its record (for ``TAKEN_S``): a write of that
  seek sent again (its first answer lost in a timeout) never puts it back; the seek put back in
  its pool after an abort (the same id, a new ``since``) goes in.

A seek leaves the pool only through :meth:`SeekStore.claim` (a Lua script, so one step for
Redis): every seek named still there → all removed and tombstoned; else none is. Pairing two
seeks, accepting one, cancelling one and a seek dying with its player all claim, so whichever
comes first wins and the others learn the seek is gone: a seek is paired at most once even when
nodes race.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import redis.asyncio as aioredis
from redis.exceptions import RedisError

#: The field that keeps a node's seeks hash alive while it holds no seek.
ALIVE = "~"

#: Seconds a claimed seek's tombstone is kept (far past any write retried).
TAKEN_S = 600

#: KEYS: n hashes then their n tombstones; ARGV: the n seek ids, then the tombstones' ms.
#: Every seek named still in its hash: all removed, each tombstoned with its record, 1; else
#: nothing, 0.
CLAIM = """
local n = #ARGV - 1
for i = 1, n do
  if redis.call('HEXISTS', KEYS[i], ARGV[i]) == 0 then return 0 end
end
for i = 1, n do
  local record = redis.call('HGET', KEYS[i], ARGV[i])
  redis.call('HDEL', KEYS[i], ARGV[i])
  redis.call('SET', KEYS[n + i], record, 'PX', ARGV[#ARGV])
end
return 1
"""

#: KEYS: the node's hash, then a tombstone per seek; ARGV: the hash's expiry (ms), then each
#: seek's id and record. Writes each seek unless that very record was claimed (a seek put back
#: in its pool has a new ``since``), keeps the hash alive; how many written.
PUT = """
local written = 0
for i = 2, #KEYS do
  if redis.call('GET', KEYS[i]) ~= ARGV[2 * i - 1] then
    redis.call('HSET', KEYS[1], ARGV[2 * i - 2], ARGV[2 * i - 1])
    written = written + 1
  end
end
redis.call('HSET', KEYS[1], '~', '1')
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return written
"""


@dataclass(slots=True)
class Pool:
    """What one round read: the whole cluster's seeks, and this node's as Redis has them."""

    #: Every node's seeks (this one's included): node → seek id → record.
    seeks: dict[str, dict[str, str]] = field(default_factory=dict)
    #: This node's seek ids still in Redis after the round's writes (not claimed).
    own: set[str] = field(default_factory=set)
    #: Whether this node's hash was gone before the round (Redis lost it: restarted empty, or
    #: the node was away past its expiry); the caller decides what its seeks become.
    lost: bool = False


class SeekStore:
    """One node's view of the cluster's seeks in Redis (see the module)."""

    def __init__(self, redis: aioredis.Redis, prefix: str, node: str, *, expire_s: float) -> None:
        self.redis, self.prefix, self.node = redis, prefix, node
        self.expire_ms = max(1000, int(expire_s * 1000))
        self.key = self.key_of(node)
        self.nodes_key = f"{prefix}nodes"
        self.wave_key = f"{prefix}pairing:wave"
        self._claim = redis.register_script(CLAIM)
        self._put = redis.register_script(PUT)
        #: Whether a round wrote the hash already (a missing hash after that was lost).
        self._written = False

    def key_of(self, node: str) -> str:
        """The key of ``node``'s seeks hash."""
        return f"{self.prefix}seeks:{node}"

    def taken_of(self, seek: str) -> str:
        """The key of ``seek``'s tombstone."""
        return f"{self.prefix}taken:{seek}"

    def _put_args(self, seeks: Mapping[str, str]) -> tuple[list[str], list[str | int]]:
        keys = [self.key, *(self.taken_of(seek) for seek in seeks)]
        args: list[str | int] = [self.expire_ms]
        for seek, record in seeks.items():
            args += [seek, record]
        return keys, args

    async def put(self, seeks: Mapping[str, str]) -> int:
        """Put seeks in the pool now, unless claimed already: how many went in."""
        keys, args = self._put_args(seeks)
        async with self.redis.pipeline(transaction=True) as p:
            await self._put(keys=keys, args=args, client=p)
            p.sadd(self.nodes_key, self.node)
            written, _ = await p.execute()
        return int(written)

    async def sync(self, add: Mapping[str, str], remove: Iterable[str]) -> Pool:
        """One round: write this node's changes (``add``; ``remove``, what it took out without a
        claim), renew its hash, and read every node's seeks."""
        gone = list(remove)
        async with self.redis.pipeline(transaction=True) as p:
            p.hexists(self.key, ALIVE)
            keys, args = self._put_args(add)
            await self._put(keys=keys, args=args, client=p)
            if gone:
                p.hdel(self.key, *gone)
            p.sadd(self.nodes_key, self.node)
            p.smembers(self.nodes_key)
            got = await p.execute()
        existed, members = got[0], got[-1]
        lost = self._written and not existed
        self._written = True
        nodes = sorted(m.decode() for m in members)
        async with self.redis.pipeline(transaction=False) as p:
            for node in nodes:
                p.hgetall(self.key_of(node))
            tables = await p.execute()
        every: dict[str, dict[str, str]] = {}
        for node, table in zip(nodes, tables, strict=True):
            seeks = {k.decode(): v.decode() for k, v in table.items() if k != ALIVE.encode()}
            if seeks:
                every[node] = seeks
        return Pool(every, set(every.get(self.node, ())), lost)

    async def claim(self, seeks: Sequence[tuple[str, str]]) -> bool:
        """Take every ``(node, seek id)`` out of the pool at once, or none: whether they were
        all still there (and are now taken by the caller)."""
        keys = [self.key_of(node) for node, _ in seeks] + [self.taken_of(s) for _, s in seeks]
        args: list[str | int] = [seek for _, seek in seeks]
        return bool(await self._claim(keys=keys, args=[*args, TAKEN_S * 1000]))

    async def lead(self, ttl_s: float) -> bool:
        """Whether this node runs the wave now: it set the wave lock, which expires by itself
        in ``ttl_s`` seconds (a node that dies mid-wave holds nobody up)."""
        got = await self.redis.set(self.wave_key, self.node, nx=True, px=max(1, int(ttl_s * 1000)))
        return bool(got)

    async def clear(self) -> None:
        """Take this node's seeks out of the pool (a stop: its players' sockets close)."""
        with contextlib.suppress(RedisError, OSError):
            await self.redis.delete(self.key)
