"""Load generator: the real server against a bare relay, measured in the same run, same load.

For each number of concurrent games N, and for each target (``server``: ``python -m server``,
``relay``: ``bench/relay.py``), this starts the target as a subprocess on a free loopback port,
opens 2·N client connections from worker processes, pairs them in gomoku rooms and plays random
legal moves alternately (one move in flight per game: a closed loop), then measures over a
window after a warm-up:

- moves/s: moves whose ``moved`` reached the opponent inside the window, over the window;
- p50/p99 latency: from the mover's send to the OPPONENT receiving ``moved``;
- target CPU µs/move: the subprocess's user+sys time (``/proc/PID/stat``) over the window,
  divided by the moves of the window.

Targets alternate (server, relay, server, relay …) for ``--repeat`` rounds and the table shows
medians. Caveat: the target, the load generator's workers and anything else running share the
machine's cores (2 here), so the relay's ceiling is partly the generator's ceiling; the table's
CPU columns tell who was saturated.

Run: ``python bench/load.py [--games 10,100,1000] [--moves-per-game N] [--seconds S]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import json
import multiprocessing as mp
import os
import random
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import msgpack
from websockets.asyncio.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parent.parent
OUT_DIR = Path(__file__).resolve().parent / "out"
#: ``server`` is the durable default (SQLite journal); ``memory`` runs ``--memory`` (no disk).
TARGETS = ("server", "memory", "relay")
#: Gomoku: a 15x15 board, five or more in a row wins.
SIDE = 15
CELLS = SIDE * SIDE
FIVE = 5
MAX_FRAME = 64 * 1024
CLK_TCK = os.sysconf("SC_CLK_TCK")
#: Client connections opened at once while setting up (the listen backlog is 100).
CONNECT_CONCURRENCY = 50

try:  # uvloop only if it happens to be installed; plain asyncio otherwise
    import uvloop  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - depends on the environment
    uvloop = None

_pack = msgpack.Packer(use_bin_type=True).pack
_unpack = msgpack.unpackb


@dataclass
class Config:
    """What one measurement does (the same for every target and N)."""

    moves_per_game: int = 100
    rounds: int = 1_000_000
    seconds: float = 6.0
    warmup: float = 2.0
    workers: int = 2
    seed: int = 1
    setup_timeout: float = 60.0
    src: str = str(ROOT)
    profile: str | None = None


@dataclass
class WorkerResult:
    """What one worker process counted."""

    sent: int = 0
    received: int = 0
    acked: int = 0
    window_moves: int = 0
    rounds: int = 0
    games_done: int = 0
    errors: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    cpu: float = 0.0


# -- the board ---------------------------------------------------------------------------------


class Board:
    """A local gomoku board kept from ``moved`` messages, with O(1) random empty cells."""

    __slots__ = ("cells", "empty", "pos")

    def __init__(self) -> None:
        self.cells = [0] * CELLS
        self.empty = list(range(CELLS))
        self.pos = list(range(CELLS))

    def place(self, index: int, stone: int) -> None:
        """Put ``stone`` (1 or 2) on an empty cell."""
        self.cells[index] = stone
        empty, pos = self.empty, self.pos
        i, last = pos[index], empty[-1]
        empty[i], pos[last] = last, i
        empty.pop()

    def makes_five(self, index: int, stone: int) -> bool:
        """Whether ``stone`` on ``index`` would complete five or more in a row."""
        cells = self.cells
        x0, y0 = index % SIDE, index // SIDE
        for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
            run = 1
            for sign in (1, -1):
                x, y = x0 + sign * dx, y0 + sign * dy
                while 0 <= x < SIDE and 0 <= y < SIDE and cells[y * SIDE + x] == stone:
                    run += 1
                    x += sign * dx
                    y += sign * dy
            if run >= FIVE:
                return True
        return False

    def pick(self, rng: random.Random, stone: int) -> tuple[int, bool]:
        """A random empty cell, avoiding fives when possible; and whether it makes five."""
        empty = self.empty
        for _ in range(8):
            index = empty[rng.randrange(len(empty))]
            if not self.makes_five(index, stone):
                return index, False
        for index in empty:
            if not self.makes_five(index, stone):
                return index, False
        return empty[0], True


# -- one worker process ------------------------------------------------------------------------


class GameError(Exception):
    """The target answered ``error`` or something else the generator cannot go on from."""


class Pair:
    """Two connections playing each other; seat 0 always creates, seat 1 always joins."""

    def __init__(self, conns: tuple[ClientConnection, ClientConnection], tag: str) -> None:
        self.conns = conns
        self.tag = tag
        self.sent = [0, 0]
        self.acked = [0, 0]
        self.next_id = 0

    async def read(self, c: int) -> dict[str, Any]:
        """The next message on connection ``c``; counts acks, raises on ``error``."""
        msg = _unpack(await self.conns[c].recv())
        kind = msg["type"]
        if kind == "moved" and msg["seat"] == c:
            self.acked[c] += 1
        elif kind == "error":
            raise GameError(f"{msg.get('code')}: {msg.get('message')}")
        return msg

    async def request(self, c: int, message: dict[str, Any]) -> dict[str, Any]:
        """Send a request with an id on connection ``c`` and return its reply."""
        self.next_id += 1
        rid = message["id"] = self.next_id
        await self.conns[c].send(_pack(message))
        while True:
            msg = await self.read(c)
            if msg.get("id") == rid:
                return msg

    async def hello(self) -> None:
        """Both connections say hello."""
        for c in (0, 1):
            await self.conns[c].send(
                _pack({"type": "hello", "protocol": 1, "name": f"{self.tag}-{c}", "kind": "human"})
            )
            while (await self.read(c))["type"] != "welcome":
                pass

    async def new_room(self) -> str:
        """Seat 0 creates a gomoku room, seat 1 joins it; the room's id."""
        joined = await self.request(0, {"type": "create_room", "game": "gomoku", "seat": 0})
        room = joined["room"]
        reply = await self.request(1, {"type": "join_room", "room": room})
        if reply["type"] != "joined" or reply["seat"] != 1:
            raise GameError(f"join failed: {reply}")
        return room

    async def leave(self, room: str) -> None:
        """Both players leave (the first one resigns an unfinished game on the real server)."""
        for c in (0, 1):
            await self.request(c, {"type": "leave_room", "room": room})

    async def drain(self) -> None:
        """Read until every move each connection sent has come back to it as ``moved``."""
        for c in (0, 1):
            while self.acked[c] < self.sent[c]:
                await self.read(c)


async def play(
    pair: Pair, cfg: Config, t0: float, t1: float, rng: random.Random, res: WorkerResult
) -> None:
    """Rounds of random gomoku until the window ends, the round budget runs out or an error."""
    now = time.monotonic
    conns = pair.conns
    latencies = res.latencies
    for _ in range(cfg.rounds):
        if now() >= t1:
            break
        room = await pair.new_room()
        res.rounds += 1
        board = Board()
        mover = 0
        for ply in range(cfg.moves_per_game):
            if now() >= t1:
                break
            index, wins = board.pick(rng, mover + 1)
            frame = _pack(
                {"type": "move", "room": room, "x": index % SIDE, "y": index // SIDE, "ply": ply}
            )
            sent_at = now()
            await conns[mover].send(frame)
            pair.sent[mover] += 1
            res.sent += 1
            opp = 1 - mover
            while True:  # the opponent's stream: maybe its own last ack, then this move
                msg = await pair.read(opp)
                if msg["type"] == "moved" and msg["seat"] == mover and msg["room"] == room:
                    break
            got_at = now()
            if msg["ply"] != ply or msg["x"] != index % SIDE or msg["y"] != index // SIDE:
                raise GameError(f"unexpected moved {msg} for ply {ply} cell {index}")
            res.received += 1
            if t0 <= got_at < t1:
                res.window_moves += 1
                if sent_at >= t0:
                    latencies.append(got_at - sent_at)
            board.place(index, mover + 1)
            mover = opp
            if wins:
                break
        await pair.leave(room)
    await pair.drain()


async def _open(url: str, sem: asyncio.Semaphore) -> ClientConnection:
    """One client connection, with the server's transport settings."""
    async with sem:
        return await connect(url, compression=None, max_size=MAX_FRAME, open_timeout=30)


async def worker_main(url: str, games: int, index: int, cfg: Config, pipe: Connection) -> None:
    """Open the connections, report ready, play when told, send back the counts."""
    res = WorkerResult()
    sem = asyncio.Semaphore(CONNECT_CONCURRENCY)
    conns = await asyncio.gather(*(_open(url, sem) for _ in range(2 * games)))
    pairs = [Pair((conns[2 * g], conns[2 * g + 1]), f"w{index}g{g}") for g in range(games)]
    try:
        await asyncio.gather(*(p.hello() for p in pairs))
        pipe.send("ready")
        loop = asyncio.get_running_loop()
        t0, t1, hard = await loop.run_in_executor(None, pipe.recv)
        cpu: dict[str, float] = {}
        loop.call_at(t0, lambda: cpu.__setitem__("t0", time.process_time()))
        loop.call_at(t1, lambda: cpu.__setitem__("t1", time.process_time()))

        async def one(g: int, pair: Pair) -> None:
            rng = random.Random(cfg.seed * 1_000_003 + index * 10_007 + g)
            try:
                async with asyncio.timeout_at(hard):
                    await play(pair, cfg, t0, t1, rng, res)
                res.games_done += 1
            except (GameError, TimeoutError, OSError) as exc:
                res.errors.append(f"{pair.tag}: {type(exc).__name__}: {exc}")
            except Exception as exc:  # a closed connection and the like: count it, go on
                res.errors.append(f"{pair.tag}: {type(exc).__name__}: {exc}")

        await asyncio.gather(*(one(g, p) for g, p in enumerate(pairs)))
        if "t1" not in cpu:
            await asyncio.sleep(max(0.0, t1 - time.monotonic()) + 0.01)
        res.cpu = cpu.get("t1", time.process_time()) - cpu.get("t0", time.process_time())
        res.acked = sum(sum(p.acked) for p in pairs)
    finally:
        with contextlib.suppress(Exception):
            async with asyncio.timeout(10):
                await asyncio.gather(*(c.close() for c in conns), return_exceptions=True)
    pipe.send(asdict(res))


def worker(url: str, games: int, index: int, cfg: Config, pipe: Connection) -> None:
    """Entry point of a worker process."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and kills us
    _die_with_parent()
    try:
        runner = uvloop.run if uvloop is not None else asyncio.run
        runner(worker_main(url, games, index, cfg, pipe))
    except Exception as exc:
        with contextlib.suppress(Exception):
            pipe.send({"fatal": f"{type(exc).__name__}: {exc}"})


# -- the parent: targets, workers, measurement --------------------------------------------------


def _die_with_parent() -> None:
    """Ask Linux to SIGKILL this process when its parent dies (best effort)."""
    with contextlib.suppress(Exception):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def proc_cpu(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime, stime (fields 14 and 15)


def raise_fd_limit(needed: int) -> None:
    """Raise the soft open-files limit towards the hard one (children inherit it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        new = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))


class Target:
    """The server or the relay as a subprocess on a free port, killed on exit."""

    def __init__(self, kind: str, tmp: Path, src: str, profile: str | None = None) -> None:
        self.kind = kind
        self.port = free_port()
        self.profiled = kind != "relay" and profile is not None
        host = ["--host", "127.0.0.1", "--port", str(self.port)]
        if kind != "relay":
            cmd = [sys.executable, "-m", "server"]
            if profile is not None:
                wrapper = str(ROOT / "bench" / "profile_server.py")
                cmd = [sys.executable, wrapper, "--out", str(Path(profile).resolve()), "--"]
            storage = ["--memory"] if kind == "memory" else ["--db", str(tmp / f"{self.port}.db")]
            cmd += [*host, *storage, "--no-bots"]
            cmd += ["--rate", "1000000", "--burst", "1000000", "--log-level", "WARNING"]
            cmd += ["--max-connections-per-address", "100000", "--max-connections", "100000"]
        else:
            cmd = [sys.executable, str(ROOT / "bench" / "relay.py"), *host]
        env = {**os.environ, "PYTHONPATH": src}  # before the editable install on sys.path
        self.proc = subprocess.Popen(cmd, cwd=src, env=env, preexec_fn=_die_with_parent)
        self.url = f"ws://127.0.0.1:{self.port}"

    def wait_ready(self, timeout: float = 15.0) -> None:
        """Wait until the port accepts connections."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.kind} exited with {self.proc.returncode}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port)):
                return
            time.sleep(0.05)
        raise RuntimeError(f"{self.kind} did not listen on {self.port} within {timeout}s")

    def signal(self, signum: int) -> None:
        """Send a signal to the target (the profiling wrapper's start and stop)."""
        if self.profiled and self.proc.poll() is None:
            self.proc.send_signal(signum)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it lingers."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


def _percentile(sorted_values: list[float], q: float) -> float | None:
    """The ``q`` quantile (0..1) of already sorted values, nearest rank."""
    if not sorted_values:
        return None
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def measure(kind: str, games: int, cfg: Config) -> dict[str, Any]:
    """One measurement of one target at ``games`` concurrent games."""
    ctx = mp.get_context("fork")
    nworkers = max(1, min(cfg.workers, games))
    shares = [games // nworkers + (i < games % nworkers) for i in range(nworkers)]
    procs: list[Any] = []
    finished = False
    pipes: list[Connection] = []
    with tempfile.TemporaryDirectory(prefix="mnk-bench-") as tmp:
        target = Target(kind, Path(tmp), cfg.src, cfg.profile)
        try:
            target.wait_ready()
            for i, share in enumerate(shares):
                parent, child = ctx.Pipe()
                p = ctx.Process(target=worker, args=(target.url, share, i, cfg, child), daemon=True)
                p.start()
                procs.append(p)
                pipes.append(parent)
            setup_deadline = time.monotonic() + cfg.setup_timeout
            for pipe in pipes:
                if not pipe.poll(max(0.0, setup_deadline - time.monotonic())):
                    raise RuntimeError(f"{kind}: workers not ready in {cfg.setup_timeout}s")
                msg = pipe.recv()
                if msg != "ready":
                    raise RuntimeError(f"{kind}: worker failed during setup: {msg}")
            t0 = time.monotonic() + cfg.warmup
            t1 = t0 + cfg.seconds
            hard = t1 + 20.0
            for pipe in pipes:
                pipe.send((t0, t1, hard))
            time.sleep(max(0.0, t0 - time.monotonic()))
            target.signal(signal.SIGUSR1)
            cpu0, w0 = proc_cpu(target.proc.pid), time.monotonic()
            time.sleep(max(0.0, t1 - time.monotonic()))
            cpu1, w1 = proc_cpu(target.proc.pid), time.monotonic()
            target.signal(signal.SIGUSR2)
            results: list[dict[str, Any]] = []
            for pipe in pipes:
                if not pipe.poll(max(0.0, hard + 15.0 - time.monotonic())):
                    raise RuntimeError(f"{kind}: a worker did not report back")
                msg = pipe.recv()
                if "fatal" in msg:
                    raise RuntimeError(f"{kind}: worker failed: {msg['fatal']}")
                results.append(msg)
            finished = True
        finally:
            for p in procs:
                if finished:  # the workers are closing their connections: give them a moment
                    p.join(2.0)
                if p.is_alive():
                    p.kill()
                    p.join(1.0)
            target.stop()
    window = w1 - w0
    moves = sum(r["window_moves"] for r in results)
    lat = sorted(x for r in results for x in r["latencies"])
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
        "cpu_s": cpu1 - cpu0,
        "cpu_us_per_move": None if not moves else 1e6 * (cpu1 - cpu0) / moves,
        "cpu_util": (cpu1 - cpu0) / window,
        "gen_cpu_util": gen_cpu / cfg.seconds,
        "gen_cpu_us_per_move": None if not moves else 1e6 * gen_cpu / moves,
        "sent": sum(r["sent"] for r in results),
        "received": sum(r["received"] for r in results),
        "acked": sum(r["acked"] for r in results),
        "rounds": sum(r["rounds"] for r in results),
        "games_done": sum(r["games_done"] for r in results),
        "errors": [e for r in results for e in r["errors"]][:20],
        "error_count": sum(len(r["errors"]) for r in results),
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
        for mode in ("server", "memory"):
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


def _fmt(value: float | None, spec: str) -> str:
    """A number for the table, or a dash."""
    return "-" if value is None else format(value, spec)


def render(rows: list[dict[str, Any]]) -> str:
    """The summary as a plain-text table."""
    head = (
        f"{'games':>5} {'server':>6} | {'server mv/s':>11} {'relay mv/s':>10} {'ratio':>6} | "
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
            f"{row['games']:>5} {row['mode']:>6} | {_fmt(s['moves_per_s'], '.0f'):>11} "
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
    p.add_argument("--json", type=Path, default=None, help="where to write the JSON results")
    return p


def main(argv: list[str] | None = None) -> int:
    """Run every configuration, print the table, write the JSON; the exit code is 1 on errors."""
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
    )
    raise_fd_limit(4 * max(games_list) + 256)
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
                    f"{_fmt(run['cpu_us_per_move'], '.0f')} µs/move  "
                    f"cpu {run['cpu_util']:.0%} gen {run['gen_cpu_util']:.0%}  "
                    f"sent {run['sent']} acked {run['acked']} errors {run['error_count']}",
                    flush=True,
                )
    rows = summarize(runs) if "relay" in targets and len(targets) > 1 else []
    if rows:
        print()
        print(render(rows))
    out = args.json or OUT_DIR / f"load-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "python": sys.version.split()[0],
        "loop": "uvloop" if uvloop is not None else "asyncio",
        "cpus": os.cpu_count(),
        "config": asdict(cfg),
        "repeat": args.repeat,
    }
    out.write_text(json.dumps({"meta": meta, "summary": rows, "runs": runs}, indent=2))
    print(f"\nresults: {out}")
    return 1 if any(r["error_count"] for r in runs) else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
