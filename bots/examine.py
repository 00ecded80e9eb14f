"""``mnk-bot examine --server URL --examinee NAME``: the entry check a server runs on a bot
account before its first rated event (docs/BOTS.md, "The entry check").

The server launches this process with a key of its own (``MNK_BOT_KEY``, never on argv) when a
bot asks to enter a rated event unchecked. It connects as the server's examiner (a keyed bot
that plays no game itself: it is seated only in the rooms it creates), plays the battery of
``mnk-bot certify`` against the bot as it is connected (every check but the reconnect, which
needs the bot's own connection: not run by the server) and reports each check's outcome in a
``certified`` request, which the server takes from its examiner alone.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from bots.certify import GAMES, Certifier, Outcome, bot_online, listed, run_check, table_text
from bots.tournament.link import Link
from protocol.session import Session

log = logging.getLogger("mnk.examine")

#: Seconds the examinee has to be listed online; the checks' time in all (a check not reached
#: by then fails: a bot that stalls every check still gets its report, and the server's slot
#: back); the process's own bound (the server gives a run up after 300 s).
ONLINE_S = 15.0
BUDGET_S = 120.0
TOTAL_S = 180.0
#: A ``detail`` sent to the server is cut to this many characters (the server's bound).
DETAIL = 200


def examiner_link(url: str, name: str, key: str) -> Link:
    """The examiner's connection: a keyed bot that plays nothing unless it made the room
    (no game the server knows is listed, level 0: never picked for anyone else's room)."""
    session = Session(name, "bot", key=key, games=["none"], capacity=1, level=0)
    return Link(url, name, rate=50.0, session=session)


async def examine(url: str, name: str, key: str, examinee: str, limit: float) -> list[Outcome]:
    """Run the checks against ``examinee`` on the server at ``url`` and report them there."""
    link = examiner_link(url, name, key)
    await link.open()
    try:
        online = await run_check("connects", lambda: bot_online(link, examinee), ONLINE_S)
        outcomes = [online]
        if online.passed:
            games = (await listed(link, examinee) or {}).get("games", [])
            claimed = [g for g in GAMES if g in games or "*" in games] or [GAMES[0]]
            tester = Certifier(link, claimed, examinee)
            outcomes += await within(tester.checks(), limit, time.monotonic() + BUDGET_S)
        await link.request(report(examinee, outcomes), 10.0)
        return outcomes
    finally:
        await link.close()


async def within(
    checks: list[tuple[str, Callable[[], Awaitable[str]]]], limit: float, deadline: float
) -> list[Outcome]:
    """Every check, each within ``limit`` seconds and all by ``deadline`` (those not reached
    by then fail unplayed)."""
    outcomes = []
    for name, check in checks:
        left = min(limit, deadline - time.monotonic())
        if left <= 0:
            outcomes.append(Outcome(name, False, "not run: the examination's time ran out", 0.0))
            continue
        outcomes.append(await run_check(name, check, left))
    return outcomes


def report(examinee: str, outcomes: list[Outcome]) -> dict[str, Any]:
    """The ``certified`` request that tells the server how ``examinee`` did."""
    checks = [{"name": o.name, "passed": o.passed, "detail": o.detail[:DETAIL]} for o in outcomes]
    return {"type": "certified", "examinee": examinee, "checks": checks}


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``mnk-bot examine``."""
    p = argparse.ArgumentParser(prog="mnk-bot examine", description=str(__doc__).split("\n")[0])
    p.add_argument("--server", required=True, help="the server's WebSocket URL")
    p.add_argument("--examinee", required=True, help="the bot account to check")
    p.add_argument("--name", default="examiner", help="the examiner's key name")
    p.add_argument("--check-timeout", type=float, default=30.0, help="seconds a check may take")
    p.add_argument("--parent-pid", type=int, default=None, help="stop when this process is gone")
    p.add_argument("--log-level", default="WARNING")
    return p


async def guarded(run: Awaitable[list[Outcome]], parent: int | None) -> list[Outcome]:
    """``run`` within :data:`TOTAL_S`, given up when the server that started us is gone (even
    killed with -9: we are its child no more)."""
    task = asyncio.ensure_future(run)
    deadline = time.monotonic() + TOTAL_S
    while not task.done():
        if (parent is not None and os.getppid() != parent) or time.monotonic() > deadline:
            task.cancel()
            raise TimeoutError("the server that started us is gone, or the time is up")
        await asyncio.wait({task}, timeout=0.5)
    return task.result()


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``mnk-bot examine``: 0 once the outcome was reported (passed or not)."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    key = os.environ.get("MNK_BOT_KEY")
    if not key:
        print("mnk-bot examine: the examiner's key goes in MNK_BOT_KEY", file=sys.stderr)
        return 2
    start = time.monotonic()
    run = examine(args.server, args.name, key, args.examinee, args.check_timeout)
    try:
        outcomes = asyncio.run(guarded(run, args.parent_pid))
    except Exception as exc:  # unreported: the server lets the bot try again later
        print(f"mnk-bot examine: {args.examinee}: {exc!r}", file=sys.stderr)
        return 1
    log.info("%s examined in %.1f s\n%s", args.examinee, time.monotonic() - start,
             table_text(outcomes))  # fmt: skip
    return 0
