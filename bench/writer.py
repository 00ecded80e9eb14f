"""The SQLite writer's CPU per move, alone, for the load benchmark's game lifecycle.

What ``Store.write`` costs on the writer thread, without the server around it: ``--games``
games each go through what ``bench/load.py``'s games make the journal write (a header when
created with its room, a header when joined, moves, a header when over, the room gone when
both leave, then a new game), and each batch holds one step of ``--per`` of them (at 100 games
the server commits about 45 moves at a time). Contenders, each in its own process, alternated:

- ``store``: :class:`server.storage.sqlite.Store` of this checkout (or ``--src DIR``, repeatable);
- ``rows``: the baseline, the plain layout: one ``moves`` row per move (``executemany`` in the
  batch's transaction), headers as ``INSERT OR REPLACE``: what schema 1 did.

Reports thread CPU µs per move inside ``write`` (the driver's own work is not counted), per
commit, and the slowest commit. Run: ``python bench/writer.py [--games 100] [--per 45]
[--seconds 5] [--repeat 2] [--src DIR ...]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
VARIANT = {"name": "gomoku", "width": 15, "height": 15, "k": 5, "rule": "freestyle"}
#: Plies a game lasts, drawn uniformly (the load benchmark's random games last about 75).
LENGTH = (40, 110)


class RowsStore:
    """The baseline: a moves table written a row per move, headers replaced whole."""

    def __init__(self, path: Path) -> None:
        from server.storage.sqlite import MIGRATIONS, connect, game_values

        self.game_values = game_values
        self.db = connect(path)
        schema = MIGRATIONS[0]
        assert isinstance(schema, str)
        self.db.executescript(schema)

    def write(self, records: list[Any]) -> None:
        """One transaction: headers replaced, moves inserted a row each, rooms kept."""
        from server.core.journal.rows import GameRow, MoveRow, RoomGone, RoomRow

        db = self.db
        db.execute("BEGIN IMMEDIATE")
        moves = [r[:5] + (r[5] or (None, None)) for r in records if type(r) is MoveRow]
        for r in records:
            if type(r) is GameRow:
                db.execute(
                    f"INSERT OR REPLACE INTO games VALUES ({', '.join('?' * 19)})",
                    self.game_values(r)[:-1],
                )
            elif type(r) is RoomRow:
                db.execute("INSERT OR REPLACE INTO rooms VALUES (?, ?)", (r.room, r.game_id))
            elif type(r) is RoomGone:
                db.execute("DELETE FROM rooms WHERE room = ?", (r.room,))
        db.executemany("INSERT OR REPLACE INTO moves VALUES (?, ?, ?, ?, ?, ?, ?)", moves)
        db.execute("COMMIT")

    def close(self) -> None:
        """Close the file."""
        self.db.close()


def run_one(kind: str, games: int, per: int, seconds: float) -> dict[str, Any]:
    """One contender in this process: batches for ``seconds``, timed inside ``write`` only."""
    from server.core.journal.rows import GameRow, JournalRow, MoveRow, RoomGone, RoomRow
    from server.storage.sqlite import Store

    rng = random.Random(1)
    made = 0

    def created() -> tuple[GameRow, list[JournalRow]]:
        nonlocal made
        made += 1
        game_id, room = f"g_{made:016x}", f"r{made}"
        h = GameRow(
            game_id, room, 1, VARIANT, {}, None, ("p_a", None), ("a", None), ("human", None),
            "waiting", None, None, (), time.time(), None, None,
        )  # fmt: skip
        return h, [h, RoomRow(room, game_id)]

    with tempfile.TemporaryDirectory(prefix="mnk-writer-") as tmp:
        path = Path(tmp) / "w.sqlite3"
        store = Store(path) if kind == "store" else RowsStore(path)
        state: list[list[Any]] = []
        for _ in range(games):
            h, records = created()
            store.write(records)
            state.append([h, "created", 0, rng.randint(*LENGTH)])
        spent, worst, moves, commits = 0.0, 0.0, 0, 0
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            batch: list[JournalRow] = []
            for i in rng.sample(range(games), min(per, games)):
                game = state[i]
                h = game[0]
                if game[1] == "created":  # the second player joins: the game starts
                    game[0] = replace(
                        h, seats=("p_a", "p_b"), names=("a", "b"), kinds=("human", "human"),
                        status="playing", started_at=time.time(),
                    )  # fmt: skip
                    game[1] = "playing"
                    batch.append(game[0])
                elif game[1] == "playing":
                    ply = game[2]
                    batch.append(MoveRow(h.game_id, ply, ply % 15, ply // 15, time.time(), None))
                    game[2] += 1
                    moves += 1
                    if game[2] >= game[3]:
                        game[0] = replace(
                            h, status="over", winner=ply % 2, reason="five",
                            line=((1, 1),) * 5, ended_at=time.time(),
                        )  # fmt: skip
                        game[1] = "over"
                        batch.append(game[0])
                else:  # both left: the room goes, a new game begins
                    batch.append(RoomGone(h.room))
                    h, records = created()
                    batch += records
                    state[i] = [h, "created", 0, rng.randint(*LENGTH)]
            started = time.thread_time()
            store.write(batch)
            took = time.thread_time() - started
            spent += took
            worst = max(worst, took)
            commits += 1
        store.close()
    return {
        "us_per_move": 1e6 * spent / moves,
        "us_per_commit": 1e6 * spent / commits,
        "worst_ms": 1000 * worst,
        "moves_per_commit": moves / commits,
    }


def main() -> None:
    """Run every contender ``--repeat`` times, alternated, each in its own process."""
    p = argparse.ArgumentParser(description=str(__doc__).split("\n")[0])
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--per", type=int, default=45, help="games making a step per commit (45)")
    p.add_argument("--seconds", type=float, default=5.0)
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--src", action="append", default=[], help="another checkout's store")
    p.add_argument("--one", help=argparse.SUPPRESS)  # a child: run this contender, print JSON
    args = p.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one, args.games, args.per, args.seconds)))
        return
    contenders = [("store", str(ROOT)), *(("store", src) for src in args.src), ("rows", str(ROOT))]
    print(
        f"{'contender':<40} {'us/move':>8} {'us/commit':>10} {'worst ms':>9} {'moves/commit':>13}"
    )
    for _ in range(args.repeat):
        for kind, src in contenders:
            argv = [sys.executable, __file__, "--one", kind, "--games", str(args.games)]
            argv += ["--per", str(args.per), "--seconds", str(args.seconds)]
            out = subprocess.run(
                argv,
                check=True,
                capture_output=True,
                text=True,
                env={**os.environ, "PYTHONPATH": src},
            ).stdout
            r = json.loads(out)
            name = kind if src == str(ROOT) else f"{kind} ({src})"
            print(
                f"{name:<40} {r['us_per_move']:8.2f} {r['us_per_commit']:10.0f} "
                f"{r['worst_ms']:9.2f} {r['moves_per_commit']:13.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
