"""``mnk-bot``: play on a server (``--server``), or be a Gomocup brain (``--piskvork``)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import sys
from pathlib import Path

from bots.pbrain import serve
from bots.priority import parse_cpus
from bots.private import read_key
from bots.runner import BotRunner
from bots.seeking import SeekPlan
from bots.specs import check_engine, make_bot, parse_spec
from protocol.connection import split_urls
from protocol.session import HelloRefused


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``mnk-bot`` (its options in the order ``--help`` lists them)."""
    p = argparse.ArgumentParser(prog="mnk-bot", description=str(__doc__).replace("``", ""))
    _add_play_options(p)
    _add_pairing_options(p)
    p.add_argument(
        "--piskvork",
        action="store_true",
        help="speak the Piskvork protocol on stdin/stdout instead (for Gomocup managers)",
    )
    _add_identity_options(p)
    _add_watchdog_options(p)
    _add_analysis_options(p)
    p.add_argument("--log-level", default="INFO")
    return p


def _add_play_options(p: argparse.ArgumentParser) -> None:
    """Where it plays, with which engine, under which name, how many games of which."""
    p.add_argument(
        "--server",
        default="ws://127.0.0.1:8765",
        help="server URL, or several separated by commas (a cluster's nodes: the bot starts on "
        "the first and, when a node is gone, resumes its session on the next)",
    )
    p.add_argument(
        "--engine",
        default="minimax",
        help="minimax[:level=N] | random | novice | module:Class | piskvork:/path/pbrain "
        "(default minimax)",
    )
    p.add_argument("--name", default=None, help="the bot's name (default: from the engine)")
    p.add_argument("--capacity", type=int, default=4, help="games played at once (default 4)")
    p.add_argument(
        "--games", default="*", help="comma-separated games it plays (default * = every game)"
    )


def _add_pairing_options(p: argparse.ArgumentParser) -> None:
    """How it finds games besides being invited: its own seeks, tournaments."""
    p.add_argument(
        "--seek",
        default=None,
        metavar='"GAME M+I"',
        help='seek games by itself, e.g. "gomoku 3+2": one seek open per free seat of '
        "--capacity, and a new one whenever a game ends (quick pairing)",
    )
    p.add_argument(
        "--seek-rated", action="store_true", help="the --seek games are rated (needs a clock)"
    )
    p.add_argument(
        "--tournament",
        action="append",
        default=[],
        metavar="ID",
        help="enter the server's tournament ID (again at every reconnect: an arena's pause "
        "ends) and play the games it seats the bot in; may be given more than once",
    )
    p.add_argument(
        "--enter-events",
        action="store_true",
        help="with --seek: also enter every open event (and running arena) of the rating pool "
        "the server says the seeks are in, once each; the events are listed every 30 s",
    )


def _add_identity_options(p: argparse.ArgumentParser) -> None:
    """Who it is on the server: its kept session and the operator's key."""
    p.add_argument(
        "--session-file",
        type=Path,
        default=None,
        help="keep the session here, so a restarted bot resumes its games as the same player",
    )
    p.add_argument(
        "--key-file",
        type=Path,
        default=None,
        help="file holding the bot's key from the server's operator (mnk-server keys add NAME)",
    )
    p.add_argument(
        "--key",
        default=None,
        help="the bot's key itself (visible to other local users: prefer --key-file or the "
        "MNK_BOT_KEY environment variable)",
    )


def _add_watchdog_options(p: argparse.ArgumentParser) -> None:
    """When it stops, when an engine counts as hung, what it reports and checks."""
    p.add_argument(
        "--parent-pid",
        type=int,
        default=None,
        help="stop when this process (the server that started the bot) is gone",
    )
    p.add_argument(
        "--hang-slack",
        type=float,
        default=5.0,
        help="seconds past its budget before an engine counts as hung and forfeits (default 5)",
    )
    p.add_argument(
        "--info",
        action="store_true",
        help="send the engine's search report with every move (spectators see it)",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="only check that --engine can be played, then exit (0: yes; else the reason)",
    )


def _add_analysis_options(p: argparse.ArgumentParser) -> None:
    """The server's analyse jobs it answers, and on which CPUs."""
    p.add_argument(
        "--analyses",
        type=int,
        default=2,
        help="the server's analyse jobs answered at once, each in a worker of its own "
        "(default 2; 0: none)",
    )
    p.add_argument(
        "--analysis-cpus",
        default=os.environ.get("MNK_ANALYSIS_CPUS") or None,
        help="the only CPUs the analysis workers run on, e.g. 2-3 (Linux; default: any, or "
        "$MNK_ANALYSIS_CPUS, which a server's built-in bot inherits): keep the games' CPUs free",
    )


async def _play(args: argparse.Namespace, key: str | None) -> None:
    """Play until stopped (HelloRefused when the server refuses the bot, e.g. its key)."""
    spec = parse_spec(args.engine)
    name = args.name or str(spec).replace(":", "-").replace("=", "")
    runner = BotRunner(
        args.server,
        spec,
        name,
        args.capacity,
        args.games.split(","),
        session_file=args.session_file,
        parent_pid=args.parent_pid,
        hang_slack=args.hang_slack,
        key=key,
        seek_plan=args.seek_plan,
        send_info=args.info,
        analyses=args.analyses,
        analysis_cpus=args.analysis_cpus,
        tournaments=tuple(args.tournament),
        enter_events=args.enter_events,
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await runner.run(stop)


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``mnk-bot`` console script (``mnk-bot certify SPEC``: the entry check,
    bots/certify.py)."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["certify"]:
        from bots.certify import main as certify

        sys.exit(certify(argv[1:]))
    if argv[:1] == ["examine"]:  # the server's side of the entry check (bots/examine.py)
        from bots.examine import main as examine

        sys.exit(examine(argv[1:]))
    args = build_parser().parse_args(argv)
    try:
        spec = parse_spec(args.engine)
        check_engine(spec)
        args.server = split_urls(args.server)
        args.seek_plan = (
            SeekPlan.from_text(args.seek, args.seek_rated, args.capacity) if args.seek else None
        )
        if (args.seek_rated or args.enter_events) and not args.seek:
            raise ValueError("--seek-rated and --enter-events go with --seek GAME")
        if args.analysis_cpus is not None:
            try:
                args.analysis_cpus = parse_cpus(args.analysis_cpus)
            except ValueError as exc:
                raise ValueError(f"--analysis-cpus {args.analysis_cpus}: {exc}") from None
    except ValueError as exc:
        sys.exit(f"mnk-bot: {exc}")
    if args.check:  # mnk-server --bots SPEC asks this before it starts
        return
    try:
        key = read_key(args.key, args.key_file)
    except OSError as exc:
        sys.exit(f"mnk-bot: --key-file: {exc}")
    if args.piskvork:
        if not spec.in_process:
            sys.exit("mnk-bot: --piskvork needs an in-process engine, not another brain")
        with contextlib.suppress(KeyboardInterrupt):
            serve(make_bot(spec, 10))
        return
    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    logging.getLogger("websockets").setLevel(logging.WARNING)
    try:
        asyncio.run(_play(args, key))
    except KeyboardInterrupt:  # Ctrl-C before the signal handlers were up: no traceback
        raise SystemExit(130) from None
    except HelloRefused as exc:  # e.g. a missing or revoked key
        where = ", ".join(args.server)
        raise SystemExit(f"mnk-bot: {where} refused this bot: {refusal(exc)}") from None


#: What to say for a refused ``hello``, by its code (others: the server's own words).
REFUSALS = {
    "bad_key": "its key is not valid there (unknown, or revoked: `mnk-server keys list` on the "
    "server shows which); ask the server's operator for a new one",
    "key_revoked": "the server's operator revoked its key; ask them for a new one",
}


def refusal(exc: HelloRefused) -> str:
    """Why the server will not have this bot, in words (never a Python repr)."""
    return REFUSALS.get(exc.code) or str(exc).removeprefix(f"{exc.code}: ")
