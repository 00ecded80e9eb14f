"""Engine analysis as the client reads it: the ``analysis`` answer, the evaluation graph's
scale, blunders and the exact values' overlay (pure: no pygame, no I/O; docs/PROTOCOL.md,
"Analysis").

Every score on the wire is from the side to move's view; the graph and the blunder marks are
from the first player's (black's, X's) view, so a graph rises while black does well.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from client.values import Cell, Message, xy
from protocol.cells import cell_name

#: Engine scores (its units) at which the graph is half way to its end: typical scores are a
#: few thousand either way, the engine's WIN is 1,000,000.
SCORE_HALF = 1000
#: Where the largest non-mate score stops short of the graph's end (mates and proven results
#: sit exactly at +-1, so they stand out).
SCORE_CAP = 0.95
#: At most this many lines and this many cell values are kept from one answer (a hostile or
#: broken server cannot make the client hold more).
MAX_LINES = 5
MAX_VALUES = 25 * 25
MAX_PV = 40
MAX_MARKS = 2


@dataclass(frozen=True, slots=True)
class Line:
    """One line of the engine: its first move, score or mate distance, variation and depth."""

    move: Cell
    score: int | None
    mate: int | None
    pv: tuple[Cell, ...]
    depth: int
    #: The side to move's win chance in percent, as the server says it (None: an older server).
    win: int | None = None

    @classmethod
    def from_wire(cls, raw: Message) -> Line:
        """Build from one ``lines`` entry; ValueError (or KeyError) when it is malformed."""
        score, mate, depth = raw.get("score"), raw.get("mate"), raw.get("depth", 0)
        pv = tuple(xy(c) for c in (raw.get("pv") or ())[:MAX_PV])
        return cls(
            move=xy(raw["move"]),
            score=score if _is_int(score) else None,
            mate=mate if _is_int(mate) and mate != 0 else None,
            pv=pv,
            depth=depth if _is_int(depth) else 0,
            win=raw["win"] if _is_int(raw.get("win")) and 0 <= raw["win"] <= 100 else None,
        )

    def eval(self) -> float:
        """This line on the graph's scale, from the side to move's view."""
        if self.mate is not None:
            return 1.0 if self.mate > 0 else -1.0
        return score_scale(self.score or 0)

    def label(self) -> str:
        """The line's verdict in words: ``win in 7``, ``loss in 4``, the server's win chance
        (``55 % win chance``) or from an older server a score such as ``+35``."""
        if self.mate is not None:
            return f"win in {self.mate}" if self.mate > 0 else f"loss in {-self.mate}"
        if self.win is not None:
            return f"{self.win} % win chance"
        return score_label(self.score or 0)


@dataclass(frozen=True, slots=True)
class CellValue:
    """The proven value of playing ``move`` (from the side to move's view), ``plies`` to the end."""

    move: Cell
    value: str
    plies: int

    @classmethod
    def from_wire(cls, raw: Message) -> CellValue:
        """Build from one ``values`` entry; ValueError (or KeyError) when it is malformed."""
        value, plies = raw.get("value"), raw.get("plies", 0)
        if value not in ("win", "draw", "loss"):
            raise ValueError(f"not a value: {value!r:.20}")
        return cls(xy(raw["move"]), str(value), plies if _is_int(plies) else 0)


@dataclass(frozen=True, slots=True)
class Analysis:
    """One ``analysis`` answer: the position's ply and colour to move, the lines, the values."""

    ply: int
    to_move: int
    lines: tuple[Line, ...]
    values: tuple[CellValue, ...] = ()
    #: The server's marks of the game's moves next to this position (a game's answers only).
    marks: tuple[Mark, ...] = ()

    @classmethod
    def from_wire(cls, msg: Message) -> Analysis:
        """Build from an ``analysis`` message (malformed lines and values are left out)."""
        ply = msg.get("ply")
        ply = ply if _is_int(ply) and ply >= 0 else 0
        to_move = msg.get("to_move")
        to_move = to_move if to_move in (0, 1) and _is_int(to_move) else ply & 1
        return cls(
            ply=ply,
            to_move=to_move,
            lines=tuple(_parsed(Line.from_wire, msg.get("lines"), MAX_LINES)),
            values=tuple(_parsed(CellValue.from_wire, msg.get("values"), MAX_VALUES)),
            marks=tuple(_parsed(Mark.from_wire, msg.get("marks"), MAX_MARKS)),
        )

    @property
    def best(self) -> Line | None:
        """The engine's first line (its best move), if it gave one."""
        return self.lines[0] if self.lines else None

    def exact(self) -> tuple[str, int] | None:
        """The position's proven value with best play (side to move's view) and its plies:
        the shortest win, else a draw, else the longest loss; None unless values came."""
        return exact_value(self.values)

    def eval(self) -> float | None:
        """The position on the graph's scale from the side to move's view (None: no verdict)."""
        exact = self.exact()
        if exact is not None:
            return VALUE_EVAL[exact[0]]
        best = self.best
        return best.eval() if best is not None else None

    def black_eval(self) -> float | None:
        """The position on the graph's scale from the first player's view."""
        value = self.eval()
        return None if value is None else (value if self.to_move == 0 else -value)

    def as_good(self, cell: Cell) -> bool:
        """Whether playing ``cell`` is as good as the engine's best: its move, or one whose
        proven value is the position's (a drawing move in a drawn position)."""
        best, value, exact = self.best, self.value_at(cell), self.exact()
        if best is not None and best.move == cell:
            return True
        return value is not None and exact is not None and value.value == exact[0]

    def value_at(self, cell: Cell) -> CellValue | None:
        """The proven value of playing ``cell`` now, if the answer has one."""
        return next((v for v in self.values if v.move == cell), None)


#: A proven value on the graph's scale.
VALUE_EVAL = {"win": 1.0, "draw": 0.0, "loss": -1.0}


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


T = TypeVar("T")


def _parsed(build: Callable[[Message], T], raw: object, bound: int) -> list[T]:
    """The well-formed entries of a wire list (at most ``bound``)."""
    out: list[T] = []
    for entry in raw[:bound] if isinstance(raw, list) else ():
        if isinstance(entry, dict):
            try:
                out.append(build(entry))
            except (KeyError, TypeError, ValueError):
                continue
    return out


def score_scale(score: int) -> float:
    """An engine score on the graph's -1..1 scale: ``s / (|s| + SCORE_HALF)`` times
    :data:`SCORE_CAP`, so 0 is level, +-1000 half way, and no score reaches a mate's end."""
    return SCORE_CAP * score / (abs(score) + SCORE_HALF)


def score_label(score: int) -> str:
    """A score in the engine's units, signed (``+125``; a minus sign, not a hyphen, below 0)."""
    return f"{score:+d}".replace("-", "\u2212")


def exact_value(values: Sequence[CellValue]) -> tuple[str, int] | None:
    """The best of ``values`` for the side to move: the shortest win, else the longest draw,
    else the longest loss (None when there are none)."""
    wins = [v.plies for v in values if v.value == "win"]
    if wins:
        return "win", min(wins)
    draws = [v.plies for v in values if v.value == "draw"]
    if draws:
        return "draw", max(draws)
    losses = [v.plies for v in values if v.value == "loss"]
    return ("loss", max(losses)) if losses else None


# -- a whole game ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Mark:
    """A move as the server judged it (an ``analysis`` answer's ``marks``): its ply, how many
    points of win chance its mover lost, and its verdict (``"blunder"``, ``"mistake"``, "")."""

    ply: int
    drop: float
    verdict: str = ""

    @classmethod
    def from_wire(cls, raw: Message) -> Mark:
        """Build from one ``marks`` entry; ValueError (or KeyError) when it is malformed."""
        ply, drop, verdict = raw["ply"], raw.get("drop", 0), raw.get("verdict")
        if not _is_int(ply) or ply < 0 or not isinstance(drop, int | float):
            raise ValueError("a mark is {ply, drop, verdict}")
        return cls(ply, float(drop), verdict if verdict in ("blunder", "mistake") else "")

    @property
    def blunder(self) -> bool:
        """Whether the server marked the move a blunder."""
        return self.verdict == "blunder"


def graph_points(
    evals: Mapping[int, float | None], total: int, final: float | None = None
) -> list[float | None]:
    """The graph's points (black's view) for the positions 0..``total``: each analysed
    position's evaluation, ``final`` (the result) for the end when it was not analysed."""
    points = [evals.get(ply) for ply in range(total + 1)]
    if points and points[-1] is None:
        points[-1] = final
    return points


def final_eval(winner: int | None, reason: str) -> float | None:
    """The end of a game on the graph (black's view): a win on the board or a full board is a
    proven result; a resignation or a clock says nothing about the position."""
    if reason == "line" and winner in (0, 1):
        return 1.0 if winner == 0 else -1.0
    if reason == "draw":
        return 0.0
    return None


def mover_of(ply: int, first: int = 0) -> int:
    """The colour that made move ``ply`` (0-based) when ``first`` moved first."""
    return (first + ply) & 1


# -- the exact overlay ------------------------------------------------------------------------

#: The overlay's colours: green a win, grey a draw, red a loss (for the side to move).
VALUE_COLOURS: dict[str, tuple[int, int, int]] = {
    "win": (70, 180, 100),
    "draw": (130, 136, 148),
    "loss": (210, 70, 70),
}


def overlay(
    analysis: Analysis | None, taken: set[Cell] | frozenset[Cell]
) -> dict[Cell, tuple[tuple[int, int, int], int]]:
    """The overlay of the empty cells that have a proven value: cell to (colour, number), the
    number being the plies to the end with best play."""
    if analysis is None:
        return {}
    return {
        v.move: (VALUE_COLOURS[v.value], v.plies) for v in analysis.values if v.move not in taken
    }


def line_words(analysis: Analysis, height: int, limit: int = 8) -> list[str]:
    """Each line as a sentence: ``H8 +35 (depth 9): H8 J9 G7…``, and the proven value."""
    out = []
    exact = analysis.exact()
    if exact is not None:
        value, plies = exact
        unit = "ply" if plies == 1 else "plies"
        out.append(f"Proven: {value} in {plies} {unit}" if value != "draw" else "Proven: a draw")
    for n, line in enumerate(analysis.lines, start=1):
        pv = " ".join(cell_name(x, y, height) for x, y in line.pv[:limit])
        best = cell_name(*line.move, height)
        head = f"{n}. " if len(analysis.lines) > 1 else "Best: "
        out.append(f"{head}{best} {line.label()} (depth {line.depth})" + (f": {pv}" if pv else ""))
    return out


def seen_words(info: object, name: str, height: int) -> str | None:
    """What a bot saw for its move (a ``moved``'s ``info``: a training game's human gets it):
    ``minimax saw +35 (depth 9) · its line: H8 J9 G7``; None without one."""
    if not isinstance(info, dict):
        return None
    mate, score, depth = info.get("mate"), info.get("score"), info.get("depth")
    if isinstance(mate, int):
        value = f"a win in {mate}" if mate > 0 else f"a loss in {-mate}"
    else:
        value = score_label(score if isinstance(score, int) else 0) + " (engine units)"
    cells = [c for c in info.get("pv") or [] if isinstance(c, list) and len(c) == 2]
    line = " ".join(cell_name(int(x), int(y), height) for x, y in cells[:6])
    deep = f", depth {depth}" if isinstance(depth, int) else ""
    return f"{name} saw {value}{deep}" + (f" · its line: {line}" if line else "")
