"""The browser front door on the game's port, over real sockets: pages and assets from memory
with ETags and a CSP, nothing outside the web folder, the upgrade's Origin checked, and page
requests counted against the same per-address limits as game connections."""

from __future__ import annotations

import asyncio
import fnmatch
import tomllib
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Origin

from server.shell.web import ASSET, load_assets, same_origin

ROOT = Path(__file__).resolve().parent.parent
WEB = ROOT / "server" / "web"


async def http_get(port: int, path: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    """One raw HTTP/1.1 GET, the path sent exactly as given (no client tidies it up)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    lines = [f"GET {path} HTTP/1.1", f"Host: 127.0.0.1:{port}"]
    lines += [f"{name.replace('_', '-')}: {value}" for name, value in headers.items()]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    await writer.drain()
    raw = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    head, _, body = raw.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    fields = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        fields[name.strip().lower()] = value.strip()
    return int(status_line.split()[1]), fields, body


async def test_pages_and_assets_are_served_from_memory_with_etags_and_a_csp(server: Any) -> None:
    status, headers, body = await http_get(server.port, "/")
    assert status == 200 and b'<script type="module" src="/assets/app.js">' in body
    csp = headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert headers["x-content-type-options"] == "nosniff"
    routes = ("/r/k7m2qx", "/g/g_abc123", "/tv", "/leaderboard", "/@/alice", "/@/%C3%A9mile")
    for route in (*routes, "/analysis", "/analysis?game_id=g_abc123&ply=4", "/g/g_1?analyse"):
        assert (await http_get(server.port, route))[2] == body  # one page: its script routes
    status, headers, js = await http_get(server.port, "/assets/msgpack.js")
    assert status == 200 and headers["content-type"].startswith("text/javascript")
    assert js == (WEB / "msgpack.js").read_bytes()
    etag = headers["etag"]
    status, headers, body = await http_get(server.port, "/assets/msgpack.js", If_None_Match=etag)
    assert (status, body) == (304, b"") and headers["etag"] == etag


@pytest.mark.parametrize(
    "path",
    [
        "/assets/../pyproject.toml",
        "/assets/..%2fpyproject.toml",
        "/assets/%2e%2e/server/cli.py",
        "/assets/../../etc/passwd",
        "/assets//etc/passwd",
        "/assets/web.py",
        "/assets/.hidden.js",
        "/../../etc/passwd",
        "/server/web/app.js",
        "/r/../../etc/passwd",
        "/@/alice/games",
        "/@/",
        "/leaderboard/x",
        "/analysis/x",
        "/analysisx",
    ],
)
async def test_nothing_outside_the_web_folder_is_served(server: Any, path: str) -> None:
    status, _, body = await http_get(server.port, path)
    assert status == 404 and body == b"not found\n"


async def test_a_game_socket_from_another_origin_is_refused(server: Any) -> None:
    with pytest.raises(InvalidStatus) as refused:
        async with connect(server.url, origin=Origin("http://evil.example")):
            pass
    assert refused.value.response.status_code == 403
    port = server.port
    for origin in (Origin(f"http://127.0.0.1:{port}"), None):  # its own page; a non-browser
        async with connect(server.url, origin=origin) as ws:
            await ws.send(b"\x81\xa4type\xa4ping")
            assert await asyncio.wait_for(ws.recv(), 10)


def test_same_origin_compares_scheme_and_host_with_the_request_host() -> None:
    assert same_origin("http://127.0.0.1:8765", "127.0.0.1:8765")
    assert same_origin("https://Arena.Example", "arena.example")
    assert same_origin("https://arena.example", "arena.example:443")
    assert not same_origin("http://arena.example", "arena.example:443")
    assert not same_origin("http://127.0.0.1:8766", "127.0.0.1:8765")
    assert not same_origin("null", "127.0.0.1:8765")
    assert not same_origin("file://", "")
    assert not same_origin("http://evil.example", None)
    assert same_origin("http://other.example", "arena.example", {"http://other.example"})


class TestLimits:
    """Page requests under a tight new-connection limit."""

    @pytest.fixture
    def limits_override(self) -> dict[str, float]:
        """Three new connections per address at once, then hardly any."""
        return {"hello_rate": 0.01, "hello_burst": 3}

    async def test_page_requests_count_against_the_per_address_limits(self, server: Any) -> None:
        for _ in range(3):
            assert (await http_get(server.port, "/"))[0] == 200
        status, _, body = await http_get(server.port, "/assets/app.js")
        assert status == 503 and b"too many new connections" in body


def test_every_web_file_is_package_data_and_served() -> None:
    """A fresh ``pip install .`` ships the whole folder (pyproject's package data)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["server"]
    files = sorted(p.name for p in WEB.iterdir() if p.is_file())
    assert files and "index.html" in files
    for name in files:
        assert any(fnmatch.fnmatch(f"web/{name}", pattern) for pattern in patterns), name
        assert ASSET.match(f"/assets/{name}"), name
    assert sorted(load_assets()) == files
