"""Node leases in PostgreSQL: joining, fencing every commit, adopting a lapsed node's rooms.

A node holds a lease row (``nodes``) with an epoch, its fencing token. Every commit of the node
first calls ``mnk_fence(node, epoch, lease)`` in the same transaction: it renews the lease, or
raises (the transaction writes nothing) when the lease lapsed or the epoch moved on. A survivor
adopts a lapsed node by deleting its lease row (``FOR UPDATE SKIP LOCKED``: one survivor wins)
and taking its rooms with a compare-and-set on each room's owner and epoch. Times are
PostgreSQL's clock, so the nodes' clocks need not agree. The tables and the fencing function
are storage's (``server/storage/pgschema.py``); the PostgreSQL store is handed this module.
"""

from __future__ import annotations

from typing import Any

from server.storage.base import Fenced as Fenced  # raised by the store's fenced commits

NOW = "extract(epoch FROM clock_timestamp())"


def join(db: Any, node: str, lease: float) -> int:
    """Take the lease of ``node`` with a new epoch (fencing any older process of that name).

    Rooms and events without an owner (left by a single server on this database) become
    this node's.
    """
    with db.transaction():
        row = db.execute(
            f"INSERT INTO nodes (node, epoch, lease_until) VALUES (%s, 1, {NOW} + %s) "
            f"ON CONFLICT (node) DO UPDATE SET epoch = nodes.epoch + 1, lease_until = {NOW} + %s "
            "RETURNING epoch",
            (node, lease, lease),
        ).fetchone()
        db.execute("UPDATE rooms SET owner = %s, epoch = epoch + 1 WHERE owner IS NULL", (node,))
        db.execute("UPDATE tournaments SET owner = %s WHERE owner IS NULL", (node,))
    return int(row["epoch"])


def release(db: Any, node: str, epoch: int) -> None:
    """Give the lease up now (a clean stop): survivors adopt the rooms on their next look."""
    db.execute("UPDATE nodes SET lease_until = 0 WHERE node = %s AND epoch = %s", (node, epoch))


def claim_lapsed(db: Any, me: str) -> list[tuple[str, float | None, list[Any]]]:
    """In the caller's transaction: take every lapsed node's rooms and events for ``me``.

    Returns, per adopted node, its name, its last heartbeat and its rooms (room, game_id rows).
    A lapsed node another survivor is adopting right now is skipped, never waited for.
    """
    dead = db.execute(
        f"SELECT node, epoch, alive_at FROM nodes WHERE lease_until < {NOW} AND node <> %s "
        "ORDER BY node FOR UPDATE SKIP LOCKED",
        (me,),
    ).fetchall()
    adopted = []
    for row in dead:
        db.execute("DELETE FROM nodes WHERE node = %s AND epoch = %s", (row["node"], row["epoch"]))
        rooms = db.execute(
            "UPDATE rooms SET owner = %s, epoch = epoch + 1 WHERE owner = %s "
            "RETURNING room, game_id, seq",
            (me, row["node"]),
        ).fetchall()
        rooms.sort(key=lambda r: r["seq"])
        db.execute("UPDATE tournaments SET owner = %s WHERE owner = %s", (me, row["node"]))
        adopted.append((row["node"], row["alive_at"], rooms))
    return adopted
