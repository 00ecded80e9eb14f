"""A node's background chores: one task each, started with the node and cancelled at its stop."""

from __future__ import annotations

import asyncio
import contextlib


class Background:
    """Runs ``_run`` in a task between :meth:`start` and :meth:`stop`."""

    _task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start the chore."""
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        """Cancel the chore and wait until it is gone."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        raise NotImplementedError
