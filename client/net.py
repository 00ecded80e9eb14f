"""The network layer: an asyncio websockets client on a background thread, behind queues.

The frame loop calls :meth:`NetClient.send` and :meth:`NetClient.poll`, neither of which ever
blocks. The thread says ``hello`` (with the saved ``session`` after a drop), forwards every server
message to the inbox, and reports its link as ``{"type": "_net", "status": ...}`` notes.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import queue
import threading
from collections import deque
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException

from protocol.errors import ArenaError
from protocol.wire import PROTOCOL_VERSION, decode, encode

Message = dict[str, Any]


def net_note(status: str, detail: str = "") -> Message:
    """A link status note for the model: ``connecting``, ``online`` or ``offline``."""
    return {"type": "_net", "status": status, "detail": detail}


class NetClient:
    """A reconnecting protocol client running on its own thread; thread-safe send and poll."""

    def __init__(
        self, url: str, name: str, *, kind: str = "human", retry_max_s: float = 5.0
    ) -> None:
        self.url = url
        self.name = name
        self.kind = kind
        self.session: str | None = None
        self.retry_max_s = retry_max_s
        self._inbox: queue.Queue[Message] = queue.Queue()
        self._outbox: deque[Message] = deque()
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._thread: threading.Thread | None = None
        self._ws: ClientConnection | None = None
        self._stopping = False
        self._delay = 0.25

    # -- frame-loop side (never blocks) -----------------------------------------------------

    def start(self) -> None:
        """Start the background thread (returns at once)."""
        self._thread = threading.Thread(target=self._thread_main, name="mnk-net", daemon=True)
        self._thread.start()

    def send(self, message: Message) -> int:
        """Queue a request for the server and return its ``id`` (added when missing)."""
        with self._lock:
            msg = dict(message)
            msg.setdefault("id", next(self._ids))
            self._outbox.append(msg)
        self._poke()
        return int(msg["id"])

    def poll(self) -> list[Message]:
        """Every message received since the last poll, oldest first."""
        out: list[Message] = []
        while True:
            try:
                out.append(self._inbox.get_nowait())
            except queue.Empty:
                return out

    def drop_connection(self) -> None:
        """Close the current socket as if the network failed (reconnects; for tests and menus)."""
        loop, ws = self._loop, self._ws
        if loop is not None and ws is not None:
            with contextlib.suppress(RuntimeError):
                asyncio.run_coroutine_threadsafe(ws.close(), loop)

    def close(self, timeout: float = 2.0) -> None:
        """Stop the thread and close the socket (waits at most ``timeout`` seconds)."""
        self._stopping = True
        loop, task = self._loop, self._task
        if loop is not None and task is not None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(task.cancel)
        if self._thread is not None:
            self._thread.join(timeout)

    def _poke(self) -> None:
        loop, wake = self._loop, self._wake
        if loop is not None and wake is not None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(wake.set)

    # -- network thread ---------------------------------------------------------------------

    def _thread_main(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._task = asyncio.current_task()
        if self._stopping:
            return
        with contextlib.suppress(asyncio.CancelledError):
            while not self._stopping:
                self._inbox.put(net_note("connecting"))
                try:
                    await self._session()
                    detail = "the server closed the connection"
                except (OSError, TimeoutError, WebSocketException, ArenaError, ValueError) as exc:
                    detail = str(exc) or type(exc).__name__
                self._ws = None
                if self._stopping:
                    break
                self._inbox.put(net_note("offline", detail))
                await asyncio.sleep(self._delay)
                self._delay = min(self._delay * 2, self.retry_max_s)

    async def _session(self) -> None:
        async with connect(
            self.url, compression=None, open_timeout=5, ping_interval=10, ping_timeout=10
        ) as ws:
            hello: Message = {
                "type": "hello",
                "protocol": PROTOCOL_VERSION,
                "name": self.name,
                "kind": self.kind,
            }
            if self.session:
                hello["session"] = self.session
            await ws.send(encode(hello))
            first = decode(await ws.recv())
            if first.get("type") == "error" and first.get("code") == "bad_session":
                self.session = None
                self._inbox.put(first)
                return  # reconnect at once without the stale session
            if first.get("type") != "welcome":
                self._inbox.put(first)
                raise ValueError(f"server answered hello with {first.get('type')!r}")
            self.session = first.get("session") or self.session
            self._ws = ws
            self._delay = 0.25
            self._inbox.put(first)
            self._inbox.put(net_note("online"))
            writer = asyncio.create_task(self._writer(ws))
            try:
                async for frame in ws:
                    try:
                        self._inbox.put(decode(frame))
                    except ArenaError:
                        continue  # a frame we cannot read is dropped, the link carries on
            finally:
                writer.cancel()

    async def _writer(self, ws: ClientConnection) -> None:
        assert self._wake is not None
        while True:
            while True:
                with self._lock:
                    if not self._outbox:
                        break
                    msg = self._outbox[0]
                await ws.send(encode(msg))
                with self._lock:
                    self._outbox.popleft()
            self._wake.clear()
            with self._lock:
                if self._outbox:
                    continue
            await self._wake.wait()
