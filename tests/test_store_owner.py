"""One server per SQLite file: a second ``mnk-server`` on it refuses to start (naming the file
and the running one's PID) instead of recovering the file under it, and ``kill -9`` of the first
leaves no stale lock. ``mnk-server keys`` still edits the file while a server runs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.servers import MOVES, ServerProcess, play, second_server

from server.admin import add_key, list_keys
from server.storage.base import StoreLocked
from server.storage.sqlite import Store


@pytest.mark.slow
async def test_a_second_server_on_the_file_refuses_and_the_first_serves_on(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.sqlite3")
    first = ServerProcess(db)
    await first.start()
    try:
        assert first.proc is not None
        alice, room = await play(first, MOVES[:2])
        done = second_server(db)
        assert done.returncode != 0 and "Traceback" not in done.stderr
        [line] = done.stderr.strip().splitlines()
        assert line.startswith(f"mnk-server: {db} is in use by another mnk-server")
        assert f"(pid {first.proc.pid}," in line
        assert first.proc.poll() is None
        # The first still serves, its move log untouched: the game goes on where it was.
        await alice.alive()
        await alice.request(type="move", room=room, x=7, y=8, ply=2)
        key = add_key(db, "keybot")  # the keys command edits the file beside the server
        assert key and [row.name for row in list_keys(db)] == ["keybot"]
        await alice.close()
        first.kill()  # kill -9: the lock goes with the process, nothing stale is left
        again = ServerProcess(db)
        await again.start()
        try:
            back = await again.client("alice", alice.session)
            state = await back.expect("state", room=room)
            assert state["moves"] == [list(m) for m in MOVES]
            await back.close()
        finally:
            again.kill()
    finally:
        if first.proc is not None and first.proc.poll() is None:
            first.kill()


def test_a_store_owns_its_file_until_closed(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite3"
    store = Store(path)
    with pytest.raises(StoreLocked, match=rf"{path} is in use .*pid \d+"):
        Store(path)
    with pytest.raises(StoreLocked):
        Store(tmp_path / "." / "a.sqlite3")  # another spelling of the same file
    store.close()
    Store(path).close()  # a clean stop lets the file go


def test_a_hard_link_to_the_file_is_the_same_file(tmp_path: Path) -> None:
    """A hard link has its own path (and would have its own ``-wal``): the lock is on the file."""
    path = tmp_path / "a.sqlite3"
    store = Store(path)
    (tmp_path / "elsewhere").mkdir()
    link = tmp_path / "elsewhere" / "b.sqlite3"
    os.link(path, link)
    with pytest.raises(StoreLocked, match=rf"{link} is in use .*pid {os.getpid()},"):
        Store(link)
    assert not (tmp_path / "elsewhere" / "b.sqlite3-wal").exists()  # refused before opening it
    store.close()
    Store(link).close()  # the first let the file go


@pytest.mark.slow
async def test_a_second_server_on_a_hard_link_refuses_naming_the_first(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.sqlite3")
    first = ServerProcess(db)
    await first.start()
    try:
        assert first.proc is not None
        alice, room = await play(first, MOVES[:2])
        link = str(tmp_path / "link.sqlite3")
        os.link(db, link)
        done = second_server(link)
        assert done.returncode != 0 and "Traceback" not in done.stderr
        [line] = done.stderr.strip().splitlines()
        assert line.startswith(f"mnk-server: {link} is in use by another mnk-server")
        assert f"(pid {first.proc.pid}," in line
        assert first.proc.poll() is None
        await alice.alive()
        await alice.request(type="move", room=room, x=7, y=8, ply=2)
        await alice.close()
    finally:
        first.kill()
