"""What seating bots of another node costs: ``create_room`` latency and bus entries per room.

Three nodes (a, b, c) on a throwaway PostgreSQL and Redis; two bots connected to a and two to
c (raw protocol clients that never move, so every room stays in play). A director on a makes
``--rooms`` rooms seating a's two bots (local), then as many seating c's (held while c lends the
seats: one ``seat`` entry to c, one ``lent`` back, and the ``joined``/``state`` outputs to c).

    python bench/bots_cluster.py --rooms 30
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgpack
from websockets.asyncio.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from cluster_load import bus_sent, wait_port  # noqa: E402
from loadtarget import free_port  # noqa: E402
from support.services import PgCluster, RedisServer, pg_bin, redis_bin  # noqa: E402

from server.core.players.keys import new_key  # noqa: E402


class Peer:
    """A msgpack client that matches replies to requests by id."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws, self.next_id = ws, 0

    async def request(self, **message: Any) -> dict[str, Any]:
        self.next_id += 1
        await self.ws.send(msgpack.packb({**message, "id": self.next_id}))
        while True:
            reply = msgpack.unpackb(await asyncio.wait_for(self.ws.recv(), 30))
            if reply.get("id") == self.next_id:
                return reply


async def peer(port: int, name: str, **hello: Any) -> Peer:
    """A client that said hello on the node at ``port``."""
    p = Peer(await connect(f"ws://127.0.0.1:{port}", compression=None, max_size=None))
    hello.setdefault("kind", "human")
    welcome = await p.request(type="hello", protocol=1, name=name, **hello)
    assert welcome["type"] == "welcome", welcome
    return p


async def drain(p: Peer) -> None:
    """Read (and drop) what a bot is sent, so its socket never backs up."""
    async for _frame in p.ws:
        pass


async def measure(
    director: Peer, bots: list[str], rooms: int, url: str
) -> tuple[list[float], float]:
    """Latencies (ms) of ``rooms`` director rooms seating ``bots``, and bus entries per room."""
    await asyncio.sleep(1.5)  # the counters are published every half second
    before = bus_sent(url)
    took = []
    for _ in range(rooms):
        start = time.perf_counter()
        reply = await director.request(type="create_room", game="gomoku", bots=bots)
        took.append((time.perf_counter() - start) * 1000)
        assert reply["type"] == "joined", reply
    await asyncio.sleep(1.5)
    return took, (bus_sent(url) - before) / rooms


async def run(args: argparse.Namespace) -> None:
    bindir, binary = pg_bin(), redis_bin()
    assert bindir is not None and binary is not None, "needs PostgreSQL and redis-server"
    pg = PgCluster(bindir)
    pg.init()
    pg.start()
    bus = RedisServer(binary)
    bus.start()
    procs = []
    try:
        db, tmp = pg.new_database(), Path(tempfile.mkdtemp())
        keys = {name: new_key() for name in ("near1", "near2", "far1", "far2")}
        (tmp / "keys").write_text("".join(f"{n}={k}\n" for n, k in keys.items()))
        ports = {node: free_port() for node in "abc"}
        for node, port in ports.items():
            cmd = [sys.executable, "-m", "server", "--port", str(port), "--db", db]
            cmd += ["--node", node, "--redis", bus.url(), "--keys-file", str(tmp / "keys")]
            cmd += ["--no-bots", "--rate", "1000", "--log-level", "WARNING"]
            procs.append(subprocess.Popen(cmd))
        for port, proc in zip(ports.values(), procs[-len(ports) :], strict=True):
            await asyncio.to_thread(wait_port, port, proc)
        readers = []
        for name, node in (("near1", "a"), ("near2", "a"), ("far1", "c"), ("far2", "c")):
            bot = await peer(
                ports[node], name, kind="bot", key=keys[name], games=["*"], capacity=64
            )
            readers.append(asyncio.create_task(drain(bot)))
        await asyncio.sleep(2)  # every node has read the directory
        print("| bots on | rooms | p50 ms | p90 ms | max ms | bus entries/room |")
        print("|---|---|---|---|---|---|")
        for label, bots in (("a (local)", ["near1", "near2"]), ("c (lent)", ["far1", "far2"])):
            director = await peer(ports["a"], f"director-{label[0]}")
            took, entries = await measure(director, bots, args.rooms, bus.url())
            q = statistics.quantiles(took, n=10)
            print(
                f"| {label} | {args.rooms} | {statistics.median(took):.1f} | {q[8]:.1f} "
                f"| {max(took):.1f} | {entries:.1f} |"
            )
        for task in readers:
            task.cancel()
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()
        bus.kill()
        pg.destroy()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rooms", type=int, default=30, help="rooms per case (at most 32)")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
