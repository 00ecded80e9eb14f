"""The browser front door: the pages and assets of ``server/web`` over plain HTTP GET on the
game's own port, and the ``Origin`` check on the WebSocket upgrade.

websockets hands every request to ``process_request`` before its handshake: an upgrade goes on
to the game (if its ``Origin``, when it sends one, is this server's own), anything else is
answered here from memory and the connection closed. Each request is a connection the guard
already counted at accept, so pages share the per-address limits of game connections.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable
from email.utils import formatdate
from http import HTTPStatus
from importlib import resources
from urllib.parse import urlsplit

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

#: Where the assets live: ``server/web``, a folder of data (no Python) shipped as package data.
PACKAGE, FOLDER = "server", "web"
#: Page routes: each answers with the one page (its script reads the path). ``/@/NAME`` is an
#: account's profile (the name percent-encoded: 32 characters of up to 4 UTF-8 bytes each);
#: ``/analysis`` the analysis board.
PAGES = re.compile(
    r"^/(?:|r/[A-Za-z0-9_-]{1,64}|g/[A-Za-z0-9_-]{1,64}|tv|leaderboard|analysis"
    r"|@/[A-Za-z0-9%._~!$&'()*+,;=:@-]{1,400})$"
)
#: What an asset's name may look like (one flat folder: no slash, no dot-dot).
ASSET = re.compile(r"^/assets/([a-z0-9][a-z0-9_-]*\.(?:js|css|svg|png|ico|html))$")
TYPES = {
    "js": "text/javascript; charset=utf-8",
    "css": "text/css; charset=utf-8",
    "svg": "image/svg+xml",
    "png": "image/png",
    "ico": "image/x-icon",
    "html": "text/html; charset=utf-8",
}
#: No inline script or style, nothing from elsewhere, never framed.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; "
    "object-src 'none'"
)
SECURITY = (
    ("Content-Security-Policy", CSP),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "same-origin"),
    ("X-Frame-Options", "DENY"),
)


class Asset:
    """One file served from memory: its bytes, type and ETag."""

    __slots__ = ("body", "etag", "kind")

    def __init__(self, body: bytes, kind: str) -> None:
        self.body, self.kind = body, kind
        self.etag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'


def load_assets() -> dict[str, Asset]:
    """Every file of the web folder by its name, read once (a fresh install serves them)."""
    assets: dict[str, Asset] = {}
    folder = resources.files(PACKAGE).joinpath(FOLDER)
    if not folder.is_dir():
        return assets
    for entry in folder.iterdir():
        name = entry.name
        suffix = name.rsplit(".", 1)[-1]
        if entry.is_file() and suffix in TYPES and ASSET.match("/assets/" + name):
            assets[name] = Asset(entry.read_bytes(), TYPES[suffix])
    return assets


def same_origin(origin: str, host: str | None, allowed: Iterable[str] = ()) -> bool:
    """Whether a browser page at ``origin`` may open a game socket on the server at ``host``
    (the request's ``Host``): only this server's own pages, or origins the operator allowed."""
    if origin in allowed:
        return True
    if host is None:
        return False
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https"):
        return False
    default = ":443" if parts.scheme == "https" else ":80"
    return parts.netloc.lower().removesuffix(default) == host.lower().removesuffix(default)


class WebDoor:
    """``process_request`` for the game's port: the guard's refusals, the upgrade's ``Origin``
    check, then pages and assets for everything that is not an upgrade."""

    def __init__(
        self,
        guard: Callable[[ServerConnection, Request], Response | None],
        origins: Iterable[str] = (),
        assets: dict[str, Asset] | None = None,
    ) -> None:
        self.guard = guard
        self.origins = frozenset(origins)
        self.assets = load_assets() if assets is None else assets

    def __call__(self, ws: ServerConnection, request: Request) -> Response | None:
        """Answer ``request`` here, or None to let the WebSocket handshake go on."""
        refused = self.guard(ws, request)
        if refused is not None:
            return refused
        headers = request.headers
        if "websocket" in headers.get("Upgrade", "").lower():
            origin = headers.get("Origin")
            if origin is None or same_origin(origin, headers.get("Host"), self.origins):
                return None  # non-browser clients send no Origin: they go on as ever
            return self._plain(HTTPStatus.FORBIDDEN, "cross-origin game sockets are refused\n")
        path = request.path.split("?", 1)[0]
        if PAGES.match(path):
            return self._file("index.html", request)
        match = ASSET.match(path)
        if match is None or match.group(1) not in self.assets:
            return self._plain(HTTPStatus.NOT_FOUND, "not found\n")
        return self._file(match.group(1), request)

    def _file(self, name: str, request: Request) -> Response:
        asset = self.assets.get(name)
        if asset is None:
            return self._plain(HTTPStatus.NOT_FOUND, "not found\n")
        headers = self._headers(asset.kind)
        headers["ETag"] = asset.etag
        headers["Cache-Control"] = "no-cache"  # revalidated each time: a 304 has no body
        if asset.etag in request.headers.get("If-None-Match", ""):
            headers["Content-Length"] = "0"
            return Response(HTTPStatus.NOT_MODIFIED, "Not Modified", headers, b"")
        headers["Content-Length"] = str(len(asset.body))
        return Response(HTTPStatus.OK, "OK", headers, asset.body)

    def _plain(self, status: HTTPStatus, text: str) -> Response:
        body = text.encode()
        headers = self._headers("text/plain; charset=utf-8")
        headers["Content-Length"] = str(len(body))
        return Response(status.value, status.phrase, headers, body)

    @staticmethod
    def _headers(kind: str) -> Headers:
        headers = Headers(SECURITY)
        headers["Date"] = formatdate(usegmt=True)
        headers["Content-Type"] = kind
        headers["Connection"] = "close"
        return headers
