"""Bot keys: operator-issued credentials that prove a connection is the bot whose name it takes.

A key is 32 random bytes (URL-safe text); only its SHA-256 is kept. Each key belongs to one
name, so a key fixes its bot's name and no connection can pass for a bot it holds no key of.
Keys come from the database (``mnk-server keys add``), from ``--keys-file`` and from the
built-in bot pool, which makes a fresh one for each of its bots at every start.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from pathlib import Path

from protocol.errors import ArenaError
from server.core.journal.rows import KeyRow
from server.core.players.names import clean_name, name_key

#: Random bytes per key; a key longer than MAX_KEY characters is not even hashed.
KEY_BYTES = 32
MAX_KEY = 256
#: The database ``mnk-server`` uses when not told otherwise.


def new_key() -> str:
    """A fresh high-entropy key."""
    return secrets.token_urlsafe(KEY_BYTES)


def hash_key(key: str) -> str:
    """What is stored of a key: its SHA-256, so a leaked table lets nobody in."""
    return hashlib.sha256(key.encode()).hexdigest()


class KeyRing:
    """The keys a server accepts: its database's (reloaded) and those given at start (static).

    A static key (``--keys-file``, the built-in pool) wins over a stored one of the same name.
    """

    def __init__(self) -> None:
        self._stored: dict[str, str] = {}
        self._static: dict[str, str] = {}
        self._by_hash: dict[str, str] = {}
        self._hash_of: dict[str, str] = {}
        self._owned: set[str] = set()

    def add(self, name: str, key: str) -> None:
        """Accept ``key`` for the bot ``name`` from now on (a static key)."""
        self._static[clean_name(name)] = hash_key(key)
        self._rebuild()

    def load(self, rows: Iterable[KeyRow]) -> None:
        """Replace the stored keys by ``rows`` (revoked rows are dropped)."""
        self._stored = {r.name: r.key_hash for r in rows if r.revoked_at is None}
        self._rebuild()

    def _rebuild(self) -> None:
        self._hash_of = self._stored | self._static
        self._by_hash = {digest: name for name, digest in self._hash_of.items()}
        self._owned = {name_key(name) for name in self._hash_of}

    def identify(self, key: str) -> str | None:
        """The name ``key`` belongs to, or None for an unknown, revoked or absurd key."""
        if not key or len(key) > MAX_KEY:
            return None
        digest = hash_key(key)
        name = self._by_hash.get(digest)
        if name is None or not hmac.compare_digest(self._hash_of[name], digest):
            return None
        return name

    def holds(self, name: str, key_hash: str) -> bool:
        """Whether ``name``'s key is still ``key_hash`` (not revoked, not replaced)."""
        current = self._hash_of.get(name)
        return current is not None and hmac.compare_digest(current, key_hash)

    def owns(self, name: str) -> bool:
        """Whether ``name`` (or a name that would pass for it) belongs to a bot key."""
        return name_key(name) in self._owned

    def __len__(self) -> int:
        return len(self._hash_of)


def read_keys_file(path: Path) -> list[tuple[str, str]]:
    """``NAME=KEY`` lines (blank lines and ``#`` comments skipped); ValueError when malformed."""
    pairs = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, key = line.rpartition("=")
        if not sep or not key.strip():
            raise ValueError(f"{path}:{number}: expected NAME=KEY")
        try:
            pairs.append((clean_name(name), key.strip()))
        except ArenaError as exc:
            raise ValueError(f"{path}:{number}: {exc.message}") from None
    return pairs
