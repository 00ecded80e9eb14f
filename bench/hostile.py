"""Hostile benchmark: honest games beside every attack of issues 9 and 45, against the real server.

One run starts ``python -m server`` (SQLite, default limits) and plays honest games on it: human
pairs at a human pace (a move every 0.5-2 s) and bot pairs at full speed, every move timed from
send to its acknowledgement. Phases, measured in the same run:

0. ``warmup``: the honest games connect and start (``--warmup`` seconds, not measured);
1. ``calm``: the honest games alone for ``--seconds``;
2. ``attack``: the same games while ``bench/attacks.py`` (a process of its own, from
   127.0.0.2 …) runs every attack of the issue's table at once for ``--seconds``;
3. ``lock``: another connection holds the SQLite write lock for ``--lock-seconds`` while a probe
   pings: the event loop must keep answering (moves wait for their commit, by design).

Reports honest move latency p50/p99 per phase, the probe's worst ping during the lock, the
server's peak RSS (VmHWM), honest disconnects, and what each attack got. Targets (issue 9):
attack p99 <= 2x calm p99 and <= 100 ms, 0 honest disconnects, peak RSS <= 200 MB.

To tell the server's delay from the bench's on a small machine it also reports, per phase, the
CPU of the server, of the honest clients (this process) and of the attackers (niced: real ones
are on other machines), this process's own event-loop lag, an honest ping's round trip
(pings wait for no commit, moves do), and how long the server's loop and this process were
runnable but waiting for a core (``/proc/PID/schedstat``): on a shared 2-core machine that wait
is the machine's share of an honest move's delay. ``--profile F`` runs the server under
cProfile for one phase (``--profile-phase calm|attack``); read it with
``bench/profile_server.py --show F``.

Round three adds a ping flood (a raw socket pinging, never reading), junk in
``options.position``, a bot hog (two idle sockets of one address asking for every seat of the
server's one tic-tac-toe bot, while an honest human of another address asks for it mid-attack),
renju on a 25x25 board and played fast on 15x15, and a crowd (64 addresses x 64 idle
connections, then 20 newcomers from fresh addresses): the crowd's connections are open long
enough (``--evict-after``, 10 s) within a 30 s attack for newcomers to get in.

Round four (issue 45) adds seek pools (1,920 seeks with odd clocks from 10 addresses, 6 sockets
listing them), a login flood (8 addresses, ~9 wrong logins a second each), an owner lockout
(wrong guesses at the honest account ``attacks.OWNER``), a bot-fallback hog (8 seeks of one
address falling back to the tic-tac-toe bot, one move each), pinging holders (16 addresses x 64
sockets that ping or watch, then 20 newcomers) and an analysis flood (16 sockets of 4
addresses), all at once with the rest; beside them honest probes: the owner logs in every 2 s
(from its own address), a human asks for the bot from halfway every 2 s until seated, two
humans seek one standard pool halfway, a student asks for an analysis every second (an honest
analysing bot answers in 0.2 s). The verdict adds (``hostile_verdict.checks``): every honest
login answered within 2 s, the bot seat got, the seekers paired, the analyses answered, the 20
newcomers in, peak RSS <= 200 MB.

Run: ``python bench/hostile.py [--games 50] [--bot-games 10] [--seconds 30] [--json F]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import resource
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
from attacks import OWNER
from hostile_verdict import (
    checks,
    pooled_verdicts,
    render_pooled,
    render_verdict,
    summary,
    verdict,
)
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from bots.private import write_private
from server.core.players.keys import new_key

ROOT = Path(__file__).resolve().parent.parent
#: Each honest bot's key (``hello`` ``key``), by name: the server gets them in a ``--keys-file``.
BOT_KEYS: dict[str, str] = {}


def make_bot_keys(names: list[str], path: Path) -> Path:
    """A fresh key for every honest bot, written as the server's 0600 ``NAME=KEY`` keys file."""
    BOT_KEYS.update({name: new_key() for name in names})
    write_private(path, "".join(f"{name}={key}\n" for name, key in BOT_KEYS.items()))
    return path


def server_args(
    port: int, db: Path, keys_file: Path, evict_after: float | None = None
) -> list[str]:
    """How the benchmark starts the server: default limits, nothing tuned for the attack
    (unless ``--evict-after`` asks for another time before a crowd's connection may go)."""
    args = ["--port", str(port), "--db", str(db), "--no-bots", "--log-level", "WARNING"]
    if evict_after is not None:
        args += ["--evict-after", str(evict_after)]
    return [*args, "--keys-file", str(keys_file)]


#: A human move slower than this is kept with its time (its p99 is a few ms when calm).
SLOW_HUMAN_S = 0.008


@dataclass
class Honest:
    """What the honest clients saw: latencies per phase, disconnects."""

    phase: str = "warmup"
    latencies: dict[str, list[float]] = field(default_factory=dict)
    bot_latencies: dict[str, list[float]] = field(default_factory=dict)
    disconnects: int = 0
    #: (phase, seconds since the start, ms, "human"|"bot") of every honest bot move slower than
    #: 100 ms and human move slower than ``SLOW_HUMAN_S``: when the humans' tail happened.
    slow: list[tuple[str, float, float, str]] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)
    errors: list[str] = field(default_factory=list)
    stopping: bool = False
    #: How late this process's event loop woke up (seconds), per phase.
    lag: dict[str, list[float]] = field(default_factory=dict)
    #: Ping round trips (seconds) per phase: pings wait for no commit, moves do.
    pings: dict[str, list[float]] = field(default_factory=dict)


class Side:
    """One honest player's connection, with a reader that files messages by request id."""

    def __init__(self, ws: ClientConnection, honest: Honest, keep: bool = False) -> None:
        self.ws, self.honest = ws, honest
        #: Messages that answer no request (pushes), kept only when asked for (a probe's).
        self.inbox: asyncio.Queue[dict[str, Any]] | None = asyncio.Queue() if keep else None
        self.replies: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.over = asyncio.Event()
        #: Set before this side closes its own connection (that is no disconnect).
        self.closing = False
        self.next_id = 0
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                msg = msgpack.unpackb(frame, raw=False)
                fut = self.replies.pop(msg.get("id", -1), None)
                if fut is not None and not fut.done():
                    fut.set_result(msg)
                elif self.inbox is not None:
                    self.inbox.put_nowait(msg)
                if msg["type"] == "game_over":
                    self.over.set()
        except ConnectionClosed:
            pass
        if not self.honest.stopping and not self.closing:
            self.honest.disconnects += 1
            for fut in self.replies.values():
                fut.cancel()

    async def request(self, **message: Any) -> dict[str, Any]:
        """Send a request and wait for its reply."""
        self.next_id += 1
        fut = asyncio.get_running_loop().create_future()
        self.replies[self.next_id] = fut
        await self.ws.send(msgpack.packb({**message, "id": self.next_id}, use_bin_type=True))
        return await asyncio.wait_for(fut, 30)


async def open_side(
    url: str, host: str, name: str, kind: str, honest: Honest, keep: bool = False
) -> Side:
    """An honest client from ``host`` that said hello (keeping its pushes if ``keep``)."""
    ws = await connect(url, compression=None, local_addr=(host, 0), max_size=None)
    extra = {"key": BOT_KEYS[name], "games": ["gomoku"], "capacity": 4} if kind == "bot" else {}
    hello = {"type": "hello", "protocol": 1, "name": name, "kind": kind, **extra}
    await ws.send(msgpack.packb(hello, use_bin_type=True))
    welcome = msgpack.unpackb(await ws.recv(), raw=False)
    if welcome["type"] != "welcome":
        raise RuntimeError(f"honest hello refused: {welcome}")
    return Side(ws, honest, keep)


async def pair(url: str, index: int, bot: bool, honest: Honest) -> None:
    """Two honest players playing gomoku games one after another until told to stop."""
    kind = "bot" if bot else "human"
    host = f"127.0.4.{1 + index % 200}"  # honest players: addresses no attacker uses
    a = await open_side(url, host, f"{kind[0]}{index}a", kind, honest)
    b = await open_side(url, host, f"{kind[0]}{index}b", kind, honest)
    rng = random.Random(index)
    sink = honest.bot_latencies if bot else honest.latencies
    try:
        while not honest.stopping:
            a.over.clear()
            b.over.clear()
            room = (await a.request(type="create_room", game="gomoku", seat=0))["room"]
            await b.request(type="join_room", room=room)
            free = list(range(225))
            rng.shuffle(free)
            ply = 0
            while not honest.stopping and not a.over.is_set():
                if not bot:
                    await asyncio.sleep(rng.uniform(0.5, 2.0))
                cell = free.pop()
                mover = (a, b)[ply % 2]
                started = time.perf_counter()
                reply = await mover.request(type="move", room=room, x=cell % 15, y=cell // 15)
                took = time.perf_counter() - started
                if reply["type"] == "error":
                    if reply["code"] != "game_over":
                        honest.errors.append(reply["code"])
                    break
                sink.setdefault(honest.phase, []).append(took)
                if took > (0.1 if bot else SLOW_HUMAN_S) and len(honest.slow) < 500:
                    at = round(time.monotonic() - honest.started, 2)
                    kind = "bot" if bot else "human"
                    honest.slow.append((honest.phase, at, round(1000 * took, 1), kind))
                ply += 1
            for side in (a, b):
                await side.request(type="leave_room", room=room)
    except (ConnectionClosed, asyncio.CancelledError, TimeoutError):
        pass
    finally:
        for side in (a, b):
            with contextlib.suppress(Exception):
                await side.ws.close()


async def seater(url: str) -> None:
    """The server's one tic-tac-toe bot (4 seats): it plays the first free cell whenever it is
    to move. The ``bot_hog`` attack tries to take all its seats from one address."""
    ws = await connect(url, compression=None, local_addr=("127.0.4.252", 0), max_size=None)
    hello = {"type": "hello", "protocol": 1, "name": "seater", "kind": "bot", "capacity": 4,
             "key": BOT_KEYS["seater"], "games": ["tictactoe"]}  # fmt: skip
    await ws.send(msgpack.packb(hello))
    try:
        await play_first_free(ws)
    finally:
        await ws.close()  # a socket left unread would hold the server's shutdown


async def play_first_free(ws: ClientConnection) -> None:
    """The seater's game loop: track each room's stones, play the first free cell."""
    rooms: dict[str, tuple[int, set[tuple[int, int]], int]] = {}  # seat, stones, to move
    async for frame in ws:
        msg = msgpack.unpackb(frame, raw=False)
        room = msg.get("room")
        if msg["type"] == "state" and msg["status"] == "playing":
            stones = {(x, y) for x, y in msg["moves"]}
            rooms[room] = (msg["seat"], stones, msg["to_move"])
        elif msg["type"] == "moved" and room in rooms:
            seat, stones, _ = rooms[room]
            stones.add((msg["x"], msg["y"]))
            rooms[room] = (seat, stones, 1 - msg["seat"])
        elif msg["type"] == "game_over":
            rooms.pop(room, None)
            continue
        if room in rooms and rooms[room][0] == rooms[room][2]:
            free = [(x, y) for y in range(3) for x in range(3) if (x, y) not in rooms[room][1]]
            if free:
                x, y = free[0]
                await ws.send(msgpack.packb({"type": "move", "room": room, "x": x, "y": y}))
                rooms[room] = (rooms[room][0], rooms[room][1], -1)  # until its moved arrives


async def bot_seat_probe(human: Side, at: float, until: float) -> dict[str, Any]:
    """From halfway through the attack, an honest human of an address of its own (connected
    before it) asks for a game against the bot every 2 s until it gets one: does it, while the
    ``bot_hog`` and ``bot_fallback_hog`` attackers hold what they can?"""
    await asyncio.sleep(max(0.0, at - time.monotonic()))
    human.closing = True
    tries, replies, first_ms = 0, Counter(), None
    while True:
        tries += 1
        started = time.perf_counter()
        reply = await human.request(type="create_room", game="tictactoe", opponent="bot")
        replies[reply.get("code", reply["type"])] += 1
        if reply["type"] == "joined":
            first_ms = round(1000 * (time.perf_counter() - started), 1)
            await human.request(type="leave_room", room=reply["room"])
            break
        if time.monotonic() + 2.0 > until:
            break
        await asyncio.sleep(2.0)
    await human.ws.close()
    return {"seated": first_ms is not None, "tries": tries, "replies": dict(replies),
            "ms": first_ms}  # fmt: skip


#: The honest owner's password (its account is ``attacks.OWNER``, registered before the attack).
OWNER_PASSWORD = "the honest owner's own passphrase"


async def owner_device(url: str, honest: Honest) -> Side:
    """The honest owner's connection: registers ``OWNER`` (before the attack), then logs out."""
    side = await open_side(url, "127.0.4.240", "owner-device", "human", honest)
    side.closing = True
    reply = await side.request(type="register", name=OWNER, password=OWNER_PASSWORD)
    if reply["type"] != "logged_in":
        raise RuntimeError(f"the honest owner could not register: {reply}")
    await side.request(type="logout")
    return side


async def login_probe(side: Side, until: float) -> dict[str, Any]:
    """The honest owner logs in every 2 s of the attack (from its own address, where nobody
    guesses) and out again: every login's reply and time."""
    replies, times = Counter(), []
    while time.monotonic() < until:
        started = time.perf_counter()
        reply = await side.request(type="login", name=OWNER, password=OWNER_PASSWORD)
        times.append(round(1000 * (time.perf_counter() - started)))
        replies[reply.get("code", reply["type"])] += 1
        if reply["type"] == "logged_in":
            await side.request(type="logout")
        await asyncio.sleep(max(0.0, min(2.0, until - time.monotonic())))
    await side.ws.close()
    return {"replies": dict(replies), "ms": times, "worst_ms": max(times, default=None)}


async def seek_probe(sides: list[Side], at: float) -> dict[str, Any]:
    """Halfway through the attack, two honest players of two addresses seek the standard
    tic-tac-toe 1+0 pool: are they paired with each other, and how soon?"""
    await asyncio.sleep(max(0.0, at - time.monotonic()))
    started = time.perf_counter()
    clock = {"initial_s": 60, "increment_s": 0}
    replies = [await s.request(type="seek", game="tictactoe", clock=clock) for s in sides]
    got = [r.get("code", r["type"]) for r in replies]
    rooms = []
    if got == ["seeking", "seeking"]:
        for side in sides:
            assert side.inbox is not None
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(SEEK_WAIT_S):
                    while (msg := await side.inbox.get())["type"] != "joined":
                        pass
                    rooms.append(msg["room"])
    ms = round(1000 * (time.perf_counter() - started))
    paired = len(rooms) == 2 and rooms[0] == rooms[1]
    for side in sides:
        side.closing = True
        await side.ws.close()
    return {"paired": paired, "replies": got, "ms": ms if paired else None}


#: Seconds two honest seekers of one pool may wait to be paired (waves come every 2 s).
SEEK_WAIT_S = 10.0


async def analyst(url: str) -> None:
    """An honest analysing bot (level 0: never seated by the server, it only analyses): 8
    analyses at once, each answered after 0.2 s (its search) with the first empty cell."""
    ws = await connect(url, compression=None, local_addr=("127.0.4.249", 0), max_size=None)
    hello = {"type": "hello", "protocol": 1, "name": "analyst", "kind": "bot", "capacity": 1}
    hello |= {"key": BOT_KEYS["analyst"], "games": ["gomoku"], "level": 0, "analyses": 8}
    await ws.send(msgpack.packb(hello))
    searching: set[asyncio.Task[None]] = set()

    async def answer(job: dict[str, Any]) -> None:
        await asyncio.sleep(0.2)  # the search
        taken = {tuple(m) for m in job["moves"]}
        x, y = next((x, y) for y in range(15) for x in range(15) if (x, y) not in taken)
        line = {"move": [x, y], "score": 0, "pv": [[x, y]], "depth": 1}
        with contextlib.suppress(ConnectionClosed):
            await ws.send(msgpack.packb({"type": "analysed", "job": job["job"], "lines": [line]}))

    try:
        async for frame in ws:
            msg = msgpack.unpackb(frame, raw=False)
            if msg["type"] == "analyse_job":
                task = asyncio.create_task(answer(msg))
                searching.add(task)
                task.add_done_callback(searching.discard)
    finally:
        await ws.close()


async def analysis_probe(side: Side, until: float) -> dict[str, Any]:
    """An honest human of an address of its own (connected before the attack) asks for an
    analysis of a new position every second of the attack: what it got."""
    side.closing = True
    replies, n = Counter(), 0
    cells = [(x, y) for y in range(14) for x in range(15)]  # three stones: none of the flood's
    while time.monotonic() < until:
        n += 1
        (x, y), (u, v) = cells[n % len(cells)], cells[(n * 7 + 1) % len(cells)]
        moves = [[x, y], [14, 14], [u, v]] if (x, y) != (u, v) else [[x, y], [14, 14], [0, 14]]
        reply = await side.request(type="analyse", game="gomoku", moves=moves)
        replies[reply.get("code", reply["type"])] += 1
        await asyncio.sleep(max(0.0, min(1.0, until - time.monotonic())))
    await side.ws.close()
    return dict(replies)


def hold_write_lock(db: Path, seconds: float, taken: threading.Event) -> None:
    """Another connection holding the SQLite write lock (as another process might)."""
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    taken.set()
    time.sleep(seconds)
    conn.execute("ROLLBACK")
    conn.close()


async def lock_phase(url: str, db: Path, seconds: float, honest: Honest) -> float:
    """Hold the write lock while a probe pings; the probe's worst round trip in ms."""
    honest.phase = "lock"
    probe = await open_side(url, "127.0.4.250", "probe", "human", honest)
    taken = threading.Event()
    holder = threading.Thread(target=hold_write_lock, args=(db, seconds, taken))
    holder.start()
    await asyncio.to_thread(taken.wait, 10)
    worst = 0.0
    until = time.monotonic() + seconds * 0.8
    while time.monotonic() < until:
        started = time.perf_counter()
        await probe.request(type="ping")
        worst = max(worst, time.perf_counter() - started)
        await asyncio.sleep(0.05)
    await asyncio.to_thread(holder.join)
    probe.closing = True
    await probe.ws.close()
    return 1000 * worst


def own_cpu() -> float:
    """CPU seconds of this process (the honest clients) so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def children_cpu() -> float:
    """CPU seconds of the child processes that ended (the attackers; the server ends last)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def profile(
    server: subprocess.Popen[bytes], args: argparse.Namespace, phase: str, sig: int
) -> None:
    """Start (SIGUSR1) or stop and save (SIGUSR2) the server's profile (or its record of long
    loop turns) if it covers ``phase``."""
    if (args.profile or args.stalls) and args.profile_phase == phase:
        server.send_signal(sig)


async def ping_probe(url: str, honest: Honest) -> None:
    """An honest human pinging 20 times a second: the server's loop delay without the commit
    moves wait for (a slow move with a fast ping is the store's doing, not the loop's)."""
    probe = await open_side(url, "127.0.4.251", "pinger", "human", honest)
    probe.closing = True  # cancelled at the end of the attack: that is no disconnect
    try:
        while True:
            started = time.perf_counter()
            await probe.request(type="ping")
            honest.pings.setdefault(honest.phase, []).append(time.perf_counter() - started)
            await asyncio.sleep(0.05)
    finally:
        await probe.ws.close()


async def watch_loop(honest: Honest) -> None:
    """How late this process's own event loop wakes up, per phase: a busy honest client is
    slow by itself, and that is no server delay."""
    loop = asyncio.get_running_loop()
    while True:
        due = loop.time() + 0.01
        await asyncio.sleep(0.01)
        honest.lag.setdefault(honest.phase, []).append(max(0.0, loop.time() - due))


def lowest_priority() -> None:
    """Run only on CPU time nothing else wants (Linux ``SCHED_IDLE``; else nice 19): a niced
    process still wins some wake-ups against the honest clients it shares two cores with."""
    os.nice(19)
    with contextlib.suppress(AttributeError, OSError):
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_busy() -> float:
    """CPU seconds every process of this machine has used so far (all cores, from /proc/stat),
    and what the hypervisor gave other machines (steal). Interrupt time is left out: most of it
    is this benchmark's own loopback traffic, which no process is charged for."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    user, nice, system, _idle, _iowait, _irq, _softirq, steal = (int(f) for f in fields[:8])
    return (user + nice + system + steal) / os.sysconf("SC_CLK_TCK")


def runqueue_wait(pid: int) -> float:
    """Seconds the main thread of process ``pid`` (the server's event loop) has so far spent
    runnable but waiting for a core (``/proc/PID/schedstat``; 0 where the kernel keeps none):
    a move that arrives meanwhile waits too, whatever the server does."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[1]) / 1e9
    return 0.0


def peak_rss_mb(pid: int) -> float:
    """The server's peak resident memory so far (VmHWM), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def run(args: argparse.Namespace) -> dict[str, Any]:
    """One whole run: start the server, the honest games, the phases; the results."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 20_000), hard))
    tmp = Path(tempfile.mkdtemp(prefix="mnk-hostile-"))
    db = tmp / "arena.sqlite3"
    port = free_port()
    url = f"ws://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    names = [f"b{1000 + i}{side}" for i in range(args.bot_games) for side in "ab"]
    names += ["seater", "analyst"]
    keys_file = make_bot_keys(names, tmp / "bot-keys")
    served = server_args(port, db, keys_file, args.evict_after)
    argv = [sys.executable, "-m", "server", *served]
    if args.profile:  # the same server under cProfile, profiling one phase only
        wrapper = [str(ROOT / "bench" / "profile_server.py"), "--out", args.profile, "--"]
        argv = [sys.executable, *wrapper, *served]
    elif args.stalls:  # the same server on stock asyncio, its long loop turns recorded
        wrapper = [str(ROOT / "bench" / "stall_server.py"), "--out", args.stalls, "--"]
        argv = [sys.executable, *wrapper, *served]
    server = subprocess.Popen(argv, env=env)
    honest = Honest()
    lag = asyncio.create_task(watch_loop(honest))
    try:
        await wait_listening(url)
        humans = [pair(url, i, False, honest) for i in range(args.games - args.bot_games)]
        bots = [pair(url, 1000 + i, True, honest) for i in range(args.bot_games)]
        games = [asyncio.create_task(g) for g in (*humans, *bots)]
        pinger = asyncio.create_task(ping_probe(url, honest))
        bot = asyncio.create_task(seater(url))
        searcher = asyncio.create_task(analyst(url))
        owner = await owner_device(url, honest)
        seekers = [
            await open_side(url, f"127.0.4.{241 + i}", f"seeker{i}", "human", honest, keep=True)
            for i in range(2)
        ]
        # connected before the attack (a full server may refuse new ones in its first seconds)
        newbie = await open_side(url, "127.0.4.253", "newbie", "human", honest)
        student = await open_side(url, "127.0.4.243", "student", "human", honest)
        # 100 connections, hellos and first rooms at once are no steady state: not measured.
        await asyncio.sleep(args.warmup)
        honest.phase = "calm"
        started = time.monotonic()
        own_calm, server_calm = own_cpu(), cpu_seconds(server.pid)
        waited_calm, own_waited_calm = runqueue_wait(server.pid), runqueue_wait(os.getpid())
        busy_calm = machine_busy()
        profile(server, args, "calm", signal.SIGUSR1)
        await asyncio.sleep(args.seconds)
        profile(server, args, "calm", signal.SIGUSR2)
        calm_s = time.monotonic() - started
        own_calm = own_cpu() - own_calm
        cpu_calm = cpu_seconds(server.pid) - server_calm
        waited_calm = runqueue_wait(server.pid) - waited_calm
        own_waited_calm = runqueue_wait(os.getpid()) - own_waited_calm
        others_calm = machine_busy() - busy_calm - own_calm - cpu_calm
        honest.phase = "attack"
        attack_started = time.monotonic()
        rss_before = peak_rss_mb(server.pid)
        cmd = [sys.executable, str(ROOT / "bench" / "attacks.py"), url, str(args.seconds)]
        server_attack = cpu_seconds(server.pid)
        waited_attack, own_waited_attack = runqueue_wait(server.pid), runqueue_wait(os.getpid())
        own_attack, children = own_cpu(), children_cpu()
        busy_attack = machine_busy()
        profile(server, args, "attack", signal.SIGUSR1)
        half, attack_ends = attack_started + args.seconds / 2, attack_started + args.seconds
        probe = asyncio.create_task(bot_seat_probe(newbie, half, attack_ends))
        logins = asyncio.create_task(login_probe(owner, attack_ends))
        pairing = asyncio.create_task(seek_probe(seekers, half))
        analyses = asyncio.create_task(analysis_probe(student, attack_ends))
        # The attackers would be on other machines: at the lowest priority their CPU does not
        # starve the server or the honest clients of this 2-core box (what they send is the
        # same: every attack is bounded in count, and the table shows what each one got).
        attacker = await asyncio.create_subprocess_exec(
            *cmd, str(args.scale), stdout=asyncio.subprocess.PIPE, env=env,
            preexec_fn=lowest_priority,
        )  # fmt: skip
        out, _ = await attacker.communicate()
        profile(server, args, "attack", signal.SIGUSR2)
        cpu_attack = cpu_seconds(server.pid) - server_attack
        waited_attack = runqueue_wait(server.pid) - waited_attack
        own_waited_attack = runqueue_wait(os.getpid()) - own_waited_attack
        own_attack, attackers_cpu = own_cpu() - own_attack, children_cpu() - children
        others_attack = machine_busy() - busy_attack - own_attack - cpu_attack - attackers_cpu
        attacks = json.loads(out or b"{}")
        bot_seat = await probe
        probes = {"login": await logins, "seek": await pairing, "analyses": await analyses}
        attack_s = time.monotonic() - attack_started
        honest.phase = "after"
        pinger.cancel()
        bot.cancel()
        searcher.cancel()
        await asyncio.sleep(min(3.0, args.seconds))
        worst_ping = await lock_phase(url, db, args.lock_seconds, honest)
        honest.stopping = True
        for task in games:
            task.cancel()
        await asyncio.gather(*games, return_exceptions=True)
        alive = server.poll() is None
        rss = peak_rss_mb(server.pid) if alive else None
    finally:
        honest.stopping = True
        lag.cancel()
        server.terminate()
        try:  # its honest peers (this process, blocked here) answer no close: 10 s each
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    phases = ("calm", "attack", "lock")
    moves = {
        "human_ms": {p: summary(honest.latencies.get(p, [])) for p in phases},
        "bot_ms": {p: summary(honest.bot_latencies.get(p, [])) for p in phases},
    }
    result = {
        "config": vars(args),
        **moves,
        "verdict": {k: verdict(got["calm"], got["attack"]) for k, got in moves.items()},
        "server_cpu_pct": {
            "calm": round(100 * cpu_calm / calm_s),
            "attack": round(100 * cpu_attack / attack_s),
        },
        # The server's loop runnable but waiting for a core (% of the phase): the machine's
        # share of the honest moves' delay, not the server's work.
        "server_waited_pct": {
            "calm": round(100 * waited_calm / calm_s, 1),
            "attack": round(100 * waited_attack / attack_s, 1),
        },
        "honest_clients_waited_pct": {
            "calm": round(100 * own_waited_calm / calm_s, 1),
            "attack": round(100 * own_waited_attack / attack_s, 1),
        },
        "honest_clients_cpu_pct": {
            "calm": round(100 * own_calm / calm_s),
            "attack": round(100 * own_attack / attack_s),
        },
        "attackers_cpu_pct": round(100 * attackers_cpu / attack_s),
        # Other processes on this machine (other jobs): they slow a phase, not the server.
        "others_cpu_pct": {
            "calm": round(100 * others_calm / calm_s),
            "attack": round(100 * others_attack / attack_s),
        },
        "honest_loop_lag_ms": {p: summary(honest.lag.get(p, [])) for p in phases},
        "ping_ms": {p: summary(honest.pings.get(p, [])) for p in phases},
        "lock_worst_ping_ms": round(worst_ping, 1),
        "peak_rss_mb_before_attack": round(rss_before, 1),
        "peak_rss_mb": None if rss is None else round(rss, 1),
        "server_alive": alive,
        "honest_disconnects": honest.disconnects,
        "honest_errors": sorted(set(honest.errors)),
        "slow_moves": honest.slow,
        "attack_from_s": round(attack_started - honest.started, 2),
        "attacks": attacks,
        "honest_bot_seat": bot_seat,
        "honest_login": probes["login"],
        "honest_seek": probes["seek"],
        "honest_analyses": probes["analyses"],
        # Every move's latency (s) by class and phase, for pooling runs (not written as JSON).
        "raw": {"human_ms": honest.latencies, "bot_ms": honest.bot_latencies},
    }
    result["checks"] = checks(result)
    return result


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def wait_listening(url: str) -> None:
    """Wait until the server accepts WebSocket connections."""
    for _ in range(300):
        with contextlib.suppress(OSError):
            async with connect(url, open_timeout=2):
                return
        await asyncio.sleep(0.05)
    raise RuntimeError("the server did not start")


def render(result: dict[str, Any]) -> str:
    """The report as Markdown tables."""
    lines = ["| honest moves | calm p50 / p99 ms | attack p50 / p99 ms | lock p50 / p99 ms |"]
    lines.append("|---|---|---|---|")
    for label, key in (("humans", "human_ms"), ("bots (full speed)", "bot_ms")):
        cells = [f"{s['p50']} / {s['p99']} ({s['moves']})" for s in result[key].values()]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    own = result["honest_clients_cpu_pct"]
    lines += [
        "",
        f"- server CPU: {result['server_cpu_pct']['calm']}% calm, "
        f"{result['server_cpu_pct']['attack']}% under attack (of one core); honest clients "
        f"{own['calm']}% / {own['attack']}%;"
        f" attackers {result['attackers_cpu_pct']}%; other processes on the machine "
        f"{result['others_cpu_pct']['calm']}% / {result['others_cpu_pct']['attack']}%",
        "- the server's loop runnable but waiting for a core (of the phase): "
        f"{result['server_waited_pct']['calm']}% calm, {result['server_waited_pct']['attack']}%"
        " under attack; the honest clients' "
        f"{result['honest_clients_waited_pct']['calm']}% / "
        f"{result['honest_clients_waited_pct']['attack']}%",
        "- honest ping (no commit to wait for) p50 / p99 calm: "
        f"{result['ping_ms']['calm']['p50']} / {result['ping_ms']['calm']['p99']} ms, attack: "
        f"{result['ping_ms']['attack']['p50']} / {result['ping_ms']['attack']['p99']} ms",
        "- honest clients' own loop lag p99 calm / attack: "
        f"{result['honest_loop_lag_ms']['calm']['p99']} / "
        f"{result['honest_loop_lag_ms']['attack']['p99']} ms",
        f"- worst ping while the write lock was held: {result['lock_worst_ping_ms']} ms",
        f"- server peak RSS: {result['peak_rss_mb_before_attack']} MB before the attack, "
        f"{result['peak_rss_mb']} MB overall; alive at the end: {result['server_alive']}",
        f"- a human of another address asking for the bot mid-attack: {result['honest_bot_seat']}",
        f"- an honest seek taken by another honest player mid-attack: {result.get('honest_seek')}",
        f"- honest disconnects: {result['honest_disconnects']}; honest errors: "
        f"{result['honest_errors'] or 'none'}",
        "",
        render_verdict(result),
        "",
        "| attack | what it got |",
        "|---|---|",
    ]
    for name, stats in result["attacks"].items():
        got = ", ".join(f"{k} {v}" for k, v in sorted(stats.items()))
        lines.append(f"| {name} | {got} |")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    """The benchmark's command line."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=50, help="honest games at once (default 50)")
    p.add_argument("--bot-games", type=int, default=10, help="of which bot pairs (default 10)")
    p.add_argument("--seconds", type=float, default=30.0, help="length of the calm and attack")
    p.add_argument("--warmup", type=float, default=5.0, help="unmeasured start (default 5 s)")
    p.add_argument("--scale", type=float, default=1.0, help="attack counts x this (1 = issue's)")
    p.add_argument("--lock-seconds", type=float, default=2.0, help="write lock hold (default 2)")
    p.add_argument(
        "--evict-after",
        type=float,
        help="the server's time before it may close a crowd's connection (default 10 s)",
    )
    p.add_argument("--json", help="write the result as JSON here")
    p.add_argument("--profile", help="run the server under cProfile; write the profile here")
    p.add_argument(
        "--stalls",
        help="run the server on stock asyncio, recording its long loop turns"
        " (bench/stall_server.py); write them here",
    )
    p.add_argument(
        "--profile-phase", choices=("calm", "attack"), default="attack", help="phase profiled"
    )
    p.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="runs, each on a fresh server; with more than one, their moves are also pooled "
        "into one verdict (the p99 of N x 1,000 human moves, not of one run's 1,000)",
    )
    return p


def main() -> None:
    """Run the benchmark and print its tables."""
    args = build_parser().parse_args()
    results, raws = [], []
    for i in range(max(1, args.repeat)):
        if args.repeat > 1:
            print(f"\n## run {i + 1} of {args.repeat}\n", flush=True)
        result = asyncio.run(run(args))
        raws.append(result.pop("raw"))
        results.append(result)
        print(render(result), flush=True)
    output: dict[str, Any] = results[0]
    if args.repeat > 1:
        pooled = pooled_verdicts(raws)
        print(f"\n## pooled\n\n{render_pooled(pooled, len(raws))}")
        output = {"runs": results, "pooled": pooled}
    if args.json:
        Path(args.json).write_text(json.dumps(output, indent=2))


if __name__ == "__main__":
    main()
