"""``mnk-server``: run the arena on a WebSocket port until SIGTERM or SIGINT.

``mnk-server keys add NAME | list | revoke NAME`` manages the keys bots connect with.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import gc
import logging
import math
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from server.admin import DB, accounts_main, keys_main, keys_parser
from server.cluster import lease
from server.cluster import options as cluster_options
from server.core.arena import Arena
from server.core.limits import Limits
from server.core.node import Node, Standalone
from server.core.players.keys import KeyRing, read_keys_file
from server.core.ports import EventsFeed
from server.core.tournament.schedule import Schedule
from server.scheduled import FILE_HELP, SPEC_HELP, load_schedules
from server.shell.botpool import DEFAULT_BOTS, BotPool
from server.shell.examiner import Examiners
from server.shell.loop import CHOICES, LoopUnavailable, loop_name, run
from server.shell.server import ArenaServer, ServerConfig
from server.startup import allowed_hosts, bots_state_dir, db_label, page_link, startup_error
from server.storage.base import Storage, StoreUnavailable
from server.storage.factory import is_pg_url, open_store
from server.storage.memory import MemoryStore
from server.storage.sqlite import WAL_LIMIT

if TYPE_CHECKING:  # loaded only for a cluster (issue 49: psycopg ~11 MiB, redis ~7 MiB)
    from server.cluster.codes import CodeRegistry
    from server.cluster.node import ClusterNode
    from server.shell.fanout import FanOut
    from server.storage.postgres import PgStore

log = logging.getLogger("mnk.server")
#: The cyclic collector once serving: young collections every 10,000 allocations, not 700 (1,000
#: games: p99 159-169 -> 92-108 ms), a middle one after each (a crowd's arrival: pauses of 15-22
#: ms at every 3rd, 12 at each) and a full one every 30 middle ones, as often as 3 x 10 did
#: (150 ms at 4,000 connections; docs/PERFORMANCE-LOG.md "The collector's thresholds").
GC_THRESHOLDS = (10_000, 1, 30)

#: The resource bounds a hostile client meets, as ``--max-…`` options (see docs/PROTOCOL.md).
LIMIT_OPTIONS: dict[str, str] = {
    "max_connections": "open connections in all",
    "max_connections_per_address": "open connections from one client address",
    "max_pending_per_address": "connections from one address that have not said hello yet",
    "refusal_rate": "HTTP 503 answers per second to refused connections (past it: dropped)",
    "evict_after": "seconds open before a full server may close it for a newcomer",
    "hello_rate": "new game sockets (hellos) per second from one client address",
    "hello_burst": "new game sockets one client address may open at once",
    "page_rate": "HTTP requests (pages, assets, sockets) per second from one client address",
    "page_burst": "HTTP requests one client address may make at once",
    "max_page_requests_per_address": "page and asset requests from one address answered at once",
    "hello_timeout": "seconds a new connection has to say hello",
    "max_bad_frames": "undecodable frames before a connection is closed with 1008",
    "max_rooms_per_player": "rooms one player may be in at once, spectating included",
    "max_rooms_created": "open rooms one player may have created",
    "max_hello_games": "entries in a bot's hello games list",
    "max_lookups_per_connection": "history lookups in flight per connection",
    "max_lookups": "history lookups in flight in all",
    "lookup_cost": "extra messages a history lookup counts for in the rate limit",
    "max_page": "entries in one page of rooms or bots",
    "player_ttl": "seconds before an offline player with no seat and no history is forgotten",
    "max_guest_games_per_hour": "games a guest (every human) may start an hour: creates, rematches",
    "max_games_per_address_hour": "games the humans of one client address may start an hour",
    "registrations_per_hour": "accounts one client address may register in an hour",
    "first_move_timeout": "s for a first move vs a bot, untimed; timed: 15-35 s by speed at 30",
    "human_idle_timeout": "seconds a game against a bot (any clock) waits for its human's move",
    "event_move_timeout": "seconds an untimed tournament game waits for a human's move",
    "bot_seat_share": "share of each bot's seats the humans of one address may hold at once",
    "max_seeks_per_address": "open seeks the humans of one client address may hold at once",
}


def port_number(text: str) -> int:
    """An ``--port`` value: a whole number 0-65535 (0: any free port), not one that wraps."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port (0-65535)")
    return port


def positive(kind: type[int] | type[float], zero: bool = False) -> Any:
    """An argparse ``type=`` for a number above zero (or zero too, with ``zero``); ``inf`` is
    "no limit", NaN is refused."""

    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a {kind.__name__}") from None
        low_ok = value >= 0 if zero else value > 0
        if not low_ok or math.isnan(value):  # inf stays: "no limit" (bench: --hello-rate inf)
            raise argparse.ArgumentTypeError(
                f"{text} must be a number {'0 or more' if zero else 'above 0'}"
            )
        return value

    parse.__name__ = f"positive {kind.__name__}"
    return parse


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (the usage is in ``--help``)."""

    def error(self, message: str) -> NoReturn:
        """Exit 2 with ``prog: message`` alone, not the whole usage first."""
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``mnk-server``."""
    p = OneLineParser(
        prog="mnk-server",
        description=str(__doc__).replace("``", ""),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_place_options(p)
    add_player_options(p)
    add_bot_options(p)
    add_limit_options(p)
    add_commit_options(p)
    add_front_options(p)
    add_process_options(p)
    add_event_options(p)
    return p


def add_event_options(p: argparse.ArgumentParser) -> None:
    """The operator's recurring tournaments (docs/TOURNAMENTS.md, "Scheduled events")."""
    p.add_argument("--event", action="append", default=[], metavar="SPEC", help=SPEC_HELP)
    p.add_argument(
        "--events", action="append", default=[], type=Path, metavar="FILE", help=FILE_HELP
    )


def add_place_options(p: argparse.ArgumentParser) -> None:
    """Where the server listens and keeps its records: the address, the database, the cluster."""
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=port_number, default=8765, help="port to listen on (8765)")
    p.add_argument(
        "--db",
        default=DB,
        help="SQLite file for games, players and bot keys, or a postgresql:// URL",
    )
    cluster_options.add_arguments(p)
    p.add_argument(
        "--memory",
        action="store_true",
        help="keep nothing on disk: no durability, no history (throwaway servers, benchmarks)",
    )


def add_player_options(p: argparse.ArgumentParser) -> None:
    """What a human is allowed: a dropped seat's grace and the message rate."""
    p.add_argument(
        "--reconnect-grace",
        type=positive(float, zero=True),  # 0: a dropped player loses at once
        default=60.0,
        help="seconds a dropped player keeps the seat before losing (default 60)",
    )
    p.add_argument("--rate", type=positive(float), default=20.0, help="messages/s per human")
    p.add_argument("--burst", type=positive(float), default=40.0, help="burst allowed per human")


def add_bot_options(p: argparse.ArgumentParser) -> None:
    """The built-in bot processes and how long any bot may think in an untimed game."""
    p.add_argument(
        "--bots",
        nargs="+",
        default=list(DEFAULT_BOTS),
        metavar="SPEC",
        help="built-in bot processes to run (mnk-bot engine SPECs; default: minimax)",
    )
    p.add_argument("--no-bots", action="store_true", help="run no built-in bots")
    p.add_argument("--bot-capacity", type=positive(int), default=8, help="games per bot (8)")
    p.add_argument(
        "--bot-move-timeout",
        type=positive(float),
        default=60.0,
        help="seconds a bot may sit on a move in an untimed game before it loses (default 60)",
    )


def add_limit_options(p: argparse.ArgumentParser) -> None:
    """The resource bounds a hostile client meets, one ``--max-…`` option each (LIMIT_OPTIONS)."""
    defaults = Limits()
    for name, text in LIMIT_OPTIONS.items():
        default = getattr(defaults, name)
        flag = "--" + name.replace("_", "-")
        kind = positive(type(default), zero=name == "lookup_cost")
        p.add_argument(flag, type=kind, default=default, help=f"{text} ({default})")


def add_commit_options(p: argparse.ArgumentParser) -> None:
    """How the database is written: the lock's patience, the WAL's size, the committing thread."""
    p.add_argument(
        "--commit-timeout",
        type=positive(float),
        default=10.0,
        help="seconds a commit waits for the database's write lock before the server stops (10)",
    )
    p.add_argument(
        "--wal-limit",
        type=positive(int),
        default=WAL_LIMIT,
        help=f"bytes the WAL is cut back to ({WAL_LIMIT})",
    )
    p.add_argument(
        "--commit-on",
        choices=("loop", "thread"),
        default="loop",
        help="where a SQLite --db commits small batches when its lock is free: on the event "
        "loop's thread (loop, the default: no GIL hand-over) or always on the writer thread "
        "(thread: for a disk so slow that page-cache writes block)",
    )


def add_front_options(p: argparse.ArgumentParser) -> None:
    """What browsers meet first: TLS, a reverse proxy in front, the names served."""
    p.add_argument("--certfile", help="TLS certificate chain (PEM): serve wss:// instead of ws://")
    p.add_argument("--keyfile", help="the certificate's private key (PEM), with --certfile")
    p.add_argument(
        "--trust-proxy",
        action="store_true",
        help="a reverse proxy in front sets X-Forwarded-For: count connections per real client",
    )
    p.add_argument(
        "--allowed-hosts",
        metavar="NAMES",
        help="names (comma-separated) browsers reach this server by, besides IP addresses, "
        "localhost and --host: a page or socket for any other name is refused (DNS "
        "rebinding); '*' for any name (the default with --trust-proxy or --certfile)",
    )


def add_process_options(p: argparse.ArgumentParser) -> None:
    """What the process reads at start and how it runs: extra bot keys, the loop, the log."""
    p.add_argument(
        "--keys-file",
        type=Path,
        default=None,
        help="also accept the bot keys in this file (NAME=KEY lines), e.g. for embedded servers",
    )
    p.add_argument(
        "--loop",
        choices=CHOICES,
        default="auto",
        help="event loop: uvloop where installed (auto, the default), or force one",
    )
    p.add_argument(
        "--log-level",
        default="INFO",
        type=str.upper,
        choices=("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"),
        help="logging level (default INFO)",
    )


def load_keys(path: Path | None) -> KeyRing:
    """The key ring with ``--keys-file``'s keys in it (the database's come at start)."""
    keys = KeyRing()
    if path is not None:
        try:
            pairs = read_keys_file(path)
        except (OSError, ValueError) as exc:
            raise SystemExit(f"mnk-server: --keys-file: {exc}") from None
        for name, key in pairs:
            keys.add(name, key)
    return keys


def limits_of(args: argparse.Namespace) -> Limits:
    """The arena's limits: the human rate (a bot's at least as high), graces, ``--max-…``."""
    limits = Limits(
        human_rate=args.rate,
        human_burst=args.burst,
        bot_rate=max(args.rate, Limits().bot_rate),
        bot_burst=max(args.burst, Limits().bot_burst),
        reconnect_grace=args.reconnect_grace,
        bot_move_timeout=args.bot_move_timeout,
    )
    return dataclasses.replace(limits, **{name: getattr(args, name) for name in LIMIT_OPTIONS})


def open_storage(args: argparse.Namespace) -> Storage:
    """The store ``--db`` names (a node's leased PostgreSQL), or none at all with ``--memory``."""
    if args.memory:
        return MemoryStore()
    return open_store(
        args.db, args.commit_timeout, args.wal_limit, args.node, args.lease, leases=lease
    )


def server_config(args: argparse.Namespace) -> ServerConfig:
    """Where the server listens, with TLS, a proxy in front and the names it serves."""
    return ServerConfig(
        args.host,
        args.port,
        certfile=args.certfile,
        keyfile=args.keyfile,
        trust_proxy=args.trust_proxy,
        allowed_hosts=allowed_hosts(args),
    )


def cluster_store(args: argparse.Namespace, store: Storage) -> PgStore | None:
    """The PostgreSQL store a ``--node`` shares with the other nodes (None: no cluster)."""
    if args.node is None:
        return None
    from server.storage.postgres import PgStore  # psycopg: ~11 MiB, only for a cluster

    if not isinstance(store, PgStore):  # the parser refuses it: --node needs postgresql://
        raise SystemExit("mnk-server: --node keeps its rooms in PostgreSQL; check --db")
    return store


async def code_registry(pg: PgStore | None, node: str | None) -> CodeRegistry | None:
    """Room codes unique across the cluster, reserved in PostgreSQL (None: random codes)."""
    if pg is None or node is None:
        return None
    from server.cluster.codes import CodeRegistry

    registry = CodeRegistry(pg, node)
    try:
        await asyncio.to_thread(registry.fill)
    except Exception as exc:  # the pool fills later; meanwhile codes are random
        log.warning("could not reserve room codes yet (%s)", exc)
    return registry


def start_bots(args: argparse.Namespace, server: ArenaServer, keys: KeyRing) -> BotPool | None:
    """Start the built-in bot processes, their keys added to the ring (None: ``--no-bots``)."""
    if args.no_bots or not args.bots:
        return None
    state_dir = None if args.memory else bots_state_dir(args.db)
    if state_dir is not None:
        state_dir.mkdir(exist_ok=True)
    pool = BotPool(
        server.local_url, args.bots, args.bot_capacity, state_dir=state_dir, node=args.node
    )
    for name, key in pool.keys.items():
        if keys.owns(name):
            log.warning("the built-in bot %s takes its name over from a key given", name)
        keys.add(name, key)
    pool.start()
    return pool


def start_examiner(
    args: argparse.Namespace, server: ArenaServer, arena: Arena, keys: KeyRing
) -> Examiners | None:
    """Run the bots' entry check (None with ``--no-bots``: bots enter rated events unchecked)."""
    if args.no_bots:
        return None
    examiners = Examiners(server.local_url, arena.entry_check, node=args.node)
    if keys.owns(examiners.name):
        log.warning("the examiner %s takes its name over from a key given", examiners.name)
    keys.add(examiners.name, examiners.key)
    examiners.start()
    return examiners


def settle_startup_garbage() -> None:
    """Keep the cyclic collector off what start-up made (modules, restored games: it lives for
    good), so that full collections do not walk it again and pause the loop; then serve's
    thresholds."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def log_listening(args: argparse.Namespace, server: ArenaServer, store: Storage) -> None:
    """Say where the server listens, on what loop and database, and the page to play at."""
    scheme = "wss" if args.certfile else "ws"
    where = f"database {db_label(args.db)}" if store.durable else "no database (--memory)"
    log.info(
        "mnk-server listening on %s://%s:%d (%s loop, %s); play in a browser at %s",
        scheme, args.host, server.port, loop_name(), where, page_link(args, server.port),
    )  # fmt: skip


def stop_signal() -> asyncio.Event:
    """An event SIGTERM and SIGINT set: from here on either stops the server cleanly."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    return stop


async def until_stopped(stop: asyncio.Event, server: ArenaServer) -> None:
    """Wait for a termination signal, or for the server to fail (its database unwritable)."""
    waiters = [asyncio.create_task(event.wait()) for event in (stop, server.failed)]
    await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
    for waiter in waiters:
        waiter.cancel()


def why_stopped(args: argparse.Namespace, server: ArenaServer, store: Storage) -> None:
    """Exit with the reason when the server stopped for one (fenced, or its database failed)."""
    if store.fenced:
        raise SystemExit(f"mnk-server stopped: node {args.node} was fenced (its lease lapsed)")
    if server.failed.is_set():
        raise SystemExit("mnk-server stopped: the database could not be written (see the log)")


def built(
    args: argparse.Namespace,
    store: Storage,
    keys: KeyRing,
    registry: CodeRegistry | None,
    pg: PgStore | None,
) -> tuple[Arena, ArenaServer, ClusterNode[ArenaServer] | None]:
    """The arena and the server around it, and with ``--redis`` the cluster node that makes
    them (it is the arena's node; redis is loaded only for one)."""
    limits = limits_of(args)

    def arena(node: Node) -> Arena:
        return Arena(registry, limits=limits, durable=store.durable, keys=keys, node=node)

    def server(
        arena: Arena, fanout: FanOut | None = None, on_hello: Callable[[str], None] | None = None
    ) -> ArenaServer:
        return ArenaServer(
            arena, server_config(args), store, inline_commits=args.commit_on == "loop",
            fanout=fanout, on_hello=on_hello,
        )  # fmt: skip

    if args.redis is None or pg is None:
        alone = arena(Standalone(shared_sessions=registry is not None))  # sessions anywhere
        return alone, server(alone), None
    from server.cluster.node import ClusterNode

    cluster = ClusterNode(
        args.node, args.redis, pg, lease_s=args.lease, adopts=args.adopt, arena=arena,
        server=server,
    )  # fmt: skip
    return cluster.arena, cluster.server, cluster


async def connect_cluster(cluster: ClusterNode[ArenaServer], store: Storage) -> None:
    """Reach the node's bus, or stop with one line: a node does not start without Redis."""
    from server.cluster.node import BusUnreachable

    try:
        await cluster.connect()
    except BusUnreachable as exc:
        store.close()
        raise SystemExit(f"mnk-server: {exc}; check --redis") from None


async def serve_forever(
    args: argparse.Namespace, made: list[Path] | None = None, schedules: Sequence[Schedule] = ()
) -> None:
    """Run the server (and the operator's recurring ``schedules``) until a termination signal
    arrives; once it listens, the new database files ``made`` are in use (emptied: a failure
    from there on leaves them)."""
    keys = load_keys(args.keys_file)
    store = open_storage(args)
    pg = cluster_store(args, store)
    registry = await code_registry(pg, args.node)
    arena, server, cluster = built(args, store, keys, registry, pg)
    arena.plan_events(schedules)
    if pg is not None and cluster is None:  # a node without a bus opens occurrences once too
        from server.cluster.occurrences import Occurrences

        board: EventsFeed = arena.event_board  # the arena's port (core/ports.py)
        board.claim_with(Occurrences(pg))
    stop = stop_signal()
    if cluster is not None:
        await connect_cluster(cluster, store)
    await server.start()
    if made is not None:  # from here on the database is in use: never removed on failure
        made.clear()
    keeper = None
    if cluster is not None:
        cluster.start()  # it looks for lapsed nodes itself
    elif pg is not None and args.adopt:
        from server.cluster.keeper import NodeKeeper  # a node without a bus still adopts

        keeper = NodeKeeper(arena, pg, emit=server.emit, members=arena.presence)
        keeper.start()
    if registry is not None:
        registry.start()
    settle_startup_garbage()
    log_listening(args, server, store)
    pool = start_bots(args, server, keys)
    examiners = start_examiner(args, server, arena, keys)
    try:
        await until_stopped(stop, server)
    finally:
        if keeper is not None:
            await keeper.stop()
        if registry is not None:
            await registry.stop()
        if cluster is not None:
            await cluster.stop()
        if pool is not None:
            await pool.stop()
        if examiners is not None:
            await examiners.stop()
        await server.stop()
    log.info("mnk-server stopped")
    why_stopped(args, server, store)


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``mnk-server`` console script."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] in (["keys"], ["accounts"]):
        raise SystemExit(keys_command(argv[1:]) if argv[0] == "keys" else accounts_main(argv[1:]))
    parser = build_parser()
    args = parser.parse_args(argv)
    cluster_options.check(parser, args)
    schedules = load_schedules(args.events, args.event)  # a bad one: one line, no start
    if not args.no_bots:
        try:
            check_bots(args.bots)
        except KeyboardInterrupt:  # Ctrl-C while the bots are checked: no traceback
            raise SystemExit(130) from None
    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    logging.getLogger("websockets").setLevel(logging.WARNING)
    made = new_files(args)
    try:
        run(serve_forever(args, made, schedules), args.loop)
    except LoopUnavailable as exc:
        raise SystemExit(f"mnk-server: {exc}; try --loop asyncio") from None
    except KeyboardInterrupt:  # Ctrl-C before the signal handlers were up: no traceback
        raise SystemExit(130) from None
    except (OSError, sqlite3.Error, StoreUnavailable) as exc:  # port in use, bad --db
        raise SystemExit(f"mnk-server: {startup_error(args, exc)}") from None
    finally:
        for path in made:  # a start that failed leaves no new database behind
            path.unlink(missing_ok=True)


def check_bots(specs: list[str]) -> None:
    """Refuse to start with a ``--bots`` SPEC that ``mnk-bot`` cannot play (its reason, one
    line), rather than restart a bot that can never run, forever."""
    for spec in specs:
        done = subprocess.run(
            [sys.executable, "-m", "bots", "--engine", spec, "--check"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            lines = done.stderr.strip().splitlines() or [f"exit status {done.returncode}"]
            reason = lines[-1].removeprefix("mnk-bot: ")
            raise SystemExit(f"mnk-server: --bots {spec}: {reason}")


def new_files(args: argparse.Namespace) -> list[Path]:
    """The SQLite files a start would create (none when ``--db`` is there already)."""
    if args.memory or is_pg_url(args.db) or Path(args.db).exists():
        return []
    return [Path(args.db + suffix) for suffix in ("", "-wal", "-shm", "-journal", ".lock")]


def keys_command(argv: list[str]) -> int:
    """``mnk-server keys …``, refused when its database does not exist (it would make an
    empty one, whose keys no server reads)."""
    db = getattr(keys_parser().parse_args(argv), "db", DB)
    if not is_pg_url(db) and not Path(db).is_file():
        print(
            f"mnk-server keys: no database at {Path(db).resolve()}; run this where the server "
            "keeps its database (a server makes it on its first start), or give --db FILE",
            file=sys.stderr,
        )
        return 1
    return keys_main(argv)
