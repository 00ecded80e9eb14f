"""``mnk-tournament``: play a tournament between bots, every game refereed by an mnk-arena server.

Round robin, swiss, gauntlet and --sprt run as the server's own event (one pairing
implementation: the server's): the bots enter it with mnk-bot --tournament ID and the event
gets a page /t/ID (with --server, on that server; with --servers, on the first node, the bots
entering from theirs; use --key director=KEY for the account that creates it). The director's
own schedule plays what the server's events cannot do yet: more than the server's bounds (200
games a pairing, 20,160 games, 64 openings, 20 swiss rounds); --own-schedule asks for it. A
'remote' bot is started by its owner with the mnk-bot command the run prints, and the run
waits for it to enter. On the server path --concurrency is the server's (a whole round at
once; an --sprt match's games at once) and a rerun follows the same event.

Example::

    mnk-tournament --game tictactoe --bot perfect=minimax:level=10 --bot weak=minimax:level=3 \\
        --bot rnd=random --games 2 --concurrency 2 --out runs/ttt
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import signal
import sys
from pathlib import Path
from typing import Any

from bots.specs import parse_spec
from bots.tournament.chart import draw_elo_chart
from bots.tournament.director import JOURNAL, Director, Plan
from bots.tournament.hosted import (
    EVENT_FILE,
    HostedEvent,
    bot_capacity,
    hosted_reason,
    leading_entrants,
)
from bots.tournament.openings import openings_from_arg
from bots.tournament.processes import (
    KEYS_FILE,
    BotSupervisor,
    Child,
    bot_child,
    free_port,
    fresh_start,
    make_keys,
    server_child,
    wait_listening,
)
from bots.tournament.referee import ProtocolError, ServerReferee
from bots.tournament.report import make_reporter, print_final
from bots.tournament.schedule import FORMATS
from bots.tournament.stats import Sprt
from protocol.connection import split_urls
from protocol.errors import ArenaError
from protocol.rules import Variant
from protocol.variants import make_variant

log = logging.getLogger("mnk.tournament")

CONFIG = "tournament.json"
#: Settings that fix the schedule: a resumed run must agree on all of them.
SCHEDULE_KEYS = (
    "game",
    "options",
    "bots",
    "format",
    "games",
    "rounds",
    "openings",
    "seed",
    "sprt",
    "max_moves",
)


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``mnk-tournament``: the event, where it runs, the SPRT, the run."""
    p = argparse.ArgumentParser(
        prog="mnk-tournament",
        description=str(__doc__).replace("``", "").replace("::", ":"),
        formatter_class=argparse.RawTextHelpFormatter,
    )
    add_event_options(p)
    add_server_options(p)
    add_sprt_options(p)
    add_run_options(p)
    return p


def add_event_options(p: argparse.ArgumentParser) -> None:
    """What is played: the game, the bots, the format, clocks and openings."""
    p.add_argument(
        "--game", required=True, help="tictactoe | gomoku | gomoku-standard | renju | mnk:…"
    )
    p.add_argument(
        "--bot",
        action="append",
        required=True,
        metavar="NAME=SPEC",
        help="a player: SPEC is an mnk-bot engine (minimax[:level=N], random, novice,\n"
        "module:Class, piskvork:PATH) or 'remote' for a bot its owner starts (the run prints how)",
    )
    p.add_argument("--format", choices=FORMATS, default="round-robin")
    p.add_argument(
        "--games", type=int, default=1, help="colour-swapped game pairs per pairing per opening"
    )
    p.add_argument("--rounds", type=int, default=None, help="swiss rounds / schedule repeats")
    p.add_argument("--clock", default=None, help="time control INITIAL+INCREMENT in seconds")
    p.add_argument("--move-time", type=float, default=None, help="cap per move (seconds)")
    p.add_argument("--concurrency", type=int, default=1, help="games at once (default 1)")
    p.add_argument(
        "--openings",
        default=None,
        help="FILE, random:K[:N] (K stones, N openings) or balanced:K (15x15)",
    )
    p.add_argument("--max-moves", type=int, default=None, help="adjudicate a draw at M stones")
    p.add_argument(
        "--opening-rule",
        choices=("swap1", "swap2"),
        default=None,
        help="every game opens with this rule (15x15 games; not with --openings)",
    )


def add_server_options(p: argparse.ArgumentParser) -> None:
    """Where it is played: the server's event or the own schedule, which server, its keys."""
    p.add_argument(
        "--own-schedule",
        action="store_true",
        help="pair and referee every game here, not as the server's event (the old path)",
    )
    p.add_argument("--seed", type=int, default=1, help="seed for openings and pairings")
    p.add_argument("--server", default=None, help="use this server (default: start one)")
    p.add_argument(
        "--rated",
        action="store_true",
        help="with --server(s) and a clock: rated games (the bots' ratings there move)",
    )
    p.add_argument(
        "--servers",
        default=None,
        metavar="URL,URL,…",
        help="use these nodes of one cluster: bot i starts on node i mod N, the director on the\n"
        "first; each fails over along the list when its node dies (keys as with --server)",
    )
    p.add_argument(
        "--key",
        action="append",
        default=[],
        metavar="NAME=KEY",
        help="with --server(s): the key its operator made for bot NAME (repeat for each bot);\n"
        "'director=KEY': the account that creates the server's event",
    )
    p.add_argument(
        "--key-file", type=Path, default=None, help="with --server(s): NAME=KEY lines, one per bot"
    )


def add_sprt_options(p: argparse.ArgumentParser) -> None:
    """An SPRT match of two bots."""
    p.add_argument(
        "--sprt",
        default=None,
        help="elo0,elo1[,alpha,beta] (two bots: it tests the first --bot against the second)",
    )
    p.add_argument("--sprt-max-games", type=int, default=1000, help="SPRT game cap (1000)")


def add_run_options(p: argparse.ArgumentParser) -> None:
    """The run itself: the embedded server's grace, output and logging."""
    p.add_argument("--grace", type=float, default=3.0, help="embedded server reconnect grace")
    p.add_argument("--plain", action="store_true", help="one line per game even on a terminal")
    p.add_argument("--no-chart", action="store_true", help="skip elo.png")
    p.add_argument("--out", type=Path, required=True, help="directory for results (resumable)")
    p.add_argument("--log-level", default="WARNING")


def parse_game(text: str) -> tuple[str, dict[str, Any], Variant]:
    """``gomoku`` or ``mnk:width=7,height=6,k=4[,rule=exact]``: name, options, variant."""
    name, _, rest = text.partition(":")
    options: dict[str, Any] = {}
    for part in filter(None, rest.split(",")):
        key, _, value = part.partition("=")
        options[key.strip()] = int(value) if value.strip().lstrip("-").isdigit() else value.strip()
    try:
        variant = make_variant(name, options)
    except ArenaError as exc:
        raise ValueError(str(exc)) from None
    return name, options, variant


def parse_bots(entries: list[str]) -> list[tuple[str, str]]:
    """``NAME=SPEC`` pairs, checked."""
    bots = []
    for entry in entries:
        name, sep, spec = entry.partition("=")
        name, spec = name.strip(), spec.strip()
        if not sep or not name or not spec:
            raise ValueError(f"--bot {entry!r}: use NAME=SPEC")
        if spec != "remote":
            parse_spec(spec)
        bots.append((name, spec))
    names = [n for n, _ in bots]
    if len(set(names)) != len(names) or len(names) < 2:
        raise ValueError("give at least two bots with different names")
    if any(n.casefold() == "director" for n in names):  # a bot's key would own that name
        raise ValueError("'director' is the tournament director's own name: call the bot otherwise")
    return bots


def given_keys(args: argparse.Namespace, bots: list[tuple[str, str]]) -> dict[str, str]:
    """The keys of the bots this run starts on ``--server``, from ``--key`` and ``--key-file``."""
    entries = list(args.key)
    if args.key_file is not None:
        try:
            text = args.key_file.read_text()
        except OSError as exc:
            raise ValueError(f"--key-file: {exc}") from None
        entries += [s for line in text.splitlines() if (s := line.strip()) and s[0] != "#"]
    keys = {}
    for entry in entries:
        name, sep, key = entry.rpartition("=")
        if not sep or not name.strip() or not key.strip():
            raise ValueError("--key and --key-file take NAME=KEY")
        keys[name.strip()] = key.strip()
    missing = [name for name, spec in bots if spec != "remote" and name not in keys]
    if missing:
        raise ValueError(f"--server needs a key for each bot it starts: none for {missing}")
    return keys


def parse_clock(text: str | None, move_s: float | None) -> dict[str, float] | None:
    """``INITIAL+INCREMENT`` as the wire's clock map."""
    if not text:
        return {"initial_s": 3600.0, "increment_s": 0.0, "move_s": move_s} if move_s else None
    initial, _, inc = text.partition("+")
    clock = {"initial_s": float(initial), "increment_s": float(inc or 0)}
    if move_s:
        clock["move_s"] = move_s
    return clock


def settings(args: argparse.Namespace) -> tuple[dict[str, Any], Plan, Variant, dict | None]:
    """The run's config (as stored in tournament.json), plan, variant and clock."""
    game, options, variant = parse_game(args.game)
    if args.opening_rule:
        if args.openings or (variant.width, variant.height) != (15, 15):
            raise ValueError("--opening-rule needs a 15x15 game and no --openings")
        options["opening_rule"] = args.opening_rule
    bots = parse_bots(args.bot)
    sprt = Sprt.parse(args.sprt) if args.sprt else None
    if sprt is not None and len(bots) != 2:
        raise ValueError("--sprt needs exactly two bots")
    if args.games < 1 or args.concurrency < 1:
        raise ValueError("--games and --concurrency must be at least 1")
    config: dict[str, Any] = {
        "game": game,
        "options": options,
        "bots": [list(b) for b in bots],
        "format": args.format,
        "games": args.games,
        "rounds": args.rounds,
        "openings": args.openings,
        "seed": args.seed,
        "sprt": args.sprt,
        "clock": parse_clock(args.clock, args.move_time),
        "max_moves": args.max_moves,
        "concurrency": args.concurrency,
        "sprt_max_games": args.sprt_max_games,
    }
    stored = args.out / CONFIG
    if stored.exists():
        old = json.loads(stored.read_text())
        changed = [k for k in SCHEDULE_KEYS if old.get(k) != config[k]]
        if changed:
            raise ValueError(f"{args.out} holds another tournament ({', '.join(changed)} differ)")
        openings = [tuple(tuple(m) for m in o) for o in old["opening_list"]]
    else:
        openings = openings_from_arg(args.openings, variant, args.seed)
    config["opening_list"] = [[list(m) for m in o] for o in openings]
    plan = Plan(
        names=[n for n, _ in bots],
        fmt=args.format,
        openings=openings,  # type: ignore[arg-type]
        repeats=args.games,
        rounds=args.rounds,
        seed=args.seed,
        sprt=sprt,
        sprt_max_pairs=max(1, args.sprt_max_games // 2),
    )
    return config, plan, variant, config["clock"]


def server_urls(args: argparse.Namespace) -> list[str] | None:
    """The URLs of ``--server`` or ``--servers`` (None: start a server)."""
    if args.server is not None and args.servers is not None:
        raise ValueError("give --server or --servers, not both")
    if args.servers is not None:
        return split_urls(args.servers)
    return None if args.server is None else [args.server]


def spread(urls: list[str], i: int) -> list[str]:
    """Bot ``i``'s URLs: it starts on node ``i mod N`` and fails over along the others."""
    at = i % len(urls)
    return urls[at:] + urls[:at]


async def run(args: argparse.Namespace) -> dict[str, Any]:
    """Start what is needed, play, stop everything; returns results.json's document."""
    config, plan, variant, clock = settings(args)
    urls = server_urls(args)
    if args.rated and (urls is None or clock is None):
        raise ValueError("--rated needs --server (the embedded server stays casual) and --clock")
    keys = given_keys(args, config["bots"]) if urls is not None else {}
    reason = path_reason(args, config, keys)
    if reason is None:
        return await run_hosted(args, config, variant, urls, keys)
    print(f"mnk-tournament: the director pairs this run itself ({reason})", file=sys.stderr)
    return await run_scheduled(args, config, plan, variant, urls, keys)


def path_reason(
    args: argparse.Namespace, config: dict[str, Any], keys: dict[str, str]
) -> str | None:
    """Why this run is not the server's event (None: it is)."""
    out: Path = args.out
    if (out / JOURNAL).exists() and not (out / EVENT_FILE).exists():
        return "resuming a run of its own schedule"
    reason = hosted_reason(config, args.own_schedule)
    remote = args.server is not None or args.servers is not None
    if reason is None and remote and "director" not in keys:
        where = "--server" if args.servers is None else "the first of --servers"
        return f"no --key director=KEY to create the event on {where}"
    return reason


async def run_scheduled(
    args: argparse.Namespace,
    config: dict[str, Any],
    plan: Plan,
    variant: Variant,
    urls: list[str] | None,
    keys: dict[str, str],
) -> dict[str, Any]:
    """The director's own schedule: it pairs and referees every game itself."""
    clock = config["clock"]
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    (out / CONFIG).write_text(json.dumps(config, indent=2) + "\n")
    fresh_start(out, embedded=urls is None)
    server: Child | None = None
    if urls is None:
        keys = make_keys(out, [name for name, spec in config["bots"] if spec != "remote"])
        port = free_port()
        urls = [f"ws://127.0.0.1:{port}"]
        server = server_child(out, port, args.grace)
        server.start()
        await wait_listening(urls[0], server)
    announce(urls[0])
    capacity = args.concurrency
    started = [(name, spec) for name, spec in config["bots"] if spec != "remote"]
    children = [
        bot_child(out, ",".join(spread(urls, i)), name, spec, capacity, variant.name, keys[name])
        for i, (name, spec) in enumerate(started)
    ]
    supervisor = BotSupervisor(children, delay=args.grace + 1.0)
    supervisor.start_all()
    watcher = asyncio.create_task(supervisor.run())
    referee = ServerReferee(
        urls,
        config["game"],
        config["options"],
        clock,
        args.max_moves,
        rate=500.0 if server is not None else 15.0,
        rated=args.rated,
    )
    director = Director(
        plan, referee, out, variant, make_reporter(args.plain), args.concurrency, config
    )
    director.restarts = supervisor.restarts
    try:
        with contextlib.suppress(ProtocolError):  # an older server without list_bots
            await referee.wait_for_bots(plan.names)
        return await director.run()
    finally:
        watcher.cancel()
        await referee.close()
        await supervisor.stop_all()
        if server is not None:
            await server.stop()


async def run_hosted(
    args: argparse.Namespace,
    config: dict[str, Any],
    variant: Variant,
    urls: list[str] | None,
    keys: dict[str, str],
) -> dict[str, Any]:
    """The server's event: create it (or follow the one this ``--out`` made), start the bots
    entering it, start it and record what the server says, game by game. On a cluster the
    director creates it on the first node (it lives there; the director fails over along the
    list), and bot i enters from node i mod N (the nodes forward it to the event's)."""
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    (out / CONFIG).write_text(json.dumps(config, indent=2) + "\n")
    fresh_start(out, embedded=False)  # the database stays: the event lives on in it
    server: Child | None = None
    if urls is None:
        keys = make_keys(out, [name for name, _ in config["bots"]] + ["director"])
        server, url = await start_embedded(out, args.grace)
        urls = [url]
    supervisor = BotSupervisor([], delay=args.grace + 1.0)
    event = HostedEvent(
        urls, keys["director"], config, out, make_reporter(args.plain), supervisor.restarts,
        rated=args.rated,
    )  # fmt: skip
    watcher: asyncio.Task[None] | None = None
    try:
        await event.open()
        tid = await event.ensure()
        announce(urls[0], tid)
        remote = [name for name, spec in config["bots"] if spec == "remote"]
        capacity = bot_capacity(config)
        embedded = out if server is not None else None  # its keys file holds theirs
        tell_remote(urls[0], tid, remote, variant.name, capacity, embedded)
        supervisor.children = [
            bot_child(
                out, ",".join(spread(urls, i)), name, spec, capacity, variant.name, keys[name],
                tournament=tid,
            )
            for i, (name, spec) in enumerate(config["bots"])
            if spec != "remote"
        ]  # fmt: skip
        supervisor.restarts.update({c.name: 0 for c in supervisor.children})
        leading = leading_entrants(config)
        wait = None if remote else 120.0  # remote bots enter when their owners start them
        supervisor.start_all([c for c in supervisor.children if c.name in leading])
        watcher = asyncio.create_task(supervisor.run())  # restarts the started ones only
        await event.entered(leading, wait)  # a gauntlet's seed enters first: the server's seed
        supervisor.start_all([c for c in supervisor.children if c.name not in leading])
        return await event.follow(wait)
    finally:
        if watcher is not None:
            watcher.cancel()
        await event.close()
        await supervisor.stop_all()
        if server is not None:
            await server.stop()


def tell_remote(
    url: str, tid: str, names: list[str], game: str, capacity: int, out: Path | None
) -> None:
    """Say how each ``remote`` bot enters the event (the run waits for them before its start):
    ``mnk-bot … --tournament=ID`` with its key (on the embedded server: from its keys file)."""
    for name in names:
        key = (
            f"MNK_BOT_KEY=$(sed -n 's/^{name}=//p' {out / KEYS_FILE}) "
            if out is not None
            else "MNK_BOT_KEY=KEY "
        )
        print(
            f"waiting for the remote bot {name}: {key}mnk-bot --server {url} --name {name} "
            f"--games {game} --capacity {capacity} --tournament={tid} --engine ENGINE",
            flush=True,
        )


def announce(url: str, tid: str | None = None) -> None:
    """Say where to watch the run: the client, the browser's /tv, the event's page /t/ID."""
    where = url.removeprefix("ws://")
    print(f"watch it live: mnk-client --server {where} (its games are in the lobby)", flush=True)
    page = url.replace("wss://", "https://", 1).replace("ws://", "http://", 1).rstrip("/")
    print(f"or in a browser: {page}/tv (the most watched game; all are in the lobby)", flush=True)
    if tid is not None:
        print(f"the event's page: {page}/t/{tid} (standings, crosstable, every game)", flush=True)


async def start_embedded(out: Path, grace: float, attempts: int = 10) -> tuple[Child, str]:
    """The embedded server on its database in ``out`` (a killed run's server may still hold
    the lock for a moment as it stops: try again)."""
    for attempt in range(1, attempts + 1):
        url = f"ws://127.0.0.1:{free_port()}"
        server = server_child(out, int(url.rsplit(":", 1)[1]), grace)
        server.start()
        try:
            await wait_listening(url, server)
            return server, url
        except RuntimeError:
            if attempt == attempts:
                raise
            await asyncio.sleep(0.5 * attempt)
    raise AssertionError("unreachable")


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``mnk-tournament`` console script."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    logging.getLogger("websockets").setLevel(logging.WARNING)
    try:
        summary = _run_until_signal(args)
    except ValueError as exc:
        sys.exit(f"mnk-tournament: {exc}")
    except ProtocolError as exc:
        sys.exit(f"mnk-tournament: the server refused: {exc}")
    if summary is None:
        sys.exit("mnk-tournament: interrupted; run the same command again to resume")
    print_final(summary)
    out: Path = args.out
    print(f"results: {out / 'results.json'} (standings, crosstable, faults)")
    if not args.no_chart and summary["standings"]:
        draw_elo_chart(summary["standings"], out / "elo.png", f"Elo: {args.game}")
        print(f"chart:   {out / 'elo.png'}")
    print(f"games:   {out / 'games'}/ (one .psq each), one line each in {out / 'journal.jsonl'}")


def _run_until_signal(args: argparse.Namespace) -> dict[str, Any] | None:
    """``run`` with SIGINT/SIGTERM stopping it cleanly (None when stopped early)."""

    async def guarded() -> dict[str, Any] | None:
        task = asyncio.create_task(run(args))
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, task.cancel)
        try:
            return await task
        except asyncio.CancelledError:
            return None

    return asyncio.run(guarded())
