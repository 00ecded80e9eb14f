"""``mnk-server``'s numeric options: refused at start with one line, never wrapped."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from server.cli import build_parser

MNK_SERVER = str(Path(sys.executable).parent / "mnk-server")


@pytest.mark.parametrize(
    "args",
    [
        ["--port", "99999"],
        ["--port", "-1"],
        ["--port", "http"],
        ["--bot-capacity", "0"],
        ["--max-page", "0"],
        ["--max-connections", "-5"],
        ["--rate", "nan"],
        ["--burst", "inf"],
        ["--reconnect-grace", "-1"],
        ["--wal-limit", "0"],
        ["--log-level", "chatty"],
    ],
)
def test_bad_numbers_are_refused_in_one_line(
    args: list[str], capsys: pytest.CaptureFixture
) -> None:
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(args)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"mnk-server: argument {args[0]}"), err


def test_sane_numbers_pass() -> None:
    args = build_parser().parse_args(["--port", "0", "--lookup-cost", "0", "--rate", "2.5"])
    assert (args.port, args.lookup_cost, args.rate) == (0, 0.0, 2.5)
    assert build_parser().parse_args(["--port", "65535", "--log-level", "debug"]).port == 65535


def test_a_wrapped_port_does_not_start(tmp_path: Path) -> None:
    done = subprocess.run(
        [MNK_SERVER, "--no-bots", "--port", "99999"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "mnk-server: argument --port: 99999 is not a port (0-65535) (see mnk-server --help)"
    ]
    assert list(tmp_path.iterdir()) == []
