"""Real servers for tests: free loopback ports, bot keys, and ``python -m server`` processes."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

from support.clients import RawClient

#: Seconds a server process may take to start listening.
START_TIMEOUT = 60.0
#: Ports tried by a server whose port another process took between its choice and its bind.
PORT_TRIES = 3


def bot_key(server: Any, name: str) -> str:
    """The key the test ``server`` accepts for the bot ``name`` (as --keys-file would).

    Made on first use and the same afterwards: two processes of one bot hold one key.
    """
    from server.core.players.keys import new_key

    made: dict[str, str] = server.__dict__.setdefault("test_keys", {})
    if name not in made:
        made[name] = new_key()
        server.arena.keys.add(name, made[name])
    return made[name]


def bot_env(server: Any, name: str) -> dict[str, str]:
    """The environment for a bot process named ``name``: its key in ``MNK_BOT_KEY``."""
    return {**os.environ, "MNK_BOT_KEY": bot_key(server, name)}


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listeners(port: int) -> set[str]:
    """The socket inodes listening on TCP ``port`` of IPv4 (Linux's ``/proc/net/tcp``)."""
    found = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:  # LISTEN
            found.add(fields[9])
    return found


def holds(pid: int, inodes: set[str]) -> bool:
    """Whether process ``pid`` has one of the sockets ``inodes`` open."""
    with contextlib.suppress(OSError):  # it exited meanwhile
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                link = os.readlink(fd)
                if link.startswith("socket:[") and link[8:-1] in inodes:
                    return True
    return False


async def spawn(
    args: list[str], port: int | None = None, **popen: Any
) -> tuple[subprocess.Popen[bytes], int]:
    """``python -m server --port P *args`` once it listens on P itself: ``port`` (a free one
    if None), or a free one when another process took it since it was chosen (a parallel
    test's server; a connection there would have reached that other server). The process
    and P; ``popen`` goes to ``subprocess.Popen``."""
    port = port or free_port()
    for _ in range(PORT_TRIES):
        argv = [sys.executable, "-m", "server", "--port", str(port), *args]
        proc = subprocess.Popen(argv, **popen)
        if await listening(proc, port):
            return proc, port
        if not listeners(port):  # nobody else has the port: a failure of its own
            break
        port = free_port()
    raise RuntimeError("server did not start")


async def listening(proc: subprocess.Popen[bytes], port: int) -> bool:
    """Wait until ``proc`` listens on ``port``; False if it exited first."""
    deadline = time.monotonic() + START_TIMEOUT  # generous: a busy machine starts slowly
    while proc.poll() is None:
        if holds(proc.pid, listeners(port)):
            return True
        assert time.monotonic() < deadline, "the server did not listen in time"
        await asyncio.sleep(0.05)
    return False


class ServerProcess:
    """``python -m server`` on a fixed port and database, killable and restartable."""

    def __init__(
        self, db: str, grace: float = 30.0, extra: tuple[str, ...] = (), bots: bool = False
    ) -> None:
        self.db, self.port, self.grace, self.extra = db, free_port(), grace, extra
        #: Whether it runs its built-in bots and its examiner (``--bots`` in ``extra``).
        self.bots = bots
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """Where it listens (its port may change at a start: see :func:`spawn`)."""
        return f"ws://127.0.0.1:{self.port}"

    async def start(self) -> None:
        """Start the process and wait until it accepts connections itself (on another free
        port if its own was taken meanwhile: see :func:`spawn`)."""
        args = ["--db", self.db, "--rate", "1000", "--reconnect-grace", str(self.grace)]
        args += [*self.extra, *([] if self.bots else ["--no-bots"])]
        self.proc, self.port = await spawn(args, self.port)
        async with connect(self.url):
            return

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs at all."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    async def client(self, name: str, session: str | None = None) -> RawClient:
        """A raw client that has said hello (resuming ``session`` if given)."""
        c = RawClient(await connect(self.url, compression=None))
        if session is None:
            await c.hello(name)
        else:
            await c.hello(name, session=session)
        return c


#: Three moves of a gomoku game, for a game to be under way on a server.
MOVES = [(7, 7), (8, 8), (7, 8)]


def second_server(db: str, *extra: str) -> subprocess.CompletedProcess[str]:
    """Start another ``python -m server`` on ``db``, expecting it to refuse at start-up."""
    args = ["--no-bots", "--port", str(free_port()), "--db", db, *extra]
    return subprocess.run(
        [sys.executable, "-m", "server", *args], capture_output=True, text=True, timeout=60
    )


async def play(server: ServerProcess, moves: list[tuple[int, int]]) -> tuple[RawClient, str]:
    """A game between two new players on ``server`` with ``moves`` made; a player and the room."""
    alice, bob = await server.client("alice"), await server.client("bob")
    room = (await alice.request(type="create_room", game="gomoku", seat=0))["room"]
    await bob.request(type="join_room", room=room)
    for ply, (x, y) in enumerate(moves):
        reply = await (alice, bob)[ply % 2].request(type="move", room=room, x=x, y=y, ply=ply)
        assert reply["type"] == "moved", reply  # sent once the move was committed
    await bob.close()
    return alice, room
