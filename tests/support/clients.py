"""Raw protocol-v1 clients (websockets and msgpack only) and the client set-ups tests share."""

from __future__ import annotations

import asyncio
from typing import Any

import msgpack
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from support.waiting import TIMEOUT


class RawClient:
    """A protocol-v1 peer built from websockets and msgpack only, as an outside tool would be."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.seen: list[dict[str, Any]] = []
        self.pending: list[dict[str, Any]] = []
        self.session: str | None = None
        self._next_id = 0
        self.player: str | None = None

    async def send(self, **message: Any) -> None:
        """Send one request as a binary msgpack frame."""
        await self.ws.send(msgpack.packb(message, use_bin_type=True))

    async def recv(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        """The next message, whatever its type (messages a request stepped over come first)."""
        if self.pending:
            return self.pending.pop(0)
        frame = await asyncio.wait_for(self.ws.recv(), timeout)
        assert isinstance(frame, bytes), "the server must send binary frames"
        message = msgpack.unpackb(frame, raw=False)
        self.seen.append(message)
        return message

    async def expect(self, kind: str, timeout: float = TIMEOUT, **fields: Any) -> dict[str, Any]:
        """Skip messages until one of type ``kind`` (matching ``fields``) arrives."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            message = await self.recv(max(0.01, deadline - loop.time()))
            if message["type"] == kind and all(message.get(k) == v for k, v in fields.items()):
                return message

    async def request(self, **message: Any) -> dict[str, Any]:
        """Send a request with an id and return the reply (or error) carrying that id."""
        self._next_id += 1
        rid = self._next_id
        await self.send(id=rid, **message)
        stepped_over: list[dict[str, Any]] = []
        while True:
            reply = await self.recv()
            if reply.get("id") == rid:
                self.pending[:0] = stepped_over
                return reply
            stepped_over.append(reply)

    async def hello(self, name: str, kind: str = "human", **extra: Any) -> dict[str, Any]:
        """Say hello and remember the session."""
        await self.send(type="hello", protocol=1, name=name, kind=kind, **extra)
        welcome = await self.expect("welcome")
        self.session, self.player = welcome["session"], welcome["player"]
        return welcome

    async def error(self, code: str, **message: Any) -> dict[str, Any]:
        """Send a request that must fail with ``code``; return the error."""
        reply = await self.request(**message)
        assert reply["type"] == "error", reply
        assert reply["code"] == code, reply
        return reply

    async def alive(self) -> None:
        """The connection still works: a ping gets its pong."""
        reply = await self.request(type="ping")
        assert reply["type"] == "pong"

    async def close(self) -> None:
        """Close the connection."""
        await self.ws.close()


async def connected(url: str, name: str) -> RawClient:
    """A raw client that has said hello."""
    c = RawClient(await connect(url, compression=None))
    await c.hello(name)
    return c


#: A password every account rule accepts.
PASSWORD = "correct horse battery"


async def registered(client_factory: Any, name: str, password: str = PASSWORD) -> RawClient:
    """A guest that registered ``name`` (and is logged in as it)."""
    c = await client_factory(f"guest-{name}")
    reply = await c.request(type="register", name=name, password=password)
    assert reply["type"] == "logged_in", reply
    c.session, c.player = reply["session"], reply["player"]
    return c


async def seated_pair(client_factory: Any, game: str = "tictactoe") -> tuple[Any, ...]:
    """Alice (seat 0) and Bob (seat 1) in a fresh playing room."""
    alice = await client_factory("alice")
    bob = await client_factory("bob")
    room = (await alice.request(type="create_room", game=game, seat=0))["room"]
    await bob.request(type="join_room", room=room)
    await alice.expect("state", status="playing")
    return alice, bob, room


async def closed_with(client: RawClient, timeout: float = 10.0) -> int | None:
    """Read until the server closes the connection; its close code."""
    with pytest.raises(ConnectionClosed):
        while True:
            await client.recv(timeout)
    return client.ws.close_code
