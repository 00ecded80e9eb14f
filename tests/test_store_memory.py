"""``--memory``'s store: nothing kept, no commit pipeline in a move's way, ``no_history``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from support.clients import RawClient
from websockets.asyncio.client import connect

from protocol.errors import NoHistory
from server.core.arena import Arena
from server.core.journal.rows import Heartbeat
from server.core.limits import Limits
from server.shell.server import ArenaServer, ServerConfig
from server.storage.memory import MemoryStore


def test_a_memory_store_keeps_nothing() -> None:
    store = MemoryStore()
    store.write([Heartbeat(1.0)])
    assert store.write_now([Heartbeat(2.0)]) and not store.upkeep_due()
    assert store.load().players == [] and store.load().rooms == [] and store.bot_keys() == []
    assert store.player_by_token("h") is None and store.bot_by_name("b") is None
    with pytest.raises(NoHistory):
        store.list_games()
    with pytest.raises(NoHistory):
        store.get_game("g_1")
    assert not store.durable and not store.fenced and store.wal_size() == 0


@pytest.fixture
async def memory_server() -> AsyncIterator[ArenaServer]:
    """A server with no store given: a memory one, as ``mnk-server --memory`` runs."""
    limits = Limits(human_rate=1000.0, human_burst=1000.0)
    server = ArenaServer(Arena(limits=limits, durable=False), ServerConfig(port=0))
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


async def test_a_memory_server_delivers_at_once_and_keeps_no_history(
    memory_server: ArenaServer,
) -> None:
    assert memory_server.pipeline is None  # nothing to commit: outputs go at once
    url = f"ws://127.0.0.1:{memory_server.port}"
    clients: list[Any] = []
    for name in ("alice", "bob"):
        client = RawClient(await connect(url, compression=None))
        await client.hello(name)
        clients.append(client)
    alice, bob = clients
    room = (await alice.request(type="create_room", game="tictactoe", seat=0))["room"]
    await bob.request(type="join_room", room=room)
    assert (await alice.request(type="move", room=room, x=1, y=1))["type"] == "moved"
    await bob.expect("moved", ply=0)
    await alice.error("no_history", type="list_games")
    await alice.error("no_history", type="get_game", game_id="g_1")
    for client in clients:
        await client.close()
