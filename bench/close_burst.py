"""How long the server's event loop stalls when a crowd of idle connections closes at once.

Starts ``python -m server`` (SQLite), opens ``--idle`` idle connections from a process of its
own (``tests/support/crowd.py``: 64 per loopback address from 127.3.0.1 on, each saying ``hello``;
16 silent ones per address with ``--no-hello``),
then, while an honest client on 127.0.0.1 pings every ``--every`` ms, kills that process with
SIGKILL (every socket of it closes at once, as when an attacker's process exits) or, with
``--graceful``, has it close them all with a close handshake. Reports the honest pings' round
trips before and after (max, p99), in ms. ``--profile F`` profiles the server (CPU time) from
just before the kill until the burst is over; read it with ``bench/profile_server.py --show F``.

Run: ``python bench/close_burst.py [--idle 2000] [--graceful] [--no-hello] [--json]``.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgpack
from websockets.asyncio.client import connect

ROOT = Path(__file__).resolve().parent.parent

#: The crowd's process: opens N connections, says "ready", then holds them (or closes them all
#: with a closing handshake when its stdin says so). The tests' crowd serves here too.
CROWD = ROOT / "tests" / "support" / "crowd.py"


def load_crowd() -> Any:
    """The tests' crowd module (``tests/support/crowd.py``), loaded from its file: its
    ``start`` launches the crowd's process and waits for it to hold its connections."""
    spec = importlib.util.spec_from_file_location("crowd", CROWD)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def ping_through(url: str, every: float, busy: Any, rtts: list[tuple[float, float]]) -> None:
    """Ping every ``every`` seconds while ``busy()`` is true; file (send time, round trip)."""
    async with connect(url, compression=None, ping_interval=None) as ws:
        await ws.send(msgpack.packb({"type": "hello", "protocol": 1, "name": "honest"}))
        await ws.recv()
        n = 0
        while busy():
            n += 1
            sent = time.perf_counter()
            await ws.send(msgpack.packb({"type": "ping", "id": n}))
            while msgpack.unpackb(await ws.recv()).get("id") != n:
                pass
            rtts.append((sent, time.perf_counter() - sent))
            await asyncio.sleep(max(0.0, every - (time.perf_counter() - sent)))


def stats(rtts: list[float]) -> dict[str, float]:
    """Max and p99 of round trips, in ms."""
    if not rtts:
        return {"n": 0, "max_ms": 0.0, "p99_ms": 0.0}
    ordered = sorted(rtts)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return {"n": len(ordered), "max_ms": ordered[-1] * 1e3, "p99_ms": p99 * 1e3}


async def burst(
    url: str,
    idle: int,
    hello: bool,
    graceful: bool,
    every: float,
    on_kill: Any = None,
    base: int = 3,
) -> dict[str, Any]:
    """Open the crowd, close it all at once beside an honest pinger; the pings' figures."""
    crowd = await asyncio.to_thread(load_crowd().start, url, idle, base, hello)
    rtts: list[tuple[float, float]] = []
    state = {"phase": "calm", "at": 0.0}

    def busy() -> bool:
        return state["phase"] != "done"

    pinger = asyncio.create_task(ping_through(url, every, busy, rtts))
    try:
        while len(rtts) < 100:  # a calm baseline first
            await asyncio.sleep(0.05)
            if pinger.done():
                pinger.result()
        if on_kill is not None:
            on_kill()
        state["at"] = time.perf_counter()
        if graceful:
            assert crowd.stdin is not None
            crowd.stdin.write("close\n")
            crowd.stdin.flush()
        else:
            crowd.send_signal(signal.SIGKILL)
        await asyncio.to_thread(crowd.wait, 60)
        await asyncio.sleep(1.5)  # the burst and its aftermath
    finally:
        state["phase"] = "done"
        if crowd.poll() is None:
            crowd.kill()
        await pinger
    at = state["at"]
    return {
        "idle": idle,
        "calm": stats([r for s, r in rtts if s < at]),
        "burst": stats([r for s, r in rtts if s >= at]),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--idle", type=int, default=2000)
    p.add_argument("--no-hello", action="store_true")
    p.add_argument("--graceful", action="store_true", help="close with a handshake, not kill -9")
    p.add_argument("--every", type=float, default=2.0, help="ms between honest pings")
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--profile", help="profile the server's handling of the burst into this file")
    p.add_argument("--json", action="store_true")
    p.add_argument("--root", default=str(ROOT), help="run the server of this checkout (a baseline)")
    args = p.parse_args()
    port = free_port()
    url = f"ws://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "server"]
        if args.profile:
            out = os.path.abspath(args.profile)
            cmd = [sys.executable, str(ROOT / "bench" / "profile_server.py"), "--out", out, "--"]
        cmd += ["--port", str(port), "--db", f"{tmp}/db.sqlite", "--no-bots"]
        cmd += ["--log-level", "WARNING", "--rate", "1000", "--burst", "1000"]  # the pinger's
        server = subprocess.Popen(cmd, cwd=args.root)
        try:
            for _ in range(400):
                try:
                    with socket.create_connection(("127.0.0.1", port), 0.2):
                        break
                except OSError:
                    time.sleep(0.05)
            results = []
            for n in range(args.rounds):
                on_kill = None
                if args.profile:

                    def on_kill() -> None:
                        server.send_signal(signal.SIGUSR1)

                r = asyncio.run(
                    burst(
                        url,
                        args.idle,
                        not args.no_hello,
                        args.graceful,
                        args.every / 1e3,
                        on_kill,
                        3 + n,
                    )
                )
                if args.profile:
                    server.send_signal(signal.SIGUSR2)
                    time.sleep(1.0)
                results.append(r)
                if not args.json:
                    c, b = r["calm"], r["burst"]
                    print(
                        f"{r['idle']} idle closed: calm max {c['max_ms']:.1f} ms p99 "
                        f"{c['p99_ms']:.1f} ms ({c['n']}); burst max {b['max_ms']:.1f} ms "
                        f"p99 {b['p99_ms']:.1f} ms ({b['n']})",
                        flush=True,
                    )
            if args.json:
                print(json.dumps(results))
        finally:
            server.send_signal(signal.SIGINT)
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()


if __name__ == "__main__":
    main()
