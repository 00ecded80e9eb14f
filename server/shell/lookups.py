"""History queries, session look-ups and password jobs, answered on worker threads: a task
each, cancelled with its connection, counted by the arena until answered or dropped."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from protocol import wire
from protocol.errors import ArenaError, InternalError
from server.core.arena import Arena
from server.core.outputs import Auth, Lookup, Out, Resolve
from server.core.ports import GameFinder, LookupDesk, PasswordDesk
from server.shell.fanout import send_frame
from server.shell.hasher import Hasher
from server.shell.peer import Peer
from server.storage.base import Storage

log = logging.getLogger("mnk.server")

#: Threads answering history lookups (their number in flight is bounded by the arena).
LOOKUP_THREADS = 2


class Lookups:
    """Answers a connection's store look-ups off the event loop."""

    def __init__(
        self,
        arena: Arena,
        store: Storage,
        answer: Callable[[Peer, str | None, list[Out]], None],
        *,
        spawn: Callable[[Coroutine[Any, Any, None]], asyncio.Task[None]],
        desk: LookupDesk,
        games: GameFinder,
        passwords: PasswordDesk,
    ) -> None:
        self.arena, self.store = arena, store
        #: The count of lookups in flight, and where a game looked up for analysis goes.
        self.desk, self.games = desk, games
        #: Delivers what a completed hello says (the server's answer path), and runs a task.
        self.answer, self.spawn = answer, spawn
        self._readers = ThreadPoolExecutor(LOOKUP_THREADS, thread_name_prefix="mnk-history")
        #: Password jobs, on threads of their own.
        self.hasher = Hasher(passwords, store, answer, spawn=spawn)

    def close(self) -> None:
        """Stop the worker threads (queries under way are dropped)."""
        self._readers.shutdown(wait=False, cancel_futures=True)
        self.hasher.close()

    def start(self, peer: Peer, item: Lookup | Resolve | Auth) -> None:
        """Answer ``item`` in a task cancelled with ``peer``'s connection (or drop it now)."""
        if isinstance(item, Auth):
            self.hasher.start(peer, item)
            return
        if peer.closed:
            if isinstance(item, Lookup):
                self.desk.done(peer.conn)
            else:
                self.desk.drop_hello(peer.conn)
            return
        if isinstance(item, Lookup):
            task = self.spawn(self._lookup(peer, item))
        else:
            task = self.spawn(self._resolve_session(peer, item))
        peer.lookups.add(task)
        task.add_done_callback(peer.lookups.discard)

    async def _lookup(self, peer: Peer, item: Lookup) -> None:
        """Answer a history query from the store on a worker thread."""
        try:
            query = getattr(self.store, item.query)  # list_games or get_game
            loop = asyncio.get_running_loop()
            reply = await loop.run_in_executor(self._readers, lambda: query(**item.params))
        except ArenaError as exc:
            reply = wire.error(exc.code, exc.message)
        except asyncio.CancelledError:
            return  # the asker left: nobody waits for the answer
        except Exception:
            log.exception("history query %s failed", item.query)
            exc = InternalError("the server failed on this request")
            reply = wire.error(exc.code, exc.message)
        finally:
            self.desk.done(peer.conn)
        if item.then == "analyse":  # the position of that game goes on to be analysed
            if not peer.closed:
                self.answer(peer, peer.conn.pid, self.games.found(peer.conn, reply))
            return
        if item.request_id is not None:
            reply["id"] = item.request_id
        send_frame([peer.ws], wire.encode(reply))

    async def _resolve_session(self, peer: Peer, item: Resolve) -> None:
        """Look a hello's session up in the shared players table on a worker thread, then
        complete the hello (a resume, or ``bad_session``)."""
        failed = False
        row = account = None
        try:
            if item.bot is not None:  # a bot's one player, by its key's name
                row = await asyncio.to_thread(self.store.bot_by_name, item.bot)
            else:  # an account's session, else a player's (saved by another node)
                account = await asyncio.to_thread(self.store.session_account, item.token_hash)
                if account is None:
                    row = await asyncio.to_thread(self.store.player_by_token, item.token_hash)
        except asyncio.CancelledError:
            self.desk.drop_hello(peer.conn)  # the asker left: only uncounted
            return
        except Exception:
            log.exception("looking a session up failed")
            failed = True
        if peer.closed:
            self.desk.drop_hello(peer.conn)
            return
        self.answer(peer, None, self.arena.session_resolved(peer.conn, account or row, failed))
