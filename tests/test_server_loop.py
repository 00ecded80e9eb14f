"""The server's event loop: uvloop when it can be had, stock asyncio on request or without."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.servers import free_port

from server.shell import loop as server_loop

MNK_SERVER = str(Path(sys.executable).parent / "mnk-server")
HAVE_UVLOOP = server_loop.loop_factory("auto")[0] == "uvloop"


async def _running_loop_name() -> str:
    return server_loop.loop_name()


def test_asyncio_on_request() -> None:
    assert server_loop.loop_factory("asyncio")[0] == "asyncio"
    assert server_loop.run(_running_loop_name(), "asyncio") == "asyncio"


@pytest.mark.skipif(not HAVE_UVLOOP, reason="uvloop is not installed here")
def test_auto_and_uvloop_run_on_uvloop() -> None:
    assert server_loop.run(_running_loop_name(), "auto") == "uvloop"
    assert server_loop.run(_running_loop_name(), "uvloop") == "uvloop"


def test_without_uvloop_auto_falls_back_and_uvloop_refuses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)  # makes ``import uvloop`` fail
    assert server_loop.run(_running_loop_name(), "auto") == "asyncio"
    with pytest.raises(server_loop.LoopUnavailable):
        server_loop.loop_factory("uvloop")


async def _take_the_stop_signals_and_fail() -> None:
    """What a server start that fails after its signal handlers are up does."""
    loop = asyncio.get_running_loop()
    for sig in server_loop.LOOP_SIGNALS:
        loop.add_signal_handler(sig, lambda: None)
    raise OSError("address already in use")


@pytest.mark.parametrize("choice", ["asyncio", "uvloop"])
def test_a_run_gives_back_the_signal_handlers_its_loop_took(choice: str) -> None:
    """A start that fails in-process leaves Ctrl-C as it was: uvloop left SIGINT with its
    closed loop, so the process went on without KeyboardInterrupt."""
    if choice == "uvloop" and not HAVE_UVLOOP:
        pytest.skip("uvloop is not installed here")
    before = {sig: signal.getsignal(sig) for sig in server_loop.LOOP_SIGNALS}
    with pytest.raises(OSError):
        server_loop.run(_take_the_stop_signals_and_fail(), choice)
    assert {sig: signal.getsignal(sig) for sig in server_loop.LOOP_SIGNALS} == before


def test_an_unknown_choice_is_refused() -> None:
    with pytest.raises(ValueError):
        server_loop.loop_factory("trio")


@pytest.mark.parametrize("choice", ["asyncio", "auto"])
@pytest.mark.slow
def test_mnk_server_runs_on_the_loop_asked_for(tmp_path: Path, choice: str) -> None:
    """``--loop`` reaches the running server: its start-up line names the loop it runs on."""
    port = free_port()
    cmd = [MNK_SERVER, "--no-bots", "--memory", "--port", str(port), "--loop", choice]
    proc = subprocess.Popen(cmd, cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        deadline = time.monotonic() + 60
        line = ""
        while "listening" not in line:
            assert time.monotonic() < deadline and proc.poll() is None, "the server did not start"
            line = proc.stderr.readline()
    finally:
        proc.terminate()
        proc.wait(30)
    expected = "uvloop" if choice == "auto" and HAVE_UVLOOP else "asyncio"
    assert f"({expected} loop" in line  # then the database: "(asyncio loop, no database ...)"
    assert proc.returncode == 0


def test_loop_name_of_a_stock_loop() -> None:
    loop = asyncio.new_event_loop()
    try:
        assert server_loop.loop_name(loop) == "asyncio"
    finally:
        loop.close()
