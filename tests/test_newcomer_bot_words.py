"""mnk-bot's words: URLs not Python lists, a bad or revoked key said so, no class names."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.servers import free_port

from bots.cli import refusal
from protocol.session import HelloRefused

MNK_SERVER = str(Path(sys.executable).parent / "mnk-server")
MNK_BOT = str(Path(sys.executable).parent / "mnk-bot")


def test_refusals_in_words() -> None:
    assert "revoked" in refusal(HelloRefused("bad_key", "a bot needs a valid key"))
    assert refusal(HelloRefused("key_revoked", "x")).startswith("the server's operator revoked")
    assert refusal(HelloRefused("bad_message", "the name is taken")) == "the name is taken"


@pytest.fixture
def url(tmp_path: Path):  # type: ignore[no-untyped-def]
    port = free_port()
    proc = subprocess.Popen(
        [MNK_SERVER, "--memory", "--no-bots", "--port", str(port)], stderr=subprocess.PIPE
    )
    assert proc.stderr is not None
    deadline = time.monotonic() + 60
    while b"listening" not in proc.stderr.readline():
        assert time.monotonic() < deadline and proc.poll() is None
    yield f"ws://127.0.0.1:{port}"
    proc.terminate()
    proc.wait(30)


@pytest.mark.slow
def test_a_bad_key_is_one_plain_line(url: str, tmp_path: Path) -> None:
    key = tmp_path / "my.key"
    key.write_text("not-a-key\n")
    done = subprocess.run(
        [MNK_BOT, "--server", url, "--engine", "random", "--key-file", str(key)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"mnk-bot: {url} refused this bot: its key is not valid there"), last
    assert "[" not in last and "revoked" in last


@pytest.mark.slow
def test_piskvork_errors_carry_no_class_names() -> None:
    brain = subprocess.Popen(
        [sys.executable, "-m", "bots", "--piskvork", "--engine", "minimax:level=2"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
    assert brain.stdin is not None and brain.stdout is not None
    out, _ = brain.communicate("START 15\r\nBOARD\r\n7,7,2\r\n7,7,1\r\nDONE\r\nEND\r\n", timeout=60)
    errors = [line for line in out.splitlines() if line.startswith("ERROR")]
    assert errors == ["ERROR 7,7 is occupied"], out
