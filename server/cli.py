"""``mnk-server``: run the arena on a WebSocket port until SIGTERM or SIGINT."""

from __future__ import annotations

import argparse
import asyncio
import errno
import logging
import signal
import sqlite3
from pathlib import Path

from server.arena import Arena, Limits
from server.botpool import DEFAULT_BOTS, BotPool
from server.shell import ArenaServer, ServerConfig
from server.store import Store

log = logging.getLogger("mnk.server")


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``mnk-server``."""
    p = argparse.ArgumentParser(prog="mnk-server", description=str(__doc__).replace("``", ""))
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765, help="port to listen on (default 8765)")
    p.add_argument("--db", default="mnk-arena.sqlite3", help="SQLite file for games and players")
    p.add_argument(
        "--memory",
        action="store_true",
        help="keep nothing on disk: no durability, no history (throwaway servers, benchmarks)",
    )
    p.add_argument(
        "--reconnect-grace",
        type=float,
        default=60.0,
        help="seconds a dropped player keeps the seat before losing (default 60)",
    )
    p.add_argument("--rate", type=float, default=20.0, help="messages/s allowed per human")
    p.add_argument("--burst", type=float, default=40.0, help="burst allowed per human")
    p.add_argument(
        "--bots",
        nargs="+",
        default=list(DEFAULT_BOTS),
        metavar="SPEC",
        help="built-in bot processes to run (mnk-bot engine SPECs; default: minimax)",
    )
    p.add_argument("--no-bots", action="store_true", help="run no built-in bots")
    p.add_argument("--bot-capacity", type=int, default=8, help="games per built-in bot (8)")
    p.add_argument(
        "--bot-move-timeout",
        type=float,
        default=60.0,
        help="seconds a bot may sit on a move in an untimed game before it loses (default 60)",
    )
    p.add_argument("--log-level", default="INFO", help="logging level (default INFO)")
    return p


async def serve_forever(args: argparse.Namespace) -> None:
    """Run the server until a termination signal arrives."""
    limits = Limits(
        human_rate=args.rate,
        human_burst=args.burst,
        bot_rate=max(args.rate, Limits().bot_rate),
        bot_burst=max(args.burst, Limits().bot_burst),
        reconnect_grace=args.reconnect_grace,
        bot_move_timeout=args.bot_move_timeout,
    )
    store = None if args.memory else Store(args.db)
    config = ServerConfig(host=args.host, port=args.port)
    server = ArenaServer(Arena(limits=limits, durable=store is not None), config, store)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await server.start()
    log.info("mnk-server listening on ws://%s:%d", args.host, server.port)
    pool = None
    if not args.no_bots and args.bots:
        host = "127.0.0.1" if args.host in ("", "0.0.0.0", "::") else args.host
        state_dir = None if args.memory else Path(f"{args.db}.bots")
        if state_dir is not None:
            state_dir.mkdir(exist_ok=True)
        pool = BotPool(f"ws://{host}:{server.port}", args.bots, args.bot_capacity, state_dir)
        pool.start()
    try:
        waiters = [asyncio.create_task(event.wait()) for event in (stop, server.failed)]
        await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        for waiter in waiters:
            waiter.cancel()
    finally:
        if pool is not None:
            await pool.stop()
        await server.stop()
    log.info("mnk-server stopped")
    if server.failed.is_set():
        raise SystemExit("mnk-server stopped: the database could not be written (see the log)")


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``mnk-server`` console script."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    logging.getLogger("websockets").setLevel(logging.WARNING)
    try:
        asyncio.run(serve_forever(args))
    except KeyboardInterrupt:  # Ctrl-C before the signal handlers were up: no traceback
        raise SystemExit(130) from None
    except (OSError, sqlite3.Error) as exc:  # port in use, unwritable or corrupt --db
        raise SystemExit(f"mnk-server: {startup_error(args, exc)}") from None


def startup_error(args: argparse.Namespace, exc: BaseException) -> str:
    """One line saying why the server could not start, and what to try."""
    if isinstance(exc, OSError) and exc.errno == errno.EADDRINUSE:
        return f"port {args.port} on {args.host} is in use (another mnk-server?); try --port"
    if isinstance(exc, sqlite3.Error) or str(exc.filename or "").startswith(args.db):
        return f"cannot use the database {args.db!r}: {exc}; try another --db or --memory"
    return f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}"
