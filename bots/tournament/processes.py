"""Child processes: the embedded ``python -m server`` and one ``python -m bots`` per bot.

Children die with the director (Linux ``PR_SET_PDEATHSIG``), so a killed director never leaves
a server holding its database or bots playing orphaned games.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from websockets.asyncio.client import connect

from bots.private import write_private

log = logging.getLogger("mnk.tournament")


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent() -> None:
    """preexec_fn: ask Linux to SIGTERM this child when the director exits, however it exits."""
    with contextlib.suppress(Exception):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class Child:
    """One child process with its log file."""

    def __init__(
        self, name: str, argv: list[str], log_path: Path, env: dict[str, str] | None = None
    ) -> None:
        self.name, self.argv, self.log_path = name, argv, log_path
        #: Extra environment (a bot's key travels here, never on argv where anyone can read it).
        self.env = env
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self) -> None:
        """Start (or restart) the process, appending to its log."""
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "ab") as out:
            self.proc = subprocess.Popen(
                self.argv,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=None if self.env is None else {**os.environ, **self.env},
                preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
            )
        self.starts += 1

    @property
    def exited(self) -> bool:
        """Whether the process has ended."""
        return self.proc is not None and self.proc.poll() is not None

    async def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM, then SIGKILL after ``timeout`` seconds."""
        proc = self.proc
        if proc is None or proc.poll() is not None:
            return
        proc.terminate()
        try:
            await asyncio.to_thread(proc.wait, timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            await asyncio.to_thread(proc.wait)


#: The embedded server's database in ``--out``, and where the previous attempt's goes.
DATABASE = "arena.sqlite3"
#: The embedded server's bot keys (made afresh for every attempt, mode 0600).
KEYS_FILE = "bot-keys"
PREVIOUS_DATABASE = "arena.prev.sqlite3"
#: SQLite's companion files of a database (its WAL must move with it, never stay behind), and
#: the server's lock file: a killed attempt's server, still stopping, keeps its lock on the
#: database it has open, and the next attempt's server locks a fresh one.
_SQLITE_FILES = ("", "-wal", "-shm", "-journal", ".lock")


def fresh_start(out: Path, embedded: bool) -> None:
    """Forget the live state of an earlier attempt of this run before starting anything.

    The journal is what a resume goes by. The embedded server's database of the attempt that
    was killed still holds its unfinished games, which the server would restore and re-seat the
    bots in, unwatched and using their capacity: it is moved aside (``arena.prev.sqlite3``,
    replacing an older one) so the server starts empty. The bots' session files are removed
    too, so against a ``--server`` that outlived the director the bots come back as new players
    with all their capacity, and the server ends the old games when their seats time out.
    """
    sessions = out / "sessions"
    if sessions.is_dir():
        for path in sessions.glob("*.session"):
            path.unlink(missing_ok=True)
    if not embedded or not (out / DATABASE).exists():
        return
    for suffix in _SQLITE_FILES:
        (out / (PREVIOUS_DATABASE + suffix)).unlink(missing_ok=True)
    for suffix in _SQLITE_FILES:
        path = out / (DATABASE + suffix)
        if path.exists():
            path.rename(out / (PREVIOUS_DATABASE + suffix))


def make_keys(out: Path, names: list[str]) -> dict[str, str]:
    """Fresh keys for the embedded server's bots, also written (0600) to its ``--keys-file``."""
    keys = {name: secrets.token_urlsafe(32) for name in names}
    write_private(out / KEYS_FILE, "".join(f"{name}={key}\n" for name, key in keys.items()))
    return keys


def server_child(out: Path, port: int, grace: float, log_level: str = "WARNING") -> Child:
    """The embedded server: loopback, no built-in bots, a short reconnect grace, db in ``out``.

    It accepts the bot keys of ``out``'s keys file (see :func:`make_keys`).
    """
    argv = [sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", str(port)]
    argv += ["--db", str(out / DATABASE), "--no-bots", "--reconnect-grace", str(grace)]
    argv += ["--rate", "1000", "--burst", "2000", "--log-level", log_level]
    # the director is the one client here: it may hold a room per game of any --concurrency
    argv += ["--max-rooms-created", "100000", "--max-rooms-per-player", "100000"]
    argv += ["--keys-file", str(out / KEYS_FILE)]
    return Child("server", argv, out / "logs" / "server.log")


def bot_child(
    out: Path,
    url: str,
    name: str,
    spec: str,
    capacity: int,
    game: str,
    key: str,
    log_level: str = "WARNING",
    tournament: str | None = None,
) -> Child:
    """A bot process named ``name`` playing ``game`` with its session kept in ``out`` (entering
    the server's event ``tournament`` when given)."""
    session = out / "sessions" / f"{_safe(name)}.session"
    session.parent.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-m", "bots", "--server", url, "--engine", spec, "--name", name]
    argv += ["--capacity", str(capacity), "--games", game, "--session-file", str(session)]
    argv += ["--log-level", log_level]
    if tournament is not None:
        argv.append(f"--tournament={tournament}")  # an id may begin with "-" (an older server)
    return Child(name, argv, out / "logs" / f"{_safe(name)}.log", {"MNK_BOT_KEY": key})


async def wait_listening(url: str, child: Child | None = None, timeout: float = 30.0) -> None:
    """Wait until ``url`` accepts WebSocket connections (fail early if ``child`` died)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            async with connect(url, compression=None):
                return
        except OSError:
            if child is not None and child.exited:
                raise RuntimeError(f"the server exited; see {child.log_path}") from None
            if time.monotonic() > deadline:
                raise TimeoutError(f"nothing listens on {url}") from None
            await asyncio.sleep(0.05)


def _safe(name: str) -> str:
    """``name`` made safe as a file name."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


class BotSupervisor:
    """Restarts bot processes that died, after ``delay`` (so the games they were in end first)."""

    def __init__(self, children: list[Child], delay: float) -> None:
        self.children = children
        self.delay = delay
        #: How many times each bot's process died (it is started again after ``delay``).
        self.restarts: dict[str, int] = {c.name: 0 for c in children}

    def start_all(self, children: list[Child] | None = None) -> None:
        """Start every bot (or those of ``children``)."""
        for child in self.children if children is None else children:
            child.start()

    async def run(self, poll_s: float = 0.2) -> None:
        """Watch forever (cancel to stop)."""
        due: dict[str, float] = {}
        while True:
            now = time.monotonic()
            for child in self.children:
                if not child.exited:
                    continue
                if child.name not in due:
                    code = child.proc.returncode if child.proc else None
                    log.warning("bot %s exited (code %s); restarting it", child.name, code)
                    due[child.name] = now + self.delay
                    self.restarts[child.name] += 1
                elif now >= due[child.name]:
                    del due[child.name]
                    child.start()
            await asyncio.sleep(poll_s)

    async def stop_all(self) -> None:
        """Stop every bot."""
        await asyncio.gather(*(c.stop() for c in self.children))
