"""Rooms made by a ``create_room`` whose answer was lost (the director's node died, or its link
dropped, between the commit and the reply): found again instead of made twice.

Such a room has both bots seated and its game goes on (on the node's adopter, after a death),
so playing the scheduled game again would put a second game of it in the history. Before a
create may be sent again the referee looks for a room it does not know with the same two bots
in the same seats and the same rules, and watches that one. Rooms are told apart only by what
the protocol shows, so the search waits while a twin create (the same bots, seats and rules)
is still unanswered: that twin's room would look the same.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from typing import Any

from bots.tournament.link import CLOSED, Link, pages
from protocol.connection import LinkClosed, NotSent, ServerError

log = logging.getLogger("mnk.tournament")

#: Room options a create sets and its room's ``state`` shows again.
RULES = ("opening", "max_moves", "opening_rule")
#: Lobby pages read per look (100 rooms each at most).
MAX_PAGES = 20


def signature(msg: dict[str, Any]) -> str:
    """What tells a create's room from others: its bots in their seats, game, rules, clock."""
    options = msg.get("options") or {}
    rules = {k: options[k] for k in RULES if k in options}
    return repr((msg["bots"], msg["game"], sorted(rules.items()), msg.get("clock")))


def same_rules(state: dict[str, Any], msg: dict[str, Any]) -> bool:
    """Whether the room ``state`` describes is one ``msg`` would have made."""
    options, asked = state.get("options") or {}, msg.get("options") or {}
    return options.get("bots") == msg["bots"] and all(options.get(k) == asked.get(k) for k in RULES)


class Orphans:
    """The rooms a referee knows (made, claimed or looked at) and its creates under way."""

    def __init__(self, search_s: float = 15.0, ask_s: float = 5.0) -> None:
        #: How long a lost create's room is looked for (a dead node's rooms are listed again
        #: once adopted: its lease and a second or two), and how long one request may take.
        self.search_s, self.ask_s = search_s, ask_s
        self.known: set[str] = set()
        self.creating: Counter[str] = Counter()

    async def create(self, link: Link, msg: dict[str, Any]) -> dict[str, Any] | None:
        """Send the create ``msg``: its answer, or None when it was lost (its room may exist)."""
        sign = signature(msg)
        self.creating[sign] += 1
        try:
            reply = await link.request(msg)
        except NotSent:
            raise
        except (LinkClosed, TimeoutError):
            return None
        finally:
            self.creating[sign] -= 1
        self.known.add(reply["room"])  # in the same step: no search can take it for an orphan
        return reply

    async def find(self, connect: Any, msg: dict[str, Any]) -> tuple[Link, str, dict] | None:
        """The room the unanswered create ``msg`` made, now watched, with its first state;
        None when none turned up in ``search_s``."""
        sign = signature(msg)
        sent = time.time() - 1.0  # the server's clock, give or take: games ended after it
        deadline = time.monotonic() + self.search_s
        while time.monotonic() < deadline:
            await asyncio.sleep(0.5)
            if self.creating[sign]:  # a twin's room would look the same: wait for its answer
                continue
            try:
                link = await connect()
                for room in await self._candidates(link, msg["bots"]):
                    state = await self._look(link, room, msg)
                    if state is not None:
                        log.warning("room %s: made by a create whose answer was lost", room)
                        return link, room, state
                room = await self._ended(link, msg, sent)
                if room is not None:  # over and gone already: the history has its result
                    log.warning("room %s: made by a create whose answer was lost", room)
                    link.feed(room).put_nowait(CLOSED)  # not watched: read from the history
                    return link, room, {"players": [], "moves": []}
            except (ServerError, LinkClosed, TimeoutError) as exc:
                log.info("looking for the room of %s: %s", msg["bots"], exc)
        return None

    async def _candidates(self, link: Link, bots: list[str]) -> list[str]:
        """Rooms in the lobby where ``bots`` play in these seats, not known yet."""
        found: list[str] = []
        ask = {"type": "list_rooms", "limit": 100}
        async for reply in pages(link, ask, self.ask_s, MAX_PAGES):
            found += [
                line["room"]
                for line in reply.get("rooms", [])
                if line.get("players") == bots
                and line.get("status") in ("playing", "over")
                and line["room"] not in self.known
            ]
        return found

    async def _ended(self, link: Link, msg: dict[str, Any], sent: float) -> str | None:
        """The unknown room of a game of ``msg``'s bots in these seats that ended after
        ``sent`` (the history lists finished games only), or None."""
        ask = {"type": "list_games", "player": msg["bots"][0], "limit": 50}
        reply = await link.request(ask, self.ask_s)
        for game in reply.get("games", []):
            room = game.get("room")
            if (
                game.get("players") == msg["bots"]
                and (game.get("ended_at") or 0.0) >= sent
                and room not in self.known
                and game.get("opening") == len((msg.get("options") or {}).get("opening") or ())
            ):
                self.known.add(room)
                return room
        return None

    async def _look(self, link: Link, room: str, msg: dict[str, Any]) -> dict[str, Any] | None:
        """Watch ``room`` and keep it when ``msg`` made it (its state), else leave it."""
        self.known.add(room)  # looked at once: another worker never claims it too
        try:
            await link.request({"type": "join_room", "room": room, "spectate": True}, self.ask_s)
        except ServerError as exc:
            if exc.code == "no_such_room":  # gone since it was listed: the history may have it
                self.known.discard(room)
            raise
        feed = link.feed(room)
        while (state := await asyncio.wait_for(feed.get(), self.ask_s))["type"] != "state":
            if state is CLOSED:
                raise LinkClosed("connection lost while looking at a room")
        if same_rules(state, msg):
            return state
        link.forget(room)
        await link.request({"type": "leave_room", "room": room}, self.ask_s)
        return None
