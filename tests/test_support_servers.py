"""The tests' own server harness (``support.servers``): what every real-server test stands on."""

from __future__ import annotations

import socket
from pathlib import Path

from support.servers import ServerProcess, holds, listeners


async def test_a_server_whose_port_was_taken_since_it_was_chosen_listens_on_another(
    tmp_path: Path,
) -> None:
    """A parallel test's server can take the port chosen for this one before it starts: this
    one moves to a free port, and what the test reaches is this server, not the other."""
    server = ServerProcess(str(tmp_path / "a.sqlite3"))
    chosen = server.port
    with socket.socket() as other:
        other.bind(("127.0.0.1", chosen))
        other.listen()
        await server.start()
    try:
        assert server.port != chosen and server.url == f"ws://127.0.0.1:{server.port}"
        assert server.proc is not None and holds(server.proc.pid, listeners(server.port))
        client = await server.client("alice")
        assert (await client.request(type="ping"))["type"] == "pong"
    finally:
        server.kill()
