"""The server's examiner: ``mnk-bot examine`` processes that run the entry check on a bot
account before its first rated event (server/core/tournament/entry.py decides when).

As the built-in bots are, the examiner is an ordinary client (``python -m bots examine``)
connecting back over the WebSocket with a key the server made for itself (in its environment,
never on argv): the server never imports the bots' code. One process per bot examined, at most
``MAX_RUNNING`` at once (the core's queue), each stopped when the core gives its run up.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys

from server.core.players.keys import new_key
from server.core.tournament.entry import EntryCheck
from server.shell.botpool import BotPool, end_processes

log = logging.getLogger("mnk.examiner")

#: Seconds between two looks at the core's queue.
POLL_S = 0.25
#: The examiner's key name (a node's carries the node's name, as its built-in bots do).
NAME = "examiner"


class Examiners:
    """Launches an examiner per bot the core queues; reports each launch's failure or end."""

    def __init__(self, url: str, entry: EntryCheck, node: str | None = None) -> None:
        self.url, self.entry = url, entry
        self.name = BotPool.name_of(0, NAME, node)
        #: The examiner's key, fresh at each start (the server must accept it first).
        self.key = new_key()
        self.procs: dict[str, asyncio.subprocess.Process] = {}
        self._task: asyncio.Task[None] | None = None
        self._runs: set[asyncio.Task[None]] = set()

    def start(self) -> None:
        """Start looking at the queue (the key ring holds :attr:`key` already)."""
        self.entry.enable(self.name)
        self._task = asyncio.create_task(self._watch())

    async def _watch(self) -> None:
        """Launch the runs the core queued; kill the examiners of runs it gave up."""
        while True:
            for account in self.entry.due():
                run = asyncio.create_task(self._examine(account))
                self._runs.add(run)
                run.add_done_callback(self._runs.discard)
            running = set(self.entry.running())
            for account, proc in list(self.procs.items()):
                if account not in running and proc.returncode is None:  # given up: stop it
                    with contextlib.suppress(ProcessLookupError):
                        proc.kill()
            await asyncio.sleep(POLL_S)

    async def _examine(self, account: str) -> None:
        """One examiner process for ``account``, until it ends."""
        cmd = [sys.executable, "-m", "bots", "examine", "--server", self.url]
        cmd += ["--examinee", account, "--name", self.name, "--parent-pid", str(os.getpid())]
        env = {**os.environ, "MNK_BOT_KEY": self.key}
        try:
            proc = await asyncio.create_subprocess_exec(
                *cmd, stdin=asyncio.subprocess.DEVNULL, env=env, start_new_session=True
            )
        except OSError as exc:
            self.entry.unavailable(account, str(exc))
            return
        log.info("examining bot %s (examiner pid %d)", account, proc.pid)
        self.procs[account] = proc
        try:
            code = await proc.wait()
        finally:
            self.procs.pop(account, None)
        if code != 0:
            log.warning("the examiner of bot %s exited with %s", account, code)
        self.entry.exited(account)

    async def stop(self) -> None:
        """Stop looking and end every examiner (SIGTERM, then SIGKILL after a moment)."""
        if self._task is not None:
            self._task.cancel()
        await end_processes(list(self.procs.values()))
        for run in list(self._runs):
            run.cancel()
