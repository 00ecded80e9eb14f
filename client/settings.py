"""The client's remembered settings: per server, how the user chose to play last time.

One small JSON file (``$MNK_CLIENT_CONFIG``, else ``$XDG_CONFIG_HOME/mnk-arena/client.json``,
else ``~/.config/mnk-arena/client.json``) keyed by server URL. It keeps the login choice
("account" or "guest"), the name and, for an account, the device's session token, which the
next start sends in ``hello`` to resume logged in. A password is never written: it is typed,
sent once in ``login``/``register`` and dropped. The file is written atomically and readable by
its owner only (the session token logs this device in).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger("mnk.client")

#: At most this many servers are remembered (the newest kept): the file stays small.
MAX_SERVERS = 50


@dataclass(frozen=True, slots=True)
class Remembered:
    """How to sign in to one server: as ``account`` (with its session) or as a ``guest``."""

    mode: str
    name: str
    session: str | None = None


def default_path() -> Path:
    """Where the settings live (see the module docstring)."""
    explicit = os.environ.get("MNK_CLIENT_CONFIG")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "mnk-arena" / "client.json"


class Settings:
    """The settings file (``path`` None: kept in memory only, as the tests' app does)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.servers: dict[str, dict[str, str]] = self._read()

    def _read(self) -> dict[str, dict[str, str]]:
        if self.path is None or not self.path.exists():
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:  # a damaged file: start afresh, say so in the log
            log.warning("ignoring unreadable settings %s: %s", self.path, exc)
            return {}
        servers = data.get("servers") if isinstance(data, dict) else None
        if not isinstance(servers, dict):
            return {}
        return {str(k): v for k, v in servers.items() if isinstance(v, dict)}

    def load(self, url: str) -> Remembered | None:
        """The choice remembered for ``url`` (None: ask the user)."""
        entry = self.servers.get(url)
        if entry is None or entry.get("mode") not in ("account", "guest"):
            return None
        session = entry.get("session")
        if entry["mode"] == "account" and not isinstance(session, str):
            return None
        return Remembered(
            str(entry["mode"]),
            str(entry.get("name", ""))[:32],
            session if entry["mode"] == "account" else None,
        )

    def save(self, url: str, choice: Remembered) -> None:
        """Remember ``choice`` for ``url`` (a guest's session is not kept)."""
        entry = {"mode": choice.mode, "name": choice.name}
        if choice.mode == "account" and choice.session:
            entry["session"] = choice.session
        self.servers.pop(url, None)
        self.servers[url] = entry
        while len(self.servers) > MAX_SERVERS:
            self.servers.pop(next(iter(self.servers)))
        self._write()

    def forget(self, url: str) -> None:
        """Forget ``url``'s choice (after a logout, or a session the server no longer takes)."""
        if self.servers.pop(url, None) is not None:
            self._write()

    def _write(self) -> None:
        if self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".client-", dir=self.path.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as f:  # mkstemp: mode 0600
                json.dump({"servers": self.servers}, f, indent=1)
            os.replace(tmp, self.path)
        except OSError as exc:  # a read-only home: play on, just without remembering
            log.warning("could not save settings to %s: %s", self.path, exc)
            with contextlib.suppress(OSError, UnboundLocalError):
                os.unlink(tmp)
