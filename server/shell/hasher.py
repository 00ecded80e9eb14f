"""Password jobs (Argon2id) on a pool of their own, off the event loop: at most
:data:`HASH_THREADS` hashes at once, however many logins arrive, so a flood cannot slow the
games (the arena bounds the jobs queued behind them and answers ``busy`` past that)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from server.core.outputs import Auth, AuthResult, Out
from server.core.ports import PasswordDesk
from server.shell.peer import Peer
from server.storage.base import Storage

log = logging.getLogger("mnk.server")

#: Hashes running at once at most (each takes ~64 MiB and tens of ms of one core).
HASH_THREADS = 2


class Hasher:
    """Runs the arena's :class:`Auth` jobs: a store read and an Argon2id hash or verify."""

    def __init__(
        self,
        desk: PasswordDesk,
        store: Storage,
        answer: Callable[[Peer, str | None, list[Out]], None],
        *,
        spawn: Callable[[Coroutine[Any, Any, None]], asyncio.Task[None]],
        hasher: PasswordHasher | None = None,
    ) -> None:
        self.desk, self.store, self.answer, self.spawn = desk, store, answer, spawn
        #: argon2-cffi's defaults (RFC 9106's low-memory choice: Argon2id, t=3, 64 MiB, p=4).
        self.ph = hasher or PasswordHasher()
        #: What an unknown account's password is checked against, so it takes as long.
        self._dummy = self.ph.hash("not a password of anyone's")
        self._pool = ThreadPoolExecutor(HASH_THREADS, thread_name_prefix="mnk-hash")

    def close(self) -> None:
        """Stop the hashing threads (jobs under way are dropped)."""
        self._pool.shutdown(wait=False, cancel_futures=True)

    def start(self, peer: Peer, auth: Auth) -> None:
        """Run ``auth`` in a task cancelled with ``peer``'s connection (or drop it now)."""
        if peer.closed:
            self.desk.dropped(peer.conn, auth)
            return
        task = self.spawn(self._run(peer, auth))
        peer.lookups.add(task)
        task.add_done_callback(peer.lookups.discard)

    async def _run(self, peer: Peer, auth: Auth) -> None:
        before = peer.conn.pid
        try:
            loop = asyncio.get_running_loop()
            result = await loop.run_in_executor(self._pool, self.job, auth)
        except asyncio.CancelledError:
            self.desk.dropped(peer.conn, auth)  # the asker left
            return
        except Exception:
            log.exception("a password job (%s) failed", auth.action)  # never the password
            result = AuthResult(failed=True)
        if peer.closed:
            self.desk.dropped(peer.conn, auth)
            return
        self.answer(peer, before, self.desk.answer(peer.conn, auth, result))

    def job(self, auth: Auth) -> AuthResult:
        """What ``auth`` finds (on a hashing thread)."""
        account = self.store.account(auth.name_key)
        if auth.action == "register":
            if account is not None:  # taken: no hash needed
                return AuthResult(account)
            return AuthResult(None, False, self.ph.hash(auth.password))
        usable = account is not None and account.kind == "human" and account.password_hash
        stored = account.password_hash if usable and account is not None else None
        verified = self._verify(stored or self._dummy, auth.password) and stored is not None
        if auth.action == "change_password" and verified and auth.new is not None:
            return AuthResult(account, True, self.ph.hash(auth.new))
        return AuthResult(account, verified)

    def _verify(self, stored: str, password: str) -> bool:
        try:
            return self.ph.verify(stored, password)
        except (VerificationError, InvalidHashError):
            return False
