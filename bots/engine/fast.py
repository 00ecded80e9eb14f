"""The big-board engine: threat search both ways, then PVS with aspiration windows on the core.

Order of business for the side to move: win now; block the single win cell; our own VCF, then
VCT; drop every candidate after which the opponent has a VCF or VCT (unless all lose); then
iterative deepening with aspiration windows over what is left. Time: ``Limit.time_s`` is the
hard limit, where the core aborts the search mid-iteration; ``Limit.soft_s`` the time planned
(None: all of ``time_s``), stretched up to ``time_s`` on a critical move (the last iteration
changed its best move or dropped its score; :func:`bots.engine.timing.stretched`). An aborted
iteration still counts when a root move was searched to the end in it and beat the window
floor (the first move searched is the last iteration's best). When the plan is the whole
limit (a per-move limit only) new iterations start until the deadline; when stopping early
saves match clock, none starts after ``NEXT_SHARE`` of the aim is spent.
The core (``bots.engine.core``)
is compiled when the install could build it; ``MNK_ENGINE_PURE=1`` forces its plain-Python
run, which is the oracle for the compiled one. One core per variant lives on in the process,
so its transposition table survives from move to move of a game.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

from bots.engine.core import TT_BITS
from bots.engine.geometry import geometry
from bots.engine.limits import MATE_BOUND, MAX_DEPTH, WIN, Limit, SearchResult
from bots.engine.shapes import tables
from bots.engine.timing import Budget, stretched
from protocol.rules import Move, Variant, WinRule

#: The aspiration window around the last iteration's score.
ASPIRATION = 60
#: With match clock to save: share of the aim after which no new iteration starts.
NEXT_SHARE = 0.6
#: Budget shares (at most) of our own VCF, our VCT, and the opponent check of candidates.
VCF_SHARE, VCT_SHARE, SAFE_SHARE = 0.25, 0.1, 0.25
#: Candidates kept at the root once this many are known safe; node cap of each check.
SAFE_ROOTS, DEFENCE_NODES = 16, 4000
#: Plies of our own VCF / VCT and of the opponent's in the candidate check.
VCF_PLIES, VCT_PLIES, DEFENCE_VCF_PLIES, DEFENCE_VCT_PLIES = 21, 11, 15, 9
NO_DEADLINE = 1e18
#: The core's search switches, each with the environment variable that overrides its
#: default (0 turns it off, for A/B measurement: docs/BOTS.md, round three).
SWITCHES = {
    "lmr_mode": ("MNK_ENGINE_LMR", "1"),  # late-move reductions (0: a ply for every late move)
    "null_mode": ("MNK_ENGINE_NULL", "1"),  # null-move pruning
    "prune_mode": ("MNK_ENGINE_PRUNE", "1"),  # a narrower beam at shallow null-window nodes
    "gen_mode": ("MNK_ENGINE_GEN", "1"),  # against a four-three point only its answers
    "mate_mode": ("MNK_ENGINE_MATE", "1"),  # the mate-distance bound
}
#: Seconds (at most a tenth of the budget) kept back from the deadline to build the answer.
SAFETY_S = 0.03


def pure_forced() -> bool:
    """Whether ``MNK_ENGINE_PURE=1`` asks for the plain-Python core."""
    return os.environ.get("MNK_ENGINE_PURE", "") == "1"


#: The core's layers in import order (each module extends the one before; tally is plain).
CORE_PARTS = ("tally", "board", "fouls", "threats", "core")
_pure_lock = threading.Lock()


def load_core(pure: bool | None = None) -> ModuleType:
    """The compiled core (when built and not refused), else its plain-Python run."""
    if pure is None:
        pure = pure_forced()
    if not pure:
        from bots.engine import core

        return core
    with _pure_lock:
        module = sys.modules.get("bots.engine._pure_core")
        return module if module is not None else _load_pure()


def _load_pure() -> ModuleType:
    """Run the core's layers from source as ``bots.engine._pure_<part>``: each is executed
    under its real name (so the layers above import the plain one, not a compiled one), then
    renamed, and whatever was there before under the real names is put back."""
    here = Path(__file__).parent
    saved = {part: sys.modules.pop(f"bots.engine.{part}", None) for part in CORE_PARTS}
    loaded = {}
    try:
        for part in CORE_PARTS:
            spec = importlib.util.spec_from_file_location(
                f"bots.engine.{part}", here / f"{part}.py"
            )
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = loaded[part] = module
            spec.loader.exec_module(module)
    finally:
        for part in CORE_PARTS:
            sys.modules.pop(f"bots.engine.{part}", None)
            if saved[part] is not None:
                sys.modules[f"bots.engine.{part}"] = saved[part]
    for part, module in loaded.items():
        module.__name__ = f"bots.engine._pure_{part}"
        sys.modules[module.__name__] = module
    return loaded["core"]


def shapes_on() -> bool:
    """Whether k = 5 boards use the shape evaluation (``MNK_ENGINE_EVAL=windows``: the window
    counts of the core before it, kept for comparison)."""
    return os.environ.get("MNK_ENGINE_EVAL", "shapes") != "windows"


_tt_bits = TT_BITS


class _Kept:
    """One thread's kept cores: taken over from an ended thread if one left them (its board
    and transposition table go on), and left for the next when this thread ends."""

    #: Kept cores of threads that have ended, for the next thread to take on (an analysis
    #: worker runs each job in a new thread: bots/workers.py), at most ``MAX_SPARE`` (a class
    #: attribute, not a module global: threads may end while the interpreter clears modules).
    spare: ClassVar[list[dict[tuple[Any, ...], Any]]] = []
    MAX_SPARE: ClassVar[int] = 2

    def __init__(self) -> None:
        try:
            self.cores = self.spare.pop()
        except IndexError:
            self.cores = {}

    def __del__(self) -> None:  # the thread has ended (its thread-local data is dropped)
        if len(self.spare) < self.MAX_SPARE:
            self.spare.append(self.cores)


#: The kept core, one per thread: a core is one mutable board, and searches run in threads too
#: (the tournament's local referee plays games at once in a thread pool: two games on one core
#: crashed the compiled core).
_kept = threading.local()


def _cores() -> dict[tuple[Any, ...], Any]:
    """This thread's kept cores (at most one)."""
    kept = getattr(_kept, "kept", None)
    if kept is None:
        kept = _kept.kept = _Kept()
    return kept.cores


def set_memory(max_bytes: int) -> None:
    """Size future transposition tables to stay well inside ``max_bytes`` (0 = default)."""
    global _tt_bits
    bits = TT_BITS
    if max_bytes > 0:
        while bits > 12 and 24 << bits > max_bytes // 3:
            bits -= 1
    _tt_bits = bits
    _cores().clear()  # (other threads' cores no longer match the key: replaced when next used)


def _fives(variant: Variant) -> tuple[bool, bool]:
    """Whether a five must be exact, per side (black, white): renju's black too."""
    exact = variant.rule is WinRule.EXACT
    return (exact or variant.rule is WinRule.RENJU, exact)


def prepare(variant: Variant) -> None:
    """Build ``variant``'s shape tables now (plain Python, about 0.2 s a process), so that no
    move's clock pays for them."""
    if variant.k == 5 and shapes_on():
        tables(variant.width, variant.height, _fives(variant))


def core_for(variant: Variant, moves: list[Move], module: ModuleType, keep: bool = True) -> Any:
    """A core set to the position after ``moves``; reused (and its TT kept) when ``keep``."""
    shaped = variant.k == 5 and shapes_on()
    key = (module.__name__, variant.width, variant.height, variant.k, variant.rule, _tt_bits)
    key += (shaped,)
    kept = _cores()
    core = kept.get(key) if keep else None
    if core is None:
        geo = geometry(variant.width, variant.height, variant.k)
        exact = variant.rule is WinRule.EXACT
        renju = variant.rule is WinRule.RENJU
        shape = tables(variant.width, variant.height, _fives(variant)) if shaped else None
        core = module.Core(
            variant.width, variant.height, variant.k, exact, geo, _tt_bits, renju, shape
        )
        for attr, (name, default) in SWITCHES.items():
            setattr(core, attr, int(os.environ.get(name, default)))
        if keep:
            kept.clear()  # one live core per thread: bounded memory
            kept[key] = core
    cells = [m.y * variant.width + m.x for m in moves]
    played = core.moves()
    same = 0
    while same < min(len(played), len(cells)) and played[same] == cells[same]:
        same += 1
    for _ in range(len(played) - same):
        core.undo()
    for c in cells[same:]:
        core.play(c)
    return core


class FastSearch:
    """One search on a core; see the module doc for the order of business and of time."""

    def __init__(
        self, variant: Variant, limit: Limit, core: Any, start: float | None = None,
        clock: Any = time.perf_counter,
    ) -> None:  # fmt: skip
        self.variant, self.limit, self.core, self.clock = variant, limit, core, clock
        self.start = clock() if start is None else start
        self.plan: Budget | None = None
        self.budget = limit.time_s
        self.deadline = NO_DEADLINE
        if limit.time_s is not None:  # a little is kept back for building the answer
            hard = limit.time_s - min(SAFETY_S, 0.1 * limit.time_s)
            soft = hard if limit.soft_s is None else min(hard, limit.soft_s)
            self.plan = Budget(soft, hard)
            self.budget = soft  # the threat searches' slices are shares of the aim
            self.deadline = self.start + hard
        self.max_nodes = limit.nodes if limit.nodes is not None else 1 << 62
        self.nodes = 0

    def _move(self, cell: int) -> Move:
        w = self.variant.width
        return Move(cell % w, cell // w)

    def _slice(self, share: float) -> float:
        """A deadline ``share`` of the whole budget from now (capped by the real deadline)."""
        if self.budget is None:
            return NO_DEADLINE
        return min(self.deadline, self.clock() + self.budget * share)

    def target(self, critical: bool) -> float:
        """The moment to stop at: the planned time, stretched on a critical move (absolute)."""
        if self.plan is None:
            return NO_DEADLINE
        return min(self.deadline, self.start + stretched(self.plan, critical))

    def another_iteration(self, critical: bool) -> bool:
        """Whether to start one more iteration now (see the module doc)."""
        if self.plan is None:
            return True
        now, aim = self.clock(), self.target(critical)
        if self.plan.planned >= self.plan.maximum:
            return now < aim  # unused time is lost: the abort at the deadline ends the search
        return now - self.start < NEXT_SHARE * (aim - self.start)

    def _threat(self, plies: int, threes: bool, share: float, nodes_share: int) -> int:
        """A forced-win first move for the side to move, within a slice of the budget."""
        left = self.max_nodes - self.core.nodes
        cap = max(500, left // nodes_share)
        return self.core.threat_win(plies, threes, cap, self._slice(share))

    def run(self) -> SearchResult:
        """Search to the limit; always returns a legal move."""
        result = self._run()
        if result.source != "search" and self.limit.report is not None:
            self.limit.report(result)
        return result

    def _run(self) -> SearchResult:
        core, limit = self.core, self.limit
        core.start(self.max_nodes, self.deadline)
        s = core.side()
        wins = core.win_cells(s)
        if wins:
            return self._result(wins[0], WIN - 1, 1, "forced")
        root = core.root_moves()
        if not core.moves():  # the empty board: the centre (the root list is centre first)
            return self._result(root[0], 0, 0, "forced")
        threats = core.win_cells(1 - s)
        if len(threats) == 1:  # the block (or, when renju forbids it to black, a lost game)
            lost = core.forbidden(threats[0])
            return self._result(root[0], -(WIN - 2) if lost else 0, 0, "forced")
        if limit.threats:
            for plies, threes, source, share in (
                (VCF_PLIES, False, "vcf", VCF_SHARE),
                (VCT_PLIES, True, "vct", VCT_SHARE),
            ):
                cell = self._threat(plies, threes, share, 5)
                if cell >= 0:
                    return self._result(cell, WIN - 3, 0, source)
            root = self._safe(root)
        if len(root) == 1:
            return self._result(root[0], 0, 0, "forced")
        return self._deepen(root)

    def _safe(self, root: list[int]) -> list[int]:
        """The best candidates (by ordering) after which the opponent has no VCF/VCT.

        At most ``SAFE_ROOTS`` are kept; when time runs out first the unchecked ones stand in
        (beside a single safe one too: one candidate would be played unsearched, as forced),
        and only when every candidate loses are the losing ones searched.
        """
        core = self.core
        end = self._slice(SAFE_SHARE)
        safe, lost = [], []
        for i, cell in enumerate(root):
            if len(safe) >= SAFE_ROOTS:
                break
            if self.clock() >= end or core.nodes >= self.max_nodes:
                return safe if len(safe) > 1 else safe + root[i:]
            core.play(cell)
            try:
                losing = (
                    core.threat_win(DEFENCE_VCF_PLIES, False, DEFENCE_NODES, end) >= 0
                    or core.threat_win(DEFENCE_VCT_PLIES, True, DEFENCE_NODES // 4, end) >= 0
                )
            finally:
                core.undo()
            (lost if losing else safe).append(cell)
        return safe or lost

    def _deepen(self, root: list[int]) -> SearchResult:
        """Iterative deepening with aspiration windows, aborted at the aim (module doc)."""
        core, limit = self.core, self.limit
        max_depth = min(limit.depth or MAX_DEPTH, MAX_DEPTH)
        result = self._result(root[0], 0, 0, "fallback")
        score, critical = 0, False
        for depth in range(1, max_depth + 1):
            if depth > 1 and not self.another_iteration(critical):
                break
            core.set_deadline(self.target(critical))
            lo, hi = -(WIN + 1), WIN + 1
            if depth > 2 and abs(score) < MATE_BOUND:
                lo, hi = score - ASPIRATION, score + ASPIRATION
            while True:
                got, best, stopped = core.root(depth, root, lo, hi)
                if stopped:
                    if got > lo:  # a root move was searched out and beat the window's floor
                        result = self._result(best, got, depth - 1, "search")
                        self._report(result)
                    else:  # the last iteration's move, with the aborted one's work counted
                        result = replace(
                            result, nodes=core.nodes, seconds=self.clock() - self.start
                        )
                    return result
                if got <= lo and lo > -(WIN + 1):
                    lo = -(WIN + 1)
                elif got >= hi and hi < WIN + 1:
                    hi = WIN + 1
                else:
                    break
            # a changed mind or a falling score is a critical move: it may think longer
            critical = depth > 3 and (best != root[0] or got < score - ASPIRATION)
            score = got
            root.remove(best)
            root.insert(0, best)
            result = self._result(best, score, depth, "search")
            self._report(result)
            if abs(score) >= MATE_BOUND and WIN - abs(score) <= depth:
                break
            if core.nodes >= self.max_nodes:
                break
        return result

    def _report(self, result: SearchResult) -> None:
        if self.limit.report is not None:
            self.limit.report(result)

    def _pv(self, first: int, length: int) -> list[Move]:
        """The principal variation read back from the transposition table."""
        core = self.core
        line = [first]
        over = core.play(first)
        try:
            while len(line) < length and not over:
                cell = core.probe()
                if cell < 0 or core.at(cell):
                    break
                line.append(cell)
                over = core.play(cell)
        finally:
            for _ in line:
                core.undo()
        return [self._move(c) for c in line]

    def _result(self, cell: int, score: int, depth: int, source: str) -> SearchResult:
        move = self._move(cell)
        return SearchResult(
            move=move,
            score=score,
            depth=depth,
            nodes=self.core.nodes,
            pv=self._pv(cell, max(depth, 1)),
            seconds=self.clock() - self.start,
            best_moves=[move],
            solved=source in ("vcf", "vct") or abs(score) >= MATE_BOUND,
            source=source,
            seldepth=max(depth, self.core.seldepth) if source == "search" else depth,
        )


def fast_search(
    variant: Variant, moves: list[Move], limit: Limit, module: ModuleType | None = None,
    keep: bool = True,
) -> SearchResult:  # fmt: skip
    """Search the big-board position after ``moves`` with the fast core."""
    start = time.perf_counter()  # setting up the core is part of the budget
    core = core_for(variant, moves, module or load_core(), keep)
    if core.over():
        raise ValueError("the game is already over")
    return FastSearch(variant, limit, core, start).run()
