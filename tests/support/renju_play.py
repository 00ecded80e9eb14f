"""Renju for the engine tests: positions as move lists, a VCF prover on the rules alone, and
the brute-force answers of the renju tactics suite."""

from __future__ import annotations

from protocol import renju
from protocol.rules import EMPTY, STONE, Game, Move, Variant, WinRule
from protocol.variants import RENJU

SIZE = 15
#: Cells on the rim, two apart (no two make a line of three), used to even out stone counts.
PADDING = [
    (x, y) for y in (0, 14, 2, 12) for x in range(0, 15, 2) if not (2 < x < 12 and y in (2, 12))
]


def moves_from_cells(cells: list[int]) -> tuple[list[Move], list[int]]:
    """A move list (black first, black to move after it) that sets up ``cells``, and the
    cells it really makes: the short colour is padded with rim stones that ``cells`` leaves
    empty. Compare verdicts on the returned cells, not on the original ones."""
    board = list(cells)
    black = [i for i, c in enumerate(board) if c == 1]
    white = [i for i, c in enumerate(board) if c == 2]
    pads = iter(y * SIZE + x for x, y in PADDING if board[y * SIZE + x] == 0)
    while len(black) < len(white):
        black.append(cell := next(pads))
        board[cell] = 1
    while len(white) < len(black):
        white.append(cell := next(pads))
        board[cell] = 2
    moves = []
    for b, w in zip(black, white, strict=True):
        moves += [Move(b % SIZE, b // SIZE), Move(w % SIZE, w // SIZE)]
    return moves, board


def interleave(black: list[tuple[int, int]], white: list[tuple[int, int]]) -> list[Move]:
    """The moves that place ``black`` and ``white`` alternately, black first (counts equal,
    or one more black stone: then white is to move)."""
    assert len(black) - len(white) in (0, 1)
    moves: list[Move] = []
    for i, xy in enumerate(black):
        moves.append(Move(*xy))
        if i < len(white):
            moves.append(Move(*white[i]))
    return moves


class Prover:
    """A brute-force VCF prover on the rules themselves (``protocol.rules`` and
    ``protocol.renju``, nothing of the engine): the attacker plays only fours (or five), the
    defender's only replies are the five point (none if it is forbidden for black; lost if
    there are two), a defender's five ends the line for the defender."""

    def __init__(self, variant: Variant, moves: list[Move]) -> None:
        self.variant = variant
        self.board = Game.from_moves(variant, moves).board
        self.w = variant.width

    def fives(self, seat: int) -> list[int]:
        """The empty cells where ``seat`` wins at once."""
        cells, w, out = self.board.cells, self.w, []
        stones = [i for i, c in enumerate(cells) if c == STONE[seat]]
        near = {
            y * w + x
            for i in stones
            for x in range(i % w - 4, i % w + 5)
            for y in range(i // w - 4, i // w + 5)
            if 0 <= x < w and 0 <= y < self.variant.height
        }
        for i in sorted(near):
            if cells[i] == EMPTY:
                cells[i] = STONE[seat]
                if self.board.wins_at(i):
                    out.append(i)
                cells[i] = EMPTY
        return out

    def allowed(self, seat: int, cell: int) -> bool:
        """Whether ``seat`` may play the empty ``cell`` (black's fouls in renju)."""
        if seat != 0 or self.variant.rule is not WinRule.RENJU:
            return True
        return renju.foul(self.board.cells, self.w, self.variant.height, cell) is None

    def wins(self, seat: int, depth: int) -> int | None:
        """The first move of a win by continuous fours for ``seat`` (to move) within ``depth``
        of its moves, or None."""
        cells = self.board.cells
        own = self.fives(seat)
        if own:
            return own[0]
        if depth <= 0:
            return None
        theirs = self.fives(1 - seat)
        if len(theirs) >= 2:
            return None
        if theirs:
            moves = theirs
        else:
            moves = [i for i, c in enumerate(cells) if c == EMPTY and self._makes_four(seat, i)]
        for m in moves:
            if not self.allowed(seat, m):
                continue
            cells[m] = STONE[seat]
            try:
                if self.defence_fails(seat, depth):
                    return m
            finally:
                cells[m] = EMPTY
        return None

    def _makes_four(self, seat: int, cell: int) -> bool:
        cells = self.board.cells
        cells[cell] = STONE[seat]
        try:
            return bool(self.fives(seat))
        finally:
            cells[cell] = EMPTY

    def defence_fails(self, seat: int, depth: int) -> bool:
        """After ``seat``'s four: whether every defence loses within ``depth - 1`` more."""
        cells = self.board.cells
        threats = self.fives(seat)
        if not threats:
            return False
        if self.fives(1 - seat):
            return False  # the defender completes five first
        if len(threats) >= 2:
            return True
        block = threats[0]
        if not self.allowed(1 - seat, block):
            return True  # the only defence is forbidden for black
        cells[block] = STONE[1 - seat]
        try:
            return self.wins(seat, depth - 1) is not None
        finally:
            cells[block] = EMPTY


#: Attacker moves the suite's prover looks ahead (fours; the last one may be the five).
DEPTH = 3


def near_moves(game: Game) -> list[Move]:
    """Legal moves for the side to move within two cells of a stone."""
    cells = game.board.cells
    out = set()
    for i, c in enumerate(cells):
        if not c:
            continue
        for x in range(i % 15 - 2, i % 15 + 3):
            for y in range(i // 15 - 2, i // 15 + 3):
                if 0 <= x < 15 and 0 <= y < 15 and cells[y * 15 + x] == 0:
                    out.add(Move(x, y))
    return sorted((m for m in out if game.is_legal(m)), key=lambda m: (m.y, m.x))


def answers(category: str, moves: list[Move]) -> list[Move]:
    """The renju tactics suite's accepted answers for the side to move after ``moves``, by
    brute force on the rules over :func:`near_moves`: for ``forbidden-defence`` the moves after
    which the opponent has no win by fours, else the moves that start one (``DEPTH`` fours);
    see ``bench/make_renju_tactics.py``."""
    game = Game.from_moves(RENJU, moves)
    seat = game.ply & 1
    out = []
    for m in near_moves(game):
        after = Prover(RENJU, [*moves, m])
        if category == "forbidden-defence":
            ok = after.wins(1 - seat, DEPTH) is None
        else:
            cell = m.y * 15 + m.x
            ok = after.board.wins_at(cell) or after.defence_fails(seat, DEPTH)
        if ok:
            out.append(m)
    return out
