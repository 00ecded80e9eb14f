"""``GET /t/ID/games.zip``: an event's finished games, each as the history's ``.psq`` export
writes it, and its results (``results.json``: the ``tournament`` message with every game), in
one archive built by the server.

The event's games are listed on the loop (the event lives there); every record is read from the
store and the archive written on a thread of its own, one archive at a time (a second request
waits for it; past ``MAX_WAITING`` it is refused), so the loop never waits on the store nor on
compression. Bounded: at most ``MAX_GAMES`` records an archive (the first finished; an event
holds at most 64 x 63 / 2 x 10 games), ``ARCHIVE_RATE`` archives a minute per address
(``ARCHIVE_BURST`` at once), and a finished event's archive is kept (``KEEP``) and served again
without a read.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import re
import zipfile
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, Protocol

from protocol.errors import ArenaError
from protocol.wire import Message
from server.shell.front import Buckets

log = logging.getLogger("mnk.server")

#: Records in one archive at most (the first finished games of a bigger event).
MAX_GAMES = 2000
#: Archives one address may ask for: per second, and at once.
ARCHIVE_RATE, ARCHIVE_BURST = 6 / 60, 3.0
#: Requests waiting for the one archive being built, beyond which they are refused.
MAX_WAITING = 8
#: Finished events' archives kept (the latest asked for), and their bytes in all.
KEEP, KEEP_BYTES = 8, 32 << 20
#: What a player's name may keep in a file name (the rest becomes ``_``).
UNSAFE = re.compile(r"[^\w.-]+")


@dataclass(frozen=True, slots=True)
class Download:
    """An answer: its status, body, type and the file name a browser saves it as."""

    status: HTTPStatus
    body: bytes
    kind: str = "text/plain; charset=utf-8"
    filename: str | None = None


class GameRecords(Protocol):
    """Where the games' records are read (the store's history, ``Storage.get_game``)."""

    def get_game(self, game_id: str, fmt: str = "json") -> dict[str, Any]:
        """One game's record; ``fmt`` ``psq`` adds its ``.psq``."""
        ...


def refused(status: HTTPStatus, text: str) -> Download:
    """A plain-text refusal."""
    return Download(status, text.encode())


class GameArchives:
    """Builds an event's ``games.zip`` off the loop, one at a time, per address rate-limited."""

    def __init__(self, export: Callable[[str], Message | None], store: GameRecords) -> None:
        #: The event's results with every game (the tournaments desk's, read on the loop).
        self.export, self.store = export, store
        self._builder = ThreadPoolExecutor(1, thread_name_prefix="mnk-archive")
        self._one = asyncio.Semaphore(1)
        self._waiting = 0
        self.rates = Buckets(ARCHIVE_RATE, ARCHIVE_BURST)
        self._kept: OrderedDict[str, bytes] = OrderedDict()

    def close(self) -> None:
        """Stop the builder's thread (an archive under way is dropped)."""
        self._builder.shutdown(wait=False, cancel_futures=True)

    async def games(self, tid: str, address: str | None) -> Download:
        """Event ``tid``'s archive for a client at ``address``, or why not: a kept one at
        once, else charged to the address before any work (a stranger's guesses too)."""
        name = f"tournament-{tid}-games.zip"
        kept = self._kept.get(tid)
        if kept is not None:
            self._kept.move_to_end(tid)
            return Download(HTTPStatus.OK, kept, "application/zip", name)
        if address is not None and not self.rates.allow(address):
            return refused(HTTPStatus.TOO_MANY_REQUESTS, "too many archives asked for: wait\n")
        if self._waiting >= MAX_WAITING:
            return refused(HTTPStatus.SERVICE_UNAVAILABLE, "busy building archives: retry\n")
        results = self.export(tid)
        if results is None:
            return refused(HTTPStatus.NOT_FOUND, f"no tournament {tid!r} on this server\n")
        self._waiting += 1
        try:
            async with self._one:
                loop = asyncio.get_running_loop()
                body = await loop.run_in_executor(self._builder, self.build, results)
        except Exception:  # the store went away: the page may ask again
            log.exception("archive of tournament %s failed", tid)
            return refused(HTTPStatus.SERVICE_UNAVAILABLE, "the games could not be read\n")
        finally:
            self._waiting -= 1
        if results["status"] == "finished":
            self._keep(tid, body)
        return Download(HTTPStatus.OK, body, "application/zip", name)

    def _keep(self, tid: str, body: bytes) -> None:
        """Keep a finished event's archive (the latest few, bounded in bytes)."""
        self._kept[tid] = body
        self._kept.move_to_end(tid)
        while len(self._kept) > KEEP or sum(map(len, self._kept.values())) > KEEP_BYTES:
            self._kept.popitem(last=False)

    def build(self, results: Message) -> bytes:
        """The archive (on the builder's thread): each finished game's ``.psq`` and
        ``results.json`` (naming the games left out: a record not in the store yet, or past
        ``MAX_GAMES``)."""
        names = {e["id"]: UNSAFE.sub("_", e["name"]) or "_" for e in results["entrants"]}
        done = [g for g in results["games"] if g["result"] is not None and g["game_id"]]
        buffer = io.BytesIO()
        left_out: list[str] = [g["key"] for g in done[MAX_GAMES:]]
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for game in done[:MAX_GAMES]:
                psq = self._psq(game["game_id"])
                if psq is None:
                    left_out.append(game["key"])
                    continue
                first, second = (names.get(p, "unknown") for p in game["players"])
                archive.writestr(f"{game['key']}_{first}_vs_{second}.psq", psq)
            summary: dict[str, Any] = {**results, "archived": len(done) - len(left_out)}
            summary["left_out"] = left_out
            archive.writestr("results.json", json.dumps(summary, indent=2) + "\n")
        return buffer.getvalue()

    def _psq(self, game_id: str) -> str | None:
        """A game's ``.psq`` as the history exports it (None: not in the store)."""
        try:
            return str(self.store.get_game(game_id, "psq")["psq"])
        except ArenaError as exc:
            log.info("archive: game %s left out: %s", game_id, exc.message)
            return None
