"""The v1 engine, frozen: the engine before the fast core, kept as the baseline it is measured by.

Everything it was, in one file: the search board (``EvalBoard``: play/undo with incremental
k-window counts, patterns, threats and a Zobrist key), its threat-space search (``ThreatSearch``:
VCF and VCT), ``Searcher`` (negamax alpha-beta with iterative deepening, a transposition table
and move ordering) with the level rows it played with, and its renju layer (``renju_move``:
black never plays a forbidden point, white first looks for a four whose only defence is one).
Nothing in ``bots/`` imports it (``bots`` never imports ``bench``): ``minimax-v1[:level=N]`` in
a tournament loads this file by path (``bots/specs.py``), the benches import it directly. Its
constants (evaluation weights, Zobrist seed, TT size) are its own on purpose: the baseline does
not move when the engine's do. Do not improve it; measure against it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from bots.engine.geometry import geometry
from bots.engine.levels import LEVELS, level_limit
from bots.engine.limits import MATE_BOUND, WIN, Limit, SearchResult
from bots.engine.search import pick
from bots.sdk import MinimaxBot
from protocol import renju
from protocol.rules import DIRECTIONS, EMPTY, STONE, Board, Game, Move, Variant, WinRule

_ZOBRIST_SEED = 0x6D6E6B


def _by_missing(k: int, table: dict[int, int], default: int, empty: int) -> list[int]:
    """Weights indexed by category + 1 (category -1 = dead window, else the stone count)."""
    return [0, empty] + [table.get(k - j, default) for j in range(1, k + 1)]


class EvalBoard:
    """A mutable m,n,k board for search; seats are 0 and 1, cells hold 0 (empty), 1 or 2."""

    __slots__ = (
        "_eval_w",
        "_pot_w",
        "_zobrist",
        "cells",
        "cnt",
        "exact",
        "flank",
        "fours",
        "geo",
        "history",
        "k",
        "key",
        "near",
        "pot",
        "score",
        "threes",
        "variant",
        "winner",
    )

    def __init__(self, variant: Variant, moves: list[Move] | None = None) -> None:
        self.variant = variant
        self.k = variant.k
        self.exact = variant.rule is WinRule.EXACT
        self.geo = geo = geometry(variant.width, variant.height, variant.k)
        n, nw = geo.cells, len(geo.windows)
        self.cells: list[int] = [0] * n
        self.history: list[int] = []
        self.cnt: tuple[list[int], list[int]] = ([0] * nw, [0] * nw)
        self.flank: tuple[list[int], list[int]] = ([0] * nw, [0] * nw)
        self.near: list[int] = [0] * n
        k = variant.k
        self._eval_w = _by_missing(k, {1: 2000, 2: 150, 3: 20, 4: 4}, 1, 0)
        self._eval_w[k + 1] = 100_000
        self._pot_w = _by_missing(k, {1: 20_000, 2: 500, 3: 50, 4: 8}, 3, 1)
        base = self._pot_w[1]
        self.pot: tuple[list[int], list[int]] = (
            [base * len(m) for m in geo.members],
            [base * len(m) for m in geo.members],
        )
        self.score = 0
        self.fours: tuple[set[int], set[int]] = (set(), set())
        self.threes: tuple[set[int], set[int]] = (set(), set())
        self.winner: int | None = None
        rnd = random.Random(_ZOBRIST_SEED + n)
        self._zobrist = (
            [rnd.getrandbits(64) for _ in range(n)],
            [rnd.getrandbits(64) for _ in range(n)],
        )
        self.key = 0
        for m in moves or ():
            self.play(m.y * variant.width + m.x)

    @property
    def to_move(self) -> int:
        """The seat to move next."""
        return len(self.history) & 1

    @property
    def full(self) -> bool:
        """Whether no empty cell remains."""
        return len(self.history) == len(self.cells)

    def play(self, c: int) -> bool:
        """Put the side to move's stone on empty cell ``c``; True when that completes a win."""
        s = len(self.history) & 1
        self.cells[c] = s + 1
        self.history.append(c)
        self.key ^= self._zobrist[s][c]
        near = self.near
        for d in self.geo.near[c]:
            near[d] += 1
        self._update(c, s, 1)
        return self.winner is not None

    def undo(self) -> int:
        """Take back the last stone and return its cell."""
        c = self.history.pop()
        s = len(self.history) & 1
        self._update(c, s, -1)
        self.cells[c] = 0
        self.key ^= self._zobrist[s][c]
        near = self.near
        for d in self.geo.near[c]:
            near[d] -= 1
        self.winner = None
        return c

    def _update(self, c: int, s: int, d: int) -> None:
        """Adjust every window through (and, in exact mode, flanked by) ``c`` for seat ``s``."""
        cnt_s, cnt_o = self.cnt[s], self.cnt[1 - s]
        fl_s, fl_o = self.flank[s], self.flank[1 - s]
        recat = self._recat
        for w in self.geo.members[c]:
            ns, no = cnt_s[w], cnt_o[w]
            a_s = ns if no == 0 and fl_s[w] == 0 else -1
            a_o = no if ns == 0 and fl_o[w] == 0 else -1
            ns += d
            cnt_s[w] = ns
            b_s = ns if no == 0 and fl_s[w] == 0 else -1
            b_o = no if ns == 0 and fl_o[w] == 0 else -1
            if a_s != b_s:
                recat(s, w, a_s, b_s)
            if a_o != b_o:
                recat(1 - s, w, a_o, b_o)
        if self.exact:
            for w in self.geo.flanks[c]:
                ns, no = cnt_s[w], cnt_o[w]
                if no:
                    fl_s[w] += d
                    continue
                a_s = ns if fl_s[w] == 0 else -1
                fl_s[w] += d
                b_s = ns if fl_s[w] == 0 else -1
                if a_s != b_s:
                    recat(s, w, a_s, b_s)

    def _recat(self, side: int, w: int, a: int, b: int) -> None:
        """Window ``w`` moved from category ``a`` to ``b`` for ``side`` (-1 = dead for it)."""
        ew = self._eval_w
        delta = ew[b + 1] - ew[a + 1]
        self.score += delta if side == 0 else -delta
        pw = self._pot_w
        pd = pw[b + 1] - pw[a + 1]
        pot = self.pot[side]
        for cell in self.geo.windows[w]:
            pot[cell] += pd
        k = self.k
        if a == k - 1:
            self.fours[side].discard(w)
        elif a == k - 2:
            self.threes[side].discard(w)
        if b == k - 1:
            self.fours[side].add(w)
        elif b == k - 2:
            self.threes[side].add(w)
        elif b == k:
            self.winner = side

    def evaluate(self, side: int) -> int:
        """The static pattern score from ``side``'s point of view."""
        return self.score if side == 0 else -self.score

    def empties(self, w: int) -> list[int]:
        """The empty cells of window ``w``."""
        cells = self.cells
        return [c for c in self.geo.windows[w] if cells[c] == 0]

    def win_cells(self, side: int) -> set[int]:
        """Cells where ``side`` would complete a winning line right now."""
        cells, windows = self.cells, self.geo.windows
        return {c for w in self.fours[side] for c in windows[w] if cells[c] == 0}

    def four_cells(self, side: int) -> set[int]:
        """Cells where ``side`` would make a four (a new win threat)."""
        cells, windows = self.cells, self.geo.windows
        return {c for w in self.threes[side] for c in windows[w] if cells[c] == 0}

    def double_threat_cells(self, side: int) -> set[int]:
        """Cells where ``side`` would get two or more win cells at once (open four, four-four)."""
        cells, windows = self.cells, self.geo.windows
        wins = self.win_cells(side)
        gains: dict[int, set[int]] = {}
        for w in self.threes[side]:
            a, b = (c for c in windows[w] if cells[c] == 0)
            gains.setdefault(a, set()).add(b)
            gains.setdefault(b, set()).add(a)
        return {c for c, g in gains.items() if len(g | wins - {c}) >= 2}

    def candidates(self) -> list[int]:
        """Empty cells near a stone (every empty cell on an empty board's centre area if none)."""
        cells, near = self.cells, self.near
        if not self.history:
            n = len(cells)
            g = self.geo
            cx, cy = (g.width - 1) / 2, (g.height - 1) / 2
            best = min(abs(c % g.width - cx) + abs(c // g.width - cy) for c in range(n))
            return [c for c in range(n) if abs(c % g.width - cx) + abs(c // g.width - cy) == best]
        return [c for c in range(len(cells)) if cells[c] == 0 and near[c]]

    def move(self, c: int) -> Move:
        """The protocol move for cell ``c``."""
        w = self.geo.width
        return Move(c % w, c // w)


class _OutOfBudget(Exception):
    """Raised inside the recursion when the node or time budget is spent."""


class ThreatSearch:
    """A bounded VCF/VCT prover on one board; the board is restored on every exit path."""

    def __init__(self, board: EvalBoard, deadline: float, max_nodes: int = 50_000) -> None:
        self.board = board
        self.deadline = deadline
        self.max_nodes = max_nodes
        self.nodes = 0
        self._memo: dict[tuple[int, bool], tuple[int, int]] = {}

    def find(self, depth: int, threes: bool) -> int | None:
        """The first cell of a forced win for the side to move within ``depth`` plies, or None."""
        b = self.board
        mark = len(b.history)
        try:
            return self._attack(depth, threes)
        except _OutOfBudget:
            while len(b.history) > mark:
                b.undo()
            return None

    def _tick(self) -> None:
        self.nodes += 1
        if self.nodes >= self.max_nodes or (
            self.nodes & 63 == 0 and time.perf_counter() >= self.deadline
        ):
            raise _OutOfBudget

    def _attack(self, depth: int, threes: bool) -> int | None:
        """Attacker to move: a cell that wins by threats, or None."""
        b = self.board
        att = len(b.history) & 1
        if b.fours[att]:
            return min(b.win_cells(att))
        dw = b.win_cells(1 - att)
        if len(dw) >= 2 or depth <= 0:
            return None
        memo_key = (b.key, threes)
        seen = self._memo.get(memo_key)
        if seen is not None and (seen[1] >= 0 or seen[0] >= depth):
            return seen[1] if seen[1] >= 0 else None
        self._tick()
        if dw:
            moves = list(dw)
        else:
            moves = list(b.four_cells(att))
            if threes:
                moves.extend(self._three_candidates(att, set(moves)))
        pot = b.pot[att]
        moves.sort(key=pot.__getitem__, reverse=True)
        found = -1
        for m in moves:
            b.play(m)
            try:
                ok = self._defend(depth - 1, threes)
            finally:
                b.undo()
            if ok:
                found = m
                break
        self._memo[memo_key] = (depth, found)
        return found if found >= 0 else None

    def _defend(self, depth: int, threes: bool) -> bool:
        """Defender to move right after an attacker threat: True if every reply still loses."""
        b = self.board
        dfn = len(b.history) & 1
        att = 1 - dfn
        if b.fours[dfn]:
            return False
        wins = b.win_cells(att)
        if len(wins) >= 2:
            return True
        if wins:
            replies = list(wins)
        elif threes:
            replies = self._defences(att)
            if not replies:
                return False
            replies.extend(b.four_cells(dfn) - set(replies))
        else:
            return False
        self._tick()
        for r in replies:
            b.play(r)
            try:
                ok = self._attack(depth - 1, threes) is not None
            finally:
                b.undo()
            if not ok:
                return False
        return True

    def _defences(self, att: int) -> list[int]:
        """Cells that touch every window feeding an attacker double-threat point (empty if none)."""
        b = self.board
        cells, windows = b.cells, b.geo.windows
        gains: dict[int, list[int]] = {}
        for w in b.threes[att]:
            for c in windows[w]:
                if cells[c] == 0:
                    gains.setdefault(c, []).append(w)
        out: set[int] = set()
        for c, ws in gains.items():
            if len(ws) < 2:
                continue
            others = {o for w in ws for o in windows[w] if cells[o] == 0 and o != c}
            if len(others) >= 2:
                out.add(c)
                out.update(others)
        return sorted(out)

    def _three_candidates(self, att: int, skip: set[int], limit: int = 12) -> list[int]:
        """Cells likely to make a three for ``att``: strongest attacking potential near stones."""
        b = self.board
        pot = b.pot[att]
        threshold = 2 * b._pot_w[b.k - 2]  # at least two windows one stone short of a three
        cands = [c for c in b.candidates() if c not in skip and pot[c] >= threshold]
        cands.sort(key=pot.__getitem__, reverse=True)
        return cands[:limit]


def find_threat_win(
    board: EvalBoard, depth: int, threes: bool, deadline: float, max_nodes: int
) -> tuple[int | None, int]:
    """A forced-win first move by VCF (``threes=False``) or VCT, and the nodes searched.

    Deepens 3, 5, 7... plies up to ``depth`` so the shortest forced win found is played.
    """
    ts = ThreatSearch(board, deadline, max_nodes)
    for plies in range(3, depth + 1, 2):
        cell = ts.find(plies, threes)
        if cell is not None:
            return cell, ts.nodes
        if ts.nodes >= max_nodes or time.perf_counter() >= deadline:
            break
    return None, ts.nodes


EXACT, LOWER, UPPER = 0, 1, 2
#: Boards up to this many cells search every empty cell and solve exactly; bigger ones use the
#: neighbourhood candidates, a beam and the threat search.
SMALL_BOARD = 36
#: Moves searched at inner nodes of big boards (root searches all candidates).
BEAM = 12
TT_MAX = 1_000_000
MAX_DEPTH = 64


class _Stop(Exception):
    """The node or time budget ran out mid-iteration."""


def _to_tt(score: int, ply: int) -> int:
    if score >= MATE_BOUND:
        return score + ply
    if score <= -MATE_BOUND:
        return score - ply
    return score


def _from_tt(score: int, ply: int) -> int:
    if score >= MATE_BOUND:
        return score - ply
    if score <= -MATE_BOUND:
        return score + ply
    return score


class Searcher:
    """One search over one position; holds the TT, killers, history and counters."""

    def __init__(self, variant: Variant, moves: list[Move], limit: Limit) -> None:
        self.board = EvalBoard(variant, moves)
        if self.board.winner is not None or self.board.full:
            raise ValueError("the game is already over")
        self.limit = limit
        self.small = self.board.geo.cells <= SMALL_BOARD
        self.tt: dict[int, tuple[int, int, int, int]] = {}
        self.history = [0] * self.board.geo.cells
        self.killers: list[list[int]] = [[-1, -1] for _ in range(MAX_DEPTH + 64)]
        self.nodes = 0
        self.max_nodes = limit.nodes if limit.nodes is not None else 1 << 62
        self.start = time.perf_counter()
        self.deadline = self.start + limit.time_s if limit.time_s is not None else float("inf")

    # -- helpers -------------------------------------------------------------------------------

    def _moves(self, ply: int, tt_move: int) -> list[int]:
        """Candidate cells for the side to move, best first (all of them on small boards)."""
        b = self.board
        s = len(b.history) & 1
        cells = b.cells
        cands = [c for c in range(len(cells)) if cells[c] == 0] if self.small else b.candidates()
        own, opp, hist = b.pot[s], b.pot[1 - s], self.history
        k1, k2 = self.killers[ply]
        keys = {}
        for c in cands:
            key = 5 * own[c] + 4 * opp[c] + hist[c]
            if c == tt_move:
                key += 1 << 40
            elif c in (k1, k2):
                key += 1 << 30
            keys[c] = key
        cands.sort(key=keys.__getitem__, reverse=True)
        if not self.small and ply > 0 and len(cands) > BEAM:
            del cands[BEAM:]
        return cands

    def _check(self) -> None:
        if self.nodes >= self.max_nodes or time.perf_counter() >= self.deadline:
            raise _Stop

    # -- the recursive search ----------------------------------------------------------------

    def negamax(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        """The score of the position for the side to move, within the window (alpha, beta)."""
        self.nodes += 1
        if self.nodes & 127 == 0:
            self._check()
        b = self.board
        s = len(b.history) & 1
        if b.fours[s]:
            return WIN - ply - 1
        dw = b.win_cells(1 - s)
        if len(dw) >= 2:
            return -(WIN - ply - 2)
        if b.full:
            return 0
        if depth <= 0 and not dw:
            return b.evaluate(s)
        alpha0 = alpha
        entry = self.tt.get(b.key)
        tt_move = -1
        if entry is not None:
            e_depth, flag, e_score, tt_move = entry
            if e_depth >= depth:
                score = _from_tt(e_score, ply)
                if flag == EXACT:
                    return score
                if flag == LOWER and score >= beta:
                    return score
                if flag == UPPER and score <= alpha:
                    return score
        if dw:
            moves = list(dw)
            child_depth = depth  # a forced block costs no depth
        else:
            moves = self._moves(ply, tt_move)
            child_depth = depth - 1
        best, best_move = -WIN - 1, moves[0]
        for m in moves:
            b.play(m)
            try:
                score = -self.negamax(child_depth, -beta, -alpha, ply + 1)
            finally:
                b.undo()
            if score > best:
                best, best_move = score, m
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        if not dw:
                            self.history[m] += depth * depth
                            killers = self.killers[ply]
                            if killers[0] != m:
                                killers[1], killers[0] = killers[0], m
                        break
        flag = UPPER if best <= alpha0 else LOWER if best >= beta else EXACT
        if len(self.tt) >= TT_MAX:
            self.tt.clear()
        self.tt[b.key] = (depth, flag, _to_tt(best, ply), best_move)
        return best

    def _root(self, depth: int, moves: list[int], ties: bool) -> tuple[int, list[int]]:
        """Search every root move at ``depth``; the best score and the moves achieving it."""
        b = self.board
        best, tied = -WIN - 1, []
        for m in moves:
            alpha = best - 1 if ties else best
            b.play(m)
            try:
                score = -self.negamax(depth - 1, -(WIN + 1), -alpha, 1)
            finally:
                b.undo()
            if score > best:
                best, tied = score, [m]
            elif score == best and ties:
                tied.append(m)
        return best, tied

    def _pv(self, first: int, length: int) -> list[Move]:
        """The principal variation read back from the transposition table."""
        b = self.board
        line = [first]
        b.play(first)
        try:
            while len(line) < length and b.winner is None and not b.full:
                entry = self.tt.get(b.key)
                if entry is None or b.cells[entry[3]] != 0:
                    break
                line.append(entry[3])
                b.play(entry[3])
        finally:
            for _ in line:
                b.undo()
        return [b.move(c) for c in line]

    # -- entry point ---------------------------------------------------------------------------

    def run(self) -> SearchResult:
        """Threat checks, then iterative deepening until a limit is hit; never raises on time."""
        b = self.board
        s = b.to_move
        limit = self.limit
        if b.fours[s]:
            wins = sorted(b.win_cells(s))
            return self._result(wins[0], WIN - 1, 1, "forced", wins if limit.ties else None)
        dw = sorted(b.win_cells(1 - s))
        if not self.small and not dw and limit.threats:
            found = self._threats()
            if found is not None:
                return found
        root = dw or self._moves(0, -1)
        fallback = self._result(root[0], 0, 0, "fallback")
        if len(root) == 1 and not self.small:
            return self._result(root[0], 0, 0, "forced")
        max_depth = min(limit.depth or MAX_DEPTH, MAX_DEPTH)
        empties = len(b.cells) - len(b.history)
        result = fallback
        ties = limit.ties
        for depth in range(1, max_depth + 1):
            try:
                score, tied = self._root(depth, root, ties)
            except _Stop:
                break
            root = tied + [m for m in root if m not in tied]
            # a mate is proven once the depth covers its distance (forced blocks extend lines)
            mate_in = WIN - abs(score) if abs(score) >= MATE_BOUND else MAX_DEPTH + 1
            solved = depth >= empties or (self.small and mate_in <= depth)
            result = self._result(tied[0], score, depth, "search", tied, solved)
            if solved or time.perf_counter() >= self.deadline or self.nodes >= self.max_nodes:
                break
        return result

    def _threats(self) -> SearchResult | None:
        """VCF then VCT for the side to move, each given a slice of the budget."""
        now = time.perf_counter()
        budget = max(0.0, self.deadline - now)
        for threes, share, plies in ((False, 0.3, 21), (True, 0.25, 11)):
            slice_end = now + budget * share if budget != float("inf") else now + 2.0
            node_cap = max(500, (self.max_nodes - self.nodes) // 5)
            cell, used = find_threat_win(self.board, plies, threes, slice_end, node_cap)
            self.nodes += used
            if cell is not None:
                return self._result(cell, WIN - 3, 0, "vct" if threes else "vcf")
            now = time.perf_counter()
        return None

    def _result(
        self,
        cell: int,
        score: int,
        depth: int,
        source: str,
        tied: list[int] | None = None,
        solved: bool = False,
    ) -> SearchResult:
        b = self.board
        return SearchResult(
            move=b.move(cell),
            score=score,
            depth=depth,
            nodes=self.nodes,
            pv=self._pv(cell, max(depth, 1)),
            seconds=time.perf_counter() - self.start,
            best_moves=[b.move(c) for c in (tied or [cell])],
            solved=solved or source in ("vcf", "vct") or abs(score) >= MATE_BOUND,
            source=source,
        )


# -- renju: v1 played it as a layer around its search (black never plays a forbidden point,
# white first looks for a four whose only defence is one); kept here as it was.

#: What an engine offers: its move and the moves it rates as good (best first).
EngineAnswer = tuple[Move, list[Move]]


def _five_points(board: Board, colour: int, around: int | None = None) -> list[int]:
    """Empty cells where ``colour`` would win at once (near ``around`` only, when given)."""
    w, h = board.width, board.height
    if around is None:
        cells = [i for i, c in enumerate(board.cells) if c == EMPTY]
    else:
        x0, y0 = around % w, around // w
        cells = []
        for dx, dy in DIRECTIONS:
            for step in range(-4, 5):
                x, y = x0 + step * dx, y0 + step * dy
                if step and 0 <= x < w and 0 <= y < h and board.cells[y * w + x] == EMPTY:
                    cells.append(y * w + x)
    found = []
    for i in cells:
        board.cells[i] = STONE[colour]
        if board.wins_at(i):
            found.append(i)
        board.cells[i] = EMPTY
    return found


def white_trap(game: Game) -> Move | None:
    """A white move that wins: five now, or a four whose only defence is forbidden for black."""
    variant, board = game.variant, game.board
    if variant.rule is not WinRule.RENJU or game.to_move != 1:
        return None
    if _five_points(board, 0):
        return None  # black threatens five (never forbidden): white must block, not trap
    w, h = board.width, board.height
    near = {
        y * w + x
        for i, c in enumerate(board.cells)
        if c == STONE[1]
        for x in range(i % w - 2, i % w + 3)
        for y in range(i // w - 2, i // w + 3)
        if 0 <= x < w and 0 <= y < h and board.cells[y * w + x] == EMPTY
    }
    for m in sorted(near):
        board.cells[m] = STONE[1]
        try:
            if board.wins_at(m):
                return Move(*board.xy(m))
            threats = set(_five_points(board, 1, m))
            if len(threats) == 1 and renju.foul(board.cells, w, h, threats.pop()) is not None:
                return Move(*board.xy(m))
        finally:
            board.cells[m] = EMPTY
    return None


def renju_move(variant: Variant, moves: list[Move], engine: Callable[[], EngineAnswer]) -> Move:
    """The engine's move, made legal and sharpened for renju (other games pass straight through)."""
    if variant.rule is not WinRule.RENJU:
        return engine()[0]
    game = Game.from_moves(variant, moves)
    trap = white_trap(game)
    if trap is not None:
        return trap
    move, good = engine()
    if game.to_move != 0:
        return move
    forbidden = set(variant.forbidden_points(game.board))
    for candidate in (move, *good):
        if candidate not in forbidden:
            return candidate
    # every move the engine liked is forbidden: the nearest playable cell to its first choice
    free = [m for m in game.legal_moves() if m not in forbidden]
    return min(free, key=lambda m: (max(abs(m.x - move.x), abs(m.y - move.y)), m.y, m.x))


def search_v1(variant: Variant, moves: list[Move], limit: Limit) -> SearchResult:
    """The v1 engine's search on any board."""
    return Searcher(variant, list(moves), limit).run()


def choose_v1(
    variant: Variant, moves: list[Move], level: int, time_budget_s: float | None,
    rng: random.Random | None,
) -> tuple[Move, SearchResult | None]:  # fmt: skip
    """The move v1 at ``level`` plays (its noise, then its search with the level's row)."""
    row = LEVELS[level]
    if rng is not None and row.noise and rng.random() < row.noise:
        board = EvalBoard(variant, list(moves))
        cells = board.candidates() if variant.cells > SMALL_BOARD else None
        if not cells:
            cells = [c for c, v in enumerate(board.cells) if v == 0]
        return board.move(rng.choice(cells)), None
    limit = level_limit(variant, level, min(row.time_s, time_budget_s or row.time_s))
    result = search_v1(variant, moves, limit)
    return pick(result, rng), result


class V1Bot(MinimaxBot):
    """``minimax-v1[:level=N]``: the v1 engine as a bot (kept legal for renju like the rest)."""

    def __init__(self, level: int = 10, seed: int | None = None) -> None:
        super().__init__(level, seed)
        self.name = f"minimax-v1-{level}"

    def choose(self, variant: Variant, moves: list[Move], limit: Limit) -> Move:
        """v1's move at this bot's level, within ``limit.time_s``."""
        self.last_result = None

        def engine() -> tuple[Move, list[Move]]:
            move, result = choose_v1(variant, moves, self.level, limit.time_s, self.rng)
            self.last_result = result
            return move, list(result.best_moves) if result else []

        return renju_move(variant, moves, engine)
