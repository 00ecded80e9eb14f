"""Quick pairing's benchmark: how many seeks one node pairs a second, and the pairing delay with
1,000 players seeking at once.

- ``core``: the sans-I/O arena alone (no sockets), on a fake clock. ``place``: ``--players``
  guests' ``seek`` frames decoded, checked and placed; ``wave``: the sweep that pairs them all
  (one pool, every rating 1500) and makes their rooms; seeks/s = players / (place + wave).
  ``rated wave``: one wave over ``--players`` rated seeks waiting in one pool, ratings spread
  800-2800 (most wait: the gaps start at 100), its time in ms.
- ``server``: ``python -m server --memory`` on loopback; ``--players`` websocket clients say
  hello, then each sends one ``seek`` at once; the delay is from a client's send to its
  ``joined``. ``one pool``: every seek is gomoku 3+2 casual (the pool passes 32 at once: it is
  paired at the next sweep, every 50 ms); ``spread``: at most 30 seeks per pool (other clocks),
  so only the 2 s waves pair them. seeks/s = players / (first send to last ``joined``).

Bounded: ``--players`` (default 1000, at most 5000) and ``--seconds`` per server phase.
Run: ``python bench/pairing.py [--players 1000] [--seconds 60] [--json out.json]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgpack
from loadtarget import Target, raise_fd_limit
from websockets.asyncio.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from server.core.arena import Arena  # noqa: E402
from server.core.game.members import Send  # noqa: E402
from server.core.limits import Limits  # noqa: E402
from server.core.pairing.matcher import wave  # noqa: E402
from server.core.rating.desk import Entry  # noqa: E402
from server.core.rating.glicko2 import Rating  # noqa: E402

CLOCK = {"initial_s": 180, "increment_s": 2}


class Clock:
    """A clock that moves only when told (waves are due every 2 s of it)."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def _arena(players: int, rated: bool) -> tuple[Arena, Clock, list[Any]]:
    """An arena with ``players`` connected (accounts rated 800-2800 if ``rated``)."""
    clock = Clock()
    limits = Limits(max_seeks=max(10_000, players))
    arena = Arena(limits=limits, clock=clock, durable=False)
    arena.sweep()  # the first wave runs; the next is due in 2 s
    rng = random.Random(7)
    conns = []
    for i in range(players):
        conn = arena.connect()
        hello = {"type": "hello", "protocol": 1, "name": f"p{i}", "kind": "human"}
        arena.receive(conn, msgpack.packb(hello))
        if rated:
            player = arena.players[conn.pid]
            player.account = f"p{i}"
            entry = Entry(Rating(rng.uniform(800, 2800), 60.0), 10, clock.now)
            arena.ratings.book[(player.account, "gomoku-blitz")] = entry
        conns.append(conn)
    return arena, clock, conns


def core(players: int) -> dict[str, Any]:
    """The sans-I/O figures: placing, one wave pairing all, one rated wave of many waiting."""
    arena, clock, conns = _arena(players, rated=False)
    frame = msgpack.packb({"type": "seek", "game": "gomoku", "clock": CLOCK})
    started = time.perf_counter()
    for conn in conns:
        arena.receive(conn, frame)
    placed = time.perf_counter()
    clock.now += 2.0
    out = arena.sweep()
    waved = time.perf_counter()
    joined = sum(
        1 for o in out if isinstance(o, Send) and o.message.get("type") == "joined" for _ in o.to
    )
    arena, clock, conns = _arena(players, rated=True)
    frame = msgpack.packb({"type": "seek", "game": "gomoku", "clock": CLOCK, "rated": True})
    for conn in conns:
        arena.receive(conn, frame)
    clock.now += 2.0
    pool = arena.pairing.book.pool("gomoku 3+2 rated")
    begun = time.perf_counter()
    wave(pool, arena.pairing.memory.blocked)  # what the sweep's wave does before the rooms
    match_ms = (time.perf_counter() - begun) * 1000
    begun = time.perf_counter()
    out = arena.sweep()
    rated_ms = (time.perf_counter() - begun) * 1000
    rated_joined = sum(
        1 for o in out if isinstance(o, Send) and o.message.get("type") == "joined" for _ in o.to
    )
    return {
        "players": players,
        "place_ms": (placed - started) * 1000,
        "wave_ms": (waved - placed) * 1000,
        "paired": joined,
        "seeks_per_s": players / (waved - started),
        "rated_wave_ms": rated_ms,
        "rated_paired": rated_joined,
        "match_ms": match_ms,
    }


async def _client(url: str, name: str) -> ClientConnection:
    ws = await connect(url, compression=None, max_size=None)
    await ws.send(msgpack.packb({"type": "hello", "protocol": 1, "name": name, "kind": "human"}))
    while msgpack.unpackb(await ws.recv())["type"] != "welcome":
        pass
    return ws


async def _joined(ws: ClientConnection, deadline: float) -> float | None:
    """When ``ws`` got its ``joined`` (None: not before ``deadline``)."""
    while True:
        left = deadline - time.perf_counter()
        if left <= 0:
            return None
        try:
            frame = await asyncio.wait_for(ws.recv(), left)
        except TimeoutError:
            return None
        if msgpack.unpackb(frame).get("type") == "joined":
            return time.perf_counter()


async def server_phase(url: str, players: int, spread: bool, seconds: float) -> dict[str, Any]:
    """``players`` clients seek at once; each one's delay from its send to its ``joined``."""
    clients: list[ClientConnection] = []
    for start in range(0, players, 100):
        batch = [
            _client(url, f"{'s' if spread else 'o'}{i}")
            for i in range(start, min(players, start + 100))
        ]
        clients += await asyncio.gather(*batch)
    frames = []
    for i in range(players):
        clock = CLOCK if not spread else {"initial_s": 60 * (1 + i // 30), "increment_s": 0}
        frames.append(msgpack.packb({"type": "seek", "game": "gomoku", "clock": clock}))
    deadline = time.perf_counter() + seconds
    waits = [asyncio.create_task(_joined(ws, deadline)) for ws in clients]
    sent = []
    first = time.perf_counter()
    for ws, frame in zip(clients, frames, strict=True):
        sent.append(time.perf_counter())
        await ws.send(frame)
    got = await asyncio.gather(*waits)
    delays = sorted((g - s) * 1000 for g, s in zip(got, sent, strict=True) if g is not None)
    last = max((g for g in got if g is not None), default=first)
    await asyncio.gather(*(ws.close() for ws in clients), return_exceptions=True)
    return {
        "regime": "spread" if spread else "one pool",
        "players": players,
        "joined": len(delays),
        "p50_ms": statistics.median(delays) if delays else None,
        "p99_ms": delays[int(0.99 * (len(delays) - 1))] if delays else None,
        "max_ms": delays[-1] if delays else None,
        "seeks_per_s": len(delays) / (last - first) if delays and last > first else None,
    }


def server(players: int, seconds: float) -> list[dict[str, Any]]:
    """Both server phases against one fresh ``--memory`` server."""
    raise_fd_limit(players * 2 + 256)
    with tempfile.TemporaryDirectory() as tmp:
        target = Target("memory", Path(tmp), str(ROOT))
        try:
            target.wait_ready()
            return [
                asyncio.run(server_phase(target.url, players, spread, seconds))
                for spread in (False, True)
            ]
        finally:
            target.stop()


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=1000, help="seekers (max 5000)")
    parser.add_argument("--seconds", type=float, default=60.0, help="bound of a server phase")
    parser.add_argument("--skip-server", action="store_true", help="the core figures only")
    parser.add_argument("--json", help="write the figures here too")
    args = parser.parse_args()
    players = max(2, min(args.players, 5000))
    result: dict[str, Any] = {"core": core(players)}
    c = result["core"]
    print(f"core, {players} guests in one pool: place {c['place_ms']:.1f} ms, wave ", end="")
    print(f"{c['wave_ms']:.1f} ms ({c['paired']} joined): {c['seeks_per_s']:,.0f} seeks/s")
    print(
        f"core, one wave over {players} rated seeks (800-2800): {c['rated_wave_ms']:.1f} ms ",
        end="",
    )
    print(f"({c['rated_paired']} joined; the matcher alone {c['match_ms']:.1f} ms)")
    if not args.skip_server:
        result["server"] = server(players, args.seconds)
        print(f"\n{'server (loopback)':<18} {'joined':>7} {'p50 ms':>9} {'p99 ms':>9} "
              f"{'max ms':>9} {'seeks/s':>9}")  # fmt: skip
        for row in result["server"]:
            print(f"{row['regime']:<18} {row['joined']:>7} {_fmt(row['p50_ms']):>9} "
                  f"{_fmt(row['p99_ms']):>9} {_fmt(row['max_ms']):>9} "
                  f"{_fmt(row['seeks_per_s']):>9}")  # fmt: skip
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
