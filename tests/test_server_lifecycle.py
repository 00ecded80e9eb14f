"""The server as users run it: the mnk-server process, signals, dropped players and their grace."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support.clients import RawClient
from support.servers import spawn
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed


@pytest.fixture
def limits_override() -> dict[str, float]:
    """A short grace so a forfeit by disconnection happens within the test."""
    return {"reconnect_grace": 0.6}


async def start_process(tmp_path: Path) -> tuple[subprocess.Popen[bytes], str]:
    """Run ``python -m server`` on a free port and wait until it listens."""
    args = ["--db", str(tmp_path / "a.sqlite3"), "--no-bots"]
    proc, port = await spawn(args, stderr=subprocess.PIPE)
    return proc, f"ws://127.0.0.1:{port}"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
@pytest.mark.slow
async def test_signal_shuts_down_cleanly(tmp_path: Path, sig: signal.Signals) -> None:
    proc, url = await start_process(tmp_path)
    try:
        alice = RawClient(await connect(url, compression=None))
        await alice.hello("alice")
        await alice.request(type="create_room", game="tictactoe")
        proc.send_signal(sig)
        note = await alice.expect("server_shutdown")
        assert "shutting down" in note["message"]
        with pytest.raises(ConnectionClosed):
            await alice.recv()
        assert alice.ws.close_code == 1001
        assert proc.wait(timeout=10) == 0
        assert b"Traceback" not in proc.stderr.read()
    finally:
        proc.kill()
        proc.wait()


async def test_dropped_player_returns_within_grace(client_factory: Any, server: Any) -> None:
    alice = await client_factory("alice")
    bob = await client_factory("bob")
    room = (await alice.request(type="create_room", game="tictactoe", seat=0))["room"]
    await bob.request(type="join_room", room=room)
    await alice.request(type="move", room=room, x=0, y=0)
    await bob.close()
    assert await alice.expect("presence") == {
        "type": "presence", "room": room, "seat": 1, "online": False
    }  # fmt: skip
    back = RawClient(await connect(server.url, compression=None))
    try:
        await back.hello("bob", session=bob.session)
        state = await back.expect("state", room=room)
        assert state["seat"] == 1 and state["moves"] == [[0, 0]] and state["to_move"] == 1
        assert (await alice.expect("presence"))["online"] is True
        # that being back in time cancels the forfeit for good: test_arena_grace.py, on a fake clock
        assert (await back.request(type="move", room=room, x=1, y=1))["type"] == "moved"
    finally:
        await back.close()


async def test_dropped_player_forfeits_after_grace(client_factory: Any, server: Any) -> None:
    alice = await client_factory("alice")
    bob = await client_factory("bob")
    room = (await alice.request(type="create_room", game="gomoku", seat=0))["room"]
    await bob.request(type="join_room", room=room)
    await bob.close()
    over = await alice.expect("game_over", timeout=30)
    assert over["winner"] == 0 and over["reason"] == "disconnect"
    late = RawClient(await connect(server.url, compression=None))
    try:  # back after the grace: same player, the lost game shown as it ended
        assert (await late.hello("bob", session=bob.session))["player"] == bob.player
        state = await late.expect("state", room=room)
        assert state["status"] == "over" and state["result"]["reason"] == "disconnect"
        await late.error("game_over", type="move", room=room, x=0, y=0)
    finally:
        await late.close()


@pytest.mark.slow
async def test_memory_mode_keeps_no_file_and_no_history(tmp_path: Path) -> None:
    proc, port = await spawn(["--memory", "--no-bots"], cwd=tmp_path)
    try:
        client = RawClient(await connect(f"ws://127.0.0.1:{port}", compression=None))
        await client.hello("alice")
        await client.error("no_history", type="list_games")
        await client.close()
        assert list(tmp_path.iterdir()) == []
    finally:
        proc.kill()
        proc.wait()
