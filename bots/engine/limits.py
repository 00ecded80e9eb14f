"""Value types of the engine: search limits, results and the mate-score scale."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from protocol.rules import Move

#: The score of a win on the board now; a win in p plies from the root scores WIN - p.
WIN = 1_000_000
#: Scores beyond this magnitude are forced wins or losses (mate scores).
MATE_BOUND = WIN - 10_000
#: Transposition-table bound flags: the stored score is exact, a lower bound, an upper bound.
EXACT, LOWER, UPPER = 0, 1, 2
#: The deepest iteration any search starts.
MAX_DEPTH = 64
#: What ``Limit.report`` is: called with the search result so far.
Report = Callable[["SearchResult"], None]


@dataclass(frozen=True, slots=True)
class Limit:
    """When to stop searching: any of depth (plies), nodes and seconds; None means no bound.

    ``time_s`` is the hard limit (the search is aborted there, mid-iteration if need be);
    ``soft_s`` the time it plans to use (None: all of ``time_s``), which a critical move may
    stretch up to ``time_s`` (see :mod:`bots.engine.timing`).
    """

    depth: int | None = None
    nodes: int | None = None
    time_s: float | None = None
    soft_s: float | None = None
    #: Run the VCF / VCT threat search before the main search (big boards only).
    threats: bool = True
    #: Collect every root move tied for best (exact ties; used on small boards for random play).
    ties: bool = False
    #: Called after every finished iteration of the main search with the result so far
    #: (Piskvork ``MESSAGE`` lines); must be quick, its time is the search's.
    report: Report | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class SearchResult:
    """What a search found: the move, its score (side to move's view) and how hard it looked."""

    move: Move
    score: int
    depth: int
    nodes: int
    pv: list[Move] = field(default_factory=list)
    seconds: float = 0.0
    #: Every root move proven as good as ``move`` (just ``[move]`` unless ``Limit.ties``).
    best_moves: list[Move] = field(default_factory=list)
    #: True when the score is exact to the end of the game (a solved position).
    solved: bool = False
    #: How the move was found: "forced", "vcf", "vct", "search" or "fallback".
    source: str = "search"
    #: The deepest ply the main search reached (its selective depth; 0 when it did not run).
    seldepth: int = 0

    @property
    def nps(self) -> int:
        """Nodes per second over the whole search."""
        return int(self.nodes / self.seconds) if self.seconds > 0 else 0

    def mate_in(self) -> int | None:
        """Plies to a forced end (positive: we win; negative: we lose), else None."""
        if not is_mate(self.score):
            return None
        plies = WIN - abs(self.score)
        return plies if self.score > 0 else -plies


def is_mate(score: int) -> bool:
    """Whether ``score`` is a forced win or loss rather than a heuristic evaluation."""
    return abs(score) >= MATE_BOUND
