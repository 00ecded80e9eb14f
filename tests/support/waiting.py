"""Waiting for a condition, never for a fixed sleep: the test goes on the moment it holds."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

#: Generous: a wait ends when its message arrives, so only a broken server ever waits this long.
TIMEOUT = 30.0


async def until(check: Callable[[], bool], timeout: float = 15.0) -> None:
    """Wait for a condition of the server's state (never for a fixed sleep)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        assert loop.time() < deadline, "condition not reached in time"
        await asyncio.sleep(0.02)


async def wait_for(check: Any, timeout: float = 30.0) -> None:
    """Poll ``check`` (a blocking function, run off the loop) until it holds."""
    deadline = time.monotonic() + timeout
    while not await asyncio.to_thread(check):
        assert time.monotonic() < deadline, "condition not reached in time"
        await asyncio.sleep(0.1)


async def until_answered(check: Callable[[], Awaitable[bool]], timeout: float = 30.0) -> None:
    """Ask the server again until ``check`` holds, at most about four times a second (a request
    the server rate-limits, such as ``list_games``, gets an answer rather than a refusal)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not await check():
        assert loop.time() < deadline, "condition not reached in time"
        await asyncio.sleep(0.25)
