"""The server's own CPU per ``analyse``: the sans-I/O arena's request, the job to the bot, the
bot's answer checked and the ``analysis`` sent (each output encoded as the shell does), in CPU
time, for new gomoku positions and for cache hits. What the games pay per analysis beside the
bots' search (which runs in the bots' processes).

Usage: ``python bench/analysis_micro.py [--count 2000] [--stones 15]``
"""

from __future__ import annotations

import argparse
import random
import time

from protocol import wire
from server.core.arena import Arena
from server.core.game.members import Send
from server.core.limits import Limits
from server.core.outputs import Reply
from server.core.players.keys import new_key


def main() -> None:
    """Time ``--count`` analyses of new positions, then as many cache hits."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=2000)
    p.add_argument("--stones", type=int, default=15)
    args = p.parse_args()
    arena = Arena(limits=Limits(human_rate=1e9, human_burst=1e9))
    key = new_key()
    arena.keys.add("oracle", key)
    bot, human = arena.connect(), arena.connect()
    hello = {"type": "hello", "protocol": 1, "kind": "bot", "games": ["*"], "analyses": 8}
    arena.receive(bot, wire.encode({**hello, "name": "oracle", "key": key}))
    arena.receive(
        human, wire.encode({"type": "hello", "protocol": 1, "name": "al", "kind": "human"})
    )
    rng = random.Random(1)
    cells = [[x, y] for x in range(15) for y in range(15)]
    positions = []
    for _ in range(args.count):
        picked = rng.sample(cells, args.stones + 21)
        positions.append((picked[: args.stones], picked[args.stones :]))
    frames = [
        wire.encode({"type": "analyse", "id": 1, "game": "gomoku", "moves": moves, "lines": 3})
        for moves, _ in positions
    ]

    def emit(out: list[object]) -> None:
        for item in out:
            if isinstance(item, Reply | Send):
                wire.encode(item.message)

    started = time.process_time()
    for frame, (_, free) in zip(frames, positions, strict=True):
        out = arena.receive(human, frame)
        emit(out)
        first = out[0]
        assert isinstance(first, Send), first  # the job, to the bot
        job = first.message
        lines = [
            {"move": c, "score": 5, "pv": free[i : i + 12], "depth": 9}
            for i, c in enumerate(free[:3])
        ]
        emit(
            arena.receive(bot, wire.encode({"type": "analysed", "job": job["job"], "lines": lines}))
        )
    new = time.process_time() - started
    started = time.process_time()
    for frame in frames:
        emit(arena.receive(human, frame))
    hits = time.process_time() - started
    each = 1e6 * new / args.count
    print(f"analyse, a new position: {each:7.0f} µs of server CPU (request + answer)")
    print(f"analyse, a cache hit:    {1e6 * hits / args.count:7.0f} µs of server CPU")
    print(f"jobs sent to the bot {arena.analysis.sent}, cache hits {arena.analysis.hits}")


if __name__ == "__main__":
    main()
