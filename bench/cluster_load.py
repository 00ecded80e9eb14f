"""Cluster load (the issue's benchmark): N = 1, 2, 3 nodes on PostgreSQL and Redis against one
SQLite server, in the same run, under the same closed-loop load.

Each game is two raw clients playing random legal gomoku moves in turn (one move in flight per
game). With ``cross`` placement game i's host sits on node i mod N and its guest on node
i + 1 mod N, so every other move is forwarded between nodes (the room is the host's node's);
with ``local`` both sit on node i mod N. Over a window after a warm-up it reports moves/s
(moves whose ``moved`` reached the opponent), p50/p99 latency (the mover's send to the
opponent's ``moved``), CPU per move (``/proc`` user + system) of the nodes together and of the
busiest node, of ``redis-server`` and of PostgreSQL (the postmaster and its children), and bus
entries per move (the nodes' own counters in Redis, ``mnk:0:bus``).

Run: ``python bench/cluster_load.py [--games 16] [--seconds 5] [--nodes 1,2,3]``. PostgreSQL
and Redis are private throwaway servers (as the tests start them; fsync on unless
``--no-fsync``). Everything shares this machine's cores, the load generator included: read
the CPU columns, not the throughput, as what scales.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
import redis
from websockets.asyncio.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from loadtarget import free_port, proc_cpu  # noqa: E402
from support.services import PgCluster, RedisServer, pg_bin, redis_bin  # noqa: E402

CELLS = [(x, y) for x in range(15) for y in range(15)]

#: Every client comes from one address and they connect at once: lift the per-address bounds.
LIMITS = ["--max-connections", "100000", "--max-connections-per-address", "100000",
          "--max-pending-per-address", "100000", "--hello-rate", "inf", "--page-rate", "inf",
          "--max-guest-games-per-hour", "1000000000",
          "--max-games-per-address-hour", "1000000000"]  # fmt: skip


@dataclass
class Window:
    """What the clients saw inside the measurement window."""

    start: float = 0.0
    end: float = 0.0
    latencies: list[float] = field(default_factory=list)

    def inside(self, t: float) -> bool:
        """Whether ``t`` (perf_counter) falls in the window."""
        return self.start <= t < self.end


class Client:
    """A raw protocol client: replies by id and ``moved`` by (room, ply) resolve futures."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.ids = itertools.count(1)
        self.replies: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.moves: dict[tuple[str, int], asyncio.Future[float]] = {}
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        with contextlib.suppress(Exception):
            async for frame in self.ws:
                message = msgpack.unpackb(frame, raw=False)
                now = time.perf_counter()
                rid = message.get("id")
                if rid is not None and rid in self.replies:
                    self.replies.pop(rid).set_result(message)
                elif message["type"] == "moved":
                    waiter = self.moves.pop((message["room"], message["ply"]), None)
                    if waiter is not None:
                        waiter.set_result(now)

    async def request(self, **message: Any) -> dict[str, Any]:
        """Send a request and wait for its reply."""
        rid = next(self.ids)
        reply = self.replies[rid] = asyncio.get_running_loop().create_future()
        await self.ws.send(msgpack.packb({**message, "id": rid}))
        return await reply

    def moved(self, room: str, ply: int) -> asyncio.Future[float]:
        """A future: when this client receives ``moved`` for ``ply`` in ``room``."""
        waiter = self.moves[(room, ply)] = asyncio.get_running_loop().create_future()
        return waiter


async def hello(url: str, name: str) -> Client:
    """A client that has said hello."""
    ws = await connect(url, compression=None, max_size=None)
    client = Client(ws)
    welcome = await client.request(type="hello", protocol=1, name=name, kind="human")
    assert welcome["type"] == "welcome", welcome
    return client


async def play(host: Client, guest: Client, window: Window, rng: random.Random) -> None:
    """Games after games until the window ends: random legal moves, one in flight."""
    while time.perf_counter() < window.end:
        room = (await host.request(type="create_room", game="gomoku", seat=0))["room"]
        assert (await guest.request(type="join_room", room=room))["type"] == "joined"
        cells = CELLS[:]
        rng.shuffle(cells)
        for ply, (x, y) in enumerate(cells):
            mover, other = (host, guest) if ply % 2 == 0 else (guest, host)
            seen = other.moved(room, ply)
            sent = time.perf_counter()
            reply = await mover.request(type="move", room=room, x=x, y=y, ply=ply)
            if reply["type"] == "error":  # the game is over: the next one
                other.moves.pop((room, ply), None)
                break
            at = await seen
            if window.inside(sent):
                window.latencies.append(at - sent)
            if time.perf_counter() >= window.end:
                return
        await host.request(type="leave_room", room=room)
        await guest.request(type="leave_room", room=room)


def wait_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    """Wait until a process listens on ``port``."""
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
            return
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("a server did not start")
        time.sleep(0.05)


def pg_pids(cluster: PgCluster) -> list[int]:
    """The postmaster and its children (backends, writer, WAL writer, …)."""
    master = int((cluster.data / "postmaster.pid").read_text().split()[0])
    pids = [master]
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            text = stat.read_text()
            if int(text[text.rindex(")") + 2 :].split()[1]) == master:
                pids.append(int(stat.parent.name))
    return pids


def cpu(pids: list[int]) -> float:
    """CPU seconds of the processes still running among ``pids``."""
    total = 0.0
    for pid in pids:
        with contextlib.suppress(OSError):
            total += proc_cpu(pid)
    return total


def bus_sent(url: str) -> int:
    """Bus entries the nodes have sent so far (their own counters)."""
    with redis.Redis.from_url(url) as r:
        return sum(int(v.split()[0]) for v in r.hvals("mnk:0:bus"))


async def run_load(urls: list[str], args: argparse.Namespace, placement: str) -> Window:
    """Open the games' clients, play them through warm-up and window; what the window saw."""
    pairs = []
    for i in range(args.games):
        host_at = i % len(urls)
        guest_at = (i + 1) % len(urls) if placement == "cross" else host_at
        pairs.append(await asyncio.gather(
            hello(urls[host_at], f"h{i}"), hello(urls[guest_at], f"g{i}")))  # fmt: skip
    window = Window()
    now = time.perf_counter()
    window.start, window.end = now + args.warmup, now + args.warmup + args.seconds
    rng = random.Random(1)
    await asyncio.gather(*(play(h, g, window, random.Random(rng.random())) for h, g in pairs))
    for client in (c for pair in pairs for c in pair):
        await client.ws.close()
    return window


def measure(
    label: str, urls: list[str], pids: dict[str, list[int]], args: argparse.Namespace,
    placement: str, bus: str | None,
) -> dict[str, Any]:  # fmt: skip
    """One row: the load against the given servers, with CPU read around the window."""
    loop = asyncio.new_event_loop()
    try:
        task = loop.create_task(run_load(urls, args, placement))
        loop.run_until_complete(asyncio.sleep(args.warmup + 0.5))  # clients open, games warm
        before = {name: cpu(group) for name, group in pids.items()}
        per_node0 = [cpu([p]) for p in pids["nodes"]]
        sent0 = bus_sent(bus) if bus else 0
        window = loop.run_until_complete(task)
    finally:
        loop.close()
    # the window ended when the task returned (a little after the window: a small overcount)
    after = {name: cpu(group) for name, group in pids.items()}
    per_node = [cpu([p]) - c for p, c in zip(pids["nodes"], per_node0, strict=True)]
    moves = len(window.latencies)
    lat = sorted(window.latencies)

    def per_move(seconds: float) -> float:
        return 1e6 * seconds / moves if moves else float("nan")

    return {
        "target": label,
        "nodes": len(urls),
        "placement": placement,
        "moves/s": moves / args.seconds,
        "p50 ms": 1e3 * statistics.median(lat) if lat else float("nan"),
        "p99 ms": 1e3 * lat[int(0.99 * (len(lat) - 1))] if lat else float("nan"),
        "nodes µs/move": per_move(after["nodes"] - before["nodes"]),
        "max node µs/move": per_move(max(per_node)),
        "redis µs/move": per_move(after["redis"] - before["redis"]) if bus else None,
        "pg µs/move": per_move(after["pg"] - before["pg"]) if "pg" in pids else None,
        "bus/move": (bus_sent(bus) - sent0) / moves if bus and moves else None,
    }


def start_servers(count: int, db: str, extra: list[str], cwd: str) -> list[Any]:
    """``count`` server processes (nodes a, b, … when ``extra`` names a bus)."""
    procs = []
    for name in "abcdefgh"[:count]:
        port = free_port()
        node = ["--node", name] if "--redis" in extra else []
        args = [sys.executable, "-m", "server", "--port", str(port), "--db", db, "--no-bots"]
        args += ["--rate", "100000", "--burst", "100000", "--log-level", "WARNING", *node, *extra]
        args += LIMITS
        proc = subprocess.Popen(args, cwd=cwd)
        wait_port(port, proc)
        procs.append((proc, f"ws://127.0.0.1:{port}"))
    return procs


def stop(procs: list[Any]) -> None:
    """Stop the servers (SIGTERM, then kill)."""
    for proc, _ in procs:
        proc.terminate()
    for proc, _ in procs:
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()


def bench(args: argparse.Namespace, tmp: str) -> list[dict[str, Any]]:
    """Every row: the SQLite server, then each cluster size and placement."""
    rows = []
    procs = start_servers(1, str(Path(tmp) / "one.sqlite3"), [], tmp)
    try:
        pids = {"nodes": [p.pid for p, _ in procs]}
        rows.append(measure("sqlite", [u for _, u in procs], pids, args, "local", None))
    finally:
        stop(procs)
    bindir, binary = pg_bin(), redis_bin()
    if bindir is None or binary is None:
        raise SystemExit("cluster_load: PostgreSQL and redis-server must be installed")
    cluster = PgCluster(bindir, durable=not args.no_fsync)
    cluster.init()
    cluster.start()
    try:
        for count in args.nodes:
            for placement in ("cross", "local") if count > 1 else ("local",):
                server = RedisServer(binary)
                server.start()
                assert server.proc is not None
                extra = ["--redis", server.url()]
                procs = start_servers(count, cluster.new_database(), extra, tmp)
                try:
                    pids = {"nodes": [p.pid for p, _ in procs], "redis": [server.proc.pid]}
                    pids["pg"] = pg_pids(cluster)
                    urls = [u for _, u in procs]
                    rows.append(measure("cluster", urls, pids, args, placement, server.url()))
                finally:
                    stop(procs)
                    server.kill()
    finally:
        cluster.destroy()
    return rows


def render(rows: list[dict[str, Any]]) -> str:
    """A Markdown table."""
    columns = list(rows[0])
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in rows:
        cells = [v if isinstance(v, str | int) else "-" if v is None else f"{v:.1f}"
                 for v in row.values()]  # fmt: skip
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark and print its table (also ``bench/load.py --nodes N,…``)."""
    p = argparse.ArgumentParser(description=str(__doc__).split("\n")[0])
    p.add_argument("--games", type=int, default=16, help="concurrent games (16)")
    p.add_argument("--seconds", type=float, default=5.0, help="measurement window (5)")
    p.add_argument("--warmup", type=float, default=2.0, help="seconds before the window (2)")
    p.add_argument("--nodes", default="1,2,3", help="cluster sizes (1,2,3)")
    p.add_argument("--no-fsync", action="store_true", help="PostgreSQL without fsync")
    args = p.parse_args(argv)
    args.nodes = [int(n) for n in args.nodes.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        print(render(bench(args, tmp)))


if __name__ == "__main__":
    main()
