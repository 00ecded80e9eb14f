"""Commit throughput and p99 commit latency of the stores, to pick the PostgreSQL driver.

Each contender commits the same batches one after another for a fixed time: a batch is what
the pipeline hands ``Store.write`` after one turn of ``--games`` games each making a move (a
game header, a move and the heartbeat). Contenders, all in one run on one throwaway server:

- ``sqlite``: the embedded store (the baseline), on a file in a temporary directory;
- ``psycopg``: :class:`server.storage.postgres.PgStore` as the server runs it (sync, one message);
- ``psycopg-plain``: a statement per record, one round trip each;
- ``asyncpg``: the same statements in one transaction on an event loop (needs ``asyncpg``).

Run: ``python bench/bench_store.py [--seconds 2] [--games 1 16] [--db URL | --no-fsync]``.
Without ``--db`` a private PostgreSQL is started (as the tests do) and removed afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from server.core.journal.rows import GameRow, Heartbeat, JournalRow, MoveRow  # noqa: E402
from server.storage.pgschema import row_sql  # noqa: E402
from server.storage.postgres import PgStore  # noqa: E402
from server.storage.sqlite import Store  # noqa: E402

VARIANT = {"name": "gomoku", "width": 15, "height": 15, "k": 5, "rule": "freestyle"}


class Batches:
    """Endless batches: ``games`` games each making its next move, with the heartbeat."""

    def __init__(self, games: int) -> None:
        self.games = games
        self.ply = 0

    def __call__(self) -> list[JournalRow]:
        ply, self.ply = self.ply, self.ply + 1
        now = time.time()
        records: list[JournalRow] = []
        for g in range(self.games):
            game_id = f"g{g}"
            records.append(
                GameRow(game_id, f"r{g}", 1, VARIANT, {}, None, ("a", "b"), ("a", "b"),
                        ("human", "human"), "playing", None, None, (), now, now, None)
            )  # fmt: skip
            records.append(MoveRow(game_id, ply, ply % 15, ply // 15 % 15, now, None))
        records.append(Heartbeat(now))
        return records


def timed(
    commit: Callable[[list[JournalRow]], None], batches: Batches, seconds: float
) -> list[float]:
    """Commit batches for ``seconds``; the latency of each commit."""
    latencies = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        batch = batches()
        started = time.perf_counter()
        commit(batch)
        latencies.append(time.perf_counter() - started)
    return latencies


def plain_psycopg(store: PgStore) -> Callable[[list[JournalRow]], None]:
    """The store's statements, one round trip each (no pipeline mode)."""

    def commit(records: list[JournalRow]) -> None:
        db = store._writer
        assert db is not None
        with db.transaction():
            for record in records:
                db.execute(*row_sql(record, None))

    return commit


def dollar(sql: str) -> str:
    """``%s`` placeholders as asyncpg's ``$1 … $n``."""
    count = iter(range(1, 1000))
    return re.sub("%s", lambda _: f"${next(count)}", sql)


def asyncpg_timed(url: str, batches: Batches, seconds: float) -> list[float] | None:
    """The same statements through asyncpg on an event loop, or None without asyncpg."""
    try:
        import asyncpg
    except ImportError:
        return None

    async def run() -> list[float]:
        conn = await asyncpg.connect(url)
        latencies = []
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            batch = batches()
            started = time.perf_counter()
            async with conn.transaction():
                for record in batch:
                    sql, args = row_sql(record, None)
                    await conn.execute(dollar(sql), *args)
            latencies.append(time.perf_counter() - started)
        await conn.close()
        return latencies

    return asyncio.run(run())


def report(name: str, games: int, latencies: list[float] | None) -> dict[str, Any]:
    """One row of the table."""
    if not latencies:
        return {"store": name, "games": games, "commits/s": "n/a", "p50 ms": "", "p99 ms": ""}
    ms = sorted(1000 * x for x in latencies)
    return {
        "store": name,
        "games": games,
        "commits/s": round(len(ms) / sum(latencies)),
        "p50 ms": round(statistics.median(ms), 2),
        "p99 ms": round(ms[min(len(ms) - 1, int(0.99 * len(ms)))], 2),
    }


def bench(url: str, tmp: Path, seconds: float, games_list: list[int]) -> list[dict[str, Any]]:
    """Every contender at every batch size, in one run."""
    rows = []
    for games in games_list:
        sqlite = Store(tmp / f"bench-{games}.sqlite3")
        rows.append(report("sqlite", games, timed(sqlite.write, Batches(games), seconds)))
        sqlite.close()
        pg = PgStore(url)
        rows.append(report("psycopg", games, timed(pg.write, Batches(games), seconds)))
        plain = timed(plain_psycopg(pg), Batches(games), seconds)
        rows.append(report("psycopg-plain", games, plain))
        pg.close()
        rows.append(report("asyncpg", games, asyncpg_timed(url, Batches(games), seconds)))
    return rows


def main() -> None:
    """Parse the options, run the contenders, print a table."""
    p = argparse.ArgumentParser(description=str(__doc__).split("\n")[0])
    p.add_argument("--seconds", type=float, default=2.0, help="seconds per contender (2)")
    p.add_argument("--games", type=int, nargs="+", default=[1, 16], help="games per batch")
    p.add_argument("--db", help="a postgresql:// URL (default: start a private server)")
    p.add_argument(
        "--no-fsync",
        action="store_true",
        help="run the private server with fsync off: driver costs without the disk's",
    )
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cluster = None
        url = args.db
        if url is None:
            from support.services import PgCluster, pg_bin

            bindir = pg_bin()
            if bindir is None:
                raise SystemExit("bench_store: PostgreSQL is not installed; give --db")
            cluster = PgCluster(bindir, durable=not args.no_fsync)
            cluster.init()
            cluster.start()
            url = cluster.new_database()
        try:
            rows = bench(url, Path(tmp), args.seconds, args.games)
        finally:
            if cluster is not None:
                cluster.destroy()
    columns = list(rows[0])
    print(" | ".join(f"{c:>13}" for c in columns))
    for row in rows:
        print(" | ".join(f"{row[c]!s:>13}" for c in columns))


if __name__ == "__main__":
    main()
