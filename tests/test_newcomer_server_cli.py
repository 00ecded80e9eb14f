"""``mnk-server``'s numeric options: refused at start with one line, never wrapped."""

from __future__ import annotations

import re
import socket
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
        ["--burst", "0"],
        ["--reconnect-grace", "-1"],
        ["--bot-move-timeout", "0"],
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
    assert build_parser().parse_args(["--hello-rate", "inf"]).hello_rate == float("inf")


@pytest.mark.slow
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


@pytest.mark.slow
def test_keys_refuse_to_make_a_database(tmp_path: Path) -> None:
    for action in (["add", "mybot"], ["list"], ["revoke", "mybot"]):
        done = subprocess.run(
            [MNK_SERVER, "keys", *action], cwd=tmp_path, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 1 and done.stdout == ""
        assert done.stderr.startswith(f"mnk-server keys: no database at {tmp_path}/mnk-arena")
        assert list(tmp_path.iterdir()) == []


def test_keys_after_a_failed_start_still_find_no_database(tmp_path: Path) -> None:
    from server.cli import main

    (tmp_path / "made").mkdir()
    db = str(tmp_path / "made" / "arena.sqlite3")
    with socket.socket() as busy:  # a start that fails: nothing made
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        with pytest.raises(SystemExit, match="in use"):
            main(["--no-bots", "--db", db, "--port", str(busy.getsockname()[1])])
    assert list((tmp_path / "made").iterdir()) == []
    with pytest.raises(SystemExit) as added:
        main(["keys", "add", "mybot", "--db", db])
    assert added.value.code == 1 and not Path(db).exists()


@pytest.mark.slow
def test_a_start_that_fails_leaves_nothing_behind(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        done = subprocess.run(
            [MNK_SERVER, "--no-bots", "--port", str(busy.getsockname()[1])],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode != 0 and "in use" in done.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_an_unknown_bot_engine_is_refused_at_start(tmp_path: Path) -> None:
    done = subprocess.run(
        [MNK_SERVER, "--port", "0", "--bots", "minimax", "nosuchengine"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "mnk-server: --bots nosuchengine: unknown engine 'nosuchengine'; known: "
        "minimax[:level=N], minimax-v1[:level=N], random, novice, module:Class, piskvork:PATH"
    ]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_mnk_bot_check_says_whether_an_engine_plays() -> None:
    ok = subprocess.run([sys.executable, "-m", "bots", "--engine", "random", "--check"], timeout=60)
    assert ok.returncode == 0


@pytest.mark.slow
def test_the_start_up_line_names_the_database(tmp_path: Path) -> None:
    from server.cli import db_label

    assert db_label("postgresql://mnk:SECRET@db:5432/mnk") == "postgresql://db:5432/mnk"
    proc = subprocess.Popen(
        [MNK_SERVER, "--no-bots", "--port", "0", "--db", "games.db"],
        cwd=tmp_path,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        line = ""
        while "listening" not in line:
            line = proc.stderr.readline()
            assert line, "the server exited before listening"
        assert f"database {tmp_path / 'games.db'})" in line, line
        assert re.search(r"play in a browser at http://127\.0\.0\.1:\d+/$", line), line
    finally:
        proc.terminate()
        proc.wait(30)


def test_the_link_to_open_is_http_on_an_address_a_browser_can_open() -> None:
    from server.cli import build_parser, page_link

    def link(*argv: str) -> str:
        return page_link(build_parser().parse_args(list(argv)), 8765)

    assert link() == "http://127.0.0.1:8765/"
    assert link("--host", "0.0.0.0") == "http://127.0.0.1:8765/"  # this machine's own
    assert link("--host", "::1") == "http://[::1]:8765/"
    assert link("--host", "arena.lan", "--certfile", "c.pem") == "https://arena.lan:8765/"


def test_the_names_served_by_default_keep_loopback_the_bound_host_and_deploys_working() -> None:
    from server.cli import allowed_hosts, build_parser
    from server.shell.peer import ServerConfig

    def names(*argv: str) -> tuple[str, ...] | None:
        args = build_parser().parse_args(list(argv))
        return ServerConfig(args.host, allowed_hosts=allowed_hosts(args)).served_names()

    assert names() == ("127.0.0.1",)  # (and any address, and localhost: see HostCheck)
    assert names("--host", "0.0.0.0") == ()
    assert names("--host", "box.lan", "--allowed-hosts", "a.example, b.example") == (
        "a.example", "b.example", "box.lan",
    )  # fmt: skip
    assert names("--trust-proxy") is None  # the proxy routes only its own names
    assert names("--certfile", "c.pem", "--keyfile", "k.pem") is None  # so does a certificate
    assert names("--trust-proxy", "--allowed-hosts", "arena.example.org") == (
        "arena.example.org", "127.0.0.1",
    )  # fmt: skip
    assert names("--allowed-hosts", "*") is None
