"""The network layer: the shared protocol connection on a background thread, behind queues.

The frame loop calls :meth:`NetClient.send` and :meth:`NetClient.poll`, neither of which ever
blocks. The thread runs :class:`protocol.connection.Connection` (hello, resume with the saved
``session`` after a drop, reconnect with backoff), forwards every server message to the inbox,
and reports its link as ``{"type": "_net", "status": ...}`` notes.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections import deque
from typing import Any

from protocol.connection import Connection, HelloRefused, LinkClosed, Replaced
from protocol.session import Session

Message = dict[str, Any]
#: Requests that only make sense when sent at once: dropped, not queued, while offline.
TIMELY = frozenset({"move", "choose"})


def net_note(status: str, detail: str = "", code: str = "") -> Message:
    """A link status note for the model: ``connecting``, ``online`` or ``offline``; ``code``
    is the server's error code when it refused our ``hello`` (e.g. a name it will not give)."""
    note = {"type": "_net", "status": status, "detail": detail}
    if code:
        note["code"] = code
    return note


class NetClient:
    """A reconnecting protocol client running on its own thread; thread-safe send and poll."""

    def __init__(
        self,
        url: str,
        name: str,
        *,
        kind: str = "human",
        retry_max_s: float = 5.0,
        session: str | None = None,
    ) -> None:
        self.url = url
        #: ``session``: a remembered account session, resumed by the first ``hello``.
        self.state = Session(name, kind, session=session)
        self.retry_max_s = retry_max_s
        self._inbox: queue.Queue[Message] = queue.Queue()
        self._outbox: deque[Message] = deque()
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._conn: Connection | None = None
        self._thread: threading.Thread | None = None
        self._switched: asyncio.Event | None = None
        self._stopping = False

    @property
    def session(self) -> str | None:
        """The saved session secret (None before the first welcome)."""
        return self.state.session

    # -- frame-loop side (never blocks) -----------------------------------------------------

    def start(self) -> None:
        """Start the background thread (returns at once)."""
        self._thread = threading.Thread(target=self._thread_main, name="mnk-net", daemon=True)
        self._thread.start()

    def send(self, message: Message) -> int:
        """Queue a request for the server and return its ``id`` (added when missing)."""
        with self._lock:
            msg = self.state.request(message)
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

    def queued(self) -> list[str]:
        """The types of the requests waiting to be sent, oldest first (for tests and tools)."""
        with self._lock:
            return [str(m.get("type")) for m in self._outbox]

    def drop_connection(self) -> None:
        """Close the current socket as if the network failed (reconnects; for tests and menus)."""
        loop, conn = self._loop, self._conn
        ws = conn.ws if conn is not None else None
        if loop is not None and ws is not None:
            with contextlib.suppress(RuntimeError):
                asyncio.run_coroutine_threadsafe(ws.close(), loop)

    def close(self, timeout: float = 2.0) -> None:
        """Stop the thread and close the socket (waits at most ``timeout`` seconds)."""
        self._stopping = True
        loop, conn, switched = self._loop, self._conn, self._switched
        if loop is not None and conn is not None and switched is not None:
            with contextlib.suppress(RuntimeError):
                asyncio.run_coroutine_threadsafe(conn.close(), loop)
                loop.call_soon_threadsafe(switched.set)
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
        self._switched = asyncio.Event()
        writer = asyncio.create_task(self._writer())
        try:
            while not self._stopping:
                conn = self._conn = Connection(
                    self.url,
                    self.state,
                    on_status=self.on_link_status,
                    retry_max_s=self.retry_max_s,
                    open_timeout=5,
                )
                try:
                    await conn.run(self._deliver)
                except HelloRefused as exc:  # the server will not have us (say why)
                    why = str(exc).removeprefix(f"{exc.code}: ")
                    self._inbox.put(net_note("offline", why, exc.code))
                except Replaced as exc:
                    self._inbox.put(net_note("offline", str(exc)))
                except Exception as exc:  # a fatal connect error (a bad URL): say so
                    self._inbox.put(net_note("offline", str(exc) or type(exc).__name__))
                if not self._stopping:  # stopped trying: wait until another server is given
                    await self._switched.wait()
                    self._switched.clear()
        finally:
            writer.cancel()

    def _deliver(self, msg: Message) -> None:
        """Pass a server message on; a login or logout changes whom the next ``hello`` resumes.

        ``logged_in`` and ``logged_out`` each carry the connection's new session: a dropped
        socket then comes back as the account (or the fresh guest), not as who we were before.
        """
        if msg.get("type") in ("logged_in", "logged_out") and isinstance(msg.get("session"), str):
            with self._lock:
                self.state.session = msg["session"]
                self.state.name = str(msg.get("name") or self.state.name)
        self._inbox.put(msg)

    def rename(self, name: str) -> None:
        """Try this server again as ``name`` (after it refused the name we had)."""
        with self._lock:
            self.state = Session(name, self.state.kind)
        self.switch(self.url)

    def on_link_status(self, status: str, detail: str) -> None:
        """Pass a link status to the app; a link that is down drops the moves not yet sent.

        A move (or an opening choice) is played when the user clicks, not whenever the link
        comes back: the board may have changed meanwhile, and the user may not be looking.
        """
        if status != "online":
            with self._lock:
                kept = [m for m in self._outbox if m.get("type") not in TIMELY]
                self._outbox.clear()
                self._outbox.extend(kept)
        self._inbox.put(net_note(status, detail))

    def switch(self, url: str, session: str | None = None) -> None:
        """Leave this server for the one at ``url`` (a new player there, or the account whose
        remembered ``session`` is given; the outbox is dropped)."""
        with self._lock:
            self.url = url
            self.state = Session(self.state.name, self.state.kind, session=session)
            self._outbox.clear()
        loop, conn, switched = self._loop, self._conn, self._switched
        if loop is None or conn is None or switched is None:
            return  # not started yet: it will start with the new URL
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(switched.set)
            asyncio.run_coroutine_threadsafe(conn.close(), loop)

    async def _writer(self) -> None:
        """Send the outbox in order whenever online; a message leaves it only once sent."""
        assert self._wake is not None
        while True:
            conn = self._conn
            if conn is None or not conn.online.is_set():
                await asyncio.sleep(0.05)  # not connected yet, or between servers
                continue
            with self._lock:
                msg = self._outbox[0] if self._outbox else None
                if msg is None:
                    self._wake.clear()
            if msg is None:
                await self._wake.wait()
                continue
            try:
                await conn.send(msg)
            except LinkClosed:
                await asyncio.sleep(0.05)  # wait for the next connection's welcome
                continue
            with self._lock:
                if self._outbox and self._outbox[0] is msg:
                    self._outbox.popleft()
