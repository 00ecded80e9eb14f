"""Bot identity: only a connection holding an operator's key is a bot, and the key fixes who."""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from support.bots import bot_running
from support.clients import RawClient
from support.servers import bot_key, free_port
from support.stores import both_dbs
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from server.admin import add_key, keys_main, list_keys, revoke_key
from server.core.players.keys import read_keys_file
from server.storage.factory import is_pg_url

HELLO = {"type": "hello", "protocol": 1}

#: Every test here that uses a database runs on SQLite and on PostgreSQL.
db = both_dbs


async def test_a_bot_without_a_valid_key_is_refused(client_factory: Any, server: Any) -> None:
    c = await client_factory()
    await c.error("bad_key", **HELLO, name="minimax", kind="bot", games=["*"])
    await c.error("bad_key", **HELLO, name="minimax", kind="bot", key="guessed")
    await c.error("bad_key", **HELLO, name="minimax", kind="bot", key="k" * 10_000)
    bot_key(server, "minimax")
    await c.error("bad_key", **HELLO, name="minimax", kind="bot", key="not-minimax's-key")
    assert not any(p.kind == "bot" for p in server.arena.players.values())


async def test_a_refused_bot_does_not_get_the_bot_rate_limit(client_factory: Any) -> None:
    c = await client_factory()
    await c.error("bad_key", **HELLO, name="fast", kind="bot", capacity=8)
    await c.hello("fast")  # what is left to it: being a human, at a human's rate
    for i in range(60):
        await c.send(type="ping", id=100 + i)
    replies = [await c.recv() for _ in range(60)]
    assert any(r.get("code") == "rate_limited" for r in replies)


async def test_a_keyed_bot_gets_the_bot_rate_limit(client_factory: Any) -> None:
    bot = await client_factory("fast", kind="bot")
    for i in range(300):
        await bot.send(type="ping", id=100 + i)
    replies = [await bot.recv() for _ in range(300)]
    assert all(r["type"] == "pong" for r in replies)


async def test_nobody_passes_for_the_built_in_bot(client_factory: Any, server: Any) -> None:
    real = await client_factory("minimax", kind="bot", games=["*"], capacity=8)
    impostor = await client_factory()
    await impostor.error("bad_key", **HELLO, name="minimax", kind="bot", games=["*"], capacity=8)
    other = await client_factory("evil", kind="bot", games=["*"], capacity=8)  # keyed, not minimax
    assert other.player != real.player
    renamed = await client_factory()
    welcome = await renamed.hello("minimax", "bot", key=bot_key(server, "evil2"), games=["*"])
    assert welcome["name"] == "evil2"  # the key decides the name, not the hello
    for name in ("minimax", "MiniMax", "\uff4d\uff49\uff4e\uff49\uff4d\uff41\uff58", " minimax "):
        await impostor.error("bad_message", **HELLO, name=name, kind="human")
    human = await client_factory("human")
    for _ in range(3):
        joined = await human.request(type="create_room", game="gomoku", opponent="bot", seat=0)
        state = await human.expect("state", room=joined["room"], status="playing")
        if state["players"][1] == "minimax":
            assert state["player_ids"][1] == real.player and state["kinds"][1] == "bot"
        else:
            assert state["players"][1] in ("evil", "evil2")
        await human.request(type="leave_room", room=joined["room"])


async def test_one_player_per_key_and_the_newest_connection_wins(
    client_factory: Any, server: Any
) -> None:
    key = bot_key(server, "twin")
    first = await client_factory("twin", kind="bot", key=key, games=["*"])
    second = await client_factory("twin", kind="bot", key=key, games=["*"])  # no session
    assert second.player == first.player
    with pytest.raises(ConnectionClosed):
        await first.recv()
    assert first.ws.close_code == 4000
    await second.alive()
    human = await client_factory()
    await human.error("bad_key", **HELLO, name="someone", kind="human", session=second.session)
    await human.error("bad_key", **HELLO, name="twin", kind="bot", session=second.session)


async def test_a_bot_keeps_its_seats_across_a_new_process(client_factory: Any, server: Any) -> None:
    key = bot_key(server, "robo")
    bot = await client_factory("robo", kind="bot", key=key, games=["*"])
    human = await client_factory("human")
    room = (await human.request(type="create_room", game="gomoku", opponent="bot", seat=0))["room"]
    await bot.close()
    again = await client_factory("robo", kind="bot", key=key, games=["*"])  # a fresh process
    state = await again.expect("state", room=room)
    assert state["seat"] == 1 and again.player == bot.player


@pytest.mark.slow
async def test_session_files_are_private(server: Any, tmp_path: Path) -> None:
    session = tmp_path / "bot.session"
    session.write_text("stale")
    session.chmod(0o644)
    async with bot_running(server, "random", "priv", "--session-file", str(session)):
        deadline = time.monotonic() + 20
        while session.read_text() == "stale" and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert session.read_text() != "stale"
        assert stat.S_IMODE(session.stat().st_mode) == 0o600


@pytest.mark.slow
async def test_a_bot_with_a_bad_key_stops_with_a_clear_error(server: Any) -> None:
    cmd = [sys.executable, "-m", "bots", "--server", server.url, "--engine", "random"]
    env = {**os.environ, "MNK_BOT_KEY": "wrong"}
    done = await asyncio.to_thread(
        subprocess.run, cmd, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode != 0 and "key" in done.stderr


@contextlib.asynccontextmanager
async def server_process(cwd: Path, *args: str) -> AsyncIterator[str]:
    """``python -m server ARGS`` on a free port until the block ends; yields its URL."""
    port = free_port()
    cmd = [sys.executable, "-m", "server", "--port", str(port), "--log-level", "WARNING"]
    proc = subprocess.Popen([*cmd, *args], cwd=cwd)
    url = f"ws://127.0.0.1:{port}"
    try:
        for _ in range(400):
            try:
                async with connect(url):
                    break
            except OSError:
                await asyncio.sleep(0.05)
        yield url
    finally:
        proc.terminate()
        await asyncio.to_thread(proc.wait, 15)


# -- the operator's side: mnk-server keys, --keys-file, revocation -----------------------------


def test_keys_cli_on_a_real_database(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    missing = db.rpartition("/")[0] + "/nothere" if is_pg_url(db) else db
    assert keys_main(["list", "--db", missing]) == 1  # no database: nothing is created
    assert not Path(missing).exists()
    assert "mnk-server keys: " in capsys.readouterr().err
    assert keys_main(["--db", db, "add", "alpha"]) == 0
    key = capsys.readouterr().out.strip()
    assert len(key) >= 40
    assert keys_main(["add", "Alpha", "--db", db]) == 1  # would pass for alpha
    assert keys_main(["add", "bad\u202ename", "--db", db]) == 1
    assert "format" in capsys.readouterr().err
    beta = add_key(db, "beta")
    rows = {r.name: r for r in list_keys(db)}
    assert set(rows) == {"alpha", "beta"} and key not in str(rows) and beta not in str(rows)
    assert keys_main(["revoke", "alpha", "--db", db]) == 0
    assert keys_main(["revoke", "alpha", "--db", db]) == 1
    assert {r.name: r.revoked_at is not None for r in list_keys(db)} == {
        "alpha": True,
        "beta": False,
    }
    assert revoke_key(db, "nobody") is False
    assert add_key(db, "alpha") != key  # a revoked name can get a new key
    capsys.readouterr()
    assert keys_main(["list", "--db", db]) == 0
    assert capsys.readouterr().out.count("active") == 2


def test_keys_file_lines(tmp_path: Path) -> None:
    path = tmp_path / "keys"
    path.write_text("# made by hand\n\na=b=KEY1\n  second = KEY2 \n")
    assert read_keys_file(path) == [("a=b", "KEY1"), ("second", "KEY2")]
    path.write_text("nokey\n")
    with pytest.raises(ValueError, match=":1:"):
        read_keys_file(path)


@pytest.mark.slow
async def test_keys_added_and_revoked_on_a_running_server(tmp_path: Path, db: str) -> None:
    add_key(db, "firstbot")  # the database exists (mnk-server keys makes none: it would be empty)
    added = subprocess.run(
        [sys.executable, "-m", "server", "keys", "add", "dbbot", "--db", db],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert added.returncode == 0, added.stderr
    db_key = added.stdout.strip()
    keys_file = tmp_path / "keys"
    keys_file.write_text("filebot=FILE-KEY-0123456789\n")
    args = ["--db", db, "--no-bots", "--keys-file", str(keys_file)]
    async with server_process(tmp_path, *args) as url:
        from_file = RawClient(await connect(url))
        assert (await from_file.hello("x", "bot", key="FILE-KEY-0123456789"))["name"] == "filebot"
        stored = RawClient(await connect(url))
        assert (await stored.hello("dbbot", "bot", key=db_key))["name"] == "dbbot"
        late = await asyncio.to_thread(add_key, db, "latebot")
        assert revoke_key(db, "dbbot")
        with pytest.raises(ConnectionClosed):  # cut off within the server's reload interval
            while True:
                await stored.recv(timeout=30)
        assert stored.ws.close_code == 4001
        again = RawClient(await connect(url))
        await again.error("bad_key", **HELLO, name="dbbot", kind="bot", key=db_key)
        assert (await again.hello("latebot", "bot", key=late))["name"] == "latebot"
        await from_file.alive()


@pytest.mark.slow
async def test_the_real_built_in_bot_cannot_be_impersonated(tmp_path: Path) -> None:
    async with server_process(tmp_path, "--memory") as url:  # with its built-in bot pool
        human = RawClient(await connect(url))
        await human.hello("human")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            bots = (await human.request(type="list_bots"))["bots"]
            if any(b["name"] == "minimax" and b["online"] for b in bots):
                break
            await asyncio.sleep(0.1)
        impostor = RawClient(await connect(url))
        await impostor.error("bad_key", **HELLO, name="minimax", kind="bot", games=["*"])
        await impostor.error("bad_message", **HELLO, name="minimax", kind="human")
        assert [b["name"] for b in (await human.request(type="list_bots"))["bots"]] == ["minimax"]
        joined = await human.request(type="create_room", game="gomoku", opponent="bot", seat=0)
        state = await human.expect("state", room=joined["room"], status="playing")
        assert state["players"] == ["human", "minimax"] and state["kinds"] == ["human", "bot"]
        await human.request(type="move", room=joined["room"], x=7, y=7)
        assert (await human.expect("moved", seat=1, timeout=60))["ply"] == 1  # it plays
