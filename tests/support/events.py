"""Raw clients beside a synchronous Playwright test (or screenshot tool): an asyncio loop in a
thread of its own, and registered accounts that enter a tournament and play its games (the
second seat resigns each game when told), so a browser page can watch the event change."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any

from support.clients import RawClient, connected, registered
from support.waiting import TIMEOUT, until_answered


class Background:
    """An event loop running in a daemon thread; ``run`` waits for a coroutine's result."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, Any], timeout: float = 2 * TIMEOUT) -> Any:
        """Run ``coro`` on the loop and return its result (its exception, raised here)."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        """Stop the loop and its thread."""
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


class Entrants:
    """Accounts registered over raw sockets to the server at ``ws_url``, by player id."""

    def __init__(self, background: Background, ws_url: str, names: list[str]) -> None:
        self.bg = background

        async def make(name: str) -> RawClient:
            return await connected(ws_url, name)

        async def register() -> list[RawClient]:
            return [await registered(make, name) for name in names]

        made = self.bg.run(register())
        self.clients = {str(c.player): c for c in made}
        self.names = {str(c.player): name for c, name in zip(made, names, strict=True)}

    def join(self, tid: str) -> None:
        """Every entrant enters event ``tid``."""

        async def join() -> None:
            for client in self.clients.values():
                reply = await client.request(type="join_tournament", tournament=tid)
                assert reply["type"] == "tournament", reply

        self.bg.run(join())

    def live(self, tid: str) -> list[dict[str, Any]]:
        """The event's games being played, once there is one (asked until there is)."""
        found: list[dict[str, Any]] = []
        asker = next(iter(self.clients.values()))

        async def any_live() -> bool:
            event = await asker.request(type="get_tournament", tournament=tid)
            found[:] = [g for g in event["games"] if g["result"] is None and g["room"]]
            return bool(found)

        self.bg.run(until_answered(any_live))
        return found

    def ask(self, who: str, **message: Any) -> dict[str, Any]:
        """``who``'s request (an entrant's name) and the server's reply."""
        pid = next(p for p, n in self.names.items() if n == who)
        return self.bg.run(self.clients[pid].request(**message))

    def play(self, game: dict[str, Any], cells: list[tuple[int, int]]) -> None:
        """Play ``cells`` in ``game``, its seats in turn from the first."""

        async def play() -> None:
            for ply, (x, y) in enumerate(cells):
                mover = self.clients[game["players"][ply % 2]]
                reply = await mover.request(type="move", room=game["room"], x=x, y=y, ply=ply)
                assert reply["type"] == "moved", reply

        self.bg.run(play())

    def resign(self, game: dict[str, Any], seat: int = 1) -> None:
        """A seat of ``game`` (the second unless told) resigns it (its ``game_over`` was
        committed)."""
        loser = self.clients[game["players"][seat]]

        async def resign() -> None:
            reply = await loser.request(type="resign", room=game["room"])
            assert reply["type"] == "game_over", reply

        self.bg.run(resign())

    def close(self) -> None:
        """Close every connection, then the loop."""

        async def close() -> None:
            for client in self.clients.values():
                await client.close()

        self.bg.run(close())
        self.bg.close()
