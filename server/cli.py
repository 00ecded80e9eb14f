"""``mnk-server``: run the arena on a WebSocket port until SIGTERM or SIGINT."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal

from server.arena import Arena, Limits
from server.shell import ArenaServer, ServerConfig, run_until
from server.store import Store


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``mnk-server``."""
    p = argparse.ArgumentParser(prog="mnk-server", description=__doc__)
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
    p.add_argument("--log-level", default="INFO", help="logging level (default INFO)")
    return p


async def serve_forever(args: argparse.Namespace) -> None:
    """Run the server until a termination signal arrives."""
    limits = Limits(
        human_rate=args.rate,
        human_burst=args.burst,
        bot_rate=max(args.rate, 200.0),
        bot_burst=max(args.burst, 400.0),
        reconnect_grace=args.reconnect_grace,
    )
    store = None if args.memory else Store(args.db)
    config = ServerConfig(host=args.host, port=args.port)
    server = ArenaServer(Arena(limits=limits), config, store)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await run_until(server, stop)
    logging.getLogger("mnk.server").info("mnk-server stopped")


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``mnk-server`` console script."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    logging.getLogger("websockets").setLevel(logging.WARNING)
    asyncio.run(serve_forever(args))
