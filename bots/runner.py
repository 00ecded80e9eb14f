"""``mnk-bot``: connect an engine to a server and play every game it is seated in, many at once.

The connection lives on the event loop and keeps answering pings; searches run in a process
pool (external Piskvork brains in their own processes), so no search ever blocks it. After a
drop it reconnects with its session and the server re-seats it in every game it was playing.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bots.analysing import Analysing
from bots.engine.timing import Budget
from bots.entering import Entering, EventPicker
from bots.piskvork import PiskvorkBrain, SpareBrains
from bots.private import write_private
from bots.seats import Seat, engine_level, fault_of, game_of, think, warm_up_job
from bots.seeking import Seeking, SeekPlan
from bots.specs import EngineSpec
from bots.workers import WorkerPool
from protocol.connection import Connection, HelloRefused, LinkClosed, Replaced
from protocol.rules import Move
from protocol.session import Session, handler_of
from protocol.variants import make_variant, variant_from_description
from protocol.vocab import CloseCode, Fault, Kind, Status

#: The server's code for a bot ``hello`` without a valid key, and ours for a revoked one.
BAD_KEY = "bad_key"
KEY_REVOKED = "key_revoked"

log = logging.getLogger("mnk.bot")

#: How long a bot stays in a finished game for a rematch before it leaves the room.
REMATCH_WAIT_S = 60.0
#: How far past its budget an engine may run before it counts as hung and its game is lost.
HANG_SLACK_S = 5.0
#: After a (re)connect, how long the bot keeps asking for games the server did not describe
#: (a dead node's rooms reappear on a survivor after its lease), and how often.
REJOIN_FOR_S = 60.0
REJOIN_EVERY_S = 1.0
#: Piskvork brains kept started per board size at most (about 30 MB each while idle); games
#: begun together past it pay a brain's start-up on their first move's clock.
SPARES_MAX = 4
#: The longest an engine thinks about an opponent's draw offer (its clock is not running).
OFFER_BUDGET_S = 1.0


#: Without SWAP2BOARD support a brain opens with these stones and always takes white.
DEFAULT_OPENING = ((7, 7), (8, 6), (8, 8))
DEFAULT_CHOICE = "white"


class BotRunner(Seeking, Entering, Analysing):
    """One bot identity on one server (or a cluster's nodes, failing over along them), playing
    up to ``capacity`` games at once."""

    def __init__(
        self,
        url: str | Sequence[str],
        spec: EngineSpec,
        name: str,
        capacity: int = 4,
        games: list[str] | None = None,
        workers: int | None = None,
        session_file: Path | None = None,
        parent_pid: int | None = None,
        hang_slack: float = HANG_SLACK_S,
        key: str | None = None,
        seek_plan: SeekPlan | None = None,
        send_info: bool = False,
        analyses: int = 2,
        analysis_cpus: frozenset[int] | None = None,
        tournaments: tuple[str, ...] = (),
        enter_events: bool = False,
    ) -> None:
        self.spec = spec
        #: ``--tournament``: the events it enters (bots/entering.py).
        self.tournaments, self.announced = tournaments, {}
        #: ``--enter-events``: it enters the events of the pools it seeks too.
        self.picker = EventPicker() if enter_events else None
        #: ``--info``: every move carries the engine's search report (docs/PROTOCOL.md).
        self.send_info = send_info
        #: ``--seek``: the games it seeks by itself (bots/seeking.py), one per free seat.
        self.seek_plan = seek_plan
        #: Where the session is kept, so a restarted bot is the same player in the same games.
        self.session_file = session_file
        self.parent_pid = parent_pid
        self.hang_slack = hang_slack
        session = None
        if session_file is not None and session_file.exists():
            session = session_file.read_text().strip() or None
        #: Who this bot is to the server across reconnects: name, key (which fixes the name
        #: there), games, capacity, level and the saved session.
        self.state = Session(
            name, Kind.BOT, key=key, session=session, games=games or ["*"], capacity=capacity
        )
        self.state.level = engine_level(spec)
        #: ``--analyses``: the ``analyse_job``s answered at once, in workers of their own
        #: (on ``--analysis-cpus`` only, if given).
        self._analysis_setup(max(0, analyses), analysis_cpus)
        self.state.analyses = self.analysis_slots
        self.conn = Connection(url, self.state, retry_first_s=0.2, on_status=self._on_status)
        self.seats: dict[str, Seat] = {}
        self.levels: dict[str, int] = {}
        #: Games in play at the last welcome that the server has not described since.
        self._undescribed: set[str] = set()
        self._rejoining: asyncio.Task[None] | None = None
        self._sent_moves: dict[int, tuple[str, dict[str, Any]]] = {}
        self.workers = workers or max(1, min(capacity, os.cpu_count() or 1))
        self.pool = WorkerPool(think, self.workers) if spec.in_process else None
        #: Piskvork brains started ahead of each game (their start-up off the game's clock):
        #: one per game played at once, up to ``SPARES_MAX`` (each idle brain holds memory).
        spares = min(capacity, SPARES_MAX)
        self.spares = None if spec.in_process else SpareBrains(spec.target, spares)

    async def run(self, stop: asyncio.Event | None = None) -> None:
        """Play until ``stop`` is set, reconnecting after every drop (with backoff)."""
        stop = stop or asyncio.Event()
        if self.pool is not None:  # start the workers now, not during the first game's clock
            await self._warm_up(self.pool)
        if self.spares is not None:  # and brains for the usual board (15x15: Gomocup's)
            gomoku = make_variant("gomoku", {})
            self.spares.prepare(gomoku)
            await self.spares.wait_ready(gomoku)
        watchdog = asyncio.create_task(self._watch_parent(stop))
        playing = asyncio.create_task(self.conn.run(self._on))
        stopper = asyncio.create_task(stop.wait())
        try:
            await asyncio.wait({playing, stopper}, return_when=asyncio.FIRST_COMPLETED)
            if playing.done() and playing.exception() is not None:
                raise playing.exception()  # type: ignore[misc]
        except Replaced:
            log.warning("another process resumed this bot's session; stopping")
        except HelloRefused as exc:  # after a 4001 the refusal means: the key was revoked
            if exc.code == BAD_KEY and self.conn.last_close == CloseCode.KEY_REVOKED:
                raise HelloRefused(KEY_REVOKED, "the operator revoked this bot's key") from None
            raise
        finally:
            stopper.cancel()
            watchdog.cancel()
            await self.conn.close()
            await asyncio.gather(playing, return_exceptions=True)
            await self.close()

    def _on_status(self, status: str, detail: str) -> None:
        if status == "offline":
            log.info("not connected (%s); trying again", detail)

    async def _watch_parent(self, stop: asyncio.Event) -> None:
        """A bot started by a server stops when that server is gone (even killed with -9)."""
        while self.parent_pid is not None and not stop.is_set():
            if os.getppid() != self.parent_pid:
                log.warning("the server that started this bot is gone; stopping")
                stop.set()
            await asyncio.sleep(1.0)

    async def close(self) -> None:
        """Stop thinking, close brains and the process pool."""
        if self._rejoining is not None:
            self._rejoining.cancel()
        self.stop_sweeping()
        for seat in self.seats.values():
            await self._forget(seat)
        await self._analysis_close()
        if self.pool is not None:
            self.pool.close()
        if self.spares is not None:
            await self.spares.close()

    # -- the conversation ------------------------------------------------------------------------

    async def _send(self, message: dict[str, Any]) -> None:
        """Send, or drop the message when the link is down (the resync after hello covers it)."""
        try:
            await self.conn.send(message)
        except LinkClosed:
            log.info("offline: %s not sent", message.get("type"))

    async def _on(self, msg: dict[str, Any]) -> None:
        """Every server message, in order, to the method named after its type."""
        handler = handler_of(self, msg)
        if handler is not None:
            await handler(msg)

    def _seat_of(self, msg: dict[str, Any]) -> Seat | None:
        room = msg.get("room")
        return self.seats.get(room) if isinstance(room, str) else None

    async def on_welcome(self, msg: dict[str, Any]) -> None:
        """Keep the session (in the session file too) and say where we are."""
        self.state.name = msg.get("name", self.state.name)  # the key decides the name
        name, url = self.state.name, self.conn.url
        log.info("connected to %s as %s (player %s)", url, name, msg.get("player"))
        if self.session_file is not None and self.state.session:
            write_private(self.session_file, self.state.session)
        if self._rejoining is not None:
            self._rejoining.cancel()
        self._undescribed = {r for r, seat in self.seats.items() if seat.status == Status.PLAYING}
        if self._undescribed:
            self._rejoining = asyncio.create_task(self._rejoin())
        if self.seek_plan is not None:  # seeks die with a connection: seek anew
            self.seek_plan.reset()
            await self.seek_more()
        await self.welcome_events()

    async def _rejoin(self) -> None:
        """Ask again for every game in play that the server did not describe after the welcome.

        A hello resumes the seats of the rooms the node can reach; after a fail-over, rooms of
        the dead node come back only once a survivor adopted them, and nothing tells this bot
        when: it re-joins each of them (idempotent for a seated player) until its state comes.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + REJOIN_FOR_S
        while loop.time() < deadline:
            await asyncio.sleep(REJOIN_EVERY_S)  # the states a hello brings come first
            self._undescribed &= {r for r, s in self.seats.items() if s.status == Status.PLAYING}
            if not self._undescribed:
                return
            for room in sorted(self._undescribed):
                await self._send({"type": "join_room", "room": room})

    async def on_seeking(self, msg: dict[str, Any]) -> None:
        """A seek of ours is open: the seek plan's (bots/seeking.py), and its pool's events."""
        await super().on_seeking(msg)
        await self.pool_sought(msg)

    async def on_joined(self, msg: dict[str, Any]) -> None:
        """Note the level a human asked for, and a seek of ours that was paired."""
        self.seek_paired(msg)
        if msg.get("level") is not None:
            self.levels[msg["room"]] = msg["level"]

    async def on_state(self, msg: dict[str, Any]) -> None:
        """A room described from scratch."""
        await self._on_state(msg)

    async def on_moved(self, msg: dict[str, Any]) -> None:
        """A stone was played: follow it, or re-read the room when out of step."""
        seat = self._seat_of(msg)
        if seat is None:
            return
        if seat.game is not None and msg["ply"] == seat.game.ply:
            seat.game.push(Move(msg["x"], msg["y"]))
            if msg.get("clocks"):
                seat.clocks = msg["clocks"]
            seat.first_move_left = msg.get("first_move_left")  # the server's deadline, if any
            if seat.in_opening:  # the phase moves on: act on the state that follows
                assert seat.opening is not None
                seat.opening = {**seat.opening, "phase": "wait"}
            self._maybe_think(seat)
        else:
            await self._send({"type": "join_room", "room": seat.room})  # out of step: resync

    async def on_game_over(self, msg: dict[str, Any]) -> None:
        """Stop thinking; leave now (director rooms) or after a while (a rematch may come)."""
        seat = self._seat_of(msg)
        if seat is None:
            return
        seat.status = Status.OVER
        await self._forget(seat)
        await self.seek_more()  # a seat is free: seek the next game
        if seat.director:  # tournament rooms never rematch: free the room at once
            await self._leave(seat)
        else:  # stay a while: the human may ask for a rematch
            seat.leaving = asyncio.create_task(self._leave_later(seat))

    async def on_rematch_offered(self, msg: dict[str, Any]) -> None:
        """Always accept the opponent's rematch."""
        seat = self._seat_of(msg)
        if seat is not None and msg.get("seat") != seat.seat and seat.status == Status.OVER:
            await self._send({"type": "rematch", "room": seat.room})

    async def on_offer(self, msg: dict[str, Any]) -> None:
        """The opponent offers a draw or a takeback: the engine's ``on_draw_offer`` or
        ``on_takeback_offer`` decides (an external brain declines: it cannot be asked)."""
        seat = self._seat_of(msg)
        kind = msg.get("kind")
        if seat is None or msg.get("by") == seat.seat or kind not in ("draw", "takeback"):
            return
        accept = False
        if self.pool is not None and seat.status == Status.PLAYING:
            budget = min(seat.budget(), OFFER_BUDGET_S)
            try:
                accept = bool(await self._pool_run(seat, budget, (kind, None)))
            except Exception as exc:  # an engine that fails to answer declines
                log.warning("engine failed on a %s offer in room %s: %s", kind, seat.room, exc)
        await self._send({"type": f"{kind}_answer", "room": seat.room, "accept": accept})

    async def on_taken_back(self, msg: dict[str, Any]) -> None:
        """Moves were taken back: a search of the old position is dropped (the ``state`` that
        follows gives the new one, and thinking starts again if it is this bot's turn)."""
        seat = self._seat_of(msg)
        if seat is not None and seat.thinking is not None and not seat.thinking.done():
            seat.thinking.cancel()
            seat.thinking = None

    async def on_presence(self, msg: dict[str, Any]) -> None:
        """The opponent left a finished game: so do we."""
        seat = self._seat_of(msg)
        if seat is not None and seat.status == Status.OVER and not msg.get("online"):
            await self._leave(seat)

    async def on_error(self, msg: dict[str, Any]) -> None:
        """An error reply (see :meth:`_on_error`; a refused seek: :meth:`seek_refused`)."""
        if not self.seek_refused(msg) and not self.entry_refused(msg):
            await self._on_error(msg)

    async def _on_error(self, msg: dict[str, Any]) -> None:
        """A refused move is sent again (rate limit) or the room is re-read (stale view)."""
        code = msg.get("code")
        sent = self._sent_moves.pop(msg.get("id", -1), None)
        log.info("server error %s: %s", code, msg.get("message"))
        if sent is None:
            return
        room, move_msg = sent
        seat = self.seats.get(room)
        if seat is None or seat.game is None or seat.game.ply != move_msg["ply"]:
            return
        if code == "rate_limited":  # resend shortly, without holding up the other games
            asyncio.get_running_loop().call_later(
                0.25, lambda: asyncio.ensure_future(self._resend(move_msg))
            )
        else:
            await self._send({"type": "join_room", "room": room})

    async def _resend(self, move_msg: dict[str, Any]) -> None:
        seat = self.seats.get(move_msg["room"])
        if seat is not None and seat.game is not None and seat.game.ply == move_msg["ply"]:
            await self._send_move(move_msg)

    async def _send_move(self, move_msg: dict[str, Any]) -> None:
        msg = self.state.request(move_msg)
        self._sent_moves[msg["id"]] = (move_msg["room"], move_msg)
        if len(self._sent_moves) > 1000:  # acknowledged ids are never removed: keep it bounded
            self._sent_moves.pop(next(iter(self._sent_moves)))
        await self._send(msg)

    async def _on_state(self, msg: dict[str, Any]) -> None:
        room, my_seat = msg["room"], msg.get("seat")
        self._undescribed.discard(room)
        seat = self.seats.get(room)
        if my_seat is None:
            return  # watching
        if seat is None and msg["status"] == Status.OVER:  # a finished game we still sit in
            await self._send({"type": "leave_room", "room": room})
            return
        variant = variant_from_description(msg["game"])
        if seat is None or seat.seat != my_seat or seat.variant != variant:
            level = self.levels.get(room) or (msg.get("options") or {}).get("level")
            if seat is not None:
                await self._forget(seat)
            seat = self.seats[room] = Seat(room, my_seat, variant, level=level)
        seat.game, seat.setup = game_of(variant, (msg.get("options") or {}).get("position"))
        for x, y in msg["moves"]:
            seat.game.push(Move(x, y))
        seat.status = msg["status"]
        seat.clock, seat.clocks = msg.get("clock"), msg.get("clocks")
        seat.first_move_left = (msg.get("actions") or {}).get("first_move_left")
        options = msg.get("options") or {}
        seat.director = "bots" in options
        opponent = (msg.get("kinds") or [None, None])[1 - my_seat]
        seat.human_pace = opponent == "human" and not options.get("full_strength")
        seat.training = bool(options.get("hints"))
        colours = msg.get("colours", [0, 1])
        seat.colour = colours[my_seat] if colours else None
        seat.opening = msg.get("opening")
        if not seat.in_opening:
            seat.pending = []
        if seat.status == Status.OVER:
            opponent_here = (msg.get("online") or [False, False])[1 - my_seat]
            if seat.director or not opponent_here:
                await self._leave(seat)
            return
        self._maybe_think(seat)
        await self.seek_more()  # one seat fewer is free: a seek beyond them is withdrawn

    # -- thinking --------------------------------------------------------------------------------

    def _maybe_think(self, seat: Seat) -> None:
        if seat.my_turn and (seat.thinking is None or seat.thinking.done()):
            assert seat.game is not None  # it is our turn in a game we were told of
            seat.thinking = asyncio.create_task(self._think(seat, seat.game.ply))

    async def _think(self, seat: Seat, ply: int) -> None:
        plan = seat.plan()
        try:
            if seat.in_opening:
                await self._open(seat, ply, plan.maximum)
                return
            move, info = await self._choose(seat, plan)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a crash, hang or garbage from the engine loses this game
            fault = fault_of(exc)
            log.warning("engine %s in room %s: %s; forfeiting", fault, seat.room, exc)
            await self._send({"type": "resign", "room": seat.room, "fault": fault})
            # a brain that broke down is replaced; one only late is kept (once it answered)
            await self._close_brain(seat, reuse=fault == Fault.HANG)
            return
        if seat.game is not None and seat.game.ply == ply and seat.status == Status.PLAYING:
            move_msg = {"type": "move", "room": seat.room, "x": move.x, "y": move.y, "ply": ply}
            if info is not None and (self.send_info or seat.training):  # to the watchers
                move_msg["info"] = info
            await self._send_move(move_msg)

    async def _open(self, seat: Seat, ply: int, budget: float) -> None:
        """Place this seat's opening stones, or make its choice, as the opening phase asks."""
        assert seat.opening is not None
        phase, left = seat.opening["phase"], seat.opening.get("left", 0)
        choices = list(seat.opening.get("choices") or [])
        if phase == "place" and seat.pending:
            x, y = seat.pending.pop(0)
            await self._send_move({"type": "move", "room": seat.room, "x": x, "y": y, "ply": ply})
            return
        if self.pool is None:
            stones, choice = await self._brain_opening(seat, budget, phase, left, choices)
        elif phase == "place":
            stones, choice = await self._pool_run(seat, budget, ("place", left)), None
        else:
            stones, choice = [], await self._pool_run(seat, budget, ("choose", choices))
        if seat.game is None or seat.game.ply != ply or seat.status != Status.PLAYING:
            return
        seat.pending = list(stones)
        if choice is not None:  # stones that came with it go once the next phase says so
            await self._send({"type": "choose", "room": seat.room, "choice": choice})
        elif seat.pending:
            x, y = seat.pending.pop(0)
            await self._send_move({"type": "move", "room": seat.room, "x": x, "y": y, "ply": ply})

    async def _brain_opening(
        self, seat: Seat, budget: float, phase: str, left: int, choices: list[str]
    ) -> tuple[list[list[int]], str | None]:
        """A Piskvork brain's opening via SWAP2BOARD, or the fixed default when unsupported."""
        brain = self._brain(seat)
        moves = list(seat.moves)
        answer = await brain.swap2(moves, budget)
        wanted = [*choices, "stones" if phase == "place" else "-"]
        if answer is not None and answer[0] in wanted:
            kind, stones = answer
            if kind == "white":
                stones = []  # it takes white; its move comes when white is to move
            return [[m.x, m.y] for m in stones], None if kind == "stones" else kind
        log.warning(
            "brain %s does not support SWAP2BOARD here (room %s): default %s",
            self.spec.target, seat.room, "opening" if phase == "place" else DEFAULT_CHOICE,
        )  # fmt: skip
        if phase == "place":
            return [list(m) for m in DEFAULT_OPENING if Move(*m) not in moves][:left], None
        return [], DEFAULT_CHOICE

    async def _warm_up(self, pool: WorkerPool) -> None:
        """Build the engine in every worker before any game; an engine that cannot play the
        usual board still plays the boards it can (its first move there builds it)."""
        try:
            await pool.warm_up(warm_up_job(self.spec))
        except Exception as exc:  # a user's engine: any failure is its own, not the runner's
            log.warning("warming %s up on gomoku failed (%s); going on", self.spec, exc)

    def _brain(self, seat: Seat) -> PiskvorkBrain:
        if seat.brain is None:
            colour = seat.seat if seat.colour is None else seat.colour
            seat.brain = PiskvorkBrain(
                self.spec.target, seat.variant, colour, self.hang_slack, self.spares
            )
        elif seat.colour is not None:
            seat.brain.seat = seat.colour
        return seat.brain

    async def _pool_run(
        self, seat: Seat, budget: float, task: tuple[str, Any] | None, planned: float | None = None
    ) -> Any:
        assert self.pool is not None
        loop = asyncio.get_running_loop()
        asked = loop.time()
        worker = await self.pool.acquire()
        waited = loop.time() - asked  # the wait for a worker was clock time
        budget = max(0.02, budget - waited)
        planned = None if planned is None else max(0.02, min(budget, planned - waited))
        moves = [[m.x, m.y] for m in seat.moves]
        args = (str(self.spec), seat.level, seat.variant.describe(), moves, budget, task, planned)
        return await self.pool.run(worker, args, budget + self._slack(seat, budget, waited))

    def _slack(self, seat: Seat, budget: float, waited: float = 0.0) -> float:
        """How long past its budget an engine may run: ``--hang-slack``, at most until the server
        would flag the move. Not less: on a loaded machine an engine runs past its budget by
        tens of milliseconds, and a move it sends before the flag still counts (given up 50 ms
        before the flag, at 0.25 s a move such a late move was forfeited as a hang)."""
        flag = seat.flag_in()
        if flag is None:
            return self.hang_slack
        return max(0.0, min(self.hang_slack, flag - waited - budget))

    async def _choose(self, seat: Seat, plan: Budget) -> tuple[Move, dict[str, Any] | None]:
        if self.pool is None:
            brain = self._brain(seat)
            left = seat.clocks[seat.seat] if seat.clock and seat.clocks else None
            brain.hang_slack = self._slack(seat, plan.maximum)
            return await brain.choose(list(seat.moves), plan.maximum, left), None
        answer = await self._pool_run(seat, plan.maximum, None, plan.planned)
        return Move(answer[0], answer[1]), answer[2] if len(answer) > 2 else None

    async def _leave_later(self, seat: Seat) -> None:
        await asyncio.sleep(REMATCH_WAIT_S)
        seat.leaving = None
        if self.seats.get(seat.room) is seat and seat.status == Status.OVER:
            await self._leave(seat)

    async def _leave(self, seat: Seat) -> None:
        """The game is over: stop thinking and leave the room so it can be cleaned up."""
        await self._forget(seat)
        self.seats.pop(seat.room, None)
        self.levels.pop(seat.room, None)
        await self._send({"type": "leave_room", "room": seat.room})

    async def _forget(self, seat: Seat) -> None:
        thinking = seat.thinking
        if thinking is not None and not thinking.done() and thinking is not asyncio.current_task():
            thinking.cancel()
        if seat.leaving is not None and seat.leaving is not asyncio.current_task():
            seat.leaving.cancel()
        seat.leaving = None
        await self._close_brain(seat)

    async def _close_brain(self, seat: Seat, reuse: bool = True) -> None:
        """Done with the seat's brain: an idle one plays the next game (``reuse``), one that
        failed or is still thinking is ended."""
        if seat.brain is not None:
            brain, seat.brain = seat.brain, None
            await asyncio.shield(brain.close(reuse))
