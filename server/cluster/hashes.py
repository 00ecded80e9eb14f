"""A node's own Redis hash written by difference: the lobby's lines and its rooms' audience.

Each round a node knows the lines it wants in its hash and the ones it last wrote; only the
difference goes to Redis, and the hash expires unless renewed. When Redis comes back empty (it
restarted), the hash is shorter than what was written: the caller then writes it whole again.
"""

from __future__ import annotations

from collections.abc import Mapping

from redis.asyncio.client import Pipeline


def queue_lines(
    p: Pipeline, key: str, lines: Mapping[str, str], written: Mapping[str, str] | None, ttl_ms: int
) -> None:
    """Queue on ``p`` what makes ``key`` hold ``lines`` (all of them when ``written`` is None:
    nothing known written), and its expiry."""
    if written is None:
        p.delete(key)
        changed, gone = dict(lines), []
    else:
        changed = {k: v for k, v in lines.items() if written.get(k) != v}
        gone = [k for k in written if k not in lines]
    if changed:
        p.hset(key, mapping=changed)  # type: ignore[arg-type]
    if gone:
        p.hdel(key, *gone)
    p.pexpire(key, ttl_ms)


def kept(lines: dict[str, str], size: int) -> dict[str, str] | None:
    """What is known written after a write of ``lines`` left the hash at ``size`` fields: None
    (write it all next time) when it holds fewer, as after Redis restarted empty."""
    return lines if size == len(lines) else None
