"""``wss://``: the server speaks TLS with a throwaway self-signed certificate; clients trust it."""

from __future__ import annotations

import asyncio
import shutil
import ssl
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from support.clients import RawClient
from support.servers import bot_env
from websockets.asyncio.client import connect

from server.core.arena import Arena
from server.core.limits import Limits
from server.shell.server import ArenaServer, ServerConfig

pytestmark = [
    pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl"),
    pytest.mark.slow,
]  # a real bot process over wss


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for localhost and 127.0.0.1, made with ``openssl req``."""
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    cmd = ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
    cmd += ["-keyout", str(key), "-out", str(cert), "-subj", "/CN=localhost"]
    cmd += ["-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"]
    subprocess.run(cmd, check=True, capture_output=True, timeout=60)
    return cert, key


@pytest.fixture
async def tls_server(certificate: tuple[Path, Path]) -> AsyncIterator[ArenaServer]:
    """An in-memory server that serves wss:// only (plus its loopback listener for its bots)."""
    cert, key = certificate
    config = ServerConfig(port=0, certfile=str(cert), keyfile=str(key))
    server = ArenaServer(Arena(limits=Limits(), durable=False), config)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


async def test_a_raw_client_and_a_real_bot_connect_over_wss(
    tls_server: Any, certificate: tuple[Path, Path]
) -> None:
    cert, _key = certificate
    url = f"wss://localhost:{tls_server.port}"
    trust = ssl.create_default_context(cafile=str(cert))
    client = RawClient(await connect(url, ssl=trust, compression=None))
    await client.hello("alice")
    with pytest.raises(ssl.SSLError):  # an untrusting client refuses the certificate
        await connect(url, ssl=ssl.create_default_context(), open_timeout=10)
    env = {**bot_env(tls_server, "tlsbot"), "SSL_CERT_FILE": str(cert)}
    cmd = [sys.executable, "-m", "bots", "--server", url, "--engine", "random", "--name", "tlsbot"]
    bot = subprocess.Popen([*cmd, "--log-level", "WARNING"], env=env)
    try:
        for _ in range(400):
            bots = (await client.request(type="list_bots"))["bots"]
            if any(b["name"] == "tlsbot" and b["online"] for b in bots):
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the bot did not connect over wss://")
        joined = await client.request(type="create_room", game="tictactoe", bot="tlsbot", seat=0)
        await client.request(type="move", room=joined["room"], x=1, y=1)
        assert (await client.expect("moved", seat=1, timeout=20))["room"] == joined["room"]
    finally:
        bot.terminate()
        await asyncio.to_thread(bot.wait, 15)
        await client.close()
    assert tls_server.local_url.startswith("ws://127.0.0.1:")  # the built-in bots' way in
