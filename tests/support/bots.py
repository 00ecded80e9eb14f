"""Bot processes for tests: ``python -m bots`` against a test server, and Piskvork brains."""

from __future__ import annotations

import asyncio
import os
import stat
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from protocol import Move
from support.servers import bot_env


async def start_bot(server: Any, engine: str, name: str, *extra: str) -> subprocess.Popen[bytes]:
    """Run ``python -m bots`` against the test ``server``, with a key for ``name``."""
    cmd = [sys.executable, "-m", "bots", "--server", server.url, "--engine", engine]
    cmd += ["--name", name, "--log-level", os.environ.get("BOT_LOG", "WARNING"), *extra]
    return subprocess.Popen(cmd, env=bot_env(server, name))


@asynccontextmanager
async def bot_running(
    server: Any, engine: str, name: str, *extra: str
) -> AsyncIterator[subprocess.Popen[bytes]]:
    """A bot process ``name`` online on ``server`` for the block, stopped after it."""
    proc = await start_bot(server, engine, name, *extra)
    try:
        await wait_for_bot(server, name)
        yield proc
    finally:
        await stop(proc)


def alive(pid: int) -> bool:
    """Whether process ``pid`` still exists (a brain the bot should have killed and reaped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM a bot and wait for it without blocking the loop the test server runs on."""
    proc.terminate()
    await asyncio.to_thread(proc.wait, 15)


async def wait_for_bot(server: Any, name: str, timeout: float = 60.0) -> Any:
    """Wait until a bot called ``name`` is online."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for p in server.arena.players.values():
            if p.name == name and p.kind == "bot" and p.online:
                return p
        await asyncio.sleep(0.05)
    raise TimeoutError(f"bot {name} did not connect")


class Manager:
    """A minimal Gomocup manager: speaks Piskvork to a brain process over its stdin/stdout."""

    def __init__(self, cmd: list[str]) -> None:
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )

    def send(self, line: str) -> None:
        """One command line."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\r\n")
        self.proc.stdin.flush()

    def answer(self) -> str:
        """The next line that is not chatter (MESSAGE/DEBUG)."""
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline().strip()
            if not line.startswith(("MESSAGE", "DEBUG")):
                return line

    def move(self) -> Move:
        """The brain's move answer."""
        x, y = (int(p) for p in self.answer().split(","))
        return Move(x, y)

    def close(self) -> int:
        """END, then the brain must exit by itself."""
        self.send("END")
        return self.proc.wait(timeout=10)


def executable(path: Path, body: str) -> str:
    """A brain script on disk, runnable as an executable like a pbrain-*.exe."""
    path.write_text(f"#!{sys.executable}\n{body}")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


#: Our own bot as an external brain script (the repository first on its path).
OUR_BRAIN = f"""
import sys
sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})
from bots.cli import main
main(["--piskvork", "--engine", "minimax:level=3"])
"""

#: A brain that answers START and then never answers a move.
HANGER = """
import sys, time
for line in sys.stdin:
    if line.startswith(("START", "RECTSTART")):
        print("OK", flush=True)
    elif line.startswith(("BEGIN", "TURN", "DONE")):
        time.sleep(60)
"""


#: A bot module (``module:Illegal``) that plays off the board in gomoku only: the entry
#: checks that play gomoku fail, the others pass.
ILLEGAL = """
from bots.sdk import RandomBot
from protocol.rules import Move

class Illegal(RandomBot):
    def choose(self, variant, moves, limit):
        if variant.name == "gomoku":
            return Move(99, 99)  # off the board: illegal in gomoku, fine elsewhere
        return super().choose(variant, moves, limit)
"""
