"""A slow network link for tests: a TCP proxy on loopback that holds every chunk ``delay`` seconds
each way (a 150 ms round trip is ``SlowLink(port, 0.075)``), in order, as a long wire would."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine
from typing import Any


class SlowLink:
    """Listens on a free loopback port; each connection is forwarded to ``target_port``, every
    chunk delivered ``delay`` seconds after it was read (no bandwidth limit, no reordering)."""

    def __init__(self, target_port: int, delay: float) -> None:
        self.target_port, self.delay = target_port, delay
        self.server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def url(self) -> str:
        """The ``ws://`` address clients use to reach the target through the link."""
        assert self.server is not None
        return f"ws://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    async def start(self) -> SlowLink:
        """Start listening."""
        self.server = await asyncio.start_server(self._connected, "127.0.0.1", 0)
        return self

    async def close(self) -> None:
        """Stop listening and cut every forwarded connection."""
        if self.server is not None:
            self.server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _connected(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        pumps = [
            self._spawn(self._pump(reader, up_writer)),
            self._spawn(self._pump(up_reader, writer)),
        ]
        try:
            await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in pumps:
                task.cancel()
            for w in (writer, up_writer):
                w.close()

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Copy ``reader`` to ``writer``, each chunk ``delay`` seconds late, in order."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def deliver() -> None:
            while True:
                due, chunk = await queue.get()
                wait = due - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                if not chunk:  # the other end closed: so does this one, as late
                    if writer.can_write_eof():
                        writer.write_eof()
                    return
                writer.write(chunk)
                await writer.drain()

        sender = self._spawn(deliver())
        try:
            while True:
                chunk = await reader.read(65536)
                queue.put_nowait((loop.time() + self.delay, chunk))
                if not chunk:
                    break
            await sender
        finally:
            sender.cancel()
            with contextlib.suppress(Exception):
                await asyncio.gather(sender, return_exceptions=True)
