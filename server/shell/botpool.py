"""The built-in bots: ``mnk-bot`` processes the server starts, watches and restarts.

They are ordinary clients: each connects back over the WebSocket like any bot would, so the
server never imports the bots' code (the layering rule) and a crashing engine cannot take the
server down with it. Each gets a fresh key at every start, in its environment (never on argv,
which any local user can read).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
from pathlib import Path

from protocol.wire import MAX_NAME
from server.core.players.keys import new_key

log = logging.getLogger("mnk.botpool")

#: The default pool: one minimax process plays every game at the level each room asks for.
DEFAULT_BOTS = ("minimax",)


async def end_processes(procs: list[asyncio.subprocess.Process], grace_s: float = 3.0) -> None:
    """End child processes: SIGTERM to each, then SIGKILL to those still up after ``grace_s``."""
    for proc in procs:
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.terminate()
    for proc in procs:
        try:
            await asyncio.wait_for(proc.wait(), grace_s)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()


class BotPool:
    """Keeps one ``python -m bots`` process per SPEC running while the server runs."""

    def __init__(
        self,
        url: str,
        specs: list[str],
        capacity: int = 8,
        *,
        state_dir: Path | None = None,
        node: str | None = None,
    ) -> None:
        self.url, self.specs, self.capacity = url, specs, capacity
        #: A cluster node's bots carry its name: a bot is one player on every node, and each
        #: node's built-in bots hold their own keys (the same name twice would be one player
        #: whose two sockets keep closing each other).
        self.node = node
        #: Where each bot keeps its session, so after a restart it resumes its games.
        self.state_dir = state_dir
        #: Each bot's name and key (the server must accept these before the bots start).
        self.keys = {self.name_of(i, spec, node): new_key() for i, spec in enumerate(specs)}
        self.procs: dict[str, asyncio.subprocess.Process] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._stopping = False

    @staticmethod
    def name_of(i: int, spec: str, node: str | None = None) -> str:
        """The name of the ``i``-th bot, running engine ``spec`` (short enough to be a name),
        on the cluster node ``node`` if any."""
        suffix = ("" if i == 0 else f"-{i}") + ("" if node is None else f"@{node[:12]}")
        return spec.replace(":", "-").replace("=", "")[: MAX_NAME - len(suffix)] + suffix

    def start(self) -> None:
        """Start a supervisor per bot."""
        for i, spec in enumerate(self.specs):
            name = self.name_of(i, spec, self.node)
            self._tasks.append(asyncio.create_task(self._supervise(spec, name)))

    async def _supervise(self, spec: str, name: str) -> None:
        delay = 0.5
        while not self._stopping:
            cmd = [sys.executable, "-m", "bots", "--server", self.url, "--engine", spec]
            cmd += ["--name", name, "--capacity", str(self.capacity), "--log-level", "WARNING"]
            cmd += ["--parent-pid", str(os.getpid())]
            if self.state_dir is not None:
                cmd += ["--session-file", str(self.state_dir / f"{name}.session")]
            env = {**os.environ, "MNK_BOT_KEY": self.keys[name]}
            # A session of its own: a terminal's Ctrl-C reaches the server alone, which stops
            # its bots in order (SIGTERM), never a bot whose workers are still starting (they
            # died mid-import with a traceback). ``--parent-pid`` ends it if the server dies.
            proc = await asyncio.create_subprocess_exec(
                *cmd, stdin=asyncio.subprocess.DEVNULL, env=env, start_new_session=True
            )
            self.procs[name] = proc
            code = await proc.wait()
            if self._stopping:
                return
            log.warning("built-in bot %s exited with %s; restarting in %.1fs", name, code, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 10.0)

    async def stop(self) -> None:
        """Stop every bot process (SIGTERM, then SIGKILL after a moment)."""
        self._stopping = True
        await end_processes(list(self.procs.values()))
        for task in self._tasks:
            task.cancel()
