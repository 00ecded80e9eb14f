"""The bot runner's analyses: the server's ``analyse_job`` answered with ``analysed``
(docs/PROTOCOL.md, "Analysis"; docs/BOTS.md).

An in-process engine analyses in a worker pool of its own (``--analyses`` processes, started
with the first job, at a lower CPU priority), so an analysis never takes a worker, nor CPU, a
game's clock is waiting for; a Piskvork brain answers one line from a brain process started
for the job. A job that fails, or comes beyond what the bot announced, is answered with an
``error`` (the server tells the asker ``analysis_failed``).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from bots.piskvork import PiskvorkBrain
from bots.seats import think
from bots.specs import EngineSpec
from bots.workers import WorkerPool
from protocol.rules import Move
from protocol.variants import variant_from_description

log = logging.getLogger("mnk.bot")

#: The longest a job may ask (the server's cap), and the jobs a bot keeps at once per slot.
MAX_JOB_S = 5.0
QUEUE_PER_SLOT = 2
#: The analysis workers' niceness: on a busy machine the games (the server, the bots' game
#: workers) get the CPU first and an analysis searches less deep in its time.
ANALYSIS_NICE = 10


class Analysing:
    """A mixin of :class:`bots.runner.BotRunner`: its ``on_analyse_job``."""

    spec: EngineSpec
    hang_slack: float
    #: Worker processes for analyses (None: a brain, or analyses off).
    analysis_pool: WorkerPool | None
    analysis_slots: int

    def _analysis_setup(self, slots: int) -> None:
        """``slots`` analyses at once (0: none, the ``hello`` then offers none)."""
        self.analysis_slots = slots
        in_process = self.spec.in_process and slots > 0
        self.analysis_pool = WorkerPool(think, slots, ANALYSIS_NICE) if in_process else None
        self._analyses: set[asyncio.Task[None]] = set()

    async def _send(self, message: dict[str, Any]) -> None:  # the runner's
        raise NotImplementedError

    async def on_analyse_job(self, msg: dict[str, Any]) -> None:
        """Start the job (never awaited here: the connection keeps reading)."""
        job = msg.get("job")
        if not isinstance(job, str):
            return
        if len(self._analyses) >= max(1, self.analysis_slots) * QUEUE_PER_SLOT:
            await self._send({"type": "analysed", "job": job, "error": "too many analyses"})
            return
        task = asyncio.create_task(self._analyse(job, msg))
        self._analyses.add(task)
        task.add_done_callback(self._analyses.discard)

    async def _analyse(self, job: str, msg: dict[str, Any]) -> None:
        try:
            lines = max(1, min(int(msg.get("lines", 1)), 5))
            time_s = max(0.05, min(float(msg.get("time", 1.0)), MAX_JOB_S))
            moves = [[int(x), int(y)] for x, y in msg.get("moves", [])]
            if self.analysis_pool is not None:
                worker = await self.analysis_pool.acquire()
                args = (str(self.spec), None, msg["game"], moves, time_s, ("analyse", lines))
                body = await self.analysis_pool.run(worker, args, time_s + self.hang_slack)
            else:
                body = await self._brain_line(msg["game"], moves, time_s)
            reply = {"type": "analysed", "job": job, **body}
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the engine failed: the asker is told, the bot plays on
            log.warning("analysis %s failed: %s", job, exc)
            reply = {"type": "analysed", "job": job, "error": f"{type(exc).__name__}"[:100]}
        await self._send(reply)

    async def _brain_line(
        self, game: dict[str, Any], moves: list[list[int]], time_s: float
    ) -> dict[str, Any]:
        """One line from a Piskvork brain started for this job (it has no multi-PV here)."""
        variant = variant_from_description(game)
        brain = PiskvorkBrain(self.spec.target, variant, len(moves) % 2, self.hang_slack)
        try:
            move = await brain.choose([Move(x, y) for x, y in moves], time_s, None)
        finally:
            await asyncio.shield(brain.close())
        return {"lines": [{"move": [move.x, move.y], "pv": [[move.x, move.y]], "depth": 0}]}

    async def _analysis_close(self) -> None:
        """Drop the jobs under way and stop the analysis workers."""
        for task in list(self._analyses):
            task.cancel()
        if self.analysis_pool is not None:
            self.analysis_pool.close()
