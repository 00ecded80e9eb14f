"""Run the real server (``server.cli``) on stock asyncio and record its long event-loop turns.

Honest moves wait for whatever the loop is doing when they arrive, so a latency tail is made of
long loop turns. This wrapper times every turn of the loop and every callback in it, both in
wall time and in the thread's CPU time (CPU time is immune to other processes' load, so a busy
benchmark machine still tells the server's own work from being preempted), between SIGUSR1 and
SIGUSR2, and at SIGUSR2 writes a JSON summary: the turns over ``--turn-ms``, each with the
callbacks that made it up, and per callback kind (a task's coroutine name, or the callback's
qualified name) how often it ran, its total and its worst time.

It patches stock asyncio's private ``BaseEventLoop._run_once`` and ``Handle._run``: a
diagnostic only, never imported by the server. uvloop's turns cannot be observed this way, so
the server runs with ``--loop asyncio`` (appended to its arguments).

Usage: ``python bench/stall_server.py --out FILE [--turn-ms 3] -- <mnk-server arguments>``;
``bench/hostile.py --stalls FILE`` starts the server through it for the attack phase, and
``python bench/stall_server.py --show FILE`` prints a summary.
"""

from __future__ import annotations

import argparse
import asyncio
import asyncio.base_events
import asyncio.events
import gc
import json
import os
import signal
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from types import FrameType
from typing import Any


class Recorder:
    """Per-turn and per-callback times while switched on."""

    def __init__(self, turn_ms: float) -> None:
        self.turn_s = turn_ms / 1000
        self.on = False
        self.started = 0.0
        self.turns = 0
        self.long: list[dict[str, Any]] = []
        self.kinds: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0, 0.0])
        self.current: list[tuple[str, float, float]] = []
        #: Cyclic-collector runs this turn, and per generation: count, total and worst CPU.
        self.gc_turn: list[tuple[int, float]] = []
        self.gc: dict[int, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
        self._gc_started = 0.0

    def collector(self, phase: str, info: dict[str, int]) -> None:
        """A ``gc.callbacks`` hook: time each collection (a full one walks every live object)."""
        if not self.on:
            return
        if phase == "start":
            self._gc_started = time.thread_time()
            return
        took = time.thread_time() - self._gc_started
        row = self.gc[info["generation"]]
        row[0] += 1
        row[1] += took
        row[2] = max(row[2], took)
        self.gc_turn.append((info["generation"], took))

    def handle(self, label: str, wall: float, cpu: float) -> None:
        """One callback ran: file it under its kind and in the current turn."""
        row = self.kinds[label]
        row[0] += 1
        row[1] += cpu
        row[2] = max(row[2], cpu)
        row[3] = max(row[3], wall)
        self.current.append((label, wall, cpu))

    def turn(self, wall: float, cpu: float) -> None:
        """One loop turn ended: keep it when it was long."""
        self.turns += 1
        if max(wall, cpu) >= self.turn_s:
            worst = sorted(self.current, key=lambda h: -h[2])[:8]
            self.long.append(
                {
                    "at": round(time.monotonic() - self.started, 3),
                    "wall_ms": round(wall * 1000, 2),
                    "cpu_ms": round(cpu * 1000, 2),
                    "callbacks": len(self.current),
                    "worst": [[lbl, round(w * 1000, 2), round(c * 1000, 2)] for lbl, w, c in worst],
                    "gc": [[g, round(t * 1000, 2)] for g, t in self.gc_turn],
                }
            )
        self.current = []
        self.gc_turn = []

    def dump(self, path: str) -> None:
        """Write the summary as JSON."""
        kinds = {
            k: {
                "n": int(n),
                "cpu_ms": round(t * 1000, 1),
                "max_cpu_ms": round(m * 1000, 2),
                "max_wall_ms": round(w * 1000, 2),
            }
            for k, (n, t, m, w) in sorted(self.kinds.items(), key=lambda kv: -kv[1][1])
        }
        gcs = {
            str(g): {"n": int(n), "cpu_ms": round(t * 1000, 1), "max_cpu_ms": round(m * 1000, 2)}
            for g, (n, t, m) in sorted(self.gc.items())
        }
        out = {
            "turns": self.turns,
            "turn_ms": self.turn_s * 1000,
            "gc": gcs,
            "long": self.long,
            "kinds": kinds,
        }
        with open(path, "w") as f:
            json.dump(out, f, indent=1)


def label_of(handle: asyncio.events.Handle) -> str:
    """A stable name for what a callback runs: a task's coroutine, else the callback's name."""
    cb = handle._callback  # stdlib internals: a diagnostic only
    owner = getattr(cb, "__self__", None)
    if isinstance(owner, asyncio.Task):
        coro = owner.get_coro()
        return f"task {getattr(coro, '__qualname__', type(coro).__name__)}"
    return getattr(cb, "__qualname__", None) or type(cb).__name__


def install(rec: Recorder) -> Callable[[], None]:
    """Patch stock asyncio to report each callback and each turn to ``rec``; the undo."""
    run_handle = asyncio.events.Handle._run
    run_once = asyncio.base_events.BaseEventLoop._run_once

    def timed_handle(self: asyncio.events.Handle) -> None:
        if not rec.on:
            return run_handle(self)
        w, c = time.perf_counter(), time.thread_time()
        try:
            return run_handle(self)
        finally:
            rec.handle(label_of(self), time.perf_counter() - w, time.thread_time() - c)

    def timed_turn(self: asyncio.base_events.BaseEventLoop) -> None:
        if not rec.on:
            return run_once(self)
        # The turn's own time starts once select() returned: time spent waiting is idle.
        rec.current = []
        w, c = time.perf_counter(), time.thread_time()
        run_once(self)
        rec.turn(time.perf_counter() - w, time.thread_time() - c)

    def undo() -> None:
        setattr(asyncio.events.Handle, "_run", run_handle)  # noqa: B010
        setattr(asyncio.base_events.BaseEventLoop, "_run_once", run_once)  # noqa: B010

    setattr(asyncio.events.Handle, "_run", timed_handle)  # noqa: B010 - patching the stdlib
    setattr(asyncio.base_events.BaseEventLoop, "_run_once", timed_turn)  # noqa: B010
    return undo


def show(path: str, limit: int = 25) -> None:
    """Print the callback kinds by CPU and the longest turns."""
    with open(path) as f:
        data = json.load(f)
    print(f"{data['turns']} turns, {len(data['long'])} over {data['turn_ms']} ms")
    for gen, row in data.get("gc", {}).items():
        print(f"gc gen {gen}: {row['n']}x, {row['cpu_ms']} ms cpu, worst {row['max_cpu_ms']} ms")
    with_gc = [t for t in data["long"] if any(g == 2 for g, _ in t.get("gc", []))]
    print(f"long turns with a full (gen 2) collection: {len(with_gc)}")
    for name, row in list(data["kinds"].items())[:limit]:
        print(
            f"{row['cpu_ms']:9.1f} ms cpu {row['n']:8d}x  max {row['max_cpu_ms']:7.2f} cpu "
            f"{row['max_wall_ms']:7.2f} wall  {name}"
        )
    print("longest turns (wall):")
    for turn in sorted(data["long"], key=lambda t: -t["wall_ms"])[:limit]:
        print(
            f"  t={turn['at']:7.2f} wall {turn['wall_ms']:7.2f} cpu {turn['cpu_ms']:7.2f} "
            f"n={turn['callbacks']:4d} gc={turn.get('gc')} {turn['worst'][:2]}"
        )


def main() -> None:
    """Install the recorder and its signal handlers, then hand over to the server's command line."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", help="where to write the summary (JSON)")
    p.add_argument("--turn-ms", type=float, default=3.0, help="record turns at least this long")
    p.add_argument("--show", help="print a saved summary and exit")
    p.add_argument(
        "--gc-thresholds",
        default=os.environ.get("MNK_GC_THRESHOLDS"),
        help="A,B,C: the collector's thresholds instead of the server's, to try some"
        " (default: $MNK_GC_THRESHOLDS, so that bench/hostile.py --stalls can pass it)",
    )
    p.add_argument("server_args", nargs=argparse.REMAINDER)
    args = p.parse_args()
    if args.show:
        show(args.show)
        return
    rec = Recorder(args.turn_ms)
    install(rec)
    gc.callbacks.append(rec.collector)
    if args.gc_thresholds:
        tried = tuple(int(t) for t in args.gc_thresholds.split(","))
        real = gc.set_threshold
        setattr(gc, "set_threshold", lambda *_: real(*tried))  # noqa: B010 - the server's call

    def start(signum: int, frame: FrameType | None) -> None:
        rec.on, rec.started = True, time.monotonic()

    def stop(signum: int, frame: FrameType | None) -> None:
        rec.on = False
        rec.dump(args.out)

    signal.signal(signal.SIGUSR1, start)
    signal.signal(signal.SIGUSR2, stop)
    from server.cli import main as server_main

    rest = args.server_args[1:] if args.server_args[:1] == ["--"] else args.server_args
    server_main([*rest, "--loop", "asyncio"])


if __name__ == "__main__":
    sys.exit(main())
