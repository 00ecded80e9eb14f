"""Shared fixtures: a real arena server on loopback and raw clients to it (helpers: support/)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect

pytest.register_assert_rewrite("support")  # the helpers' asserts explain themselves as tests' do

from support.browser import browser, web_server  # noqa: E402, F401  (fixtures for all)
from support.clients import RawClient  # noqa: E402
from support.servers import ServerProcess, bot_key  # noqa: E402
from support.services import pg_cluster, pg_url, redis_server  # noqa: E402, F401  (fixtures for all)
from support.stores import backend_db, both_dbs  # noqa: E402, F401  (a fixture for all)

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With ``MNK_ENGINE_PURE=1`` (CI's second engine run, on the plain core) leave out the
    tests marked ``pins_core``: they choose their core themselves, so they would repeat the
    first run's work and check nothing new."""
    from bots.engine.fast import pure_forced

    if not pure_forced():
        return
    kept, pinned = [], []
    for item in items:
        (pinned if item.get_closest_marker("pins_core") else kept).append(item)
    if pinned:
        config.hook.pytest_deselected(items=pinned)
        items[:] = kept


@pytest.fixture(autouse=True)
def server_labels() -> Iterator[None]:
    """The pygame client's labels as a server's ``welcome`` said them (they are the client's
    for the process: each test starts from the server's, whatever the one before said)."""
    from client.labels import LABELS
    from server.core.rating.pools import LABELS as SAID

    LABELS.take(SAID)
    yield
    LABELS.take(SAID)


@pytest.fixture
def limits_override() -> dict[str, float]:
    """Override in a test module to tune the server's policy (grace, linger, rates)."""
    return {}


@pytest.fixture
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The test server's database: a SQLite file unless a module asks for both stores."""
    return backend_db(request, "sqlite", tmp_path)


@pytest.fixture
async def server(limits_override: dict[str, float], db: str) -> AsyncIterator[Any]:
    """A real ArenaServer and store (SQLite unless ``db`` says) on loopback, stopped after."""
    from server.core.arena import Arena
    from server.core.limits import Limits
    from server.shell.server import ArenaServer, ServerConfig
    from server.storage.factory import open_store

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


@pytest.fixture
async def proc(db: str) -> AsyncIterator[ServerProcess]:
    """A ``python -m server`` process on a fresh database (not started), killed after the test."""
    server = ServerProcess(db)
    yield server
    if server.proc is not None and server.proc.poll() is None:
        server.kill()
