"""``mnk-bot --piskvork``: our engine as a Gomocup brain on stdin/stdout (Piskvork protocol).

Any Gomocup manager (piskvork, c-gomoku-cli, GomocupJudge) can run it like a ``pbrain-*``
executable. Coordinates are 0-based ``x,y``; ``INFO rule 1`` selects exactly-five, ``INFO rule
4`` renju. ``SWAP2BOARD`` (Gomocup's swap2 opening) is answered with three stones on an empty
board, and after three or five stones with ``SWAP`` (take black), one move (take white and play
it) or, after three, two stones (place two more and hand the choice back).

Time: ``INFO timeout_turn`` and ``INFO time_left`` (with ``timeout_match``) become a budget by
:func:`bots.engine.timing.plan_time`, counted from the moment the command that asks for a move
arrived. While it thinks the engine writes a ``MESSAGE`` line per iteration (depth, selective
depth, evaluation or mate distance, nodes, speed, time, principal variation), as Gomocup
engines do.
"""

from __future__ import annotations

import importlib.metadata
import sys
import time
from collections.abc import Callable
from typing import TextIO

from bots.engine.fast import set_memory
from bots.engine.info import message_line
from bots.engine.limits import Limit, SearchResult
from bots.engine.timing import Budget, plan_time
from bots.sdk import BLACK, PLACE, WHITE, Bot, MinimaxBot
from protocol.errors import BadOptions
from protocol.rules import Game, Move, Variant, WinRule
from protocol.variants import make_variant

ABOUT = 'name="mnk-arena", version="{version}", author="mnk-arena team", country="-"'
#: The fixed part of what is kept back from every limit for the manager's pipes and our own
#: work around the search (measured: see docs/BOTS.md); :func:`plan_time` adds a share.
MARGIN_S = 0.06
#: The per-move limit when the manager gives none (``timeout_turn`` absent or 0).
DEFAULT_TURN_S = 5.0


def about() -> str:
    """The ABOUT answer: name, version (the installed package's), author and country."""
    try:
        version = importlib.metadata.version("mnk-arena")
    except importlib.metadata.PackageNotFoundError:
        version = "dev"
    return ABOUT.format(version=version)


def error_words(exc: Exception) -> str:
    """An engine failure as a manager reads it: the reason, never a Python class name."""
    return str(exc).strip() or "the engine failed"


class BrainSession:
    """The state of one Piskvork conversation: the board, the rule and the time limits."""

    def __init__(
        self, bot: Bot, out: TextIO, clock: Callable[[], float] = time.perf_counter
    ) -> None:
        self.bot, self.out, self.clock = bot, out, clock
        #: When the command being handled arrived: the manager's clock runs from there.
        self.received = clock()
        self.width = self.height = 0
        self.own: list[Move] = []
        self.theirs: list[Move] = []
        self.info: dict[str, str] = {}
        self._board: list[tuple[Move, int]] | None = None
        self._swap2 = False

    def say(self, line: str) -> None:
        """Write one answer line to the manager."""
        self.out.write(line + "\n")
        self.out.flush()

    def handle(self, line: str) -> bool:
        """Process one command line; False once the manager said END."""
        self.received = self.clock()
        line = line.strip()
        if not line:
            return True
        if self._board is not None:
            return self._board_line(line)
        word, _, rest = line.partition(" ")
        word = word.upper()
        if word == "END":
            return False
        handler = getattr(self, f"_cmd_{word.lower()}", None)
        if handler is None:
            self.say(f"UNKNOWN {word}")
            return True
        try:
            handler(rest.strip())
        except ValueError as exc:  # a malformed command is answered, never fatal
            self.say(f"ERROR {word}: {exc}"[:200])
        return True

    # -- commands ------------------------------------------------------------------------------

    def _cmd_start(self, rest: str) -> None:
        self._cmd_rectstart(f"{rest},{rest}")

    def _cmd_rectstart(self, rest: str) -> None:
        try:
            width, height = (int(p) for p in rest.split(","))
            if min(width, height) < 5:
                raise ValueError("too small for five in a row")
            make_variant("mnk", {"width": width, "height": height, "k": 5})
        except Exception:
            self.say("ERROR unsupported board size (5..25 each side)")
            return
        self.width, self.height = width, height
        self.own, self.theirs = [], []
        for rule in WinRule:  # before OK: START is off the move clocks (INFO rule comes later)
            try:
                variant = make_variant(
                    "mnk", {"width": width, "height": height, "k": 5, "rule": rule}
                )
            except BadOptions:
                continue  # renju is played on 15x15 only
            self.bot.prepare(variant)
        self.say("OK")

    def _cmd_restart(self, rest: str) -> None:
        self.own, self.theirs = [], []
        self.say("OK")

    def _cmd_info(self, rest: str) -> None:
        key, _, value = rest.partition(" ")
        key, value = key.lower(), value.strip()
        self.info[key] = value
        if key == "max_memory" and value.isdigit():
            set_memory(int(value))  # bytes; 0 = no limit. thread_num is noted, one thread used

    def _cmd_about(self, rest: str) -> None:
        self.say(about())

    def _cmd_begin(self, rest: str) -> None:
        self._play()

    def _cmd_turn(self, rest: str) -> None:
        x, y = (int(p) for p in rest.split(","))
        self.theirs.append(Move(x, y))
        self._play()

    def _cmd_takeback(self, rest: str) -> None:
        x, y = (int(p) for p in rest.split(","))
        for stones in (self.own, self.theirs):
            if Move(x, y) in stones:
                stones.remove(Move(x, y))
        self.say("OK")

    def _cmd_board(self, rest: str) -> None:
        self._board = []
        self._swap2 = False

    def _cmd_swap2board(self, rest: str) -> None:
        self._board = []
        self._swap2 = True

    def _board_line(self, line: str) -> bool:
        assert self._board is not None
        if line.upper() == "DONE":
            stones, self._board = self._board, None
            if self._swap2:
                self._answer_swap2([m for m, _ in stones])
                return True
            self.own = [m for m, field in stones if field == 1]
            self.theirs = [m for m, field in stones if field == 2]
            self._play()
            return True
        try:
            x, y, field = (int(p) for p in line.split(","))
        except ValueError:
            self._board = None
            self.say(f"ERROR bad BOARD line {line[:40]!r}; expected x,y,field")
            return True
        if field not in (1, 2):  # 3 is Piskvork's continuous-game mode, which we do not play
            self._board = None
            self.say(f"ERROR unsupported BOARD field {field} (continuous games are not played)")
            return True
        self._board.append((Move(x, y), field))
        return True

    # -- thinking ------------------------------------------------------------------------------

    def variant(self) -> Variant:
        """The game the manager set up: k = 5; rule bit 1 exactly five, bit 4 renju."""
        bits = int(self.info.get("rule", "0") or 0)
        rule = WinRule.RENJU if bits & 4 else WinRule.EXACT if bits & 1 else WinRule.FREESTYLE
        return make_variant(
            "mnk", {"width": self.width, "height": self.height, "k": 5, "rule": rule.value}
        )

    def budget(self) -> Budget:
        """This move's budget from timeout_turn and time_left (milliseconds; a match limit
        ``timeout_match`` of 0 means none, and so does a missing ``time_left``)."""
        turn = int(self.info.get("timeout_turn", "0") or 0) / 1000 or DEFAULT_TURN_S
        left: float | None = int(self.info.get("time_left", "0") or 0) / 1000
        if not left or self.info.get("timeout_match", "") == "0":
            left = None
        return plan_time(turn, left, fixed_s=MARGIN_S)

    def limit(self) -> Limit:
        """The search limit now: the budget less what went by since the command arrived."""
        budget, spent = self.budget(), self.clock() - self.received
        return Limit(
            time_s=max(0.01, budget.maximum - spent),
            soft_s=max(0.01, budget.planned - spent),
            report=self._message,
        )

    def _message(self, result: SearchResult) -> None:
        self.say(message_line(result))

    def moves(self) -> list[Move]:
        """The stones as a move list from the empty board (the side with more stones first)."""
        if len(self.theirs) > len(self.own):
            first, second = self.theirs, self.own  # they began
        else:
            first, second = self.own, self.theirs  # equal stones on our turn: we began
        order: list[Move] = []
        for i in range(max(len(first), len(second))):
            order += first[i : i + 1] + second[i : i + 1]
        return order

    def _answer_swap2(self, moves: list[Move]) -> None:
        """Answer SWAP2BOARD: the opening stones in the order given (black, white, black …)."""
        if not self.width:
            self.say("ERROR no board: send START first")
            return
        variant, limit = self.variant(), self.limit()
        try:
            Game.from_moves(variant, moves)
            if not moves:
                stones = self.bot.place_opening(variant, moves, 3, limit)
                self.say(" ".join(f"{m.x},{m.y}" for m in stones))
                return
            if len(moves) not in (3, 5):
                raise ValueError("SWAP2BOARD needs 0, 3 or 5 stones")
            choices = [BLACK, WHITE, PLACE] if len(moves) == 3 else [BLACK, WHITE]
            choice = self.bot.choose_colour(variant, moves, choices, limit)
            if choice == BLACK:
                self.say("SWAP")
            elif choice == PLACE:
                stones = self.bot.place_opening(variant, moves, 2, limit)
                self.say(" ".join(f"{m.x},{m.y}" for m in stones))
            else:
                move = self.bot.play(variant, moves, limit)
                self.say(f"{move.x},{move.y}")
        except Exception as exc:
            self.say(f"ERROR {error_words(exc)}"[:200])

    def _play(self) -> None:
        if not self.width:
            self.say("ERROR no board: send START first")
            return
        moves = self.moves()
        variant = self.variant()
        try:
            Game.from_moves(variant, moves)
            move = self.bot.play(variant, moves, self.limit())
        except Exception as exc:
            self.say(f"ERROR {error_words(exc)}"[:200])
            return
        self.own.append(move)
        self.say(f"{move.x},{move.y}")


def serve(bot: Bot | None = None, inp: TextIO | None = None, out: TextIO | None = None) -> None:
    """Answer Piskvork commands from ``inp`` until END or end of input."""
    session = BrainSession(bot or MinimaxBot(10), out or sys.stdout)
    for line in inp or sys.stdin:
        if not session.handle(line):
            break
