"""The one asyncio connection every side uses: a :class:`Session` over a reconnecting WebSocket.

A failed connect is retried with backoff; after a dropped link the session says ``hello``
again with its saved ``session`` and the server re-seats it. Given several URLs (the nodes of a
cluster, where a session resumes on any node), a connect that fails, or a server that closes
before ``welcome``, moves on to the next URL: the session fails over. Every message goes to one
handler in the order the server sent it; requests can also be awaited for their reply.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Generator, Mapping, Sequence
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.client import process_exception
from websockets.exceptions import ConnectionClosed, WebSocketException

from protocol.session import HelloRefused, Session
from protocol.vocab import CloseCode
from protocol.wire import Message, encode, type_first

Handler = Callable[[Message], Awaitable[None] | None]
#: ``on_status(status, detail)`` with status ``connecting``, ``online`` or ``offline``.
StatusHook = Callable[[str, str], None]

__all__ = [
    "Connection",
    "HelloRefused",
    "LinkClosed",
    "NotSent",
    "Replaced",
    "ServerError",
    "split_urls",
]


class LinkClosed(ConnectionError):
    """There is no open connection (or it dropped while a reply was awaited)."""


class NotSent(LinkClosed):
    """The message never left: there was no open connection to send it on."""


class Replaced(Exception):
    """Another connection resumed this session (close code 4000): this one must stop."""


class ServerError(Exception):
    """An ``error`` reply to an awaited request."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code


def backoff(first: float, most: float) -> Callable[[], Generator[float]]:
    """Delays between connect attempts: ``first``, doubling, capped at ``most``."""

    def delays() -> Generator[float]:
        delay = first
        while True:
            yield delay
            delay = min(delay * 2, most)

    return delays


def split_urls(text: str) -> list[str]:
    """``URL1,URL2,…`` as a list (blanks dropped); ValueError when it names none."""
    urls = [u.strip() for u in text.split(",") if u.strip()]
    if not urls:
        raise ValueError("give at least one server URL")
    return urls


class Connection:
    """One session on one server URL (or failing over along several), reconnecting until
    :meth:`close`."""

    def __init__(
        self,
        url: str | Sequence[str],
        session: Session,
        *,
        on_status: StatusHook | None = None,
        retry_first_s: float = 0.25,
        retry_max_s: float = 5.0,
        open_timeout: float = 10.0,
        ping_interval: float = 10.0,
        ping_timeout: float = 20.0,
        rate: float | None = None,
    ) -> None:
        #: The servers to try, in order; the session starts on the first.
        self.urls = [url] if isinstance(url, str) else list(url)
        if not self.urls:
            raise ValueError("a connection needs a server URL")
        self._at = 0
        self.session = session
        self.on_status = on_status or (lambda status, detail: None)
        self._connect_args: dict[str, Any] = {
            "compression": None,
            "max_size": None,
            "open_timeout": open_timeout,
            "ping_interval": ping_interval,
            "ping_timeout": ping_timeout,
        }
        self._delays = backoff(retry_first_s, retry_max_s)
        self.ws: ClientConnection | None = None
        #: The close code of the last connection that ended (e.g. 4001: the key was revoked).
        self.last_close: int | None = None
        #: Set while the connection is open and welcomed.
        self.online = asyncio.Event()
        self._closing = False
        self._task: asyncio.Task[Any] | None = None
        self._waiting: dict[int, asyncio.Future[Message]] = {}
        self._first_pause = self._pause = retry_first_s
        self._max_pause = retry_max_s
        self._interval = 1.0 / rate if rate else 0.0
        self._next_send = 0.0

    @property
    def url(self) -> str:
        """The server this connection is on (or trying now)."""
        return self.urls[self._at]

    def _next_url(self) -> None:
        """Fail over: the next URL of the list (the same one when there is only one)."""
        self._at = (self._at + 1) % len(self.urls)

    async def run(self, handle: Handler) -> None:
        """Connect, say hello and give ``handle`` every message in order, until :meth:`close`.

        Raises :class:`Replaced` when another connection took the session over and
        :class:`HelloRefused` when the server will not have us; any other drop reconnects,
        first to the same URL, then along the list.
        """
        self._task = asyncio.current_task()
        self.on_status("connecting", self.url)
        failed, delays = 0, self._delays()
        try:
            while not self._closing:
                try:
                    ws = await connect(self.url, **self._connect_args)
                except Exception as exc:
                    self._connect_failed(exc)
                    failed += 1
                    self._next_url()
                    if failed % len(self.urls) == 0:  # every URL failed once more: back off
                        await asyncio.sleep(next(delays))
                    self.on_status("connecting", self.url)
                    continue
                failed, delays = 0, self._delays()
                async with ws:
                    detail = await self._serve(ws, handle)
                self.last_close = ws.close_code
                if ws.close_code == CloseCode.REPLACED:
                    raise Replaced("another connection resumed this session")
                if self._closing:
                    return
                self.on_status("offline", detail)
                if self.session.welcomed or self.session.restart:
                    self._pause = self._first_pause  # come back at once: to resume, or anew
                else:  # closed before welcome (a full or unwilling server): do not hammer it
                    self._next_url()
                    await asyncio.sleep(self._pause)
                    self._pause = min(2 * self._pause, self._max_pause)
                self.on_status("connecting", self.url)
        except asyncio.CancelledError:
            if not self._closing:
                raise
        finally:  # a close() after this returns must not cancel whatever the task runs next
            self._task = None

    async def _serve(self, ws: ClientConnection, handle: Handler) -> str:
        """One connection from hello to its end; returns why it ended."""
        self.ws = ws
        session = self.session
        try:
            await ws.send(encode(session.hello()))
            async for frame in ws:
                msg = session.receive(frame)
                if msg is None:
                    continue
                if session.restart:  # the server forgot us: start again without the session
                    await ws.close()
                    break
                waiter = self._waiting.pop(msg.get("id", -1), None)
                if waiter is not None and not waiter.done():
                    waiter.set_result(msg)
                welcome = msg["type"] == "welcome"
                if welcome:
                    self.online.set()
                result = handle(msg)
                if inspect.isawaitable(result):
                    await result
                if welcome:
                    self.on_status("online", self.url)
            return "the server closed the connection"
        except ConnectionClosed as exc:
            return f"connection lost ({exc.rcvd.code if exc.rcvd else 'no close frame'})"
        finally:
            self.ws = None
            self.online.clear()
            for waiter in self._waiting.values():
                if not waiter.done():
                    waiter.set_exception(LinkClosed("connection to the server lost"))
            self._waiting.clear()

    def _connect_failed(self, exc: Exception) -> None:
        """Report a failed connect attempt; raise what websockets deems fatal (a bad URL)."""
        fatal = process_exception(exc)
        self.on_status("offline", describe(exc, self.url))
        if fatal is exc:
            raise exc
        if fatal is not None:
            raise fatal from exc

    async def send(self, message: Mapping[str, Any]) -> None:
        """Send one message now (spaced out to ``rate`` when given); NotSent when offline."""
        ws = self.ws
        if ws is None or not self.online.is_set():
            raise NotSent("not connected")
        if self._interval:
            loop = asyncio.get_running_loop()
            now = loop.time()
            wait = self._next_send - now
            self._next_send = max(now, self._next_send) + self._interval
            if wait > 0:
                await asyncio.sleep(wait)
        try:
            await ws.send(encode(type_first(message)))
        except ConnectionClosed as exc:
            raise NotSent(str(exc)) from exc

    async def request(self, message: Mapping[str, Any], timeout: float = 30.0) -> Message:
        """Send a request and wait for its reply; :class:`ServerError` for an ``error``."""
        msg = self.session.request(message)
        waiter: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._waiting[msg["id"]] = waiter
        try:
            await self.send(msg)
            reply = await asyncio.wait_for(waiter, timeout)
        finally:
            self._waiting.pop(msg["id"], None)
        if reply["type"] == "error":
            raise ServerError(str(reply.get("code", "?")), str(reply.get("message", "")))
        return reply

    async def close(self) -> None:
        """Stop reconnecting and close the socket."""
        self._closing = True
        ws, task = self.ws, self._task
        if ws is not None:
            await ws.close()
        elif task is not None and task is not asyncio.current_task():
            task.cancel()  # between connections, in a backoff sleep: stop it there


def describe(exc: BaseException, url: str) -> str:
    """A one-line reason a connect to ``url`` failed, for people."""
    if isinstance(exc, ConnectionRefusedError) or (
        isinstance(exc, OSError) and "Connect call failed" in str(exc)
    ):
        return f"nobody is listening at {url}"
    if isinstance(exc, TimeoutError):
        return f"{url} did not answer in time"
    if isinstance(exc, OSError | WebSocketException):
        return f"cannot connect to {url}: {exc}"
    return f"{url}: {type(exc).__name__}: {exc}"
