"""The director's protocol connection: a human-kind client with a feed of messages per room it
watches, failing over along several server URLs (a cluster's nodes) like any client."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Any

from protocol.connection import Connection, LinkClosed
from protocol.session import Session

#: What a feed gets when the link drops: the watcher's news may be lost from here on.
CLOSED: dict[str, Any] = {"type": "_closed"}


class Link:
    """The director's protocol connection (a human-kind client) with per-room feeds; given a
    ``session`` (a keyed bot's: the server's examiner), it says hello as that."""

    def __init__(
        self,
        url: str | Sequence[str],
        name: str = "director",
        rate: float = 15.0,
        *,
        session: Session | None = None,
    ) -> None:
        self.state = session if session is not None else Session(name)
        self.conn = Connection(
            url, self.state, rate=rate, ping_interval=20, on_status=self._on_status
        )
        self._rooms: dict[str, asyncio.Queue[dict[str, Any]]] = {}
        self._task: asyncio.Task[None] | None = None
        self._was_online = False

    @property
    def url(self) -> str:
        """The server the link is on (or trying now)."""
        return self.conn.url

    @property
    def player(self) -> str | None:
        """Our player id on the server."""
        return self.state.player

    @property
    def alive(self) -> bool:
        """Whether the connection is running (it reconnects by itself after a drop)."""
        return self._task is not None and not self._task.done()

    async def open(self, timeout: float = 30.0) -> None:
        """Connect and wait for ``welcome``; the error that stopped it, or TimeoutError."""
        self._task = asyncio.create_task(self.conn.run(self._on))
        online = asyncio.create_task(self.conn.online.wait())
        done, _ = await asyncio.wait(
            {self._task, online}, timeout=timeout, return_when="FIRST_COMPLETED"
        )
        online.cancel()
        if self._task in done:
            self._task.result()  # raises what ended it
            raise LinkClosed("connection closed before welcome")
        if not done:
            await self.close()
            raise TimeoutError(f"no welcome from {self.url} in {timeout:.0f}s")

    async def close(self) -> None:
        """Close the connection."""
        await self.conn.close()
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)

    def feed(self, room: str) -> asyncio.Queue[dict[str, Any]]:
        """Everything the server says about ``room`` (created on first use).

        A feed is created when the server answers our ``join``/``create_room`` with ``joined``
        and only existing feeds are filled, so a room dropped with :meth:`forget` (e.g. before
        its ``left`` reply) is not kept again.
        """
        return self._rooms.setdefault(room, asyncio.Queue())

    def forget(self, room: str) -> None:
        """Stop keeping messages for ``room``."""
        self._rooms.pop(room, None)

    async def request(self, message: dict[str, Any], timeout: float = 30.0) -> dict[str, Any]:
        """Send a request and wait for its reply; ServerError for an ``error``."""
        return await self.conn.request(message, timeout)

    def _on(self, msg: dict[str, Any]) -> None:
        """Put every message about a watched room on its feed."""
        room = msg.get("room")
        if not isinstance(room, str) or msg["type"] == "rooms":
            return
        if msg["type"] == "joined" and "id" in msg:
            self.feed(room)  # a room we asked to join: keep what follows for the watcher
        queue = self._rooms.get(room)
        if queue is not None:  # rooms never joined or already forgotten are not kept
            queue.put_nowait(msg)

    def _on_status(self, status: str, detail: str) -> None:
        """Tell every watcher once when an open link drops (not again for each failed connect
        while it is down): its game's news may be lost."""
        if status == "online":
            self._was_online = True
        elif status == "offline" and self._was_online:
            self._was_online = False
            for queue in self._rooms.values():
                queue.put_nowait(CLOSED)


async def pages(
    link: Link, ask: dict[str, Any], timeout: float = 30.0, most: int | None = None
) -> AsyncIterator[dict[str, Any]]:
    """Every page of a listing (``list_rooms``, ``list_bots``), following its ``next`` cursor,
    ``most`` pages at most."""
    n = 0
    while most is None or n < most:
        reply = await link.request(ask, timeout)
        yield reply
        n += 1
        if not reply.get("next"):
            return
        ask = {**ask, "cursor": reply["next"]}
