"""The load generator's side of ``bench/load.py``: client processes playing random gomoku.

Each worker process opens its share of the connections, pairs them in rooms, and plays one move
in flight per game (a closed loop), timing each move from the mover's send to the opponent's
``moved``; an idle worker only opens connections that say hello and then wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import random
import signal
import time
from dataclasses import asdict, dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import msgpack
import wsclient
from websockets.asyncio.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parent.parent
#: Gomoku: a 15x15 board, five or more in a row wins.
SIDE = 15
CELLS = SIDE * SIDE
FIVE = 5
MAX_FRAME = 64 * 1024
#: Client connections opened at once while setting up (the listen backlog is 100).
CONNECT_CONCURRENCY = 50

try:  # uvloop only if it happens to be installed; plain asyncio otherwise
    import uvloop  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - depends on the environment
    uvloop = None

_pack = msgpack.Packer(use_bin_type=True).pack
_unpack = msgpack.unpackb


@dataclass
class Config:
    """What one measurement does (the same for every target and N)."""

    moves_per_game: int = 100
    rounds: int = 1_000_000
    seconds: float = 6.0
    warmup: float = 2.0
    workers: int = 2
    seed: int = 1
    setup_timeout: float = 60.0
    src: str = str(ROOT)
    profile: str | None = None
    #: The server's ``--loop`` (the relays' loops are fixed by their target name).
    server_loop: str = "auto"
    #: The game workers' client: ``raw`` (bench/wsclient.py) or ``websockets``' own.
    client: str = "raw"
    #: Seconds between the ``pages`` target's page fetches (bench/load.py).
    page_every: float = 0.01
    #: ``analyse`` requests a second beside the games of the ``analysis`` target.
    analyses_per_s: float = 10.0
    #: Seconds a player thinks before each move (0: a closed loop, the machine saturated;
    #: more: games at a player's pace, each think drawn from 0.5-1.5 times it).
    think_s: float = 0.0
    #: A command the server runs under (``valgrind --tool=callgrind ...``: bench/cpu_per_move.py).
    wrapper: tuple[str, ...] = ()
    #: Seconds the server may take to listen (more under valgrind).
    ready_timeout: float = 15.0
    #: Extra environment of the server (``MNK_PURE=1``: the same build mode on both sides).
    server_env: tuple[tuple[str, str], ...] = ()


@dataclass
class WorkerResult:
    """What one worker process counted."""

    sent: int = 0
    received: int = 0
    acked: int = 0
    window_moves: int = 0
    rounds: int = 0
    games_done: int = 0
    errors: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    #: Seconds from sending a lobby request (create, join, leave) to its reply, in the window.
    lobby_latencies: list[float] = field(default_factory=list)
    cpu: float = 0.0


# -- the board ---------------------------------------------------------------------------------


class Board:
    """A local gomoku board kept from ``moved`` messages, with O(1) random empty cells."""

    __slots__ = ("cells", "empty", "pos")

    def __init__(self) -> None:
        self.cells = [0] * CELLS
        self.empty = list(range(CELLS))
        self.pos = list(range(CELLS))

    def place(self, index: int, stone: int) -> None:
        """Put ``stone`` (1 or 2) on an empty cell."""
        self.cells[index] = stone
        empty, pos = self.empty, self.pos
        i, last = pos[index], empty[-1]
        empty[i], pos[last] = last, i
        empty.pop()

    def makes_five(self, index: int, stone: int) -> bool:
        """Whether ``stone`` on ``index`` would complete five or more in a row."""
        cells = self.cells
        x0, y0 = index % SIDE, index // SIDE
        for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
            run = 1
            for sign in (1, -1):
                x, y = x0 + sign * dx, y0 + sign * dy
                while 0 <= x < SIDE and 0 <= y < SIDE and cells[y * SIDE + x] == stone:
                    run += 1
                    x += sign * dx
                    y += sign * dy
            if run >= FIVE:
                return True
        return False

    def pick(self, rng: random.Random, stone: int) -> tuple[int, bool]:
        """A random empty cell, avoiding fives when possible; and whether it makes five."""
        empty = self.empty
        for _ in range(8):
            index = empty[rng.randrange(len(empty))]
            if not self.makes_five(index, stone):
                return index, False
        for index in empty:
            if not self.makes_five(index, stone):
                return index, False
        return empty[0], True


# -- one worker process ------------------------------------------------------------------------


class GameError(Exception):
    """The target answered ``error`` or something else the generator cannot go on from."""


class Pair:
    """Two connections playing each other; seat 0 always creates, seat 1 always joins."""

    def __init__(self, conns: tuple[Any, Any], tag: str) -> None:
        self.conns = conns
        self.tag = tag
        self.sent = [0, 0]
        self.acked = [0, 0]
        self.next_id = 0
        #: When each request was sent and its reply came (monotonic seconds).
        self.timed: list[tuple[float, float]] = []

    async def read(self, c: int) -> dict[str, Any]:
        """The next message on connection ``c``; counts acks, raises on ``error``."""
        msg = _unpack(await self.conns[c].recv())
        kind = msg["type"]
        if kind == "moved" and msg["seat"] == c:
            self.acked[c] += 1
        elif kind == "error":
            raise GameError(f"{msg.get('code')}: {msg.get('message')}")
        return msg

    async def request(self, c: int, message: dict[str, Any]) -> dict[str, Any]:
        """Send a request with an id on connection ``c`` and return its reply."""
        self.next_id += 1
        rid = message["id"] = self.next_id
        sent_at = time.monotonic()
        await self.conns[c].send(_pack(message))
        while True:
            msg = await self.read(c)
            if msg.get("id") == rid:
                self.timed.append((sent_at, time.monotonic()))
                return msg

    async def hello(self) -> None:
        """Both connections say hello."""
        for c in (0, 1):
            await self.conns[c].send(
                _pack({"type": "hello", "protocol": 1, "name": f"{self.tag}-{c}", "kind": "human"})
            )
            while (await self.read(c))["type"] != "welcome":
                pass

    async def new_room(self) -> str:
        """Seat 0 creates a gomoku room, seat 1 joins it; the room's id."""
        joined = await self.request(0, {"type": "create_room", "game": "gomoku", "seat": 0})
        room = joined["room"]
        reply = await self.request(1, {"type": "join_room", "room": room})
        if reply["type"] != "joined" or reply["seat"] != 1:
            raise GameError(f"join failed: {reply}")
        return room

    async def leave(self, room: str) -> None:
        """Both players leave (the first one resigns an unfinished game on the real server)."""
        for c in (0, 1):
            await self.request(c, {"type": "leave_room", "room": room})

    async def drain(self) -> None:
        """Read until every move each connection sent has come back to it as ``moved``."""
        for c in (0, 1):
            while self.acked[c] < self.sent[c]:
                await self.read(c)


async def play(
    pair: Pair, cfg: Config, t0: float, t1: float, rng: random.Random, res: WorkerResult
) -> None:
    """Rounds of random gomoku until the window ends, the round budget runs out or an error."""
    now = time.monotonic
    conns = pair.conns
    latencies = res.latencies
    for _ in range(cfg.rounds):
        if now() >= t1:
            break
        room = await pair.new_room()
        res.rounds += 1
        board = Board()
        mover = 0
        for ply in range(cfg.moves_per_game):
            if now() >= t1:
                break
            if cfg.think_s > 0:
                await asyncio.sleep(cfg.think_s * rng.uniform(0.5, 1.5))
            index, wins = board.pick(rng, mover + 1)
            frame = _pack(
                {"type": "move", "room": room, "x": index % SIDE, "y": index // SIDE, "ply": ply}
            )
            sent_at = now()
            await conns[mover].send(frame)
            pair.sent[mover] += 1
            res.sent += 1
            opp = 1 - mover
            while True:  # the opponent's stream: maybe its own last ack, then this move
                msg = await pair.read(opp)
                if msg["type"] == "moved" and msg["seat"] == mover and msg["room"] == room:
                    break
            got_at = now()
            if msg["ply"] != ply or msg["x"] != index % SIDE or msg["y"] != index // SIDE:
                raise GameError(f"unexpected moved {msg} for ply {ply} cell {index}")
            res.received += 1
            if t0 <= got_at < t1:
                res.window_moves += 1
                if sent_at >= t0:
                    latencies.append(got_at - sent_at)
            board.place(index, mover + 1)
            mover = opp
            if wins:
                break
        await pair.leave(room)
    await pair.drain()
    res.lobby_latencies += [got - sent for sent, got in pair.timed if t0 <= sent and got < t1]


async def _open(url: str, sem: asyncio.Semaphore, client: str) -> Any:
    """One client connection, with the server's transport settings (``client`` names which)."""
    async with sem:
        if client == "raw":
            return await wsclient.connect(url, max_size=MAX_FRAME, open_timeout=30)
        return await connect(url, compression=None, max_size=MAX_FRAME, open_timeout=30)


async def worker_main(url: str, games: int, index: int, cfg: Config, pipe: Connection) -> None:
    """Open the connections, report ready, play when told, send back the counts."""
    res = WorkerResult()
    sem = asyncio.Semaphore(CONNECT_CONCURRENCY)
    conns = await asyncio.gather(*(_open(url, sem, cfg.client) for _ in range(2 * games)))
    pairs = [Pair((conns[2 * g], conns[2 * g + 1]), f"w{index}g{g}") for g in range(games)]
    try:
        await asyncio.gather(*(p.hello() for p in pairs))
        pipe.send("ready")
        loop = asyncio.get_running_loop()
        t0, t1, hard = await loop.run_in_executor(None, pipe.recv)
        cpu: dict[str, float] = {}
        loop.call_at(t0, lambda: cpu.__setitem__("t0", time.process_time()))
        loop.call_at(t1, lambda: cpu.__setitem__("t1", time.process_time()))

        async def one(g: int, pair: Pair) -> None:
            rng = random.Random(cfg.seed * 1_000_003 + index * 10_007 + g)
            try:
                async with asyncio.timeout_at(hard):
                    await play(pair, cfg, t0, t1, rng, res)
                res.games_done += 1
            except (GameError, TimeoutError, OSError) as exc:
                res.errors.append(f"{pair.tag}: {type(exc).__name__}: {exc}")
            except Exception as exc:  # a closed connection and the like: count it, go on
                res.errors.append(f"{pair.tag}: {type(exc).__name__}: {exc}")

        await asyncio.gather(*(one(g, p) for g, p in enumerate(pairs)))
        if "t1" not in cpu:
            await asyncio.sleep(max(0.0, t1 - time.monotonic()) + 0.01)
        res.cpu = cpu.get("t1", time.process_time()) - cpu.get("t0", time.process_time())
        res.acked = sum(sum(p.acked) for p in pairs)
    finally:
        with contextlib.suppress(Exception):
            async with asyncio.timeout(10):
                await asyncio.gather(*(c.close() for c in conns), return_exceptions=True)
    pipe.send(asdict(res))


def worker(url: str, games: int, index: int, cfg: Config, pipe: Connection) -> None:
    """Entry point of a worker process."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and kills us
    _die_with_parent()
    try:
        runner = uvloop.run if uvloop is not None else asyncio.run
        runner(worker_main(url, games, index, cfg, pipe))
    except Exception as exc:
        with contextlib.suppress(Exception):
            pipe.send({"fatal": f"{type(exc).__name__}: {exc}"})


def _die_with_parent() -> None:
    """Ask Linux to SIGKILL this process when its parent dies (best effort)."""
    with contextlib.suppress(Exception):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


# -- idle connections --------------------------------------------------------------------------


def source_address(n: int) -> str:
    """The loopback address the ``n``-th idle connection comes from (127.0.0.2 - 127.0.0.251).

    Spread like this, 10,000 connections stay under the server's default cap per address (64).
    """
    return f"127.0.0.{2 + n % 250}"


async def idle_main(url: str, first: int, count: int, pipe: Connection) -> None:
    """Open ``count`` connections that say hello, report, wait to be told, close them."""
    sem = asyncio.Semaphore(CONNECT_CONCURRENCY)

    async def one(n: int) -> ClientConnection:
        async with sem:
            ws = await connect(
                url,
                compression=None,
                max_size=MAX_FRAME,
                open_timeout=60,
                local_addr=(source_address(n), 0),
            )
            hello = {"type": "hello", "protocol": 1, "name": f"idle{n}", "kind": "human"}
            await ws.send(_pack(hello))
            while _unpack(await ws.recv())["type"] != "welcome":
                pass
            return ws

    conns = await asyncio.gather(*(one(first + i) for i in range(count)))
    try:
        pipe.send("ready")
        await asyncio.get_running_loop().run_in_executor(None, pipe.recv)
    finally:
        with contextlib.suppress(Exception):
            async with asyncio.timeout(30):
                await asyncio.gather(*(c.close() for c in conns), return_exceptions=True)
    pipe.send("done")


def idle_worker(url: str, first: int, count: int, pipe: Connection) -> None:
    """Entry point of an idle-connections worker process."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()
    try:
        runner = uvloop.run if uvloop is not None else asyncio.run
        runner(idle_main(url, first, count, pipe))
    except Exception as exc:
        with contextlib.suppress(Exception):
            pipe.send({"fatal": f"{type(exc).__name__}: {exc}"})
