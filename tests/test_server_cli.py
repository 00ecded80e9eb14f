"""``mnk-server`` as the README starts it: one-line errors, a quiet Ctrl-C, a clean git status."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.clients import RawClient
from support.servers import free_port
from websockets.asyncio.client import connect

pytestmark = pytest.mark.slow  # real server processes

ROOT = Path(__file__).resolve().parent.parent
MNK_SERVER = str(Path(sys.executable).parent / "mnk-server")


def run_server(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``mnk-server`` expecting it to fail at start-up."""
    return subprocess.run(
        [MNK_SERVER, "--no-bots", *args], cwd=cwd, capture_output=True, text=True, timeout=60
    )


def test_a_port_in_use_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        done = run_server(tmp_path, "--port", str(busy.getsockname()[1]))
    assert done.returncode != 0
    assert done.stderr.strip().splitlines()[-1].startswith("mnk-server: port ")
    assert "in use" in done.stderr and "Traceback" not in done.stderr


def test_an_unwritable_database_is_one_line(tmp_path: Path) -> None:
    done = run_server(tmp_path, "--port", str(free_port()), "--db", str(tmp_path / "no/such/x.db"))
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    [line] = done.stderr.strip().splitlines()  # one line: the folder is not there
    assert line.startswith(f"mnk-server: cannot use the database '{tmp_path / 'no/such/x.db'}': ")
    assert "No such file or directory" in line and line.endswith("; try another --db or --memory")


async def bot_online(url: str, deadline: float) -> None:
    """Wait until the server's built-in bot shows online."""
    while True:
        assert time.monotonic() < deadline, "the built-in bot did not come online"
        try:
            async with connect(url, compression=None) as ws:
                client = RawClient(ws)
                await client.hello("watcher")
                bots = (await client.request(type="list_bots"))["bots"]
                if any(b["online"] for b in bots):
                    return
        except OSError:
            pass
        await asyncio.sleep(0.2)


async def test_ctrl_c_stops_everything_quietly_and_leaves_git_status_clean(tmp_path: Path) -> None:
    """SIGINT to the whole process group, as a terminal's Ctrl-C: server, bot, its workers."""
    port = free_port()
    proc = subprocess.Popen(
        [MNK_SERVER, "--port", str(port)],
        cwd=tmp_path,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        await bot_online(f"ws://127.0.0.1:{port}", time.monotonic() + 90)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = await asyncio.to_thread(proc.communicate, timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    await asyncio.sleep(0.5)  # the bot's worker processes print (if they do) as they exit
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    (tmp_path / "runs" / "t").mkdir(parents=True)  # what the README's mnk-tournament leaves
    left = sorted(p.name + "/" * p.is_dir() for p in tmp_path.iterdir())
    assert "mnk-arena.sqlite3" in left and "mnk-arena.sqlite3.bots/" in left
    assert "mnk-arena.sqlite3.lock" in left  # kept: deleting it could let two servers in
    left += ["mnk-arena.sqlite3-wal", "mnk-arena.sqlite3-shm"]  # what a kill -9 leaves too
    ignored = subprocess.run(
        ["git", "check-ignore", "--no-index", *left],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout.split()
    assert sorted(ignored) == sorted(left)


def test_help_texts_are_plain_and_pygame_keeps_quiet() -> None:
    for tool in ("mnk-server", "mnk-bot", "mnk-tournament", "mnk-client", "mnk-solve"):
        done = subprocess.run(
            [str(Path(sys.executable).parent / tool), "--help"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0 and "usage:" in done.stdout
        assert "``" not in done.stdout and "::" not in done.stdout, tool
    env = {k: v for k, v in os.environ.items() if k != "PYGAME_HIDE_SUPPORT_PROMPT"}
    code = "import client.app, bots.tournament.chart as c, pygame; c.draw_elo_chart"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    assert "pygame" not in done.stdout + done.stderr
