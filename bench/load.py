"""Load generator: the real server against a bare relay, measured in the same run, same load.

For each number of concurrent games N, and for each target (``server``: ``python -m server``,
durable, on ``--server-loop``; ``memory``: the same with ``--memory``; ``relay``: ``bench/relay.py``
on stock asyncio, the baseline; ``relay_uv``: the relay on uvloop), this starts the target as a
subprocess on a free loopback port, opens 2·N client connections from worker processes, pairs
them in gomoku rooms and plays random legal moves alternately (one move in flight per game: a
closed loop; with ``--think-ms`` each player pauses before its move), then measures over a
window after a warm-up:

- moves/s: moves whose ``moved`` reached the opponent inside the window, over the window;
- p50/p99 latency: from the mover's send to the OPPONENT receiving ``moved``;
- lobby p50/p99 (in each run's line): from sending a lobby request (create, join, leave) to
  its reply: what the server's lobby lane (server/lane.py) trades for the moves' latency;
- target CPU µs/move: the subprocess's user+sys time (``/proc/PID/stat``) over the window,
  divided by the moves of the window; split (``loop/threads``) between the event loop's
  thread and the others (the server's SQLite writer and WAL checkpointer) from
  ``/proc/PID/task``.

Then, for each target but ``memory``, it opens ``--idle`` connections (spread over 250 loopback
source addresses, so the server's default cap per address holds) that say hello and wait, and
reports the target's resident memory growth per connection.

Targets alternate (server, relay, server, relay …) for ``--repeat`` rounds and the table shows
medians. Caveat: the target, the load generator's workers and anything else running share the
machine's cores (2 here), so the relay's ceiling is partly the generator's ceiling; the table's
CPU columns tell who was saturated. The game workers use ``bench/wsclient.py`` (``--client raw``),
about half the CPU per move of websockets' own client (``--client websockets``).

Run: ``python bench/load.py [--games 10,100,1000] [--seconds S] [--idle 10000]``; the client side
is in ``bench/loadgen.py``, the targets in ``bench/loadtarget.py``. With ``--nodes 1,2,3`` it runs
the cluster's benchmark instead (``bench/cluster_load.py``: N nodes on PostgreSQL and Redis
against one SQLite server; its own options).
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing as mp
import os
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from analyst import analyst_worker, tree_cpu
from loadgen import Config, idle_worker, uvloop, worker
from loadtarget import Target, proc_cpu, raise_fd_limit, rss_kib, thread_cpu

ROOT = Path(__file__).resolve().parent.parent
OUT_DIR = Path(__file__).resolve().parent / "out"
#: ``server`` is the durable default (SQLite journal); ``memory`` runs ``--memory`` (no disk).
#: ``relay`` is the stock-asyncio baseline; ``relay_uv`` the same relay on uvloop.
#: ``pages`` is ``server`` while another process fetches its browser page every ``--page-every``
#: seconds (each a new HTTP connection, from 50 loopback addresses): what serving pages costs.
#: ``analysis`` is ``server`` with its built-in bot while ``--analyses-per-s`` ``analyse``
#: requests a second come beside the games (bench/analyst.py): what analysis costs the games.
#: ``bots`` is ``server`` with its built-in bot and no analyses: the analysis target's baseline.
TARGETS = ("server", "memory", "relay", "relay_uv", "pages", "bots", "analysis")


# -- the parent: targets, workers, measurement --------------------------------------------------


def _percentile(sorted_values: list[float], q: float) -> float | None:
    """The ``q`` quantile (0..1) of already sorted values, nearest rank."""
    if not sorted_values:
        return None
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def _spawn(fn: Any, argsets: list[tuple[Any, ...]]) -> tuple[list[Any], list[Connection]]:
    """Start one worker process per argument set, each with a pipe to talk to it."""
    ctx = mp.get_context("fork")
    procs: list[Any] = []
    pipes: list[Connection] = []
    for args in argsets:
        parent, child = ctx.Pipe()
        p = ctx.Process(target=fn, args=(*args, child), daemon=True)
        p.start()
        procs.append(p)
        pipes.append(parent)
    return procs, pipes


def _answers(pipes: list[Connection], deadline: float, what: str) -> list[Any]:
    """One message from every worker by ``deadline``; a worker's failure is raised here."""
    out = []
    for pipe in pipes:
        if not pipe.poll(max(0.0, deadline - time.monotonic())):
            raise RuntimeError(f"{what}: a worker did not answer in time")
        msg = pipe.recv()
        if isinstance(msg, dict) and "fatal" in msg:
            raise RuntimeError(f"{what}: worker failed: {msg['fatal']}")
        out.append(msg)
    return out


def _reap(procs: list[Any], finished: bool) -> None:
    """Let finished workers exit (they close their connections), kill the others."""
    for p in procs:
        if finished:
            p.join(2.0)
        if p.is_alive():
            p.kill()
            p.join(1.0)


def page_worker(url: str, every: float, conn: Connection) -> None:
    """Fetch ``url`` every ``every`` seconds between the window's bounds (sent by the parent),
    each on a new connection from one of 50 loopback addresses; report counts and latency."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    t0, t1 = conn.recv()
    statuses: dict[int, int] = {}
    latencies: list[float] = []
    due = t0
    while due < t1:
        time.sleep(max(0.0, due - time.monotonic()))
        due += every
        source = (f"127.0.5.{1 + len(latencies) % 50}", 0)
        started = time.perf_counter()
        try:
            page = http.client.HTTPConnection(host, int(port), timeout=5, source_address=source)
            page.request("GET", "/")
            reply = page.getresponse()
            reply.read()
            page.close()
            statuses[reply.status] = statuses.get(reply.status, 0) + 1
        except OSError:
            statuses[0] = statuses.get(0, 0) + 1
        latencies.append(time.perf_counter() - started)
    latencies.sort()
    conn.send({"statuses": statuses, "p50_ms": 1000 * (_percentile(latencies, 0.5) or 0),
               "p99_ms": 1000 * (_percentile(latencies, 0.99) or 0)})  # fmt: skip


def measure(
    kind: str, games: int, cfg: Config, window: Callable[[str, int], None] | None = None
) -> dict[str, Any]:
    """One measurement of one target at ``games`` concurrent games; ``window`` is told
    ``("start", pid)`` and ``("end", pid)`` at the window's bounds (bench/cpu_per_move.py)."""
    nworkers = max(1, min(cfg.workers, games))
    shares = [games // nworkers + (i < games % nworkers) for i in range(nworkers)]
    procs: list[Any] = []
    finished = False
    pages: dict[str, Any] | None = None
    analyses: dict[str, Any] | None = None
    with tempfile.TemporaryDirectory(prefix="mnk-bench-") as tmp:
        served = "server" if kind in ("pages", "bots", "analysis") else kind
        bots = kind in ("bots", "analysis")
        target = Target(
            served, Path(tmp), cfg.src, cfg.profile, cfg.server_loop, bots,
            cfg.wrapper, cfg.server_env,
        )  # fmt: skip
        try:
            target.wait_ready(cfg.ready_timeout)
            argsets = [(target.url, share, i, cfg) for i, share in enumerate(shares)]
            procs, pipes = _spawn(worker, argsets)
            if kind == "pages":
                http_url = target.url.replace("ws://", "http://", 1)
                fetchers, page_pipes = _spawn(page_worker, [(http_url, cfg.page_every)])
                procs += fetchers
            if bots:  # wait for the bot (the baseline too: its start-up is not the window's)
                args = (target.url, cfg.analyses_per_s if kind == "analysis" else 0.0, cfg.seed)
                analysts, analyst_pipes = _spawn(analyst_worker, [args])
                procs += analysts
                _answers(analyst_pipes, time.monotonic() + cfg.setup_timeout, "analyst setup")
            ready = _answers(pipes, time.monotonic() + cfg.setup_timeout, f"{kind} setup")
            if any(msg != "ready" for msg in ready):
                raise RuntimeError(f"{kind}: worker failed during setup: {ready}")
            t0 = time.monotonic() + cfg.warmup
            t1 = t0 + cfg.seconds
            hard = t1 + 20.0
            for pipe in pipes:
                pipe.send((t0, t1, hard))
            if kind == "pages":
                page_pipes[0].send((t0, t1))
            if bots:
                analyst_pipes[0].send((t0, t1))
            time.sleep(max(0.0, t0 - time.monotonic()))
            target.signal(signal.SIGUSR1)
            pid = target.proc.pid
            if window is not None:
                window("start", pid)
            cpu0, threads0, w0 = proc_cpu(pid), thread_cpu(pid), time.monotonic()
            bots0 = tree_cpu(pid)
            time.sleep(max(0.0, t1 - time.monotonic()))
            cpu1, threads1, w1 = proc_cpu(pid), thread_cpu(pid), time.monotonic()
            if window is not None:
                window("end", pid)
            bots_util = (tree_cpu(pid) - bots0) / max(1e-9, time.monotonic() - w0)
            target.signal(signal.SIGUSR2)
            results: list[dict[str, Any]] = _answers(pipes, hard + 15.0, kind)
            if kind == "pages":
                pages = _answers(page_pipes, hard + 15.0, "pages")[0]
            if bots:
                analyses = _answers(analyst_pipes, hard + 15.0, "analyst")[0]
                analyses["bots_cpu_util"] = round(bots_util, 3)
            finished = True
        finally:
            _reap(procs, finished)
            target.stop()
    window = w1 - w0
    moves = sum(r["window_moves"] for r in results)
    lat = sorted(x for r in results for x in r["latencies"])
    lobby = sorted(x for r in results for x in r["lobby_latencies"])
    gen_cpu = sum(r["cpu"] for r in results)
    return {
        "target": kind,
        "games": games,
        "workers": nworkers,
        "window_s": window,
        "moves": moves,
        "moves_per_s": moves / window,
        "p50_ms": None if not lat else 1000 * _percentile(lat, 0.50),
        "p99_ms": None if not lat else 1000 * _percentile(lat, 0.99),
        "latency_samples": len(lat),
        "lobby_p50_ms": None if not lobby else 1000 * _percentile(lobby, 0.50),
        "lobby_p99_ms": None if not lobby else 1000 * _percentile(lobby, 0.99),
        "cpu_s": cpu1 - cpu0,
        "cpu_us_per_move": None if not moves else 1e6 * (cpu1 - cpu0) / moves,
        "cpu_util": (cpu1 - cpu0) / window,
        "thread_us_per_move": {
            k: None if not moves else 1e6 * (threads1[k] - threads0[k]) / moves for k in threads1
        },
        "gen_cpu_util": gen_cpu / cfg.seconds,
        "gen_cpu_us_per_move": None if not moves else 1e6 * gen_cpu / moves,
        "sent": sum(r["sent"] for r in results),
        "received": sum(r["received"] for r in results),
        "acked": sum(r["acked"] for r in results),
        "rounds": sum(r["rounds"] for r in results),
        "games_done": sum(r["games_done"] for r in results),
        "errors": [e for r in results for e in r["errors"]][:20],
        "error_count": sum(len(r["errors"]) for r in results),
        "pages": pages,
        "analyses": analyses,
    }


def measure_idle(kind: str, count: int, cfg: Config) -> dict[str, Any]:
    """Resident memory the target adds per idle connection (said hello, then nothing)."""
    nworkers = max(1, min(cfg.workers, count))
    shares = [count // nworkers + (i < count % nworkers) for i in range(nworkers)]
    firsts = [sum(shares[:i]) for i in range(nworkers)]
    procs: list[Any] = []
    finished = False
    with tempfile.TemporaryDirectory(prefix="mnk-bench-") as tmp:
        target = Target(kind, Path(tmp), cfg.src, None, cfg.server_loop)
        try:
            target.wait_ready()
            time.sleep(0.5)  # let start-up settle
            before = rss_kib(target.proc.pid)
            argsets = [(target.url, f, n) for f, n in zip(firsts, shares, strict=True)]
            procs, pipes = _spawn(idle_worker, argsets)
            setup = max(cfg.setup_timeout, count / 100)
            ready = _answers(pipes, time.monotonic() + setup, f"{kind} idle")
            if any(msg != "ready" for msg in ready):
                raise RuntimeError(f"{kind}: idle worker failed: {ready}")
            time.sleep(1.0)  # let the last replies and handshakes settle
            after = rss_kib(target.proc.pid)
            for pipe in pipes:
                pipe.send("close")
            _answers(pipes, time.monotonic() + 60, f"{kind} idle close")
            finished = True
        finally:
            _reap(procs, finished)
            target.stop()
    return {
        "target": kind,
        "connections": count,
        "rss_before_kib": before,
        "rss_after_kib": after,
        "kb_per_conn": 1.024 * (after - before) / count,
    }


# -- report ------------------------------------------------------------------------------------


def _median(runs: list[dict[str, Any]], key: str) -> float | None:
    """The median of ``key`` over runs (None values left out)."""
    values = [r[key] for r in runs if r[key] is not None]
    return statistics.median(values) if values else None


def summarize(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Medians per (games, target) and the server/relay ratios."""
    keys = (
        "moves_per_s",
        "p50_ms",
        "p99_ms",
        "lobby_p50_ms",
        "lobby_p99_ms",
        "cpu_us_per_move",
        "cpu_util",
        "gen_cpu_util",
        "gen_cpu_us_per_move",
    )
    rows = []

    def medians(games: int, kind: str) -> dict[str, Any]:
        mine = [r for r in runs if r["games"] == games and r["target"] == kind]
        return {k: _median(mine, k) for k in keys} | {"runs": len(mine)}

    for games in sorted({r["games"] for r in runs}):
        relay = medians(games, "relay")
        for mode in ("server", "pages", "memory", "relay_uv"):
            s = medians(games, mode)
            if not s["runs"]:
                continue
            row: dict[str, Any] = {"games": games, "mode": mode, "server": s, "relay": relay}
            row["throughput_ratio"] = _ratio(s["moves_per_s"], relay["moves_per_s"])
            row["cpu_ratio"] = _ratio(s["cpu_us_per_move"], relay["cpu_us_per_move"])
            rows.append(row)
    return rows


def _ratio(a: float | None, b: float | None) -> float | None:
    """``a / b`` or None."""
    return None if a is None or not b else a / b


def _threads(per_thread: dict[str, float | None]) -> str:
    """``loop/threads`` µs per move, for a run's line."""
    return "/".join(_fmt(per_thread[k], ".0f") for k in ("loop", "threads"))


def _fmt(value: float | None, spec: str) -> str:
    """A number for the table, or a dash."""
    return "-" if value is None else format(value, spec)


def render(rows: list[dict[str, Any]]) -> str:
    """The summary as a plain-text table."""
    head = (
        f"{'games':>5} {'server':>8} | {'server mv/s':>11} {'relay mv/s':>10} {'ratio':>6} | "
        f"{'p50 ms srv/rly':>15} | {'p99 ms srv/rly':>15} | "
        f"{'CPU µs/mv srv/rly':>17} {'ratio':>6} | {'srv/rly/gen CPU%':>16} | "
        f"{'gen µs/mv':>9}"
    )
    lines = [head, "-" * len(head)]
    for row in rows:
        s, r = row["server"], row["relay"]
        util = "/".join(
            _fmt(None if u is None else 100 * u, ".0f")
            for u in (s["cpu_util"], r["cpu_util"], s["gen_cpu_util"])
        )
        lines.append(
            f"{row['games']:>5} {row['mode']:>8} | {_fmt(s['moves_per_s'], '.0f'):>11} "
            f"{_fmt(r['moves_per_s'], '.0f'):>10} {_fmt(row['throughput_ratio'], '.0%'):>6} | "
            f"{_fmt(s['p50_ms'], '.2f') + '/' + _fmt(r['p50_ms'], '.2f'):>15} | "
            f"{_fmt(s['p99_ms'], '.2f') + '/' + _fmt(r['p99_ms'], '.2f'):>15} | "
            f"{_fmt(s['cpu_us_per_move'], '.0f') + '/' + _fmt(r['cpu_us_per_move'], '.0f'):>17} "
            f"{_fmt(row['cpu_ratio'], '.2f'):>6} | {util:>16} | "
            f"{_fmt(r['gen_cpu_us_per_move'], '.0f'):>9}"
        )
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", default="10,100,1000", help="concurrent games, comma-separated")
    p.add_argument("--moves-per-game", type=int, default=100, help="move cap before a new room")
    p.add_argument("--seconds", type=float, default=6.0, help="measurement window per run")
    p.add_argument("--warmup", type=float, default=2.0, help="seconds played before the window")
    p.add_argument("--repeat", type=int, default=2, help="server/relay alternations per N")
    p.add_argument("--rounds", type=int, default=1_000_000, help="rooms per pair at most")
    p.add_argument("--workers", type=int, default=2, help="load generator processes")
    p.add_argument("--targets", default=",".join(TARGETS), help="server,relay or one of them")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--src",
        default=str(ROOT),
        help="directory holding the server/ and protocol/ packages to run (default: this repo)",
    )
    p.add_argument(
        "--profile",
        default=None,
        help="run the server under cProfile for the window and write the stats here",
    )
    p.add_argument(
        "--server-loop",
        choices=("auto", "uvloop", "asyncio"),
        default="auto",
        help="the server's --loop (default auto: uvloop where installed)",
    )
    p.add_argument(
        "--client",
        choices=("raw", "websockets"),
        default="raw",
        help="the generator's client: raw (bench/wsclient.py, cheap) or websockets' own",
    )
    p.add_argument(
        "--idle",
        type=int,
        default=10_000,
        help="also measure memory per idle connection at this many (0: skip)",
    )
    p.add_argument(
        "--page-every", type=float, default=0.01, help="the pages target's seconds between fetches"
    )
    p.add_argument(
        "--analyses-per-s",
        type=float,
        default=10.0,
        help="the analysis target's analyse requests a second (beside the games)",
    )
    p.add_argument(
        "--think-ms",
        type=float,
        default=0.0,
        help="each player's thinking time before a move (0: a closed loop that saturates the "
        "machine; more: games at a player's pace, the CPU per move and p99 with room to spare)",
    )
    p.add_argument("--json", type=Path, default=None, help="where to write the JSON results")
    return p


def main(argv: list[str] | None = None) -> int:
    """Run every configuration, print the table, write the JSON; the exit code is 1 on errors."""
    argv = sys.argv[1:] if argv is None else argv
    if any(a == "--nodes" or a.startswith("--nodes=") for a in argv):
        import cluster_load  # N cluster nodes on PostgreSQL and Redis: issue 11's benchmark

        cluster_load.main(argv)
        return 0
    args = build_parser().parse_args(argv)
    games_list = [int(g) for g in args.games.split(",") if g.strip()]
    targets = [t for t in args.targets.split(",") if t]
    if not games_list or any(g < 1 for g in games_list) or not set(targets) <= set(TARGETS):
        raise SystemExit("bad --games or --targets")
    cfg = Config(
        moves_per_game=args.moves_per_game,
        rounds=args.rounds,
        seconds=args.seconds,
        warmup=args.warmup,
        workers=args.workers,
        seed=args.seed,
        src=str(Path(args.src).resolve()),
        profile=args.profile,
        server_loop=args.server_loop,
        client=args.client,
        page_every=args.page_every,
        analyses_per_s=args.analyses_per_s,
        think_s=args.think_ms / 1000,
    )
    raise_fd_limit(max(4 * max(games_list), 2 * args.idle) + 256)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # run the finally blocks
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even if started ignoring it
    runs: list[dict[str, Any]] = []
    for games in games_list:
        for rep in range(args.repeat):
            for kind in targets:
                run = measure(kind, games, cfg) | {"repeat": rep}
                runs.append(run)
                print(
                    f"[{kind:>6} N={games:<5} #{rep}] {run['moves_per_s']:8.0f} moves/s  "
                    f"p50 {_fmt(run['p50_ms'], '.2f')} ms  p99 {_fmt(run['p99_ms'], '.2f')} ms  "
                    f"{_fmt(run['cpu_us_per_move'], '.0f')} µs/move "
                    f"({_threads(run['thread_us_per_move'])})  "
                    f"lobby p50/p99 {_fmt(run['lobby_p50_ms'], '.1f')}/"
                    f"{_fmt(run['lobby_p99_ms'], '.1f')} ms  "
                    f"cpu {run['cpu_util']:.0%} gen {run['gen_cpu_util']:.0%}  "
                    f"sent {run['sent']} acked {run['acked']} errors {run['error_count']}",
                    flush=True,
                )
                if run["pages"] is not None:
                    print(f"{'':>16}pages beside the games: {run['pages']}", flush=True)
                if run["analyses"] is not None:
                    print(f"{'':>16}analyses beside the games: {run['analyses']}", flush=True)
    rows = summarize(runs) if "relay" in targets and len(targets) > 1 else []
    if rows:
        print()
        print(render(rows))
    idle = []
    if args.idle > 0:
        print()
        for kind in [t for t in targets if t not in ("memory", "pages", "bots", "analysis")]:
            got = measure_idle(kind, args.idle, cfg)
            idle.append(got)
            print(
                f"idle {kind:>8}: {got['kb_per_conn']:6.1f} KB/connection at {args.idle} "
                f"(RSS {got['rss_before_kib'] // 1024} -> {got['rss_after_kib'] // 1024} MiB)",
                flush=True,
            )
    out = args.json or OUT_DIR / f"load-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "python": sys.version.split()[0],
        "generator_loop": "uvloop" if uvloop is not None else "asyncio",
        "server_loop": args.server_loop,
        "cpus": os.cpu_count(),
        "config": asdict(cfg),
        "repeat": args.repeat,
    }
    out.write_text(
        json.dumps({"meta": meta, "summary": rows, "runs": runs, "idle": idle}, indent=2)
    )
    print(f"\nresults: {out}")
    return 1 if any(r["error_count"] for r in runs) else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
