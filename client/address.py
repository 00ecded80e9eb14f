"""What a user may type for a server, as one WebSocket URL (the command line and the lobby)."""

from __future__ import annotations

#: The port ``mnk-server`` listens on unless told otherwise.
DEFAULT_PORT = 8765


def server_url(text: str) -> str | None:
    """A WebSocket URL from ``host``, ``host:port`` or a ws(s):// URL; None when it is none.

    A bare host gets ``ws://`` and port 8765 (``wss://`` gets 443), so the command line's
    ``--server`` and the lobby's server box accept the same forms.
    """
    text = text.strip()
    if not text or any(c.isspace() for c in text):
        return None
    if "://" not in text:
        text = "ws://" + text
    scheme, _, rest = text.partition("://")
    host = rest.split("/", 1)[0]
    if scheme not in ("ws", "wss") or not host or host.startswith(":"):
        return None
    port = host.rsplit("]", 1)[-1].partition(":")[2]
    if port and not (port.isdigit() and 0 < int(port) <= 65535):
        return None
    if ":" not in host.rsplit("]", 1)[-1]:  # no port (an IPv6 literal keeps its colons)
        text = text.replace(host, f"{host}:{DEFAULT_PORT if scheme == 'ws' else 443}", 1)
    return text
