"""The ``analysis`` target of ``bench/load.py``: ``analyse`` requests at a fixed rate beside the
games, answered by the server's built-in bot (issue 32's benchmark).

A worker process opens ``CONNECTIONS`` clients (an ``analyse`` waits for its answer one at a
time per connection) and sends ``rate`` requests a second between the window's bounds, round
robin over the free connections (one due while all wait is counted ``skipped``; rate 0 sends
none: the ``bots`` baseline only waits for the bot): 7 in 10 a new random gomoku position
(6-20 stones near the centre, ``time`` 0.1 s), 2 in 10 a 4x4 k=4 position (exact values), 1 in
10 a position asked before (a cache hit, as a replay's second spectator). It reports the
answers, the refusals by code and the answers' latency; the parent adds the CPU the server's
bot processes used (:func:`tree_cpu`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import msgpack
from websockets.asyncio.client import connect

from protocol.rules import Game, Move
from protocol.variants import make_variant

CONNECTIONS = 16
GOMOKU = make_variant("gomoku")
SMALL = make_variant("mnk", {"width": 4, "height": 4, "k": 4})


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) of ``pid``'s descendants now alive (the bot and its workers)."""
    total = 0.0
    for child in _children(pid):
        total += _cpu(child) + tree_cpu(child)
    return total


def _children(pid: int) -> list[int]:
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            text = (task / "children").read_text().split()
            found += [int(c) for c in text]
    return found


def _cpu(pid: int) -> float:
    with contextlib.suppress(OSError, IndexError, ValueError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return 0.0


def position(rng: random.Random, asked: list[dict[str, Any]]) -> dict[str, Any]:
    """The next request's position (see the module doc for the mix)."""
    roll = rng.random()
    if roll < 0.1 and asked:
        return rng.choice(asked)
    variant, size, stones, spread = (
        (SMALL, {"game": "mnk", "options": {"width": 4, "height": 4, "k": 4}}, (5, 9), 0)
        if roll < 0.3
        else (GOMOKU, {"game": "gomoku", "time": 0.1}, (6, 20), 4)
    )
    while True:
        game = Game(variant)
        count = rng.randrange(*stones)
        while game.ply < count and not game.over:
            if spread:
                cell = Move(7 + rng.randint(-spread, spread), 7 + rng.randint(-spread, spread))
            else:
                cell = rng.choice(game.legal_moves())
            if game.is_legal(cell):
                game.push(cell)
        if not game.over:
            request = {**size, "moves": [[m.x, m.y] for m in game.moves]}
            asked.append(request)
            return request


async def _client(url: str, name: str) -> Any:
    ws = await connect(url, compression=None, max_size=None)
    await ws.send(msgpack.packb({"type": "hello", "protocol": 1, "name": name, "kind": "human"}))
    while msgpack.unpackb(await ws.recv())["type"] != "welcome":
        pass
    return ws


async def analyst_main(url: str, rate: float, seed: int, pipe: Connection) -> None:
    """Open the clients, wait for the bot, send at ``rate`` in the window, report."""
    clients = [await _client(url, f"analyst{i}") for i in range(CONNECTIONS)]
    rng = random.Random(seed)
    asked: list[dict[str, Any]] = []
    ready = time.monotonic() + 60
    while time.monotonic() < ready:  # the built-in bot takes a few seconds to connect
        await clients[0].send(msgpack.packb({"type": "analyse", "game": "tictactoe", "moves": []}))
        if msgpack.unpackb(await clients[0].recv())["type"] == "analysis":
            break
        await asyncio.sleep(0.2)
    pipe.send("ready")
    loop = asyncio.get_running_loop()
    t0, t1 = await loop.run_in_executor(None, pipe.recv)
    codes: dict[str, int] = {}
    latencies: list[float] = []
    free = list(clients)
    skipped = 0

    async def ask(ws: Any, request: dict[str, Any]) -> None:
        started = time.perf_counter()
        await ws.send(msgpack.packb({"type": "analyse", "id": 1, **request}))
        reply = msgpack.unpackb(await ws.recv())
        kind = reply["type"] if reply["type"] != "error" else reply["code"]
        codes[kind] = codes.get(kind, 0) + 1
        if kind == "analysis":
            latencies.append(time.perf_counter() - started)
        free.append(ws)

    await asyncio.sleep(max(0.0, t0 - time.monotonic()))
    due, tasks = t0, []
    while rate > 0 and due < t1:
        await asyncio.sleep(max(0.0, due - time.monotonic()))
        due += 1.0 / rate
        if not free:
            skipped += 1
            continue
        tasks.append(asyncio.create_task(ask(free.pop(), position(rng, asked))))
    if tasks:
        await asyncio.wait(tasks, timeout=15)
    latencies.sort()

    def pick(q: float) -> float | None:
        n = len(latencies)
        return 1000 * latencies[min(n - 1, int(q * n))] if n else None

    pipe.send({"sent": len(tasks), "skipped": skipped, "replies": codes,
               "p50_ms": pick(0.5), "p99_ms": pick(0.99)})  # fmt: skip
    for ws in clients:
        await ws.close()


def analyst_worker(url: str, rate: float, seed: int, pipe: Connection) -> None:
    """Entry point of the analyst's process."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        asyncio.run(analyst_main(url, rate, seed, pipe))
    except Exception as exc:
        with contextlib.suppress(Exception):
            pipe.send({"fatal": f"{type(exc).__name__}: {exc}"})
