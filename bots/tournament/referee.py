"""How a game gets played: the :class:`GamePlayer` interface and its two implementations.

:class:`ServerReferee` has the server referee every game over protocol v1: it creates a room
with ``"bots": [a, b]``, watches it as a spectator and reads the result from ``game_over``.
:class:`LocalReferee` plays in-process :class:`bots.sdk.Bot` objects (tests, quick checks).
The director only sees ``play(spec) -> Played``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from bots.sdk import Bot, IllegalBotMove
from bots.tournament.results import GameResult, fault_of
from bots.tournament.schedule import GameSpec
from protocol.connection import Connection, LinkClosed, ServerError
from protocol.rules import Game, Move, Termination, Variant
from protocol.session import Session
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

_CLOSED: dict[str, Any] = {"type": "_closed"}


class Link:
    """The director's protocol connection (a human-kind client) with per-room feeds."""

    def __init__(self, url: str, name: str = "director", rate: float = 15.0) -> None:
        self.url = url
        self.state = Session(name)
        self.conn = Connection(
            url, self.state, rate=rate, ping_interval=20, on_status=self._on_status
        )
        self._rooms: dict[str, asyncio.Queue[dict[str, Any]]] = {}
        self._task: asyncio.Task[None] | None = None

    @property
    def player(self) -> str | None:
        """Our player id on the server."""
        return self.state.player

    @property
    def alive(self) -> bool:
        """Whether the connection is running (it reconnects by itself after a drop)."""
        return self._task is not None and not self._task.done()

    async def open(self, timeout: float = 30.0) -> None:
        """Connect and wait for ``welcome``; the error that stopped it, or TimeoutError."""
        self._task = asyncio.create_task(self.conn.run(self._on))
        online = asyncio.create_task(self.conn.online.wait())
        done, _ = await asyncio.wait(
            {self._task, online}, timeout=timeout, return_when="FIRST_COMPLETED"
        )
        online.cancel()
        if self._task in done:
            self._task.result()  # raises what ended it
            raise LinkClosed("connection closed before welcome")
        if not done:
            await self.close()
            raise TimeoutError(f"no welcome from {self.url} in {timeout:.0f}s")

    async def close(self) -> None:
        """Close the connection."""
        await self.conn.close()
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)

    def feed(self, room: str) -> asyncio.Queue[dict[str, Any]]:
        """Everything the server says about ``room`` (created on first use).

        A feed is created when the server answers our ``join``/``create_room`` with ``joined``
        and only existing feeds are filled, so a room dropped with :meth:`forget` (e.g. before
        its ``left`` reply) is not kept again.
        """
        return self._rooms.setdefault(room, asyncio.Queue())

    def forget(self, room: str) -> None:
        """Stop keeping messages for ``room``."""
        self._rooms.pop(room, None)

    async def request(self, message: dict[str, Any], timeout: float = 30.0) -> dict[str, Any]:
        """Send a request and wait for its reply; ProtocolError for an ``error``."""
        return await self.conn.request(message, timeout)

    def _on(self, msg: dict[str, Any]) -> None:
        """Put every message about a watched room on its feed."""
        room = msg.get("room")
        if not isinstance(room, str) or msg["type"] == "rooms":
            return
        if msg["type"] == "joined" and "id" in msg:
            self.feed(room)  # a room we asked to join: keep what follows for the watcher
        queue = self._rooms.get(room)
        if queue is not None:  # rooms never joined or already forgotten are not kept
            queue.put_nowait(msg)

    def _on_status(self, status: str, detail: str) -> None:
        if status == "offline":  # every watcher learns its game's news may be lost
            for queue in self._rooms.values():
                queue.put_nowait(_CLOSED)


class ServerReferee:
    """Games refereed by a server: the director creates each room with two named bots."""

    def __init__(
        self,
        url: str,
        game: str,
        game_options: dict[str, Any] | None = None,
        clock: dict[str, float] | None = None,
        max_moves: int | None = None,
        bot_wait_s: float = 60.0,
        stall_s: float = 180.0,
        rate: float = 15.0,
    ) -> None:
        self.url, self.game = url, game
        self.game_options = dict(game_options or {})
        self.clock, self.max_moves = clock, max_moves
        self.bot_wait_s, self.stall_s, self.rate = bot_wait_s, stall_s, rate
        self.link: Link | None = None
        self._lock = asyncio.Lock()

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
            ask: dict[str, Any] = {"type": "list_bots"}
            while True:  # every page: a big server lists its bots 100 at a time
                reply = await link.request(ask)
                online |= {b["name"] for b in reply.get("bots", []) if b.get("online")}
                if not reply.get("next"):
                    break
                ask = {"type": "list_bots", "cursor": reply["next"]}
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
        return msg

    async def play(self, spec: GameSpec) -> Played:
        """Create the room, watch the game to its end, fetch the record."""
        link, room = await self._create(self.create_message(spec))
        try:
            state, over = await self._watch(link, room)
        finally:
            link.forget(room)
        winner, reason = over.get("winner"), str(over.get("reason"))
        if state["players"] != list(spec.players):
            log.warning("room %s seated %s, not %s", room, state["players"], spec.players)
        game_id = state.get("game_id")
        psq = None
        try:
            await link.request({"type": "leave_room", "room": room})
            game_id = game_id or await self._find_game_id(link, room, spec.players[0])
            if game_id:
                ask = {"type": "get_game", "game_id": game_id, "format": "psq"}
                reply = await link.request(ask)
                psq = reply.get("psq")
        except (ProtocolError, LinkClosed, TimeoutError) as exc:
            log.info("no record for room %s: %s", room, exc)
        result = GameResult(
            key=spec.key,
            round=spec.round,
            players=spec.players,
            opening=[list(m) for m in spec.opening],
            moves=[list(m) for m in state["moves"]],
            winner=winner,
            reason=reason,
            fault=fault_of(reason, over.get("fault")),
            game_id=game_id,
            room=room,
        )
        return Played(result, psq)

    async def _create(self, msg: dict[str, Any]) -> tuple[Link, str]:
        """Send ``create_room``, waiting while a named bot is offline or busy."""
        deadline = time.monotonic() + self.bot_wait_s
        delay = 0.1
        while True:
            link = await self.connect()
            try:
                reply = await link.request(msg)
                return link, reply["room"]
            except ProtocolError as exc:
                if exc.code not in ("no_bot_available", "rate_limited"):
                    raise
                if time.monotonic() > deadline:
                    raise TimeoutError(f"bots {msg['bots']} stayed unavailable") from exc
                log.info("bots %s: %s; trying again", msg["bots"], exc.code)
            await asyncio.sleep(delay)
            delay = min(delay * 1.5, 1.0)

    async def _watch(self, link: Link, room: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """Follow the room until ``game_over``: the last state (with every move) and the result."""
        feed = link.feed(room)
        state: dict[str, Any] = {"players": [], "moves": []}
        while True:
            try:
                msg = await asyncio.wait_for(feed.get(), self.stall_s)
            except TimeoutError:
                raise TimeoutError(f"room {room}: no news for {self.stall_s:.0f}s") from None
            kind = msg.get("type")
            if kind == "_closed":
                raise LinkClosed(f"connection lost while watching room {room}")
            if kind == "state":
                state = msg
                if msg.get("status") == Status.OVER and msg.get("result"):
                    return state, msg["result"]
            elif kind == "moved" and msg.get("ply") == len(state["moves"]):
                state["moves"] = [*state["moves"], [msg["x"], msg["y"]]]
            elif kind == "game_over":
                return state, msg

    async def _find_game_id(self, link: Link, room: str, player: str) -> str | None:
        """The id of the game just played in ``room`` (when ``state`` does not carry one)."""
        reply = await link.request({"type": "list_games", "player": player, "limit": 50})
        for game in reply.get("games", []):
            if game.get("room") == room:
                return game.get("game_id")
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
