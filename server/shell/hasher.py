"""Password jobs (Argon2id) on a pool of their own, off the event loop: at most
:data:`HASH_THREADS` hashes at once, however many logins arrive, so a flood cannot slow the
games (the arena bounds the jobs queued behind them and answers ``busy`` past that)."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from server.core.arena import Arena
from server.core.outputs import Auth, AuthResult, Out
from server.shell.peer import Peer
from server.storage.base import Storage

if TYPE_CHECKING:
    from argon2 import PasswordHasher

log = logging.getLogger("mnk.server")

#: Hashes running at once at most (each takes ~64 MiB and tens of ms of one core).
HASH_THREADS = 2


class Hasher:
    """Runs the arena's :class:`Auth` jobs: a store read and an Argon2id hash or verify."""

    def __init__(
        self,
        arena: Arena,
        store: Storage,
        answer: Callable[[Peer, str | None, list[Out]], None],
        spawn: Callable[[Coroutine[Any, Any, None]], asyncio.Task[None]],
        hasher: PasswordHasher | None = None,
    ) -> None:
        self.arena, self.store, self.answer, self.spawn = arena, store, answer, spawn
        #: argon2-cffi's defaults (RFC 9106's low-memory choice: Argon2id, t=3, 64 MiB, p=4),
        #: made by the first job: a server nobody logs in to never loads argon2 (issue 49).
        self._ph = hasher
        #: What an unknown account's password is checked against, so it takes as long.
        self._dummy = ""
        self._first = threading.Lock()
        self._pool = ThreadPoolExecutor(HASH_THREADS, thread_name_prefix="mnk-hash")

    def close(self) -> None:
        """Stop the hashing threads (jobs under way are dropped)."""
        self._pool.shutdown(wait=False, cancel_futures=True)

    def start(self, peer: Peer, auth: Auth) -> None:
        """Run ``auth`` in a task cancelled with ``peer``'s connection (or drop it now)."""
        if peer.closed:
            self.arena.accounts.dropped(peer.conn, auth)
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
            self.arena.accounts.dropped(peer.conn, auth)  # the asker left
            return
        except Exception:
            log.exception("a password job (%s) failed", auth.action)  # never the password
            result = AuthResult(failed=True)
        if peer.closed:
            self.arena.accounts.dropped(peer.conn, auth)
            return
        self.answer(peer, before, self.arena.accounts.answer(peer.conn, auth, result))

    @property
    def ph(self) -> PasswordHasher:
        """The hasher, made (and the dummy hash with it) on first use, on a hashing thread."""
        with self._first:
            if self._ph is None:
                from argon2 import PasswordHasher

                self._ph = PasswordHasher()
            if not self._dummy:
                self._dummy = self._ph.hash("not a password of anyone's")
            return self._ph

    def job(self, auth: Auth) -> AuthResult:
        """What ``auth`` finds (on a hashing thread)."""
        ph = self.ph
        account = self.store.account(auth.name_key)
        if auth.action == "register":
            if account is not None:  # taken: no hash needed
                return AuthResult(account)
            return AuthResult(None, False, ph.hash(auth.password))
        usable = account is not None and account.kind == "human" and account.password_hash
        stored = account.password_hash if usable and account is not None else None
        verified = self._verify(stored or self._dummy, auth.password) and stored is not None
        if auth.action == "change_password" and verified and auth.new is not None:
            return AuthResult(account, True, ph.hash(auth.new))
        return AuthResult(account, verified)

    def _verify(self, stored: str, password: str) -> bool:
        from argon2.exceptions import InvalidHashError, VerificationError

        try:
            return self.ph.verify(stored, password)
        except (VerificationError, InvalidHashError):
            return False
