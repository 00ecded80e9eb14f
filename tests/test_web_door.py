"""The browser front door on the game's port, over real sockets: pages and assets from memory
with ETags, cache headers and a CSP, nothing outside the web folder, GET and HEAD only, the
Host and the upgrade's Origin checked, and page requests admitted by a bound of their own,
never the game sockets'."""

from __future__ import annotations

import asyncio
import fnmatch
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from support.waiting import until
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Origin

from server.shell.web import ASSET, HostCheck, load_assets, same_origin

ROOT = Path(__file__).resolve().parent.parent
WEB = ROOT / "server" / "web"


async def http_get(
    port: int, path: str, method: str = "GET", host: str | None = None, **headers: str
) -> tuple[int, dict[str, str], bytes]:
    """One raw HTTP/1.1 request (GET unless said), the path sent exactly as given."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host or f'127.0.0.1:{port}'}"]
    lines += [f"{name.replace('_', '-')}: {value}" for name, value in headers.items()]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    await writer.drain()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    upgraded = head.startswith(b"HTTP/1.1 101")
    body = b"" if upgraded else await asyncio.wait_for(reader.read(), 10)  # 101: stays open
    writer.close()
    head = head.removesuffix(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    fields = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        fields[name.strip().lower()] = value.strip()
    return int(status_line.split()[1]), fields, body


async def test_pages_and_assets_are_served_from_memory_with_etags_and_a_csp(server: Any) -> None:
    status, headers, body = await http_get(server.port, "/")
    version = server.door.version
    assert (
        status == 200 and f'<script type="module" src="/assets/{version}/app.js">' in body.decode()
    )
    csp = headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert headers["x-content-type-options"] == "nosniff"
    routes = ("/r/k7m2qx", "/g/g_abc123", "/tv", "/leaderboard", "/@/alice", "/@/%C3%A9mile")
    routes += ("/tournaments", "/t/q7Xk2bZr")
    for route in (*routes, "/analysis", "/analysis?game_id=g_abc123&ply=4", "/g/g_1?analyse"):
        assert (await http_get(server.port, route))[2] == body  # one page: its script routes
    status, headers, js = await http_get(server.port, "/assets/msgpack.js")
    assert status == 200 and headers["content-type"].startswith("text/javascript")
    assert js == (WEB / "msgpack.js").read_bytes()
    etag = headers["etag"]
    status, headers, body = await http_get(server.port, "/assets/msgpack.js", If_None_Match=etag)
    assert (status, body) == (304, b"") and headers["etag"] == etag
    assert headers["cache-control"] == "no-cache"  # a bare name: revalidated


async def test_the_pages_assets_are_cached_for_good_under_their_version(server: Any) -> None:
    """A page links its assets under a version of their contents: a browser keeps them and a
    reload asks for the page alone (websockets' HTTP has no keep-alive to save requests)."""
    _, page_headers, page = await http_get(server.port, "/r/k7m2qx")
    assert page_headers["cache-control"] == "no-cache" and page_headers["etag"]
    links = re.findall(rb'"(/assets/[0-9a-f]{12}/[a-z.]+)"', page)
    assert len(links) == 3  # the style, the icon, the script
    for link in links:
        status, headers, body = await http_get(server.port, link.decode())
        assert status == 200 and body == (WEB / link.decode().rsplit("/", 1)[1]).read_bytes()
        assert headers["cache-control"] == "public, max-age=31536000, immutable"
    status, headers, body = await http_get(server.port, "/assets/0123456789ab/app.js")
    assert status == 200 and headers["cache-control"] == "no-cache"  # an old page's: not kept


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "TRACE", "OPTIONS", "BREW"])
async def test_methods_other_than_get_and_head_get_405(server: Any, method: str) -> None:
    for path in ("/", "/assets/app.js", "/nowhere"):
        status, headers, body = await http_get(server.port, path, method)
        assert status == 405 and headers["allow"] == "GET, HEAD" and b"<html" not in body


async def test_head_gets_the_headers_without_a_body(server: Any) -> None:
    for path in ("/", "/assets/app.js", "/nowhere"):
        _, got, full = await http_get(server.port, path)
        status, headers, body = await http_get(server.port, path, "HEAD")
        assert status in (200, 404) and body == b""
        assert headers["content-length"] == str(len(full)) == got["content-length"]
        assert headers["content-type"] == got["content-type"]


async def test_a_path_that_is_no_page_gets_the_page_with_404(server: Any) -> None:
    """The site's page says "not found" with the way back (its script), status 404 still."""
    _, _, page = await http_get(server.port, "/")
    for path in ("/foo", "/@/", "/r/bad!code", "/leaderboard/x", "/t/", "/t/bad!id"):
        status, headers, body = await http_get(server.port, path)
        assert (status, body) == (404, page) and headers["content-type"].startswith("text/html")
    status, _, body = await http_get(server.port, "/assets/nothing.js")
    assert (status, body) == (404, b"not found\n")  # an asset: plain text


async def test_a_foreign_host_is_refused_pages_and_sockets(server: Any) -> None:
    """DNS rebinding: a foreign name resolving to this server gets neither a page nor a socket."""
    port = server.port
    status, _, body = await http_get(port, "/", host=f"evil.example:{port}")
    assert status == 421 and b"evil.example" in body
    upgrade = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec_WebSocket_Version": "13"}
    upgrade["Sec_WebSocket_Key"] = "dGhlIHNhbXBsZSBub25jZQ=="
    foreign = await http_get(
        port, "/", host=f"evil.example:{port}", Origin=f"http://evil.example:{port}", **upgrade
    )
    assert foreign[0] == 421
    no_origin = await http_get(port, "/", host="x", **upgrade)  # no browser: not checked
    assert no_origin[0] == 101
    async with connect(f"ws://localhost:{port}", origin=Origin(f"http://localhost:{port}")):
        pass  # (with Host localhost: its own origin)
    twice = await http_get(port, "/", host=f"127.0.0.1:{port}\r\nHost: evil.example")
    assert twice[0] == 400  # two names: neither is believed
    for name in ("localhost", "127.0.0.1", "[::1]", "192.168.1.20", "app.localhost"):
        assert (await http_get(port, "/", host=f"{name}:{port}"))[0] == 200, name


def test_the_hosts_served_are_loopback_addresses_and_the_names_given() -> None:
    check = HostCheck(["arena.example", "Box.Lan"])
    assert all(map(check.allows, ["arena.example:8765", "box.lan", "10.0.0.1:80", None]))
    assert not check.allows("evil.example:8765") and not check.allows("arena.example.evil:1")
    assert HostCheck(None).allows("anything.example")


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
    page = (await http_get(server.port, "/"))[2]
    assert status == 404 and body in (b"not found\n", page)


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
    """Page requests under a tight new-socket limit: they have a bound of their own."""

    @pytest.fixture
    def limits_override(self) -> dict[str, float]:
        """Two new game sockets per address at once, then hardly any; pages: 30 at once."""
        return {"hello_rate": 0.01, "hello_burst": 2, "page_rate": 0.01, "page_burst": 30}

    async def test_page_requests_do_not_spend_the_game_sockets_budget(self, server: Any) -> None:
        for _ in range(20):
            assert (await http_get(server.port, "/"))[0] == 200
        for _ in range(2):  # the sockets' burst is all there
            async with connect(server.url):
                pass
        with pytest.raises(InvalidStatus) as refused:
            async with connect(server.url):
                pass
        assert b"too many new connections" in refused.value.response.body
        for _ in range(5):  # 20 + 3 + 5 = 28 requests of the 30
            assert (await http_get(server.port, "/assets/app.js"))[0] == 200
        statuses = [(await http_get(server.port, "/"))[0] for _ in range(4)]
        assert statuses[:2] == [200, 200] and statuses[2:] == [503, 503]  # past the pages' own
        desk = server.guard.desk
        await until(lambda: not desk.accepted and not desk.pages and not server.guard.open)
        assert desk.accepted_total == 0  # every request counted out as it closed


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
