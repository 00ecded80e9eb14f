"""How a game gets played: the :class:`GamePlayer` interface and its two implementations.

:class:`ServerReferee` has the server referee every game over protocol v1: it creates a room
with ``"bots": [a, b]``, watches it as a spectator and reads the result from ``game_over``.
:class:`LocalReferee` plays in-process :class:`bots.sdk.Bot` objects (tests, quick checks).
The director only sees ``play(spec) -> Played``. When the director's link drops (its node
died: the link fails over to another), the referee watches each of its rooms again, or reads
the game's end from the history (:mod:`bots.tournament.accounting`).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from bots.sdk import Bot, IllegalBotMove
from bots.tournament.accounting import TRANSIENT, GameLost, over_result, record_moves, record_result
from bots.tournament.link import CLOSED, Link, pages
from bots.tournament.orphans import Orphans
from bots.tournament.results import GameResult, fault_of
from bots.tournament.schedule import GameSpec
from protocol.connection import LinkClosed, NotSent, ServerError
from protocol.rules import Game, Move, Termination, Variant
from protocol.vocab import Fault, Status

log = logging.getLogger("mnk.tournament")


@dataclass(frozen=True, slots=True)
class Played:
    """A finished game and, when the server has it, its ``.psq`` record."""

    result: GameResult
    psq: str | None = None


class GamePlayer(Protocol):
    """Anything that can play one scheduled game to the end."""

    async def play(self, spec: GameSpec) -> Played:
        """Play ``spec`` and return its result."""
        ...

    async def close(self) -> None:
        """Release connections."""
        ...


#: An ``error`` reply from the server (its ``code`` says which).
ProtocolError = ServerError
#: How many times one game may be lost from sight (drops, stalls) before it is played again.
MAX_REWATCHES = 5
#: Seconds between two looks for an ended game's record that the history does not hold yet.
HISTORY_RETRY_S = 0.2
#: The longest wait between two such looks: a lookup costs several messages of the rate.
HISTORY_RETRY_MAX_S = 2.0


class ServerReferee:
    """Games refereed by a server: the director creates each room with two named bots.

    ``url`` may list a cluster's nodes: the link fails over along them, and a game whose room
    the link lost sight of is watched again wherever its room lives now.
    """

    def __init__(
        self,
        url: str | Sequence[str],
        game: str,
        game_options: dict[str, Any] | None = None,
        clock: dict[str, float] | None = None,
        max_moves: int | None = None,
        bot_wait_s: float = 60.0,
        stall_s: float = 180.0,
        rate: float = 15.0,
        rewatch_s: float = 60.0,
        ask_s: float = 5.0,
        rated: bool = False,
    ) -> None:
        self.url, self.game = url, game
        #: Whether its rooms are rated (the bots' accounts' ratings move with each game).
        self.rated = rated
        self.game_options = dict(game_options or {})
        self.clock, self.max_moves = clock, max_moves
        self.bot_wait_s, self.stall_s, self.rate = bot_wait_s, stall_s, rate
        #: How long a lost room is looked for (a dead node's rooms are adopted after its lease),
        #: and how long one request may go unanswered meanwhile (one sent to a dead node).
        self.rewatch_s, self.ask_s = rewatch_s, ask_s
        self.link: Link | None = None
        self._lock = asyncio.Lock()
        self.orphans = Orphans(rewatch_s / 4, ask_s)

    async def connect(self) -> Link:
        """The live connection, (re)opened when needed and back online after a drop."""
        async with self._lock:
            if self.link is None or not self.link.alive:
                self.link = Link(self.url, rate=self.rate)
                await self.link.open()
            link = self.link
        await asyncio.wait_for(link.conn.online.wait(), self.stall_s)
        return link

    async def close(self) -> None:
        """Close the connection."""
        if self.link is not None:
            await self.link.close()

    async def wait_for_bots(self, names: list[str], timeout: float = 60.0) -> None:
        """Wait until every named bot is online (``list_bots``)."""
        link = await self.connect()
        deadline = time.monotonic() + timeout
        while True:
            online: set[str] = set()
            async for reply in pages(link, {"type": "list_bots"}):  # 100 bots a page at most
                online |= {b["name"] for b in reply.get("bots", []) if b.get("online")}
            missing = [n for n in names if n not in online]
            if not missing:
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"bots not online: {', '.join(missing)}")
            await asyncio.sleep(0.2)

    def create_message(self, spec: GameSpec) -> dict[str, Any]:
        """The ``create_room`` request for a scheduled game."""
        options = dict(self.game_options)
        if spec.opening:
            options["opening"] = [list(m) for m in spec.opening]
        if self.max_moves:
            options["max_moves"] = self.max_moves
        msg: dict[str, Any] = {"type": "create_room", "game": self.game, "options": options}
        msg["bots"] = list(spec.players)
        if self.clock:
            msg["clock"] = dict(self.clock)
        if self.rated:
            msg["rated"] = True
        return msg

    async def play(self, spec: GameSpec) -> Played:
        """Create the room, watch the game to its end (again after a drop), fetch the record."""
        link, room, seen = await self._create(self.create_message(spec))
        try:
            return await self._follow(link, room, spec, seen)
        finally:
            if self.link is not None:
                self.link.forget(room)

    async def _follow(
        self, link: Link, room: str, spec: GameSpec, seen: dict[str, Any] | None = None
    ) -> Played:
        """The game in ``room`` to its end: watched, and after a drop or a stall watched again
        or read from the history (GameLost when it is found nowhere). ``seen``: its last state."""
        seen = seen or {"players": [], "moves": []}
        for lost in itertools.count(1):
            try:
                over = ended(seen) or await self._watch(link, room, seen)
                break
            except (LinkClosed, TimeoutError) as exc:
                if lost > MAX_REWATCHES:
                    raise GameLost(f"room {room} of {spec.key}: lost {lost} times") from exc
                log.info("room %s: %s; looking for it again", room, exc)
            link, played = await self._rewatch(room, spec, seen)
            if played is not None:
                return played
        if seen["players"] != list(spec.players):
            log.warning("room %s seated %s, not %s", room, seen["players"], spec.players)
        game_id, psq, moves = seen.get("game_id"), None, list(seen["moves"])
        try:
            await link.request({"type": "leave_room", "room": room})
        except (ProtocolError, LinkClosed, TimeoutError) as exc:  # gone already: out of it too
            log.info("leaving room %s: %s", room, exc)
        try:
            game_id, reply = await self._history(link, room, spec, game_id, 30.0, ended=True)
            if reply is not None:
                psq, moves = reply.get("psq"), record_moves(reply["game"]) or moves
        except (ProtocolError, LinkClosed, TimeoutError) as exc:
            log.warning("no record for room %s: %s", room, exc)
        return Played(over_result(spec, room, over, moves, game_id), psq)

    async def _history(
        self,
        link: Link,
        room: str,
        spec: GameSpec,
        game_id: str | None,
        timeout: float,
        ended: bool = False,
    ) -> tuple[str | None, dict[str, Any] | None]:
        """The game of ``room`` (``game_id``, else found by its first player) and its record
        from the history (``get_game`` with the ``.psq``), or None where the history has none.

        ``ended``: the game is known to be over, so its record is on its way to the history (a
        busy server commits it a little later, and refuses lookups past the rate): looked for
        again, less often each time, until ``timeout``.
        """
        deadline = time.monotonic() + timeout
        delay = HISTORY_RETRY_S
        while True:
            try:
                found = game_id or await self._find_game_id(link, room, spec.players[0], timeout)
                if found:
                    ask = {"type": "get_game", "game_id": found, "format": "psq"}
                    return found, await link.request(ask, timeout)
            except ProtocolError as exc:
                if not ended or exc.code not in TRANSIENT or time.monotonic() > deadline:
                    raise
            if not ended or time.monotonic() > deadline:
                return None, None
            await asyncio.sleep(delay)
            delay = min(delay * 1.5, HISTORY_RETRY_MAX_S)

    async def _rewatch(
        self, room: str, spec: GameSpec, seen: dict[str, Any]
    ) -> tuple[Link, Played | None]:
        """Find the game of ``room`` again: its result from the history when it is over (None
        when watching it again instead), retrying while its room moves to a survivor."""
        deadline = time.monotonic() + self.rewatch_s
        while True:
            link = await self.connect()
            try:
                game_id, reply = await self._history(
                    link, room, spec, seen.get("game_id"), self.ask_s
                )
                if reply is not None:
                    result = record_result(spec, reply["game"])
                    if result is not None:
                        log.info("room %s: game %s read from the history", room, game_id)
                        return link, Played(result, reply.get("psq"))
                join = {"type": "join_room", "room": room, "spectate": True}
                await link.request(join, self.ask_s)  # its state comes on the feed
                return link, None
            except ProtocolError as exc:
                if exc.code not in TRANSIENT:
                    raise
                why = exc.code
            except (LinkClosed, TimeoutError) as exc:
                why = str(exc) or type(exc).__name__
            if time.monotonic() > deadline:
                raise GameLost(f"room {room} of {spec.key}: {why} for {self.rewatch_s:.0f}s")
            await asyncio.sleep(0.25)

    async def _create(self, msg: dict[str, Any]) -> tuple[Link, str, dict[str, Any] | None]:
        """Send ``create_room``, waiting while a named bot is offline or busy; when its answer
        is lost the room it may have made is looked for before it can be sent again."""
        deadline = time.monotonic() + self.bot_wait_s
        delay = 0.1
        while True:
            link = await self.connect()
            try:
                reply = await self.orphans.create(link, msg)
            except ProtocolError as exc:
                if exc.code not in ("no_bot_available", "rate_limited"):
                    raise
                if time.monotonic() > deadline:
                    raise TimeoutError(f"bots {msg['bots']} stayed unavailable") from exc
                log.info("bots %s: %s; trying again", msg["bots"], exc.code)
            except NotSent:
                log.info("not connected: the create of %s waits", msg["bots"])
            else:
                if reply is not None:
                    return link, reply["room"], None
                found = await self.orphans.find(self.connect, msg)
                if found is None:
                    raise LinkClosed(f"no answer to the create of {msg['bots']}, nor its room")
                return found
            await asyncio.sleep(delay)
            delay = min(delay * 1.5, 1.0)

    async def _watch(self, link: Link, room: str, seen: dict[str, Any]) -> dict[str, Any]:
        """Follow the room until ``game_over``: its result; ``seen`` keeps the last state with
        every move (and the game's id)."""
        feed = link.feed(room)
        while True:
            try:
                msg = await asyncio.wait_for(feed.get(), self.stall_s)
            except TimeoutError:
                raise TimeoutError(f"room {room}: no news for {self.stall_s:.0f}s") from None
            kind = msg.get("type")
            if msg is CLOSED:
                raise LinkClosed(f"connection lost while watching room {room}")
            if kind == "state":
                seen.clear()
                seen.update(msg)
                if over := ended(msg):
                    return over
            elif kind == "moved" and msg.get("ply") == len(seen["moves"]):
                seen["moves"] = [*seen["moves"], [msg["x"], msg["y"]]]
            elif kind == "game_over":
                return msg

    async def _find_game_id(
        self, link: Link, room: str, player: str, timeout: float = 30.0
    ) -> str | None:
        """The id of the game just played in ``room`` (when ``state`` does not carry one)."""
        ask = {"type": "list_games", "player": player, "limit": 50}
        reply = await link.request(ask, timeout)
        for game in reply.get("games", []):
            if game.get("room") == room:
                return game.get("game_id")
        return None


def ended(state: dict[str, Any]) -> dict[str, Any] | None:
    """The result in a room's ``state`` once its game is over (None while it goes on)."""
    if state.get("status") == Status.OVER and state.get("result"):
        return state["result"]
    return None


def local_fault(exc: BaseException) -> str:
    """The fault an in-process bot's exception stands for (as the bot runner names them)."""
    if isinstance(exc, TimeoutError):
        return Fault.HANG
    if isinstance(exc, IllegalBotMove):
        return Fault.ILLEGAL_MOVE
    return Fault.CRASH


class LocalReferee:
    """Plays in-process bots against each other (no server): for tests and dry runs."""

    def __init__(
        self,
        variant: Variant,
        bots: dict[str, Callable[[], Bot]],
        max_moves: int | None = None,
        time_s: float = 1.0,
        hang_slack_s: float = 5.0,
    ) -> None:
        self.variant, self.bots, self.max_moves, self.time_s = variant, bots, max_moves, time_s
        #: How far past ``time_s`` a move may take before it counts as a hang (as the runner).
        self.hang_slack_s = hang_slack_s

    async def play(self, spec: GameSpec) -> Played:
        """Play the game in a worker thread."""
        return Played(await asyncio.to_thread(self._play, spec))

    async def close(self) -> None:
        """Nothing to release."""

    def _play(self, spec: GameSpec) -> GameResult:
        from bots.engine.limits import Limit

        engines = [self.bots[name]() for name in spec.players]
        game = Game.from_moves(self.variant, [Move(x, y) for x, y in spec.opening])
        fault = None
        while not game.over:
            if self.max_moves and game.ply >= self.max_moves:
                game.end(Termination.ADJUDICATED, None)
                break
            seat = game.ply & 1
            started = time.monotonic()
            try:
                move = engines[seat].play(self.variant, list(game.moves), Limit(time_s=self.time_s))
                if time.monotonic() - started > self.time_s + self.hang_slack_s:
                    raise TimeoutError(f"{spec.players[seat]} overran its {self.time_s}s")
            except Exception as exc:
                fault = local_fault(exc)
                game.end(Termination.RESIGN, 1 - seat)
                break
            game.push(move)
        outcome = game.outcome
        assert outcome is not None
        reason = "forfeit" if fault else str(outcome.termination)
        return GameResult(
            key=spec.key,
            round=spec.round,
            players=spec.players,
            opening=[list(m) for m in spec.opening],
            moves=[[m.x, m.y] for m in game.moves],
            winner=outcome.winner,
            reason=reason,
            fault=fault_of(reason, fault),
        )
