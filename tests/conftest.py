"""Shared fixtures: a real arena server on loopback and a raw websockets + msgpack client."""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import msgpack
import pytest
from cluster.services import pg_cluster, pg_url, redis_server  # noqa: F401  (fixtures for all)
from websockets.asyncio.client import ClientConnection, connect

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

#: Generous: a wait ends when its message arrives, so only a broken server ever waits this long.
TIMEOUT = 30.0


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


def bot_key(server: Any, name: str) -> str:
    """The key the test ``server`` accepts for the bot ``name`` (as --keys-file would).

    Made on first use and the same afterwards: two processes of one bot hold one key.
    """
    from server.core.keys import new_key

    made: dict[str, str] = server.__dict__.setdefault("test_keys", {})
    if name not in made:
        made[name] = new_key()
        server.arena.keys.add(name, made[name])
    return made[name]


def bot_env(server: Any, name: str) -> dict[str, str]:
    """The environment for a bot process named ``name``: its key in ``MNK_BOT_KEY``."""
    return {**os.environ, "MNK_BOT_KEY": bot_key(server, name)}


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def limits_override() -> dict[str, float]:
    """Override in a test module to tune the server's policy (grace, linger, rates)."""
    return {}


#: The two stores: a module runs a test on both by overriding ``db`` with :func:`both_dbs`.
BACKENDS = ("sqlite", "postgresql")


def backend_db(request: pytest.FixtureRequest, backend: str, tmp_path: Path) -> str:
    """A fresh ``--db`` value: a SQLite file in ``tmp_path`` or a new PostgreSQL database."""
    if backend == "postgresql":
        return str(request.getfixturevalue("pg_url"))
    return str(tmp_path / "arena.sqlite3")


@pytest.fixture
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The test server's database: a SQLite file unless a module asks for both stores."""
    return backend_db(request, "sqlite", tmp_path)


@pytest.fixture(params=BACKENDS)
def both_dbs(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The test server's database, once per store (``db = both_dbs`` in a module)."""
    return backend_db(request, request.param, tmp_path)


@pytest.fixture
async def server(limits_override: dict[str, float], db: str) -> AsyncIterator[Any]:
    """A real ArenaServer and store (SQLite unless ``db`` says) on loopback, stopped after."""
    from server.core.arena import Arena
    from server.core.peers import Limits
    from server.shell.server import ArenaServer, ServerConfig
    from server.storage.base import open_store

    settings = {"reconnect_grace": 5.0, "room_linger": 0.5, "lobby_push_interval": 0.05}
    settings["full_sweep_interval"] = 0.1
    settings.update(limits_override)
    config = ServerConfig(port=0, sweep_interval=0.02)
    store = open_store(db)
    srv = ArenaServer(Arena(limits=Limits(**settings)), config, store)
    await srv.start()
    srv.url = f"ws://127.0.0.1:{srv.port}"
    try:
        yield srv
    finally:
        await srv.stop()


@pytest.fixture
async def client_factory(server: Any) -> AsyncIterator[Callable[..., Any]]:
    """Open raw clients to the test server; all are closed after the test."""
    opened: list[RawClient] = []

    async def make(name: str | None = None, kind: str = "human", **extra: Any) -> RawClient:
        """A client; one that says hello as a bot gets a key for its name unless it brings one."""
        if name is not None and kind == "bot" and "key" not in extra:
            extra["key"] = bot_key(server, name)
        ws = await connect(server.url, compression=None, max_size=None)
        client = RawClient(ws)
        opened.append(client)
        if name is not None:
            await client.hello(name, kind, **extra)
        return client

    yield make
    for client in opened:
        await client.close()


async def until(check: Callable[[], bool], timeout: float = 15.0) -> None:
    """Wait for a condition of the server's state (never for a fixed sleep)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        assert loop.time() < deadline, "condition not reached in time"
        await asyncio.sleep(0.02)
