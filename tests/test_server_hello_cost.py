"""A hello costs no write: a player's row is saved only once a restart would need it."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from support.clients import RawClient
from support.waiting import until
from websockets.asyncio.client import connect

from server.core.arena import Arena
from server.core.limits import Limits
from server.shell.server import ArenaServer, ServerConfig
from server.storage.sqlite import Store


def player_rows(path: Path) -> dict[str, str]:
    """The players table as it is on disk: name by player id."""
    db = sqlite3.connect(path)
    try:
        return dict(db.execute("SELECT pid, name FROM players"))
    finally:
        db.close()


async def started(path: Path) -> ArenaServer:
    """A server on the SQLite file ``path`` (restored from it), on a free loopback port."""
    limits = Limits(human_rate=1000.0, human_burst=1000.0, full_sweep_interval=0.05)
    srv = ArenaServer(Arena(limits=limits), ServerConfig(port=0), Store(path))
    await srv.start()
    return srv


async def client(srv: ArenaServer, name: str, **extra: Any) -> RawClient:
    """A raw client that has said hello as ``name``."""
    c = RawClient(await connect(f"ws://127.0.0.1:{srv.port}", compression=None))
    await c.hello(name, **extra)
    return c


async def test_hellos_without_seats_write_no_rows_and_seats_survive_a_restart(
    tmp_path: Path,
) -> None:
    path = tmp_path / "arena.sqlite3"
    srv = await started(path)
    passers = [await client(srv, f"passer{i}") for i in range(30)]
    await passers[0].alive()
    assert player_rows(path) == {}  # on main: 30 rows, one commit each
    alice, bob = await client(srv, "alice"), await client(srv, "bob")
    room = (await alice.request(type="create_room", game="gomoku", seat=0))["room"]
    assert player_rows(path) == {alice.player: "alice"}  # written with the room, before `joined`
    await bob.request(type="join_room", room=room)
    assert set(player_rows(path)) == {alice.player, bob.player}
    await alice.request(type="move", room=room, x=7, y=7)
    sam = await client(srv, "sam")
    await sam.request(type="join_room", room=room, spectate=True)
    await until(lambda: sam.player in player_rows(path))  # a spectator's row follows a sweep
    for c in (*passers, alice, bob, sam):
        await c.close()
    await srv.stop()

    srv = await started(path)
    try:
        again = await client(srv, "alice", session=alice.session)
        assert again.player == alice.player
        state = await again.expect("state", room=room)
        assert state["players"][0] == "alice" and state["ply"] == 1
        watcher = await client(srv, "sam", session=sam.session)
        assert watcher.player == sam.player
        forgotten = RawClient(await connect(f"ws://127.0.0.1:{srv.port}", compression=None))
        await forgotten.error("bad_session", type="hello", protocol=1, name="p", kind="human",
                              session=passers[0].session)  # fmt: skip
        for c in (again, watcher, forgotten):
            await c.close()
    finally:
        await srv.stop()


async def test_a_renamed_passer_is_saved_under_its_new_name_when_it_sits(tmp_path: Path) -> None:
    path = tmp_path / "arena.sqlite3"
    srv = await started(path)
    try:
        first = await client(srv, "before")
        await first.close()
        renamed = await client(srv, "after", session=first.session)
        assert renamed.player == first.player and player_rows(path) == {}
        await renamed.request(type="create_room", game="gomoku")
        assert player_rows(path) == {first.player: "after"}
        await renamed.close()
    finally:
        await srv.stop()
