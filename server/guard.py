"""Admission control for the shell: connections in all and per address, counted for the log."""

from __future__ import annotations

import logging
from collections import Counter
from http import HTTPStatus

from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

log = logging.getLogger("mnk.server")

#: Seconds between the INFO lines that count connections opened and closed.
REPORT_INTERVAL = 60.0


def address_of(ws: ServerConnection, request: Request | None = None, proxied: bool = False) -> str:
    """The client's IP address (the port is left out: limits are per address).

    Behind a trusted reverse proxy (``proxied``) every peer is the proxy: the client is the
    last address the proxy appended to ``X-Forwarded-For``.
    """
    request = request or ws.request
    if proxied and request is not None:
        forwarded = request.headers.get("X-Forwarded-For")
        if forwarded:
            return forwarded.rsplit(",", 1)[-1].strip()[:64]
    peer = ws.remote_address
    return str(peer[0]) if peer else "?"


class ConnectionGuard:
    """Counts open connections per client address and refuses those past the limits."""

    def __init__(self, max_total: int, max_per_address: int, proxied: bool = False) -> None:
        self.max_total, self.max_per_address = max_total, max_per_address
        #: Whether a reverse proxy in front says who the client is (``--trust-proxy``).
        self.proxied = proxied
        self.open: Counter[str] = Counter()
        self.total = 0
        self.opened = self.closed = self.refused = 0
        self._last_report = 0.0

    def full(self, address: str) -> str | None:
        """Why a new connection from ``address`` is refused now, or None."""
        if self.total >= self.max_total:
            return "too many connections to this server"
        if self.open[address] >= self.max_per_address:
            return "too many connections from your address"
        return None

    def process_request(self, ws: ServerConnection, request: Request) -> Response | None:
        """Refuse the HTTP upgrade (503) when the limits are reached: cheap, before any frame."""
        reason = self.full(address_of(ws, request, self.proxied))
        if reason is None:
            return None
        self.refused += 1
        return ws.respond(HTTPStatus.SERVICE_UNAVAILABLE, reason + "\n")

    def address(self, ws: ServerConnection) -> str:
        """The client address an open connection is counted under."""
        return address_of(ws, None, self.proxied)

    def admit(self, address: str) -> str | None:
        """Count a new connection in, or say why it must be closed at once."""
        reason = self.full(address)
        if reason is not None:
            self.refused += 1
            return reason
        self.open[address] += 1
        self.total += 1
        self.opened += 1
        return None

    def release(self, address: str) -> None:
        """A counted connection closed."""
        self.open[address] -= 1
        if self.open[address] <= 0:
            del self.open[address]
        self.total -= 1
        self.closed += 1

    def report(self, now: float) -> None:
        """Log the connection counts once per ``REPORT_INTERVAL`` (at INFO; limits at WARNING)."""
        if now - self._last_report < REPORT_INTERVAL:
            return
        if self._last_report and (self.opened or self.closed or self.refused):
            log.info(
                "connections: %d open from %d addresses; %d opened, %d closed in the last minute",
                self.total, len(self.open), self.opened, self.closed,
            )  # fmt: skip
            if self.refused:
                log.warning("limit connections: %d refused in the last minute", self.refused)
        self._last_report = now
        self.opened = self.closed = self.refused = 0
