"""``mnk-client``: open the pygame client against a server, or against an embedded local one."""

from __future__ import annotations

import argparse
import contextlib
import getpass
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence

from client.address import server_url
from client.settings import Settings

DEFAULT_SERVER = "ws://127.0.0.1:8765"


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line: ``[--server URL] [--name NAME] [--local]``."""
    parser = argparse.ArgumentParser(prog="mnk-client", description="Play m,n,k-games.")
    parser.add_argument(
        "--server",
        default=DEFAULT_SERVER,
        type=server_address,
        help=f"host, host:port or ws(s)://host:port (default {DEFAULT_SERVER})",
    )
    parser.add_argument("--name", default=None, help="your name (default: your login name)")
    parser.add_argument(
        "--local",
        action="store_true",
        help="start a private local server (its games live in a temporary folder, deleted on exit)",
    )
    return parser.parse_args(argv)


def server_address(text: str) -> str:
    """``--server`` as a URL: the same forms as the lobby's server box (``host[:port]``, ws://)."""
    url = server_url(text)
    if url is None:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a server address; try 192.168.1.20, host:8765 or ws://host:8765"
        )
    return url


def default_name() -> str:
    """The user's login name, cut to the protocol's 32 characters."""
    try:
        name = getpass.getuser()
    except Exception:  # no login name in some containers
        name = "player"
    return (name or "player")[:32]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 15.0) -> None:
    """Block until the local server accepts connections (or fail if it exits or times out)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"the local server exited with code {proc.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise RuntimeError("the local server did not start in time")


@contextlib.contextmanager
def local_server() -> Iterator[str]:
    """Run ``python -m server`` on a free port with a temporary database; yield its URL."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="mnk-local-") as tmp:
        db = os.path.join(tmp, "arena.db")
        cmd = [
            sys.executable,
            "-m",
            "server",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--db",
            db,
        ]
        proc = subprocess.Popen(cmd)
        try:
            wait_for_port(port, proc)
            yield f"ws://127.0.0.1:{port}"
        finally:
            proc.terminate()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def start_choice(
    settings: Settings, url: str, name: str, ask: bool = True
) -> tuple[str, str | None, str]:
    """The name, the session to resume (None: a fresh guest) and the first scene for ``url``."""
    remembered = settings.load(url)
    if remembered is None:
        return name, None, "login" if ask else "lobby"
    return remembered.name or name, remembered.session, "lobby"


def run_client(url: str, name: str, *, ask: bool = True) -> None:
    """Open the window and play until it is closed.

    The start screen (log in / register / guest) shows unless a choice is remembered for this
    server (client/settings.py): an account's session then resumes it, a guest goes straight
    to the lobby. ``ask`` False (``--local``: a throwaway server) starts as a guest.
    """
    from client.app import App
    from client.net import NetClient
    from client.settings import default_path

    settings = Settings(default_path()) if ask else Settings(None)
    name, session, scene = start_choice(settings, url, name, ask)
    net = NetClient(url, name, session=session)
    net.start()
    try:
        App(net, name=name, scene=scene, settings=settings, resuming=session is not None).run()
    finally:
        net.close()
        import pygame

        pygame.quit()


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``mnk-client`` console script."""
    args = parse_args(argv)
    name = (args.name or default_name()).strip()[:32] or "player"
    try:
        if args.local:
            with local_server() as url:
                run_client(url, name, ask=False)
        else:
            run_client(args.server, name)
    except RuntimeError as exc:
        print(f"mnk-client: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0
