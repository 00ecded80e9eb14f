"""``mnk-server``'s cluster options (``--node``, ``--redis``, ``--lease``, ``--no-adopt``) and
the rules between them: a cluster's switches, kept with the cluster (docs/CLUSTER.md)."""

from __future__ import annotations

import argparse

#: Seconds: a node's lease must outlast a few of the heartbeats (one a second) that renew it.
MIN_LEASE = 2.0
#: Seconds a node's rooms stay its own after it stops renewing its lease, unless told.
LEASE = 5.0


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the cluster's options to ``mnk-server``'s parser."""
    p.add_argument(
        "--node",
        help="join a cluster as this node (needs a postgresql:// --db): see docs/CLUSTER.md",
    )
    p.add_argument(
        "--redis",
        metavar="URL",
        help="a node's bus (redis://…, with --node): one lobby of every node's rooms, sessions "
        "resumed elsewhere closed; the lease is renewed only while Redis answers",
    )
    p.add_argument(
        "--lease",
        type=float,
        default=LEASE,
        help=f"seconds a node's rooms stay its own after it stops renewing (default {LEASE:g})",
    )
    p.add_argument(
        "--no-adopt",
        dest="adopt",
        action="store_false",
        help="with --node: never adopt a lapsed node's rooms (a node being drained, or kept "
        "for bots); the other nodes still adopt this one's",
    )


def check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse cluster options that do not go together (``parser.error`` exits)."""
    if args.node is not None and args.memory:
        parser.error("--node keeps its rooms in PostgreSQL: give --db postgresql://…, not --memory")
    if args.redis is not None and args.node is None:
        parser.error("--redis is a cluster's bus: give --node NAME (and --db postgresql://…)")
    if not args.adopt and args.node is None:
        parser.error("--no-adopt is a cluster node's: give --node NAME")
    if not args.lease >= MIN_LEASE:  # heartbeats renew it every second (NaN refused too)
        parser.error(f"--lease must be at least {MIN_LEASE:g} seconds")
