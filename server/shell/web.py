"""The browser front door: the pages and assets of ``server/web`` over plain HTTP GET (and HEAD)
on the game's own port, and the ``Host`` and ``Origin`` checks on the WebSocket upgrade.

websockets hands every request to ``process_request`` before its handshake: an upgrade goes on
to the game (if its ``Host`` is a name this server serves and its ``Origin``, when it sends
one, is this server's own), anything else is answered here from memory. websockets' HTTP
answers one request per connection (it closes after a response that is not an upgrade: no
keep-alive), so what a page load costs is cut by caching instead: the page links its assets
under a version of their contents (``/assets/VERSION/NAME``), which browsers keep for a year
without asking again; the page itself is revalidated (ETag). The guard admits page requests by
a bound of their own, never the game sockets' (see ``server/shell/guard.py``).
"""

from __future__ import annotations

import hashlib
import ipaddress
import re
from collections.abc import Awaitable, Callable, Iterable
from email.utils import formatdate
from http import HTTPStatus
from importlib import resources
from urllib.parse import urlsplit

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from server.shell.archive import Download
from server.shell.guard import is_upgrade

#: Where the assets live: ``server/web``, a folder of data (no Python) shipped as package data.
PACKAGE, FOLDER = "server", "web"
#: Page routes: each answers with the one page (its script reads the path). ``/@/NAME`` is an
#: account's profile (the name percent-encoded: 32 characters of up to 4 UTF-8 bytes each);
#: ``/analysis`` the analysis board; ``/tournaments`` the events and ``/t/ID`` one event's page.
PAGES = re.compile(
    r"^/(?:|r/[A-Za-z0-9_-]{1,64}|g/[A-Za-z0-9_-]{1,64}|t/[A-Za-z0-9_-]{1,64}|tv|leaderboard"
    r"|analysis|tournaments"
    r"|@/[A-Za-z0-9%._~!$&'()*+,;=:@-]{1,400})$"
)
#: An event's games in one archive (``server/shell/archive.py``), built by the server.
ARCHIVE = re.compile(r"^/t/([A-Za-z0-9_-]{1,64})/games\.zip$")
#: What an asset's name may look like (one flat folder: no slash, no dot-dot), optionally under
#: a version of the assets' contents (the page links them so: cached for good).
ASSET = re.compile(
    r"^/assets/(?:([0-9a-f]{12})/)?([a-z0-9][a-z0-9_-]*\.(?:js|css|svg|png|ico|html))$"
)
#: Methods answered; any other gets 405 with ``Allow``.
METHODS = ("GET", "HEAD")
#: An asset under the current version never changes: kept a year, never revalidated.
IMMUTABLE = "public, max-age=31536000, immutable"
#: The page, and an asset by its bare name: revalidated each time (a 304 has no body).
REVALIDATE = "no-cache"
#: Names a browser may reach this server by, whatever the options: loopback's.
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})
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


def version_of(assets: dict[str, Asset]) -> str:
    """A version of the assets' contents: it changes whenever any of them does."""
    digest = hashlib.sha256()
    for name in sorted(assets):
        digest.update(f"{name} {assets[name].etag}\n".encode())
    return digest.hexdigest()[:12]


def versioned_page(assets: dict[str, Asset], version: str) -> Asset:
    """The page (``index.html``) linking its assets under ``version``: cached for good, and
    the scripts' relative imports resolve under it too."""
    page = assets.get("index.html")
    body = b"" if page is None else page.body
    return Asset(body.replace(b'"/assets/', f'"/assets/{version}/'.encode()), TYPES["html"])


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


def host_name(host: str) -> str:
    """A ``Host`` header's name in lower case, without its port (IPv6 keeps its brackets)."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[: host.find("]") + 1] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class HostCheck:
    """The names this server answers to (``--allowed-hosts``): a page or socket asking for any
    other name is refused, so a foreign name rebound to this server's address (DNS
    rebinding) gets nothing. Addresses written as such and loopback's names always pass."""

    def __init__(self, names: Iterable[str] | None = ()) -> None:
        #: None: any name (a proxy in front, or the certificate, vouches for the name).
        self.names = None if names is None else frozenset(host_name(n) for n in names if n)

    def allows(self, host: str | None) -> bool:
        """Whether a request with this ``Host`` (None: a client that sent none) is served."""
        if host is None or self.names is None:
            return True
        name = host_name(host)
        if name in LOOPBACK_NAMES or name.endswith(".localhost") or name in self.names:
            return True
        try:
            ipaddress.ip_address(name.removeprefix("[").removesuffix("]"))
        except ValueError:
            return False
        return True


class WebDoor:
    """``process_request`` for the game's port: the guard's refusals, the ``Host`` and the
    upgrade's ``Origin`` checks, then pages and assets for everything that is not an upgrade."""

    def __init__(
        self,
        guard: Callable[[ServerConnection, Request], Response | None],
        origins: Iterable[str] = (),
        assets: dict[str, Asset] | None = None,
        *,
        hosts: HostCheck | None = None,
        archives: Callable[[str, str | None], Awaitable[Download]] | None = None,
    ) -> None:
        self.guard = guard
        #: An event's ``games.zip`` for a client address (none: 404).
        self.archives = archives
        self.origins = frozenset(origins)
        self.assets = load_assets() if assets is None else assets
        self.version = version_of(self.assets)
        self.page = versioned_page(self.assets, self.version)
        self.hosts = hosts or HostCheck()

    def __call__(
        self, ws: ServerConnection, request: Request
    ) -> Response | Awaitable[Response] | None:
        """Answer ``request`` here, or None to let the WebSocket handshake go on."""
        refused = self.guard(ws, request)
        if refused is not None:
            return refused
        headers = request.headers
        hosts, origins = headers.get_all("Host"), headers.get_all("Origin")
        if len(hosts) > 1 or len(origins) > 1:
            return self._plain(HTTPStatus.BAD_REQUEST, "more than one Host or Origin\n")
        host, origin = (hosts or [None])[0], (origins or [None])[0]
        upgrade = is_upgrade(request)
        if (origin is not None or not upgrade) and not self.hosts.allows(host):
            name = host_name(host or "")
            text = f"this server does not serve the name {name!r} (see --allowed-hosts)\n"
            return self._plain(HTTPStatus.MISDIRECTED_REQUEST, text)
        if upgrade:
            if origin is None or same_origin(origin, host, self.origins):
                return None  # non-browser clients send no Origin: they go on as ever
            return self._plain(HTTPStatus.FORBIDDEN, "cross-origin game sockets are refused\n")
        if request.method not in METHODS:
            response = self._plain(HTTPStatus.METHOD_NOT_ALLOWED, "method not allowed\n")
            response.headers["Allow"] = ", ".join(METHODS)
            return response
        archive = ARCHIVE.match(request.path.split("?", 1)[0])
        if archive is not None and self.archives is not None:
            client = getattr(ws, "client", None)
            return self._download(self.archives(archive.group(1), client), request.method)
        response = self._route(request)
        if request.method == "HEAD":  # the same headers (Content-Length too), no body
            return Response(response.status_code, response.reason_phrase, response.headers, b"")
        return response

    def _route(self, request: Request) -> Response:
        """The page, an asset, or a 404 (a page saying so, or plain text for an asset)."""
        path = request.path.split("?", 1)[0]
        if PAGES.match(path):
            return self._file(self.page, request, REVALIDATE)
        match = ASSET.match(path)
        if match is not None and match.group(2) in self.assets:
            current = match.group(1) == self.version
            return self._file(
                self.assets[match.group(2)], request, IMMUTABLE if current else REVALIDATE
            )
        if path.startswith("/assets/"):
            return self._plain(HTTPStatus.NOT_FOUND, "not found\n")
        return self._not_found()

    async def _download(self, made: Awaitable[Download], method: str) -> Response:
        """A download built off the loop (an attachment; a refusal as plain text)."""
        download = await made
        headers = self._headers(download.kind)
        headers["Cache-Control"] = "no-store"
        if download.filename is not None:
            headers["Content-Disposition"] = f'attachment; filename="{download.filename}"'
        headers["Content-Length"] = str(len(download.body))
        body = b"" if method == "HEAD" else download.body
        return Response(download.status.value, download.status.phrase, headers, body)

    def _not_found(self) -> Response:
        """The page with status 404: its script shows "not found" and the way back."""
        headers = self._headers(self.page.kind)
        headers["Cache-Control"] = REVALIDATE
        headers["Content-Length"] = str(len(self.page.body))
        return Response(HTTPStatus.NOT_FOUND, "Not Found", headers, self.page.body)

    def _file(self, asset: Asset, request: Request, cache: str) -> Response:
        headers = self._headers(asset.kind)
        headers["ETag"] = asset.etag
        headers["Cache-Control"] = cache
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
        headers["Connection"] = "close"  # websockets' HTTP answers one request per connection
        return headers
