"""``mnk-bot certify SPEC``: play a bot through a short battery over the wire and say what
passed.

An embedded server on a free loopback port (as ``mnk-tournament`` starts one), the bot as its
own ``mnk-bot`` process (connected through a small loopback relay, so that the certifier can
drop its connection), and a human-kind tester that creates rooms against it by name and plays.
The checks: a game of every variant the bot claims (renju as black from a position with a
forbidden point, none of which it may play), a clock it must keep, a takeback it must answer,
an aborted game it must get over, a rematch it must accept, a connection dropped mid-game
(it must come back and play on) and a set-up position (``options.position``). A table of what
passed; exit status 0 only when everything did.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bots.specs import check_engine, parse_spec
from bots.tournament.link import Link, pages
from bots.tournament.processes import (
    Child,
    free_port,
    make_keys,
    server_child,
    wait_listening,
)
from protocol.connection import ServerError
from protocol.rules import Game, Move
from protocol.variants import FIXED

#: The games a bot may claim, in the order they are checked.
GAMES = ("tictactoe", "gomoku", "renju")
#: The bot's name on the embedded server.
BOT = "candidate"
#: A game the bot must play at full strength on a clock quick enough for a few seconds' check.
QUICK = {"initial_s": 10.0, "increment_s": 0.1}
#: The clock the ``clock`` check holds the bot to: 2 s for the game (and 0.05 s a move).
TIGHT = {"initial_s": 2.0, "increment_s": 0.05}
#: Stones on the board (beyond a position) after which a checked game is adjudicated a draw.
SHORT = 12
#: Renju, black to move: (7, 7) would make two open threes (a forbidden double three).
RENJU_TRAP = {
    "black": [[7, 5], [7, 6], [5, 7], [6, 7]],
    "white": [[0, 14], [2, 14], [14, 0], [12, 0]],
    "to_move": 0,
}
#: A set-up position per game, black (the bot) to move: a win in one on the 15x15 boards.
POSITIONS: dict[str, dict[str, Any]] = {
    "tictactoe": {"black": [[0, 0], [2, 2]], "white": [[1, 1], [0, 2]], "to_move": 0},
    "gomoku": {
        "black": [[3, 7], [4, 7], [5, 7], [6, 7]],
        "white": [[3, 8], [4, 8], [5, 8], [9, 9]],
    },
    "renju": {"black": [[4, 7], [5, 7], [6, 7]], "white": [[4, 8], [5, 8], [9, 9]], "to_move": 0},
}


class CheckFailed(Exception):
    """A check did not pass; the message says what went wrong."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """One line of the table: the check, whether it passed, what was seen, how long it took."""

    name: str
    passed: bool
    detail: str
    seconds: float


class Relay:
    """A loopback TCP relay between the bot and the server, able to cut every connection."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = 0
        self.cuts = 0
        #: Connections the relay has carried (a reconnect is a new one).
        self.connections = 0
        self._writers: set[asyncio.StreamWriter] = set()
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        """Listen on a free loopback port."""
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Pipe one connection both ways until either side closes (or :meth:`cut`)."""
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.close()
            return
        self.connections += 1
        self._writers |= {writer, up_writer}
        await asyncio.gather(
            self._pipe(reader, up_writer), self._pipe(up_reader, writer), return_exceptions=True
        )
        self._writers -= {writer, up_writer}

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Copy ``reader`` to ``writer``; close ``writer`` at the end."""
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        finally:
            writer.close()

    def cut(self) -> None:
        """Drop every connection through the relay now (the bot must connect again)."""
        self.cuts += 1
        for writer in list(self._writers):
            writer.transport.abort()

    async def close(self) -> None:
        """Stop listening and drop every connection."""
        self.cut()
        if self._server is not None:
            self._server.close()


class Table:
    """A room against the bot as the tester sees it: its feed and the game so far."""

    def __init__(self, link: Link, room: str, seat: int, game: Game) -> None:
        self.link, self.room, self.seat, self.game = link, room, seat, game
        self.feed = link.feed(room)
        self.over: dict[str, Any] | None = None
        self.bot_moves: list[Move] = []

    async def receive(self, deadline: float, waiting: str) -> dict[str, Any]:
        """The room's next message (followed), or CheckFailed past ``deadline``."""
        try:
            msg = await asyncio.wait_for(self.feed.get(), max(0.0, deadline - time.monotonic()))
        except TimeoutError:
            raise CheckFailed(f"{waiting}: nothing came in time") from None
        self.follow(msg)
        return msg

    async def next(
        self, kinds: str | tuple[str, ...], timeout: float, **fields: Any
    ) -> dict[str, Any]:
        """The next message of one of ``kinds`` (matching ``fields``) about the room; the
        game's end on the way is a CheckFailed."""
        wanted = (kinds,) if isinstance(kinds, str) else kinds
        deadline = time.monotonic() + timeout
        while True:
            msg = await self.receive(deadline, f"waiting {timeout:g} s for {' or '.join(wanted)}")
            if msg["type"] in wanted and all(msg.get(k) == v for k, v in fields.items()):
                return msg
            if msg["type"] == "game_over" and "game_over" not in wanted:
                raise CheckFailed(f"the game ended first: {ending(msg, self.seat)}")

    def follow(self, msg: dict[str, Any]) -> None:
        """Keep the game in step with ``moved``, ``game_over`` and a fresh ``state``."""
        if msg["type"] == "moved":
            move = Move(msg["x"], msg["y"])
            if msg.get("seat") != self.seat:
                if not self.game.is_legal(move):
                    raise CheckFailed(f"the bot played {move}, illegal here")
                self.bot_moves.append(move)
            self.game.push(move)
        elif msg["type"] == "game_over":
            self.over = msg

    async def play(self) -> None:
        """Our move: the free cell nearest the centre that is legal."""
        v = self.game.variant
        cx, cy = v.width // 2, v.height // 2
        move = min(self.game.legal_moves(), key=lambda m: (abs(m.x - cx) + abs(m.y - cy), m))
        reply = await self.link.request(
            {"type": "move", "room": self.room, "x": move.x, "y": move.y, "ply": self.game.ply}
        )
        if reply["type"] == "error":
            raise CheckFailed(f"our move was refused: {reply.get('code')}")

    async def to_the_end(self, timeout: float) -> dict[str, Any]:
        """Play on until the game is over; its ``game_over``."""
        deadline = time.monotonic() + timeout
        while self.over is None:
            if self.game.to_move == self.seat:
                await self.play()
            await self.receive(deadline, f"the game not over after {timeout:g} s")
        return self.over


def short(game: str) -> dict[str, int]:
    """The options that keep a checked game of ``game`` short (tic-tac-toe is short)."""
    return {} if game == "tictactoe" else {"max_moves": SHORT}


def ending(over: dict[str, Any], seat: int) -> str:
    """How a game ended, from the bot's side (``seat`` is the tester's)."""
    reason = over.get("reason", "?")
    if over.get("fault"):
        reason += f" ({over['fault']})"
    winner = over.get("winner")
    who = "nobody won" if winner is None else "the bot won" if winner != seat else "the bot lost"
    return f"{reason}, {who}"


class Certifier:
    """The tester: opens rooms against the bot named ``examinee`` and runs each check (the
    reconnect only with a ``relay`` that carries the bot's connection)."""

    def __init__(
        self, link: Link, games: list[str], examinee: str = BOT, relay: Relay | None = None
    ) -> None:
        self.link, self.relay, self.games, self.examinee = link, relay, games, examinee
        #: The claimed game the other checks play (gomoku when claimed).
        self.main = "gomoku" if "gomoku" in games else games[0]

    async def open(
        self, game: str, seat: int, clock: dict[str, float] | None = QUICK, **options: Any
    ) -> Table:
        """A room against the bot, the tester in ``seat``, at full strength on ``clock``."""
        position = options.get("position")
        ask: dict[str, Any] = {"type": "create_room", "game": game, "bot": self.examinee}
        ask["seat"] = seat
        if clock is not None:
            ask["clock"] = clock
            options = {"full_strength": True, **options}
        ask["options"] = options
        try:
            joined = await self.link.request(ask, 10.0)
        except ServerError as exc:
            raise CheckFailed(f"no room against the bot: {exc}") from None
        variant = FIXED[game]
        if position is None:
            board = Game(variant)
        else:
            stones = [[Move(x, y) for x, y in position.get(c, [])] for c in ("black", "white")]
            board = Game.from_position(variant, *stones, position.get("to_move", 0))
        table = Table(self.link, joined["room"], seat, board)
        await table.next("state", 10.0, status="playing")
        return table

    async def variant(self, game: str) -> str:
        """A short game of ``game``, each seat once in tic-tac-toe; the bot must play it out."""
        if game == "renju":
            return await self.renju()
        seen = []
        for seat in (1, 0) if game == "tictactoe" else (1,):
            table = await self.open(game, seat, **short(game))
            over = await table.to_the_end(60.0)
            await self.leave(table)
            if over["reason"] not in ("line", "draw", "adjudicated"):
                raise CheckFailed(ending(over, seat))
            seen.append(ending(over, seat))
        return "; ".join(seen)

    async def renju(self) -> str:
        """Renju as black from a position where (7, 7) is a forbidden double three."""
        stones = len(RENJU_TRAP["black"]) + len(RENJU_TRAP["white"])
        table = await self.open("renju", 1, position=RENJU_TRAP, max_moves=stones + SHORT)
        over = await table.to_the_end(60.0)
        await self.leave(table)
        if Move(7, 7) in table.bot_moves:
            raise CheckFailed("the bot played the forbidden point (7, 7) as black")
        if over["reason"] not in ("line", "draw", "adjudicated"):
            raise CheckFailed(f"as black, (7, 7) forbidden: {ending(over, 1)}")
        return f"{len(table.bot_moves)} moves as black, none forbidden; {ending(over, 1)}"

    async def clock(self) -> str:
        """A game on a 2 s clock: the bot must not lose on time."""
        table = await self.open(self.main, 1, clock=TIGHT, **short(self.main))
        over = await table.to_the_end(30.0)
        await self.leave(table)
        if over["reason"] == "timeout" and over.get("winner") == 1:
            raise CheckFailed("the bot lost on time")
        if over["reason"] not in ("line", "draw", "adjudicated"):
            raise CheckFailed(ending(over, 1))
        left = over.get("clocks") or [None, None]
        return f"{ending(over, 1)}; its clock ended at {left[0]:.2f} s" if left[0] else "kept it"

    async def takeback(self) -> str:
        """We offer a takeback after the bot's reply: it must answer (accept or decline)."""
        table = await self.open(self.main, 0)
        await table.play()
        await table.next("moved", 20.0, seat=1)
        await self.link.request({"type": "takeback_offer", "room": table.room}, 10.0)
        answer = await table.next(("taken_back", "offer_declined"), 20.0)
        await self.resign(table)
        return "accepted" if answer["type"] == "taken_back" else "declined"

    async def abort(self) -> str:
        """We abort after the bot's first move; then it must play a new game at once."""
        table = await self.open(self.main, 1)
        await table.next("moved", 20.0, seat=0)
        await self.link.request({"type": "abort", "room": table.room}, 10.0)
        over = await table.next("game_over", 10.0)
        if over["reason"] != "aborted":
            raise CheckFailed(f"the abort ended as {ending(over, 1)}")
        await self.leave(table)
        fresh = await self.open(self.main, 1)
        await fresh.next("moved", 20.0, seat=0)
        await self.resign(fresh)
        return "aborted, and it played the next game"

    async def rematch(self) -> str:
        """We resign a game and ask for a rematch: the bot must accept and play on."""
        table = await self.open(self.main, 0)
        await self.resign(table, leave=False)
        await self.link.request({"type": "rematch", "room": table.room}, 10.0)
        state = await table.next("state", 20.0, status="playing", game_no=2)
        table.seat = state.get("seat", 1)
        table.game = Game(table.game.variant)
        await table.next("moved", 20.0, seat=1 - table.seat)  # colours swapped: it opens
        await self.resign(table)
        return "accepted; it opened the second game"

    async def reconnect(self) -> str:
        """Its connection is cut mid-game: it must come back and answer our next move."""
        table = await self.open(self.main, 0)
        await table.play()
        await table.next("moved", 20.0, seat=1)
        assert self.relay is not None  # listed in checks() only with a relay
        before, cut_at = self.relay.connections, time.monotonic()
        self.relay.cut()
        await table.play()
        await table.next("moved", 30.0, seat=1)
        if self.relay.connections == before:
            raise CheckFailed("it moved without connecting again: the cut did not happen")
        await self.resign(table)
        return f"it came back and played on ({time.monotonic() - cut_at:.2f} s)"

    async def position(self) -> str:
        """A set-up position (``options.position``), the bot to move: it must play from it."""
        table = await self.open(self.main, 1, position=POSITIONS[self.main])
        moved = await table.next("moved", 20.0, seat=0)
        await self.resign(table)
        return f"it played ({moved['x']}, {moved['y']}) from the position"

    async def resign(self, table: Table, leave: bool = True) -> None:
        """We resign (unless the game is over already), wait for its end and leave the room
        (unless told to stay)."""
        if table.over is None and not table.game.over:
            await self.link.request({"type": "resign", "room": table.room}, 10.0)
        if table.over is None:
            await table.next("game_over", 10.0)
        if leave:
            await self.leave(table)

    async def leave(self, table: Table) -> None:
        """Leave the table's room (the bot's seat is free for the next check)."""
        with contextlib.suppress(ServerError):
            await self.link.request({"type": "leave_room", "room": table.room}, 10.0)
        self.link.forget(table.room)

    def checks(self) -> list[tuple[str, Callable[[], Awaitable[str]]]]:
        """Every check, in order (the reconnect only when we carry the bot's connection)."""
        plays = [(game, lambda g=game: self.variant(g)) for game in self.games]
        cut = [("reconnect", self.reconnect)] if self.relay is not None else []
        return [
            *plays,
            ("clock", self.clock),
            ("takeback", self.takeback),
            ("abort", self.abort),
            ("rematch", self.rematch),
            *cut,
            ("position", self.position),
        ]


async def run_check(name: str, check: Callable[[], Awaitable[str]], limit: float) -> Outcome:
    """One check within ``limit`` seconds, its outcome."""
    start = time.monotonic()
    try:
        detail = await asyncio.wait_for(check(), limit)
        passed = True
    except CheckFailed as exc:
        detail, passed = str(exc), False
    except TimeoutError:
        detail, passed = f"unfinished after {limit:g} s", False
    except ServerError as exc:
        detail, passed = f"the server refused: {exc}", False
    return Outcome(name, passed, detail, time.monotonic() - start)


async def certify(spec: str, games: list[str], work: Path, limit: float) -> list[Outcome]:
    """Start the server and the bot in ``work``, run every check, stop everything."""
    port = free_port()
    keys = make_keys(work, [BOT])
    server = server_child(work, port, grace=30.0)
    server.argv += [  # one tester plays every game: the per-address bounds are not checked here
        "--bot-seat-share", "1", "--max-guest-games-per-hour", "10000",
        "--max-games-per-address-hour", "10000",
    ]  # fmt: skip
    server.start()
    relay: Relay | None = None
    bot: Child | None = None
    link: Link | None = None
    try:
        url = f"ws://127.0.0.1:{port}"
        await wait_listening(url, server)
        relay = Relay(port)
        await relay.start()
        bot = bot_process(work, f"ws://127.0.0.1:{relay.port}", spec, games, keys[BOT])
        bot.start()
        link = Link(url, "certifier", rate=1000.0)
        await link.open()
        online = await run_check("connects", lambda: bot_online(link, BOT, bot), 30.0)
        if not online.passed:
            return [online]
        tester = Certifier(link, games, BOT, relay)
        return [online] + [await run_check(n, c, limit) for n, c in tester.checks()]
    finally:
        if link is not None:
            await link.close()
        if bot is not None:
            await bot.stop()
        if relay is not None:
            await relay.close()
        await server.stop()


def bot_process(work: Path, url: str, spec: str, games: list[str], key: str) -> Child:
    """The bot as ``mnk-bot`` runs it: two seats, its session kept, hangs caught in 1 s."""
    argv = [sys.executable, "-m", "bots", "--server", url, "--engine", spec, "--name", BOT]
    argv += ["--capacity", "2", "--games", ",".join(games), "--analyses", "0"]
    argv += ["--session-file", str(work / "bot.session"), "--hang-slack", "1"]
    argv += ["--log-level", "WARNING"]
    return Child(BOT, argv, work / "bot.log", {"MNK_BOT_KEY": key})


async def bot_online(link: Link, name: str, bot: Child | None = None) -> str:
    """Wait until the bot ``name`` is listed online by the server (its process, if we run it,
    must not exit meanwhile)."""
    while True:
        if bot is not None and bot.exited:
            code = bot.proc.returncode if bot.proc is not None else None
            raise CheckFailed(f"the bot process exited (code {code}): see its log below")
        found = await listed(link, name)
        if found is not None and found.get("online"):
            return f"online, playing {', '.join(found.get('games', []))}"
        await asyncio.sleep(0.1)


async def listed(link: Link, name: str) -> dict[str, Any] | None:
    """The bot ``name``'s ``list_bots`` entry (None: not listed)."""
    async for page in pages(link, {"type": "list_bots"}, 10.0, most=20):
        for entry in page.get("bots", []):
            if entry.get("name") == name:
                return dict(entry)
    return None


def table_text(outcomes: list[Outcome]) -> str:
    """The outcomes as a plain table."""
    width = max(len(o.name) for o in outcomes)
    lines = [f"{'check':<{width}}  result  time   detail"]
    for o in outcomes:
        mark = "pass" if o.passed else "FAIL"
        lines.append(f"{o.name:<{width}}  {mark:<6}  {o.seconds:4.1f}s  {o.detail}")
    passed = sum(o.passed for o in outcomes)
    lines.append(f"{passed} of {len(outcomes)} checks passed")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``mnk-bot certify``."""
    p = argparse.ArgumentParser(prog="mnk-bot certify", description=str(__doc__).split("\n")[0])
    p.add_argument("spec", metavar="SPEC", help="the engine, as mnk-bot --engine takes it")
    p.add_argument(
        "--games",
        default="*",
        help="the games the bot claims, comma-separated (default *: " + ", ".join(GAMES) + ")",
    )
    p.add_argument("--check-timeout", type=float, default=60.0, help="seconds a check may take")
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``mnk-bot certify``: the table on stdout, 0 when every check passed."""
    args = build_parser().parse_args(argv)
    games = list(GAMES) if args.games == "*" else args.games.split(",")
    unknown = [g for g in games if g not in GAMES]
    try:
        if unknown:
            raise ValueError(f"unknown game {unknown[0]!r}; one of {', '.join(GAMES)}")
        check_engine(parse_spec(args.spec))
    except ValueError as exc:
        print(f"mnk-bot certify: {exc}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="mnk-certify-") as work:
        start = time.monotonic()
        outcomes = asyncio.run(certify(args.spec, games, Path(work), args.check_timeout))
        print(table_text(outcomes))
        print(f"{args.spec}: certified in {time.monotonic() - start:.1f} s" if all(
            o.passed for o in outcomes) else f"{args.spec}: not certified")  # fmt: skip
        with contextlib.suppress(OSError):
            log = (Path(work) / "bot.log").read_text()
            if log.strip() and not all(o.passed for o in outcomes):
                print("the bot's log ends:\n" + log[-1500:])
    return 0 if all(o.passed for o in outcomes) else 1
