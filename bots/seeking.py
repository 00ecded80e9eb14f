"""A bot that seeks its own games (``mnk-bot --seek "gomoku 3+2"``): the pairing plan, and the
runner's part of the conversation (``seek``, ``cancel_seek``, ``seeking``, ``seek_ended``).

The plan keeps one seek open per free seat of the bot's capacity (the server lets a bot hold
up to 3, several in one pool) and seeks again whenever a game ends or a seek ends unpaired, as
lichess-bot's matchmaking does: a bot ladders on its own, against people and other bots.
"""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass, field
from typing import Any

from protocol.session import Session
from protocol.vocab import Status

log = logging.getLogger("mnk.bot")

#: Open seeks the server lets one player hold.
MAX_SEEKS = 3
#: The games a seek may name.
SEEK_GAMES = ("tictactoe", "gomoku", "gomoku-standard", "renju")
#: After a refused seek, how long the plan waits before it asks again (not a flood of errors).
RETRY_S = 30.0

_SPEC = re.compile(r"^\s*([a-z-]+)(?:\s+(\d+(?:\.\d+)?)\+(\d+))?\s*$")


def parse_seek(text: str) -> tuple[str, dict[str, float] | None]:
    """``"gomoku 3+2"`` as ``("gomoku", {"initial_s": 180, "increment_s": 2})``; a game alone
    is untimed (casual only). Raises ValueError with the reason for anything else."""
    match = _SPEC.match(text)
    if match is None:
        raise ValueError(f'--seek {text!r}: write a game and a clock, such as "gomoku 3+2"')
    game, minutes, increment = match.groups()
    if game not in SEEK_GAMES:
        raise ValueError(f"--seek: {game!r} is not one of {', '.join(SEEK_GAMES)}")
    if minutes is None:
        return game, None
    initial = float(minutes) * 60
    if initial <= 0:
        raise ValueError("--seek: the clock needs some time (minutes > 0)")
    return game, {"initial_s": int(initial) if initial.is_integer() else initial,
                  "increment_s": int(increment)}  # fmt: skip


@dataclass
class SeekPlan:
    """What to seek and how many seeks to keep open, and the seeks open or asked for now."""

    game: str
    clock: dict[str, float] | None
    rated: bool = False
    capacity: int = 1
    #: Our open seeks by id (their SEEK maps), and the ``seek`` requests not answered yet.
    open: dict[str, dict[str, Any]] = field(default_factory=dict)
    asking: set[int] = field(default_factory=set)
    #: Until when (loop time) the plan holds back after a refusal.
    quiet_until: float = 0.0

    @classmethod
    def from_text(cls, text: str, rated: bool, capacity: int) -> SeekPlan:
        """The plan of ``--seek TEXT [--seek-rated]`` for a bot of ``capacity`` seats."""
        game, clock = parse_seek(text)
        if rated and clock is None:
            raise ValueError("--seek-rated needs a clock: rated games are timed")
        return cls(game, clock, rated, max(1, capacity))

    def request(self) -> dict[str, Any]:
        """One ``seek`` message of this plan."""
        msg: dict[str, Any] = {"type": "seek", "game": self.game, "rated": self.rated}
        if self.clock is not None:
            msg["clock"] = dict(self.clock)
        return msg

    def wanted(self, playing: int, now: float) -> int:
        """How many more seeks to place: one per free seat, at most :data:`MAX_SEEKS` open."""
        if now < self.quiet_until:
            return 0
        free = min(MAX_SEEKS, self.capacity - playing)
        return max(0, free - len(self.open) - len(self.asking))

    def surplus(self, playing: int) -> list[str]:
        """Open seeks beyond the free seats (a game came another way): to cancel."""
        extra = len(self.open) - max(0, min(MAX_SEEKS, self.capacity - playing))
        return list(self.open)[: max(0, extra)]

    def placed(self, rid: object, seek: dict[str, Any]) -> None:
        """A ``seeking``: ours is open (with or without the request id: a seek put back)."""
        if isinstance(rid, int):
            self.asking.discard(rid)
        if isinstance(seek.get("seek"), str):
            self.open[seek["seek"]] = seek

    def ended(self, seek_id: object) -> bool:
        """A seek of ours ended (paired, cancelled, expired): whether it was ours."""
        return self.open.pop(str(seek_id), None) is not None

    def refused(self, rid: object, now: float) -> bool:
        """An error for a ``seek`` of ours: hold back a while. Whether it was one."""
        if not isinstance(rid, int) or rid not in self.asking:
            return False
        self.asking.discard(rid)
        self.quiet_until = now + RETRY_S
        return True

    def reset(self) -> None:
        """A new connection: seeks die with the old one, answers to it never come."""
        self.open.clear()
        self.asking.clear()


class Seeking:
    """The runner's seeks (a mixin of :class:`bots.runner.BotRunner`): ``seek`` and
    ``cancel_seek`` for any bot, and with a :class:`SeekPlan` the seeks kept open by it."""

    state: Session
    seats: dict[str, Any]
    #: ``mnk-bot --seek``'s plan (None: the bot seeks only when told to).
    seek_plan: SeekPlan | None = None

    async def _send(self, message: dict[str, Any]) -> None:  # BotRunner._send
        raise NotImplementedError

    async def seek(
        self,
        game: str,
        clock: dict[str, float] | None = None,
        rated: bool = False,
        range: tuple[int, int] | None = None,
        bot_after_s: int | None = None,
    ) -> int:
        """Seek a game (docs/PROTOCOL.md, Pairing); the request's id. The server answers
        ``seeking`` (:meth:`on_seeking`), or an ``error`` with that id; a pairing then comes
        as ``joined`` and ``state``, and the game is played like any other."""
        msg: dict[str, Any] = {"type": "seek", "game": game, "rated": rated}
        if clock is not None:
            msg["clock"] = dict(clock)
        if range is not None:
            msg["range"] = list(range)
        if bot_after_s is not None:
            msg["bot_after_s"] = bot_after_s
        msg = self.state.request(msg)
        await self._send(msg)
        return int(msg["id"])

    async def cancel_seek(self, seek_id: str) -> None:
        """Withdraw a seek of ours (the server answers ``seek_cancelled``)."""
        if self.seek_plan is not None:
            self.seek_plan.ended(seek_id)
        await self._send({"type": "cancel_seek", "seek": seek_id})

    async def on_seeking(self, msg: dict[str, Any]) -> None:
        """A seek of ours is open (an answer, or one put back after an aborted pairing)."""
        seek = msg.get("seek") if isinstance(msg.get("seek"), dict) else {}
        log.info("seeking %s (%s)", seek.get("pool"), seek.get("seek"))
        if self.seek_plan is not None:
            self.seek_plan.placed(msg.get("id"), seek)
            await self.seek_more()

    async def on_seek_ended(self, msg: dict[str, Any]) -> None:
        """A seek of ours ended unpaired (expired, or cancelled by the server): seek again."""
        log.info("seek %s ended: %s", msg.get("seek"), msg.get("reason"))
        if self.seek_plan is not None:
            self.seek_plan.ended(msg.get("seek"))
            await self.seek_more()

    async def on_seek_cancelled(self, msg: dict[str, Any]) -> None:
        """The answer to our ``cancel_seek``."""
        if self.seek_plan is not None:
            self.seek_plan.ended(msg.get("seek"))

    def seek_paired(self, msg: dict[str, Any]) -> None:
        """A ``joined`` naming a seek of ours: that seek is over (its ``state`` follows)."""
        if self.seek_plan is not None and msg.get("seek") is not None:
            log.info("paired by seek %s in room %s", msg.get("seek"), msg.get("room"))
            self.seek_plan.ended(msg.get("seek"))

    def seek_refused(self, msg: dict[str, Any]) -> bool:
        """An ``error`` for a seek of the plan: hold back, then try again; whether it was."""
        plan = self.seek_plan
        loop = asyncio.get_running_loop()
        if plan is None or not plan.refused(msg.get("id"), loop.time()):
            return False
        log.warning("seek refused (%s: %s); again in %.0f s", msg.get("code"),
                    msg.get("message"), RETRY_S)  # fmt: skip
        loop.call_later(RETRY_S + 0.1, lambda: asyncio.ensure_future(self.seek_more()))
        return True

    def playing(self) -> int:
        """Games this bot is seated in and not finished."""
        return sum(1 for seat in self.seats.values() if seat.status != Status.OVER)

    async def seek_more(self) -> None:
        """Top the plan's seeks up to one per free seat (cancelling any beyond them)."""
        plan = self.seek_plan
        if plan is None:
            return
        playing = self.playing()
        for seek_id in plan.surplus(playing):
            await self.cancel_seek(seek_id)
        for _ in range(plan.wanted(playing, asyncio.get_running_loop().time())):
            rid = await self.seek(plan.game, plan.clock, plan.rated)
            plan.asking.add(rid)
