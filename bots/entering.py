"""A bot that enters tournaments (``mnk-bot --tournament ID``): it sends ``join_tournament``
for each event at every welcome (a reconnect comes back to an arena it was paused in), and
plays the games the event seats it in as any other (they come as ``joined`` and ``state``).
The event's ``tournament`` messages are only logged: the server runs the event."""

from __future__ import annotations

import logging
from typing import Any

from protocol.session import Session

log = logging.getLogger("mnk.bot")


class Entering:
    """The runner's tournaments (a mixin of :class:`bots.runner.BotRunner`)."""

    state: Session
    #: ``--tournament``: the events to enter, by id; each one's status last logged.
    tournaments: tuple[str, ...] = ()
    announced: dict[str, str]

    async def _send(self, message: dict[str, Any]) -> None:  # BotRunner._send
        raise NotImplementedError

    async def enter_tournaments(self) -> None:
        """Ask to enter (or come back to) every event of ``--tournament``."""
        for tid in self.tournaments:
            await self._send(self.state.request({"type": "join_tournament", "tournament": tid}))

    async def on_entry_check(self, msg: dict[str, Any]) -> None:
        """The server checked us before a rated event (``entry_check_running`` answered our
        join): passed (or let in unchecked), we join again; failed, we say which checks."""
        status = msg.get("status")
        if status in ("passed", "unchecked"):
            log.info("entry check %s: entering again", status)
            await self.enter_tournaments()
        else:
            failed = ", ".join(str(c) for c in msg.get("failed", [])) or "-"
            log.warning("entry check %s; failed checks: %s", status, failed)

    async def on_tournament(self, msg: dict[str, Any]) -> None:
        """An event we entered changed: say when it starts and ends, and where we stand."""
        tid, status = str(msg.get("tournament")), str(msg.get("status"))
        if self.announced.get(tid) == status:
            return
        self.announced[tid] = status
        me = next((e["id"] for e in msg.get("entrants", []) if e["name"] == self.state.name), None)
        rank = next((s["rank"] for s in msg.get("standings", []) if s["player"] == me), None)
        log.info("tournament %s (%s) is %s; our rank %s", tid, msg.get("name"), status, rank)
