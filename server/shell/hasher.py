"""Password jobs (Argon2id) on a pool of their own, off the event loop, shared fairly.

At most :data:`HASH_THREADS` hashes run at once however many logins arrive, so a flood cannot
slow the games. Jobs wait in a queue per address, served round-robin (one address's flood waits
behind itself, not in front of everyone), and jobs of (account, address) pairs that logged in
before have a lane of their own served first. A job a guesser's back-off delays sleeps in its
task before it joins a queue: waiting holds no thread. The arena bounds the jobs per address
and in all, and answers ``busy`` past that.

The cost: Argon2id with 19 MiB, 2 passes, 1 lane (OWASP's first choice for Argon2id). One check
measured 21 ms of CPU on the project's 2-core machine (argon2-cffi's default, 64 MiB x 3 passes
x 4 lanes, took 173 ms): about 45 checks a second per core, 90 on the two threads. Older hashes
still verify and are renewed at the next right password.

The hashing threads run ``HASH_NICE`` below the event loop (Linux sets niceness per thread):
off the loop is not off the machine. In the combined hostile bench a login flood's wrong
guesses took 5.7 s of CPU on these threads in a 20 s attack, more than the loop's own 4.4 s,
on two cores the games needed. At niceness 5 a core the loop also wants gives them about a
quarter of its time (10 gave a tenth, and an honest login took up to 1.7 s of the 2 s allowed
on a machine other jobs saturated), an idle core all of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from server.core.outputs import Auth, AuthResult, Out
from server.core.ports import PasswordDesk
from server.shell.peer import Peer
from server.storage.base import Storage

if TYPE_CHECKING:
    from argon2 import PasswordHasher

log = logging.getLogger("mnk.server")

#: Hashes running at once at most (each takes 19 MiB and ~21 ms of one core).
HASH_THREADS = 2
#: Argon2id's cost (see the module's docstring for the measure it was chosen by).
TIME_COST, MEMORY_KIB, LANES = 2, 19456, 1
#: Niceness the hashing threads add to the server's own: the games' loop first on a busy machine.
HASH_NICE = 5

Job = tuple[Auth, "asyncio.Future[AuthResult]"]


def yield_to_the_loop() -> None:
    """Run the calling thread (a hashing thread, as it starts) ``HASH_NICE`` below the process's
    niceness, so that the event loop wins a contended core (where threads have a niceness of
    their own: Linux; elsewhere nothing changes)."""
    with contextlib.suppress(AttributeError, OSError):
        tid = threading.get_native_id()
        nice = os.getpriority(os.PRIO_PROCESS, tid)
        os.setpriority(os.PRIO_PROCESS, tid, min(19, nice + HASH_NICE))


class FairQueue:
    """Jobs waiting for a hashing thread: a queue per address, served round-robin, and the
    reserved lane (known pairs) served before the rest."""

    def __init__(self) -> None:
        self._lanes: tuple[OrderedDict[str, deque[Job]], ...] = (OrderedDict(), OrderedDict())

    def put(self, job: Job) -> None:
        """Queue ``job`` in its address's queue of its lane."""
        lane = self._lanes[0 if job[0].known else 1]
        lane.setdefault(job[0].lane, deque()).append(job)

    def take(self) -> Job | None:
        """The next job still wanted: the reserved lane first, then round-robin by address."""
        for lane in self._lanes:
            while lane:
                address, jobs = next(iter(lane.items()))
                job = jobs.popleft()
                del lane[address]
                if jobs:
                    lane[address] = jobs  # to the back: the other addresses go first
                if not job[1].done():  # its asker may have left
                    return job
        return None

    def __len__(self) -> int:
        return sum(len(jobs) for lane in self._lanes for jobs in lane.values())


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
        #: Argon2id at the measured cost (``TIME_COST``, ``MEMORY_KIB``, ``LANES``), made by the
        #: first job: a server nobody logs in to never loads argon2 (issue 49).
        self._ph = hasher
        #: What an unknown account's password is checked against, so it takes as long.
        self._dummy = ""
        self._first = threading.Lock()
        self._pool = ThreadPoolExecutor(
            HASH_THREADS, thread_name_prefix="mnk-hash", initializer=yield_to_the_loop
        )
        self.queue = FairQueue()
        self._running = 0

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
            if auth.delay > 0:  # a guesser's back-off: it waits here, holding no thread
                await asyncio.sleep(auth.delay)
            result = await self._queued(auth)
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

    def _queued(self, auth: Auth) -> asyncio.Future[AuthResult]:
        """``auth``'s answer, once its turn in the fair queue came and a thread ran it."""
        future: asyncio.Future[AuthResult] = asyncio.get_running_loop().create_future()
        self.queue.put((auth, future))
        self._pump()
        return future

    def _pump(self) -> None:
        """Give free threads the next jobs of the fair queue."""
        loop = asyncio.get_running_loop()
        while self._running < HASH_THREADS and (job := self.queue.take()) is not None:
            self._running += 1
            done = loop.run_in_executor(self._pool, self.job, job[0])
            done.add_done_callback(lambda d, future=job[1]: self._finished(d, future))

    def _finished(
        self, done: asyncio.Future[AuthResult], future: asyncio.Future[AuthResult]
    ) -> None:
        self._running -= 1
        if not future.done():
            if done.cancelled():
                future.cancel()
            elif (exc := done.exception()) is not None:
                future.set_exception(exc)
            else:
                future.set_result(done.result())
        self._pump()

    @property
    def ph(self) -> PasswordHasher:
        """The hasher, made (and the dummy hash with it) on first use, on a hashing thread."""
        with self._first:
            if self._ph is None:
                from argon2 import PasswordHasher

                self._ph = PasswordHasher(TIME_COST, MEMORY_KIB, LANES)
            if not self._dummy:
                self._dummy = self._ph.hash("not a password of anyone's")
            return self._ph

    def job(self, auth: Auth) -> AuthResult:
        """What ``auth`` finds (on a hashing thread)."""
        ph = self.ph
        account = self.store.account(auth.name_key)
        if account is not None and account.name != auth.name and auth.action != "register":
            account = self.store.account_named(auth.name) or account  # an older look-alike
        if auth.action == "register":
            if account is not None:  # taken: no hash needed
                return AuthResult(account)
            return AuthResult(None, False, ph.hash(auth.password))
        usable = account is not None and account.kind == "human" and account.password_hash
        stored = account.password_hash if usable and account is not None else None
        if auth.action == "reset_password":
            ok = stored is not None and account is not None
            ok = ok and self.store.reset_code_valid(account, auth.password, time.time())
            new = ph.hash(auth.new) if ok and auth.new is not None else None
            return AuthResult(account, ok, new)
        verified = self._verify(stored or self._dummy, auth.password) and stored is not None
        if auth.action == "change_password" and verified and auth.new is not None:
            return AuthResult(account, True, ph.hash(auth.new))
        if verified and stored is not None and ph.check_needs_rehash(stored):
            return AuthResult(account, True, ph.hash(auth.password))  # renewed at today's cost
        return AuthResult(account, verified)

    def _verify(self, stored: str, password: str) -> bool:
        from argon2.exceptions import InvalidHashError, VerificationError

        try:
            return self.ph.verify(stored, password)
        except (VerificationError, InvalidHashError):
            return False
