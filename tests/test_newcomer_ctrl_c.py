"""Ctrl-C at any moment of ``mnk-server``'s start exits cleanly (newcomer round four): no
traceback, even while the built-in bot's worker processes are still starting.

A terminal's Ctrl-C sends SIGINT to its whole foreground process group: the server, its bot and
the bot's workers at once. Each test starts the server in a group of its own and signals that
group, as the terminal would, at a moment it waits for (never a sleep)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

MNK_SERVER = str(Path(sys.executable).parent / "mnk-server")


def children(pid: int) -> list[tuple[int, str]]:
    """Every process under ``pid`` (its children, theirs, …) with its command line."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        for child, ppid in parents.items():
            if ppid == parent:
                try:
                    line = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ")
                except OSError:
                    continue
                found.append((child, line.decode(errors="replace")))
                todo.append(child)
    return found


def checking(proc: subprocess.Popen[bytes]) -> bool:
    """``mnk-server`` is asking ``mnk-bot --check`` whether its bot can play."""
    return any(" -m bots " in line and "--check" in line for _, line in children(proc.pid))


def bot_started(proc: subprocess.Popen[bytes]) -> bool:
    """The built-in bot's process exists."""
    return any(" -m bots " in line and "--parent-pid" in line for _, line in children(proc.pid))


def workers_started(proc: subprocess.Popen[bytes]) -> bool:
    """The bot's first worker process exists (spawned: still importing, most likely)."""
    return any("multiprocessing" in line for _, line in children(proc.pid))


def listening(log: Path) -> Callable[[subprocess.Popen[bytes]], bool]:
    """The server said its start-up line."""
    return lambda proc: b"listening on" in log.read_bytes()


def _as_a_foreground_job() -> None:
    """In the server's process before it runs: Ctrl-C's default action, as a shell gives its
    foreground job. An ignored SIGINT is inherited, and the test process may have one (a bot
    worker is started with SIGINT ignored); Python then never raises KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("moment", ["checking", "listening", "bot", "workers"])
def test_ctrl_c_while_starting_exits_cleanly(tmp_path: Path, moment: str) -> None:
    log = tmp_path / "stderr.log"
    moments = {"checking": checking, "listening": listening(log), "bot": bot_started}
    ready = {**moments, "workers": workers_started}[moment]
    with log.open("wb") as err:
        proc = subprocess.Popen(
            [MNK_SERVER, "--port", "0", "--db", str(tmp_path / "arena.sqlite3")],
            cwd=tmp_path,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,  # a process group of its own, as a shell's job is
            preexec_fn=_as_a_foreground_job,
        )
    try:
        deadline = time.monotonic() + 120
        while not ready(proc):
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, f"never {moment}: {log.read_text()}"
            time.sleep(0.01)
        os.killpg(proc.pid, signal.SIGINT)  # the terminal's Ctrl-C: the whole group
        code = proc.wait(60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    left = [line for _, line in children(proc.pid)]
    text = log.read_text()
    assert code in (0, 130), text
    assert "Traceback" not in text and "Error" not in text, text
    assert not left
