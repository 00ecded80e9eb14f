"""``mnk-client``'s command line accepts the server forms the lobby's box does."""

from __future__ import annotations

import pytest

from client.address import server_url
from client.cli import parse_args


@pytest.mark.parametrize(
    ("typed", "url"),
    [
        ("127.0.0.1:8765", "ws://127.0.0.1:8765"),
        ("127.0.0.1", "ws://127.0.0.1:8765"),
        ("arena.example:9000", "ws://arena.example:9000"),
        ("ws://host:1234", "ws://host:1234"),
        ("wss://host", "wss://host:443"),
        ("[::1]:9000", "ws://[::1]:9000"),
    ],
)
def test_the_command_line_and_the_lobby_agree(typed: str, url: str) -> None:
    assert server_url(typed) == url
    assert parse_args(["--server", typed]).server == url


@pytest.mark.parametrize("typed", ["http://host:1", "host:99999", "host:port", "a b", ""])
def test_a_bad_address_is_one_line(typed: str, capsys: pytest.CaptureFixture) -> None:
    assert server_url(typed) is None
    with pytest.raises(SystemExit):
        parse_args(["--server", typed])
    assert "is not a server address" in capsys.readouterr().err


def test_the_default_is_the_local_server() -> None:
    assert parse_args([]).server == "ws://127.0.0.1:8765"


def test_keys_and_build_artefacts_are_ignored() -> None:
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    names = ["mybot.key", "seven.key", "abc123__mypyc.cpython-311-x86_64-linux-gnu.so", "build/x"]
    done = subprocess.run(
        ["git", "check-ignore", "--no-index", *names], cwd=root, capture_output=True, text=True
    )
    assert done.stdout.split() == names
