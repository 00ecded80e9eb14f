"""CPU cost per move of the server's sans-I/O path (no sockets) against the relay's per-move work.

Drives ``Arena.receive`` with ``move`` frames for random gomoku games between two players and
encodes every output as the shell does (``wire.encode`` per item), then does the relay's work
for the same frames (decode, build ``moved``, encode once). Both are timed with CPU time, so the
numbers hold on a busy machine. ``--profile`` adds a cProfile of the arena path.

``--watch`` adds a spectator to every room; ``--info`` makes the players bots whose every move
carries a search report (``info`` with a 12-cell principal variation), which the server checks
and relays to the spectator (docs/PROTOCOL.md): the price of that report per move.

Usage: ``python bench/arena_micro.py [--moves 50000] [--src DIR] [--profile] [--watch] [--info]
[--clock 3600+0]``
(``--clock``: the games are timed, so the clock's per-move work, lag compensation included, is
in the figure).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import msgpack

ROOT = Path(__file__).resolve().parent.parent
SIDE = 15


def frames(count: int, per_game: int, seed: int = 1) -> list[tuple[int, int, int]]:
    """``(x, y, ply)`` of random games of ``per_game`` moves that avoid making five."""
    from loadgen import Board  # bench/ is on sys.path when this runs as a script

    rng = random.Random(seed)
    out: list[tuple[int, int, int]] = []
    while len(out) < count:
        board = Board()
        for ply in range(per_game):
            index, wins = board.pick(rng, 1 + (ply & 1))
            if wins:
                break
            board.place(index, 1 + (ply & 1))
            out.append((index % SIDE, index // SIDE, ply))
    return out[:count]


#: A typical search report (level 10 at 1 s): what ``--info`` puts on every move.
INFO = {"depth": 12, "seldepth": 18, "score": 124, "nodes": 426_000, "nps": 492_000,
        "time_ms": 867, "pv": [[7 + i % 3, 7 + i % 4] for i in range(12)]}  # fmt: skip


def arena_path(
    moves: list[tuple[int, int, int]],
    per_game: int,
    durable: bool = False,
    clock: dict[str, float] | None = None,
    watch: bool = False,
    info: bool = False,
) -> Callable[[], int]:
    """A closure playing ``moves`` through a fresh arena; returns how many were ``moved``.

    ``durable``: the arena journals, and its records are drained after every message (as the
    shell does before handing them to the commit pipeline). ``clock``: every game is timed."""
    from protocol import wire
    from server.core.arena import Arena
    from server.core.limits import Limits

    lim = Limits(human_rate=1e9, human_burst=1e9, max_guest_games_per_hour=10**9)
    lim = replace(lim, max_games_per_address_hour=10**9)
    if info:  # bots have their own rate
        lim = replace(lim, bot_rate=1e9, bot_burst=1e9)
    arena = Arena(limits=lim, durable=durable)
    drain = arena.drain
    pack = msgpack.Packer(use_bin_type=True).pack
    conns = [arena.connect(), arena.connect()]
    for i, conn in enumerate(conns):
        hello = {"type": "hello", "protocol": 1, "name": f"p{i}", "kind": "human"}
        if info:  # bots, with the keys their operator made
            from server.core.players.keys import new_key

            hello["kind"], hello["key"] = "bot", new_key()
            arena.keys.add(f"p{i}", hello["key"])
        arena.receive(conn, pack(hello))
    watcher = None
    if watch or info:
        watcher = arena.connect()
        hello = {"type": "hello", "protocol": 1, "name": "watcher", "kind": "human"}
        arena.receive(watcher, pack(hello))
    extra = {"info": INFO} if info else {}

    def new_room() -> str:
        create: dict[str, Any] = {"type": "create_room", "game": "gomoku", "seat": 0, "id": 1}
        if clock is not None:
            create["clock"] = clock
        out = arena.receive(conns[0], pack(create))
        room = out[0].message["room"]
        arena.receive(conns[1], pack({"type": "join_room", "room": room, "id": 2}))
        if watcher is not None:
            arena.receive(watcher, pack({"type": "join_room", "room": room, "spectate": True}))
        return room

    def run() -> int:
        room, played = new_room(), 0
        for x, y, ply in moves:
            if ply == 0 and played:
                arena.receive(conns[0], pack({"type": "leave_room", "room": room}))
                arena.receive(conns[1], pack({"type": "leave_room", "room": room}))
                if watcher is not None:
                    arena.receive(watcher, pack({"type": "leave_room", "room": room}))
                room = new_room()
            frame = pack({"type": "move", "room": room, "x": x, "y": y, "ply": ply, **extra})
            out = arena.receive(conns[ply & 1], frame)
            drain()
            for item in out:  # what ArenaServer._deliver does, minus the sockets
                wire.encode(item.message)
            played += out[0].message["type"] == "moved"
        return played

    return run


def relay_path(moves: list[tuple[int, int, int]]) -> Callable[[], int]:
    """A closure doing the relay's per-move work for ``moves``."""
    pack = msgpack.Packer(use_bin_type=True).pack
    unpack = msgpack.unpackb

    def run() -> int:
        for x, y, ply in moves:
            msg = unpack(pack({"type": "move", "room": "r1", "x": x, "y": y, "ply": ply}))
            moved = {"type": "moved", "room": msg["room"], "ply": msg.get("ply"), "seat": ply & 1}
            moved["x"], moved["y"] = msg["x"], msg["y"]
            pack(moved)
        return len(moves)

    return run


def timed(run: Callable[[], int]) -> tuple[float, int]:
    """CPU seconds and the result of one call."""
    t = time.process_time()
    n = run()
    return time.process_time() - t, n


def main() -> None:
    """Time both paths a few times and print µs per move (best of the runs)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--moves", type=int, default=50_000)
    p.add_argument("--per-game", type=int, default=100)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--src", default=str(ROOT), help="directory with server/ and protocol/")
    p.add_argument("--profile", action="store_true", help="also print a cProfile of the arena")
    p.add_argument("--durable", action="store_true", help="the arena journals (drained per move)")
    p.add_argument("--clock", default=None, help="time every game: INITIAL+INCREMENT seconds")
    p.add_argument("--watch", action="store_true", help="a spectator in every room")
    p.add_argument("--info", action="store_true", help="bots whose moves carry info (+ --watch)")
    args = p.parse_args()
    clock = None
    if args.clock is not None:
        initial, _, increment = args.clock.partition("+")
        clock = {"initial_s": float(initial), "increment_s": float(increment or 0)}
    sys.path.insert(0, str(Path(args.src).resolve()))
    moves = frames(args.moves, args.per_game)
    results: dict[str, Any] = {}
    for name in ("arena", "relay"):
        best = float("inf")
        for _ in range(args.repeat):
            if name == "arena":
                run = arena_path(moves, args.per_game, args.durable, clock, args.watch, args.info)
            else:
                run = relay_path(moves)
            cpu, n = timed(run)
            assert n == len(moves), f"{name}: only {n} of {len(moves)} moves were played"
            best = min(best, cpu / n)
        results[name] = best
        print(f"{name:>6}: {1e6 * best:7.2f} µs/move (CPU, best of {args.repeat})")
    if args.profile:
        prof = cProfile.Profile(time.process_time)
        prof.runcall(arena_path(moves, args.per_game, args.durable, clock, args.watch, args.info))
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
