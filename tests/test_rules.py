"""Oracle tests for the m,n,k rules core: tic-tac-toe known answers, leetcode cross-checks,
errors and hypothesis properties against an independent brute-force line scanner."""

from __future__ import annotations

import itertools
from collections import Counter
from functools import cache

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from protocol.errors import (
    ArenaError,
    BadMessage,
    GameOverError,
    IllegalMoveError,
    MalformedMoveError,
)
from protocol.rules import (
    EMPTY,
    STONE,
    Board,
    Game,
    Move,
    Outcome,
    Termination,
    Variant,
    move_at,
)
from protocol.variants import TICTACTOE, make_variant

# --------------------------------------------------------------------------------------------
# Tic-tac-toe: exhaustive enumeration and minimax
# --------------------------------------------------------------------------------------------


@cache
def reachable_positions() -> dict[tuple[int, ...], Game]:
    """Every position reachable in legal tic-tac-toe play, by cells (terminals not expanded)."""
    start = Game(TICTACTOE)
    seen: dict[tuple[int, ...], Game] = {tuple(start.board.cells): start}
    stack = [start]
    while stack:
        game = stack.pop()
        if game.over:
            continue
        for move in game.legal_moves():
            child = Game.from_moves(TICTACTOE, [*game.moves, move])
            key = tuple(child.board.cells)
            if key not in seen:
                seen[key] = child
                stack.append(child)
    return seen


def test_tictactoe_has_5478_legal_positions() -> None:
    assert len(reachable_positions()) == 5478


def test_tictactoe_has_958_terminal_positions() -> None:
    games = reachable_positions().values()
    terminal = [g for g in games if g.over]
    assert len(terminal) == 958
    kinds = Counter((g.outcome.termination, g.outcome.winner) for g in terminal)
    assert kinds == {
        (Termination.LINE, 0): 626,
        (Termination.LINE, 1): 316,
        (Termination.DRAW, None): 16,
    }
    assert all(len(g.outcome.line) == 3 for g in terminal if g.outcome.winner is not None)


def test_enumerated_positions_are_consistent() -> None:
    for cells, game in reachable_positions().items():
        x, o = cells.count(STONE[0]), cells.count(STONE[1])
        assert x - o in (0, 1)
        assert game.ply == x + o
        assert game.to_move == (None if game.over else game.ply & 1)
        assert len(game.legal_moves()) == (0 if game.over else cells.count(EMPTY))


def negamax(board: Board, memo: dict[tuple[int, ...], int]) -> int:
    """Full-width game value for the side to move on ``board``: 1 win, 0 draw, -1 loss."""
    key = tuple(board.cells)
    if key in memo:
        return memo[key]
    best = -2
    for index in list(board.legal()):
        board.play(index)
        if board.wins_at(index):
            value = 1
        elif board.full:
            value = 0
        else:
            value = -negamax(board, memo)
        board.undo()
        best = max(best, value)
    memo[key] = best
    return best


def value_for_x(moves: list[tuple[int, int]]) -> int:
    """Minimax value for X (seat 0) after playing ``moves`` (x, y) from the empty board."""
    board = Board(TICTACTOE)
    for x, y in moves:
        board.play(board.index(x, y))
    value = negamax(board, {})
    return value if board.to_move == 0 else -value


def test_tictactoe_is_a_draw() -> None:
    board = Board(TICTACTOE)
    assert negamax(board, {}) == 0
    assert board.cells == [EMPTY] * 9
    assert board.history == []


CORNERS = [(0, 0), (2, 0), (0, 2), (2, 2)]
EDGES = [(1, 0), (0, 1), (2, 1), (1, 2)]


@pytest.mark.parametrize("reply", CORNERS)
def test_center_opening_corner_reply_draws(reply: tuple[int, int]) -> None:
    assert value_for_x([(1, 1), reply]) == 0


@pytest.mark.parametrize("reply", EDGES)
def test_center_opening_edge_reply_loses(reply: tuple[int, int]) -> None:
    assert value_for_x([(1, 1), reply]) == 1


def test_corner_opening_only_center_holds() -> None:
    for reply in [*CORNERS[1:], *EDGES, (1, 1)]:
        expected = 0 if reply == (1, 1) else 1
        assert value_for_x([(0, 0), reply]) == expected, reply


Tally = tuple[int, int, int]


def count_games(board: Board, memo: dict[tuple[int, ...], Tally]) -> Tally:
    """(X wins, O wins, draws) over every distinct move sequence from ``board``."""
    key = tuple(board.cells)
    if key in memo:
        return memo[key]
    totals = [0, 0, 0]
    for index in list(board.legal()):
        board.play(index)
        if board.wins_at(index):
            totals[board.cells[index] - 1] += 1
        elif board.full:
            totals[2] += 1
        else:
            for i, n in enumerate(count_games(board, memo)):
                totals[i] += n
        board.undo()
    memo[key] = (totals[0], totals[1], totals[2])
    return memo[key]


def test_tictactoe_has_255168_games() -> None:
    x_wins, o_wins, draws = count_games(Board(TICTACTOE), {})
    assert (x_wins, o_wins, draws) == (131184, 77904, 46080)
    assert x_wins + o_wins + draws == 255168


# --------------------------------------------------------------------------------------------
# Leetcode 1275: find the winner given [row, col] moves
# --------------------------------------------------------------------------------------------


def leetcode_1275(moves: list[list[int]]) -> str:
    """Leetcode 1275 on top of Game: 'A', 'B', 'Draw' or 'Pending' ([row, col] moves)."""
    game = Game(TICTACTOE)
    for row, col in moves:
        game.push(Move(x=col, y=row))
    if game.outcome is None:
        return "Pending"
    if game.outcome.termination is Termination.DRAW:
        return "Draw"
    return "AB"[game.outcome.winner]


@pytest.mark.parametrize(
    ("moves", "expected"),
    [
        ([[0, 0], [2, 0], [1, 1], [2, 1], [2, 2]], "A"),
        ([[0, 0], [1, 1], [0, 1], [0, 2], [1, 0], [2, 0]], "B"),
        ([[0, 0], [1, 1], [2, 0], [1, 0], [1, 2], [2, 1], [0, 1], [0, 2], [2, 2]], "Draw"),
        ([[0, 0], [1, 1]], "Pending"),
        ([], "Pending"),
        ([[0, 0], [1, 0], [0, 1], [1, 1], [0, 2]], "A"),
    ],
)
def test_leetcode_1275(moves: list[list[int]], expected: str) -> None:
    assert leetcode_1275(moves) == expected


def test_leetcode_1275_row_col_maps_to_y_x() -> None:
    # A takes row 0 ([0,0],[0,1],[0,2]): in our coordinates that is y=0, x=0..2.
    game = Game(TICTACTOE)
    for row, col in [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2]]:
        game.push(Move(x=col, y=row))
    assert game.outcome == Outcome(Termination.LINE, 0, (Move(0, 0), Move(1, 0), Move(2, 0)))


# --------------------------------------------------------------------------------------------
# Leetcode 794: valid tic-tac-toe state
# --------------------------------------------------------------------------------------------

CHAR = {"X": STONE[0], "O": STONE[1], " ": EMPTY}


def board_from_rows(rows: list[str]) -> Board:
    """A tic-tac-toe Board with its cells set from three strings of 'X', 'O' and ' '."""
    board = Board(TICTACTOE)
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            board.cells[board.index(x, y)] = CHAR[ch]
    return board


def has_line(board: Board, stone: int) -> bool:
    """Whether any ``stone`` on the board completes a winning line."""
    return any(c == stone and board.wins_at(i) for i, c in enumerate(board.cells))


def valid_board(rows: list[str]) -> bool:
    """Leetcode 794: counts and wins checked with Board.wins_at."""
    board = board_from_rows(rows)
    x, o = board.cells.count(STONE[0]), board.cells.count(STONE[1])
    if not o <= x <= o + 1:
        return False
    x_won, o_won = has_line(board, STONE[0]), has_line(board, STONE[1])
    if x_won and o_won:
        return False
    if x_won and x != o + 1:
        return False
    return not (o_won and x != o)


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        (["O  ", "   ", "   "], False),
        (["XOX", " X ", "   "], False),
        (["XOX", "O O", "XOX"], True),
        (["XXX", "   ", "OOO"], False),
        (["XXX", "XOO", "OO "], False),
        (["XXX", "OOX", "OOX"], True),
        (["   ", "   ", "   "], True),
    ],
)
def test_leetcode_794(rows: list[str], expected: bool) -> None:
    assert valid_board(rows) is expected


def test_leetcode_794_matches_enumeration_on_all_boards() -> None:
    reachable = reachable_positions()
    valid = 0
    for cells in itertools.product((EMPTY, STONE[0], STONE[1]), repeat=9):
        rows = ["".join("XO "[(c - 1) % 3] for c in cells[r * 3 : r * 3 + 3]) for r in range(3)]
        ok = valid_board(rows)
        assert ok == (cells in reachable), rows
        valid += ok
    assert valid == 5478


# --------------------------------------------------------------------------------------------
# Leetcode 348: design n x n tic-tac-toe
# --------------------------------------------------------------------------------------------


class TicTacToe348:
    """Leetcode 348's incremental n x n tic-tac-toe, on a validating Game."""

    def __init__(self, n: int) -> None:
        self.game = Game(make_variant("mnk", {"width": n, "height": n, "k": n}))

    def move(self, row: int, col: int, player: int) -> int:
        """Play for ``player`` (1 or 2); return the player if that move won, else 0."""
        assert self.game.to_move == player - 1
        outcome = self.game.push(Move(x=col, y=row))
        if outcome is not None and outcome.termination is Termination.LINE:
            return outcome.winner + 1
        return 0


def test_leetcode_348_example() -> None:
    t = TicTacToe348(3)
    steps = [
        ((0, 0, 1), 0),
        ((0, 2, 2), 0),
        ((2, 2, 1), 0),
        ((1, 1, 2), 0),
        ((2, 0, 1), 0),
        ((1, 0, 2), 0),
        ((2, 1, 1), 1),
    ]
    for args, expected in steps:
        assert t.move(*args) == expected, args
    assert t.game.outcome.line == (Move(0, 2), Move(1, 2), Move(2, 2))


def test_leetcode_348_player_two_wins_anti_diagonal_on_4x4() -> None:
    t = TicTacToe348(4)
    ones = [(0, 0), (0, 1), (0, 2), (1, 1)]
    twos = [(0, 3), (1, 2), (2, 1), (3, 0)]
    results = []
    for (r1, c1), (r2, c2) in zip(ones, twos, strict=True):
        results.append(t.move(r1, c1, 1))
        results.append(t.move(r2, c2, 2))
    assert results == [0, 0, 0, 0, 0, 0, 0, 2]
    # (x=col, y=row) along direction (1, -1): from the bottom-left upwards.
    assert t.game.outcome.line == (Move(0, 3), Move(1, 2), Move(2, 1), Move(3, 0))


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("xy", [(-1, 0), (0, -1), (3, 0), (0, 3), (3, 3), (-1, -1), (10**9, 0)])
def test_off_board_move_is_illegal(xy: tuple[int, int]) -> None:
    game = Game(TICTACTOE)
    game.push(Move(1, 1))
    with pytest.raises(IllegalMoveError) as info:
        game.push(Move(*xy))
    assert info.value.code == "illegal_move"
    assert game.moves == [Move(1, 1)]
    assert game.board.history == [4]
    assert game.to_move == 1
    assert not game.is_legal(Move(*xy))


def test_occupied_cell_is_illegal() -> None:
    game = Game(TICTACTOE)
    game.push(Move(2, 0))
    before = game.board.cells.copy()
    with pytest.raises(IllegalMoveError) as info:
        game.push(Move(2, 0))
    assert info.value.code == "illegal_move"
    assert game.board.cells == before
    assert game.ply == 1
    assert not game.is_legal(Move(2, 0))
    assert game.is_legal(Move(0, 0))
    assert Move(2, 0) not in game.legal_moves()
    assert len(game.legal_moves()) == 8


def test_move_after_win_is_game_over() -> None:
    game = Game.from_moves(TICTACTOE, [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)])
    assert game.outcome == Outcome(Termination.LINE, 0, (Move(0, 0), Move(1, 0), Move(2, 0)))
    for move in (Move(2, 2), Move(0, 0), Move(5, 5)):
        with pytest.raises(GameOverError) as info:
            game.push(move)
        assert info.value.code == "game_over"
    assert game.to_move is None
    assert game.legal_moves() == []
    assert game.ply == 5


def test_move_after_draw_is_game_over() -> None:
    moves = [(0, 0), (1, 1), (2, 2), (0, 1), (2, 1), (2, 0), (0, 2), (1, 2), (1, 0)]
    game = Game.from_moves(TICTACTOE, moves)
    assert game.outcome == Outcome(Termination.DRAW, None)
    with pytest.raises(GameOverError):
        game.push(Move(0, 0))


@pytest.mark.parametrize(
    "xy", [(1.0, 2), (1, 2.0), (True, 0), (0, False), ("1", 2), (None, 0), (1, [2]), (b"1", 1)]
)
def test_parse_rejects_non_integers(xy: tuple[object, object]) -> None:
    with pytest.raises(MalformedMoveError) as info:
        Game.parse(*xy)
    assert isinstance(info.value, BadMessage)
    assert info.value.code == "bad_message"


def test_parse_accepts_integers() -> None:
    assert Game.parse(2, 1) == Move(2, 1)
    assert Game.parse(-4, 99) == Move(-4, 99)  # range is the rules' business, not parse's


def test_a_move_on_a_board_is_one_shared_value() -> None:
    """Every cell of the largest board has one Move, so a game's history makes none per move."""
    assert Game.parse(24, 24) is Game.parse(24, 24) is move_at(24, 24) == Move(24, 24)
    game = Game.from_moves(make_variant("gomoku"), [(7, 7), (8, 8)])
    assert game.moves[0] is Game.parse(7, 7) and game.moves[1] is move_at(8, 8)
    for x, y in [(25, 0), (0, 25), (-1, 0), (0, -1)]:  # off every board: not from the table
        assert Game.parse(x, y) == Move(x, y) and Game.parse(x, y) is not Game.parse(x, y)


@pytest.mark.parametrize("winner", [0, 1])
def test_resign_ends_the_game(winner: int) -> None:
    game = Game.from_moves(TICTACTOE, [(1, 1)])
    outcome = game.end(Termination.RESIGN, winner)
    assert outcome == Outcome(Termination.RESIGN, winner, ())
    assert game.outcome is outcome
    assert game.over
    assert game.to_move is None
    with pytest.raises(GameOverError):
        game.push(Move(0, 0))
    with pytest.raises(GameOverError):
        game.end(Termination.TIMEOUT, 1 - winner)
    assert game.outcome == Outcome(Termination.RESIGN, winner, ())


def test_error_classes_are_arena_errors() -> None:
    for cls in (IllegalMoveError, GameOverError, MalformedMoveError):
        assert issubclass(cls, ArenaError)
    assert not issubclass(IllegalMoveError, BadMessage)


# --------------------------------------------------------------------------------------------
# Hypothesis properties against an independent brute-force scanner
# --------------------------------------------------------------------------------------------

SCAN_DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))
Run = tuple[tuple[int, int], ...]


def scan_runs(grid: list[list[int]], width: int, height: int) -> list[tuple[int, Run]]:
    """Every maximal run of one colour on the whole board: (stone, cells from the start)."""
    runs: list[tuple[int, Run]] = []
    for y in range(height):
        for x in range(width):
            stone = grid[y][x]
            if stone == EMPTY:
                continue
            for dx, dy in SCAN_DIRECTIONS:
                px, py = x - dx, y - dy
                if 0 <= px < width and 0 <= py < height and grid[py][px] == stone:
                    continue  # not the start of this run
                cells = []
                cx, cy = x, y
                while 0 <= cx < width and 0 <= cy < height and grid[cy][cx] == stone:
                    cells.append((cx, cy))
                    cx += dx
                    cy += dy
                runs.append((stone, tuple(cells)))
    return runs


def is_winning(length: int, k: int, rule: str) -> bool:
    """Whether a maximal run of ``length`` wins under ``rule``."""
    return length == k if rule == "exact" else length >= k


@st.composite
def small_variants(draw: st.DrawFn) -> tuple[Variant, str]:
    """A random mnk variant with sides 3..8, any legal k, either rule, and its rule name."""
    width = draw(st.integers(3, 8))
    height = draw(st.integers(3, 8))
    k = draw(st.integers(3, max(width, height)))
    rule = draw(st.sampled_from(["freestyle", "exact"]))
    options = {"width": width, "height": height, "k": k, "rule": rule}
    return make_variant("mnk", options), rule


def long_lines(width: int, height: int, k: int) -> list[list[int]]:
    """Every straight line of k+1 or k+2 cells on the board (as cell indices)."""
    lines = []
    for length in (k + 1, k + 2):
        for dx, dy in SCAN_DIRECTIONS:
            for y in range(height):
                for x in range(width):
                    ex, ey = x + (length - 1) * dx, y + (length - 1) * dy
                    if 0 <= ex < width and 0 <= ey < height:
                        lines.append([(y + i * dy) * width + x + i * dx for i in range(length)])
    return lines


@st.composite
def variant_and_order(draw: st.DrawFn) -> tuple[Variant, str, list[int]]:
    """A small variant and an order of all its cells; often seat 0 first fills a line longer
    than k around a gap it fills last (so overlines actually happen)."""
    variant, rule = draw(small_variants())
    w, h = variant.width, variant.height
    order = draw(st.permutations(range(w * h)))
    lines = long_lines(w, h, variant.k)
    if lines and draw(st.booleans()):
        cells = draw(st.sampled_from(lines))
        gap = draw(st.integers(1, len(cells) - 2))
        first = [c for i, c in enumerate(cells) if i != gap] + [cells[gap]]
        rest = [c for c in order if c not in cells]
        order = []
        for i, cell in enumerate(first):
            order.append(cell)
            if i < len(first) - 1:
                order.append(rest.pop(0))
        order += rest
    return variant, rule, order


def play_out(variant: Variant, order: list[int]) -> Game:
    """Play cells in ``order`` until the game ends."""
    game = Game(variant)
    for index in order:
        if game.over:
            break
        game.push(Move(index % variant.width, index // variant.width))
    return game


@settings(max_examples=400, deadline=None)
@given(variant_and_order())
def test_win_reported_iff_brute_force_finds_a_line(case: tuple[Variant, str, list[int]]) -> None:
    variant, rule, order = case
    w, h, k = variant.width, variant.height, variant.k
    grid = [[EMPTY] * w for _ in range(h)]
    game = Game(variant)
    for ply, index in enumerate(order):
        x, y = index % w, index // w
        seat = ply & 1
        assert game.to_move == seat
        outcome = game.push(Move(x, y))
        grid[y][x] = seat + 1
        winning = [
            (s, cells) for s, cells in scan_runs(grid, w, h) if is_winning(len(cells), k, rule)
        ]
        if winning:
            # Nothing was winning before this move, so every winning run is the mover's and
            # goes through the last move.
            assert all(s == seat + 1 and (x, y) in cells for s, cells in winning)
            assert outcome is not None
            assert outcome is game.outcome
            assert outcome.termination is Termination.LINE
            assert outcome.winner == seat
            line = tuple((m.x, m.y) for m in outcome.line)
            assert line in [cells for _, cells in winning]
            assert game.to_move is None
            event(f"{rule}: won, line of {len(line)} (k={k})")
            break
        if ply == w * h - 1:
            assert outcome == Outcome(Termination.DRAW, None)
            event(f"{rule}: draw")
        else:
            assert outcome is None
            assert not game.over
            if rule == "exact" and any(len(cells) > k for _, cells in scan_runs(grid, w, h)):
                event("exact: overline on the board, game goes on")
    assert game.over
    assert game.board.cells == [c for row in grid for c in row]


@settings(max_examples=150, deadline=None)
@given(variant_and_order(), st.data())
def test_board_play_undo_is_identity(
    case: tuple[Variant, str, list[int]], data: st.DataObject
) -> None:
    variant, _, order = case
    n = data.draw(st.integers(0, len(order) - 1))
    board = Board(variant)
    for index in order[:n]:
        board.play(index)
    cells, history = board.cells.copy(), board.history.copy()
    snapshot = board.copy()
    board.play(order[n])
    assert board.cells[order[n]] == STONE[n & 1]
    assert snapshot.cells == cells  # copy is independent
    assert board.undo() == order[n]
    assert board.cells == cells
    assert board.history == history
    assert board.to_move == n & 1
    assert sorted(board.legal()) == sorted(order[n:])


@settings(max_examples=150, deadline=None)
@given(variant_and_order(), st.data())
def test_finished_game_rejects_everything(
    case: tuple[Variant, str, list[int]], data: st.DataObject
) -> None:
    variant, _, order = case
    game = play_out(variant, order)
    assert game.over
    moves = game.moves.copy()
    x = data.draw(st.integers(-2, variant.width + 1))
    y = data.draw(st.integers(-2, variant.height + 1))
    with pytest.raises(GameOverError):
        game.push(Move(x, y))
    with pytest.raises(GameOverError):
        game.check(Move(x, y))
    assert not game.is_legal(Move(x, y))
    with pytest.raises(GameOverError):
        game.end(Termination.RESIGN, 0)
    assert game.legal_moves() == []
    assert game.to_move is None
    assert game.moves == moves


@settings(max_examples=150, deadline=None)
@given(variant_and_order(), st.data())
def test_from_moves_replays_the_game(
    case: tuple[Variant, str, list[int]], data: st.DataObject
) -> None:
    variant, _, order = case
    n = data.draw(st.integers(0, len(order)))
    game = play_out(variant, order[:n])
    for replay in (
        Game.from_moves(variant, game.moves),
        Game.from_moves(variant, [(m.x, m.y) for m in game.moves]),
    ):
        assert replay.outcome == game.outcome
        assert replay.moves == game.moves
        assert replay.board.cells == game.board.cells
        assert replay.board.history == game.board.history
        assert replay.to_move == game.to_move
