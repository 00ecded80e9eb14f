"""Drive an external Gomocup brain (``pbrain-*``) over the Piskvork protocol on stdin/stdout.

One brain process per game. A brain that crashes, hangs past its time or answers garbage raises
:class:`BrainError`; the caller loses that game and starts a fresh brain for the next one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections.abc import Callable

from protocol.rules import Move, Variant, WinRule

log = logging.getLogger("mnk.bot")

#: Seconds a brain may take to answer START (engines load tables, as Gomocup allows).
START_TIMEOUT = 15.0
#: Slack over the move budget before a silent brain counts as hung (process start-up, pipes).
HANG_SLACK = 1.0
#: Seconds a brain given back after its game may take to answer RESTART (else it is ended).
RESTART_TIMEOUT = 5.0
#: Seconds a brain given back while still thinking (its game ended on time, or it was called
#: hung at the flag) may take to give its late answer before RESTART (else it is ended).
DRAIN_S = 2.0
_MOVE = re.compile(r"^\s*(\d+)\s*,\s*(\d+)\s*$")
_STONES = re.compile(r"^(\d+),(\d+)$")
#: Gomocup's ``INFO rule`` bits for our rules.
RULE_BITS = {WinRule.FREESTYLE: 0, WinRule.EXACT: 1, WinRule.RENJU: 4}
_CHATTER = ("MESSAGE", "DEBUG", "SUGGEST", "UNKNOWN")
#: The most of a brain's ``MESSAGE`` line that is kept (a brain's chatter is not bounded).
MESSAGE_MAX = 200


class BrainError(Exception):
    """The brain crashed, hung or broke the protocol; the game it was playing is lost.

    ``fault`` says which, with the server's fault names: crash, hang, illegal_move, error.
    """

    def __init__(self, message: str, fault: str = "error") -> None:
        super().__init__(message)
        self.fault = fault


class PiskvorkBrain:
    """One running brain, kept in sync with one game."""

    def __init__(
        self,
        path: str,
        variant: Variant,
        seat: int,
        hang_slack: float = HANG_SLACK,
        spares: SpareBrains | None = None,
        clock: Callable[[], float] = time.monotonic,
        proc: asyncio.subprocess.Process | None = None,
    ) -> None:
        self.path, self.variant, self.seat = path, variant, seat
        self.hang_slack = hang_slack
        #: What a start-up inside a move is timed with (injected by tests).
        self.clock = clock
        #: Brains started ahead of their game: this one takes its process from there.
        self.spares = spares
        #: The brain's process: a running one given (a spare's), or started by :meth:`start`.
        self.proc = proc
        #: Whether ``proc`` came from ``spares`` (it goes back there, or is counted lost).
        self._lent = False
        #: A question is out and its answer not read: the brain is not idle (cannot be reused).
        self._asked = False
        self._known: list[Move] = []  # the position the brain has, in move order
        #: The text of the brain's last ``MESSAGE`` line on its latest move (how deep it went,
        #: its evaluation ...; cut to ``MESSAGE_MAX`` characters), None when it said nothing.
        self.last_message: str | None = None

    async def start(self) -> None:
        """Have a brain with the board (a spare one, if there is one) and set up the rule."""
        if self.spares is not None:
            self.proc = await self.spares.take(self.variant)
            self._lent = True
        else:
            await self.launch()
        await self._send(f"INFO rule {RULE_BITS[self.variant.rule]}")

    async def launch(self) -> None:
        """Start the brain's process and give it the board (START); it must answer OK."""
        try:
            self.proc = await asyncio.create_subprocess_exec(
                self.path,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL,
            )
        except OSError as exc:
            raise BrainError(f"cannot start brain: {exc.strerror}", "crash") from exc
        v = self.variant
        square = v.width == v.height
        await self._send(f"START {v.width}" if square else f"RECTSTART {v.width},{v.height}")
        answer = await self._answer(START_TIMEOUT)
        if answer.upper() != "OK":
            raise BrainError(f"brain refused the board: {answer[:80]!r}")

    async def restart(self, drain: bool = False) -> asyncio.subprocess.Process:
        """Make the brain ready for a new game (Piskvork's RESTART, as a Gomocup manager does
        between games), after its late answer to the last question first with ``drain``; its
        process, or :class:`BrainError` (it is ended then) when it does not answer OK (or the
        late answer does not come within ``DRAIN_S``). Cancelled, it is ended too."""
        assert self.proc is not None
        try:
            if drain:
                await self._answer(DRAIN_S)  # whatever it is: that game is over
            await self._send("RESTART")
            answer = await self._answer(RESTART_TIMEOUT, _CHATTER[:3])
            if answer.upper() != "OK":
                raise BrainError(f"brain refused RESTART: {answer[:80]!r}")
        except BaseException:
            await asyncio.shield(self.close())
            raise
        return self.proc

    async def choose(self, moves: list[Move], budget_s: float, time_left_s: float | None) -> Move:
        """The brain's move after ``moves`` (its stones are this seat's), within ``budget_s``.

        A brain started for this move (no spare was ready: games begun together) is told the
        budget less its start-up, which was on the move's clock too. A move over its budget is
        logged with its start-up: on a loaded machine that is where a game is lost on time.
        """
        asked, budget, start_up = self.clock(), budget_s, 0.0
        if self.proc is None:
            await self.start()
            start_up = self.clock() - asked
            budget_s = max(0.001, budget_s - start_up)
            time_left_s = None if time_left_s is None else max(0.001, time_left_s - start_up)
        self.last_message = None
        self._asked = True  # from the first line of the question until its answer is read
        await self._send(f"INFO timeout_turn {max(1, int(budget_s * 1000))}")
        if time_left_s is not None:
            await self._send(f"INFO time_left {max(1, int(time_left_s * 1000))}")
        if moves and self._known == moves[:-1]:
            last = moves[-1]
            await self._send(f"TURN {last.x},{last.y}")
        elif not moves:
            await self._send("BEGIN")
        else:
            await self._send("BOARD")
            for ply, m in enumerate(moves):
                await self._send(f"{m.x},{m.y},{1 if ply % 2 == self.seat else 2}")
            await self._send("DONE")
        line = await self._answer(budget_s + self.hang_slack)
        self._asked = False
        took = self.clock() - asked
        if took > budget:
            log.warning(
                "brain %s answered move %d in %.3f s, over its %.3f s (%.3f s of it starting)",
                self.path, len(moves) + 1, took, budget, start_up,
            )  # fmt: skip
        match = _MOVE.match(line)
        if not match:
            raise BrainError(f"brain answered {line[:80]!r} instead of a move")
        move = Move(int(match.group(1)), int(match.group(2)))
        if not (move.x < self.variant.width and move.y < self.variant.height) or move in moves:
            raise BrainError(f"brain played the illegal move {move}", "illegal_move")
        self._known = [*moves, move]
        return move

    async def swap2(self, moves: list[Move], budget_s: float) -> tuple[str, list[Move]] | None:
        """Ask ``SWAP2BOARD`` about an opening; None when the brain does not support it.

        Answers, checked: on an empty board ``("stones", [3 moves])``; after 3 or 5 stones
        ``("black", [])`` for SWAP, ``("white", [move])`` (it takes white and plays), or after 3
        ``("place", [2 moves])``. Anything else (UNKNOWN, ERROR, a wrong count, a taken or
        off-board cell) counts as unsupported; only a crash or a hang is a BrainError.
        """
        if self.proc is None:
            await self.start()
        self._asked = True
        await self._send(f"INFO timeout_turn {max(1, int(budget_s * 1000))}")
        await self._send("SWAP2BOARD")
        for ply, m in enumerate(moves):
            await self._send(f"{m.x},{m.y},{1 + ply % 2}")
        await self._send("DONE")
        self._known = []  # the brain's board is the opening now: resend it before the next move
        try:
            line = await self._answer(budget_s + self.hang_slack, _CHATTER[:3])
        except BrainError as exc:
            if exc.fault != "hang":
                raise
            await self.close()  # silent on SWAP2BOARD: a fresh brain plays the moves
            return None
        self._asked = False
        if line.upper() == "SWAP":
            return ("black", []) if len(moves) in (3, 5) else None
        stones: list[Move] = []
        for token in line.replace(";", " ").split():
            match = _STONES.match(token)
            if not match:
                return None
            stones.append(Move(int(match.group(1)), int(match.group(2))))
        v = self.variant
        on_board = all(m.x < v.width and m.y < v.height for m in stones)
        if not on_board or len(set(stones) | set(moves)) != len(stones) + len(moves):
            return None
        kind = {(0, 3): "stones", (3, 1): "white", (5, 1): "white", (3, 2): "place"}
        answer = kind.get((len(moves), len(stones)))
        return None if answer is None else (answer, stones)

    async def close(self, reuse: bool = False) -> None:
        """Done with the brain: with ``reuse`` (its game is over; at worst it was slow) a brain
        of the spares goes back to them for another game (one still thinking once its late
        answer came); otherwise say END, give it a moment to exit, then make sure it is gone."""
        proc, self.proc = self.proc, None
        lent, self._lent = self._lent, False
        if proc is None:
            return
        if lent and self.spares is not None:
            if reuse and _running(proc):
                self.spares.give_back(self.variant, proc, self._asked)
                return
            self.spares.lost(self.variant)
        await _end(proc)

    async def _send(self, line: str) -> None:
        if self.proc is None:
            raise BrainError("brain is not running", "crash")
        await _write(self.proc, line)

    async def _answer(self, timeout: float, chatter: tuple[str, ...] = _CHATTER) -> str:
        """The next line that is not chatter (MESSAGE, DEBUG …), all within one deadline."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            line = await self._line(max(0.0, deadline - loop.time()), timeout)
            head, _, rest = line.partition(" ")
            kind = head.upper()
            if kind not in chatter:
                return line
            if kind == "MESSAGE":
                self.last_message = rest.strip()[:MESSAGE_MAX]

    async def _line(self, timeout: float, budget: float | None = None) -> str:
        assert self.proc is not None and self.proc.stdout is not None
        try:
            raw = await asyncio.wait_for(self.proc.stdout.readline(), timeout)
        except TimeoutError as exc:
            waited = timeout if budget is None else budget
            raise BrainError(f"brain did not answer within {waited:.1f}s", "hang") from exc
        if not raw:
            raise BrainError("brain exited (crashed?)", "crash")
        return raw.decode(errors="replace").strip()


#: An idle brain of the spares: its start-up (or its RESTART) under way, or over.
Spare = asyncio.Task[asyncio.subprocess.Process]


class SpareBrains:
    """Brains kept started for each board size, so that a game's first move never pays for a
    brain's start-up (its process, its imports, its answer to START).

    A Python brain needs a few tenths of a second to answer START (over a second on a busy
    machine): at a quarter of a second a move, a start-up on a first move's clock loses that
    game. So, as a Gomocup manager starts its brains before a match and keeps each from game
    to game (RESTART), ``per_size`` brains per board size (one per game the bot plays at once)
    are started ahead; a game borrows one (a new one when none is idle) and gives it back when
    it is over, told RESTART, to wait for the next game with its tables built. A brain lost to
    its game (it crashed, hung or broke the protocol, was still thinking when the game ended,
    or did not answer RESTART with OK) is replaced at once, in the background. Given back a
    brain per game, a run of short games never waits for a start-up (when each game started
    a new brain, a burst of games lost on time at their first moves started the next burst's
    brains too late in turn, and every game of a ``--move-time 0.25`` match was lost so).
    """

    def __init__(self, path: str, per_size: int = 1) -> None:
        self.path = path
        self.per_size = max(1, per_size)
        self._ready: dict[tuple[int, int], list[Spare]] = {}
        #: Brains of each board size lent to games and not yet given back or lost.
        self._lent: dict[tuple[int, int], int] = {}
        #: Brains being ended in the background (:meth:`close` waits for them).
        self._ending: set[asyncio.Task[None]] = set()
        self._closed = False

    def prepare(self, variant: Variant) -> None:
        """Start brains for ``variant``'s board size in the background, until ``per_size`` of
        that size are idle or lent."""
        size = (variant.width, variant.height)
        tasks = self._ready.setdefault(size, [])
        while not self._closed and len(tasks) + self._lent.get(size, 0) < self.per_size:
            tasks.append(asyncio.ensure_future(self._launch(variant)))

    def ready(self, variant: Variant) -> bool:
        """Whether a spare for ``variant``'s board size has started and is still running (as
        far as this loop has seen: a death it has not read yet still counts as running)."""
        return any(_warm(t) for t in self._ready.get((variant.width, variant.height), []))

    def idle(self, variant: Variant) -> int:
        """How many brains of ``variant``'s board size wait for a game (started or starting)."""
        return len(self._ready.get((variant.width, variant.height), []))

    async def wait_ready(self, variant: Variant, timeout: float = START_TIMEOUT) -> None:
        """Wait, at most ``timeout``, for the start-ups under way for ``variant``'s board size
        (a bot does before it plays: no game's clock runs then). A failed one is the first
        move's to find."""
        tasks = list(self._ready.get((variant.width, variant.height), []))
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)

    async def take(self, variant: Variant) -> asyncio.subprocess.Process:
        """A running brain process that has the board (an idle one whose start-up is over
        first), lent until :meth:`give_back` or :meth:`lost`. Cancelled while it waits for a
        start-up, that start-up goes on for the next game."""
        size = (variant.width, variant.height)
        tasks = self._ready.get(size, [])
        task = next((t for t in tasks if _warm(t)), tasks[0] if tasks else None)
        if task is not None:
            tasks.remove(task)
        self._lent[size] = self._lent.get(size, 0) + 1
        try:
            return await self._usable(variant, task)
        except BaseException:
            self.lost(variant)  # nothing was lent
            raise

    async def _usable(self, variant: Variant, task: Spare | None) -> asyncio.subprocess.Process:
        """The brain of ``task`` if it started and still runs, else one of its own."""
        if task is not None:
            try:
                proc: asyncio.subprocess.Process | None = await self._shielded(variant, task)
            except BrainError:
                proc = None  # the spare failed: a brain of its own gets the same chance
            if proc is not None and _running(proc):
                return proc
            if proc is not None:  # it died while it waited
                await _end(proc)
        return await self._shielded(variant, asyncio.ensure_future(self._launch(variant)))

    async def _shielded(self, variant: Variant, spare: Spare) -> asyncio.subprocess.Process:
        """The brain of ``spare``; when the caller is cancelled meanwhile, the start-up goes on
        for the next game (cut short, the next game would have to start one again)."""
        try:
            return await asyncio.shield(spare)
        except asyncio.CancelledError:
            if not spare.cancelled():
                self._keep(variant, spare)
            raise

    def give_back(
        self, variant: Variant, proc: asyncio.subprocess.Process, thinking: bool = False
    ) -> None:
        """A lent brain whose game is over: told RESTART in the background (once its late
        answer came, when it was still ``thinking``), it waits for the next game; ended instead
        when ``per_size`` already wait. A slow brain kept so costs no start-up: a start-up of
        seconds on a loaded machine lost the next games on time at their first moves."""
        size = (variant.width, variant.height)
        self._lent[size] = max(0, self._lent.get(size, 0) - 1)
        tasks = self._ready.setdefault(size, [])
        if self._closed or len(tasks) >= self.per_size:
            self._end_later(proc)
            return
        brain = PiskvorkBrain(self.path, variant, 0, proc=proc)
        task = asyncio.ensure_future(brain.restart(drain=thinking))
        task.add_done_callback(lambda t: self._restarted(variant, t))
        tasks.append(task)

    def lost(self, variant: Variant) -> None:
        """A lent brain will not come back (its caller ends it): a new one starts behind it."""
        size = (variant.width, variant.height)
        self._lent[size] = max(0, self._lent.get(size, 0) - 1)
        self.prepare(variant)

    def _restarted(self, variant: Variant, task: Spare) -> None:
        """A brain that did not take RESTART is no spare: a new one starts in its place."""
        if task.cancelled() or task.exception() is None:
            return
        tasks = self._ready.get((variant.width, variant.height), [])
        if task in tasks:
            tasks.remove(task)
            self.prepare(variant)

    def _keep(self, variant: Variant, task: Spare) -> None:
        """A start-up its taker stopped waiting for: idle for the next game, or ended."""
        tasks = self._ready.setdefault((variant.width, variant.height), [])
        if not self._closed and len(tasks) < self.per_size:
            tasks.append(task)
            return
        task.cancel()  # a start-up under way stops (its process ends with it); a done one:
        task.add_done_callback(
            lambda t: None if t.cancelled() or t.exception() else self._end_later(t.result())
        )

    def _end_later(self, proc: asyncio.subprocess.Process) -> None:
        ending = asyncio.ensure_future(_end(proc))
        self._ending.add(ending)
        ending.add_done_callback(self._ending.discard)

    async def _launch(self, variant: Variant) -> asyncio.subprocess.Process:
        brain = PiskvorkBrain(self.path, variant, 0)
        try:
            await brain.launch()
        except BaseException:  # failed or cancelled half-way: its process must not outlive it
            await asyncio.shield(brain.close())
            raise
        assert brain.proc is not None
        return brain.proc

    async def close(self) -> None:
        """Stop the spares (the bot is leaving); a brain given back later is ended."""
        self._closed = True
        tasks = [t for size in self._ready.values() for t in size]
        self._ready.clear()
        for task in tasks:
            task.cancel()
        for task in tasks:
            try:
                proc = await task
            except (asyncio.CancelledError, BrainError):
                continue
            await _end(proc)
        while self._ending:
            await asyncio.gather(*self._ending, return_exceptions=True)


def _warm(task: asyncio.Task[asyncio.subprocess.Process]) -> bool:
    """Whether a spare's start-up is over and its brain still runs."""
    if not task.done() or task.cancelled() or task.exception() is not None:
        return False
    return _running(task.result())


def _running(proc: asyncio.subprocess.Process) -> bool:
    """Whether a brain that waited is still there: not exited, its output not closed (a
    question would cost a slow brain's clock, and not every brain answers ABOUT)."""
    assert proc.stdout is not None
    return proc.returncode is None and not proc.stdout.at_eof()


async def _end(proc: asyncio.subprocess.Process) -> None:
    """Say END to a brain, give it a moment to exit, then make sure it is gone."""
    try:
        with contextlib.suppress(Exception):
            await _write(proc, "END")
            await asyncio.wait_for(proc.wait(), 1.0)
    finally:  # even when cancelled: a hung brain must not outlive its game
        if proc.returncode is None:
            proc.kill()
            with contextlib.suppress(Exception):
                await proc.wait()


async def _write(proc: asyncio.subprocess.Process, line: str) -> None:
    """One line to the brain (CRLF, as Piskvork managers send)."""
    assert proc.stdin is not None
    try:
        proc.stdin.write(line.encode() + b"\r\n")
        await proc.stdin.drain()
    except (ConnectionError, RuntimeError) as exc:
        raise BrainError("brain closed its input (crashed?)", "crash") from exc
