"""The client's analysis logic as pure functions: the ``analysis`` answer read, the graph's
scale, blunders, the exact overlay, the bounded request queue, and the game records it exports."""

from __future__ import annotations

from pathlib import Path

import pytest

from client.anaboard import AnalysisBoard
from client.analysis import (
    SCORE_CAP,
    VALUE_COLOURS,
    Analysis,
    CellValue,
    exact_value,
    final_eval,
    graph_points,
    overlay,
    score_label,
    score_scale,
)
from client.analyst import BACKOFF_S, LOST_S, MAX_RETRIES, Analyst, GameWalk
from client.export import read_text_record, save, seconds, text_record
from client.history import record_game
from client.values import FinishedGame, GameInfo, Result

TTT = GameInfo("tictactoe", 3, 3, 3)


def answer(**fields: object) -> dict[str, object]:
    """An ``analysis`` message with ``fields`` over a plain one-line answer."""
    base: dict[str, object] = {
        "type": "analysis",
        "id": 7,
        "ply": 2,
        "to_move": 0,
        "lines": [{"move": [7, 7], "score": 120, "pv": [[7, 7], [8, 8]], "depth": 9}],
    }
    return {**base, **fields}


def test_scores_map_to_a_bounded_scale_with_mates_at_the_ends() -> None:
    assert score_scale(0) == 0
    assert score_scale(1000) == pytest.approx(SCORE_CAP / 2)
    assert score_scale(-1000) == pytest.approx(-SCORE_CAP / 2)
    assert score_scale(3000) == pytest.approx(0.95 * 0.75)
    assert 0.94 < score_scale(1_000_000) < SCORE_CAP < 1  # the engine's WIN: not a mate's end
    a = Analysis.from_wire(answer(lines=[{"move": [1, 1], "mate": 7, "pv": [], "depth": 3}]))
    assert a.eval() == 1.0 and a.best is not None and a.best.label() == "win in 7"
    a = Analysis.from_wire(answer(to_move=1, lines=[{"move": [1, 1], "mate": -4, "depth": 3}]))
    assert a.eval() == -1.0 and a.black_eval() == 1.0  # white is lost: black's view +1
    assert a.best is not None and a.best.label() == "loss in 4"
    assert score_label(125) == "+125" and score_label(-40) == "\u221240" and score_label(0) == "+0"


def test_an_answer_is_read_bounded_and_malformed_entries_are_left_out() -> None:
    lines = [{"move": [i, 0], "score": i, "pv": [[i, 0]], "depth": 4} for i in range(9)]
    lines.insert(1, {"move": "H8", "score": 5})  # malformed: dropped, the rest kept
    values = [
        {"move": [0, 0], "value": "win", "plies": 5},
        {"move": [1, 0], "value": "maybe", "plies": 5},
        {"move": [2, 0], "value": "draw"},
    ]
    a = Analysis.from_wire(answer(lines=lines, values=values))
    assert [line.move for line in a.lines] == [(0, 0), (1, 0), (2, 0), (3, 0)]  # 5 at most read
    assert a.values == (CellValue((0, 0), "win", 5), CellValue((2, 0), "draw", 0))
    assert a.value_at((0, 0)) == CellValue((0, 0), "win", 5) and a.value_at((1, 0)) is None
    empty = Analysis.from_wire({"type": "analysis", "ply": "x", "lines": "nope"})
    assert empty.lines == () and empty.eval() is None and empty.ply == 0 and empty.to_move == 0
    long_pv = [{"move": [0, 0], "pv": [[0, 0]] * 500, "depth": 1}]
    assert len(Analysis.from_wire(answer(lines=long_pv)).lines[0].pv) == 40


def test_the_exact_value_is_the_shortest_win_else_a_draw_else_the_longest_loss() -> None:
    win = [CellValue((0, 0), "loss", 2), CellValue((1, 0), "win", 5), CellValue((2, 0), "win", 3)]
    assert exact_value(win) == ("win", 3)
    draw = [CellValue((0, 0), "loss", 2), CellValue((1, 0), "draw", 6)]
    assert exact_value(draw) == ("draw", 6)
    assert exact_value([CellValue((0, 0), "loss", 2), CellValue((1, 0), "loss", 6)]) == ("loss", 6)
    assert exact_value([]) is None
    a = Analysis.from_wire(answer(to_move=1, values=[{"move": [0, 0], "value": "win", "plies": 3}]))
    assert a.eval() == 1.0 and a.black_eval() == -1.0  # a proven value beats the engine's score


def test_the_marks_are_the_servers_read_leniently() -> None:
    marks = [
        {"ply": 1, "drop": 45, "verdict": "blunder"},
        {"ply": 2, "drop": 0, "verdict": None},
        {"ply": -1, "drop": 9, "verdict": "blunder"},  # nonsense: left out
        {"ply": 3, "drop": 60, "verdict": "blunder"},  # past the bound of two a reply
    ]
    a = Analysis.from_wire(answer(marks=marks))
    assert [(m.ply, m.drop, m.verdict, m.blunder) for m in a.marks] == [
        (1, 45.0, "blunder", True),
        (2, 0.0, "", False),
    ]
    assert Analysis.from_wire(answer(marks="x")).marks == ()


def test_the_graph_ends_on_the_result_when_the_last_position_is_not_analysed() -> None:
    assert final_eval(0, "line") == 1.0 and final_eval(1, "line") == -1.0
    assert final_eval(None, "draw") == 0.0 and final_eval(1, "resign") is None
    assert graph_points({0: 0.1, 2: -0.3}, 3, -1.0) == [0.1, None, -0.3, -1.0]
    assert graph_points({0: 0.1, 1: 0.5}, 1, -1.0) == [0.1, 0.5]  # the end was analysed


def test_the_overlay_colours_every_free_cell_with_a_value() -> None:
    values = [
        {"move": [0, 0], "value": "win", "plies": 5},
        {"move": [1, 0], "value": "draw", "plies": 8},
        {"move": [2, 0], "value": "loss", "plies": 4},
        {"move": [1, 1], "value": "win", "plies": 1},  # taken: a broken answer, not drawn
    ]
    a = Analysis.from_wire(answer(values=values))
    shown = overlay(a, {(1, 1)})
    assert shown == {
        (0, 0): (VALUE_COLOURS["win"], 5),
        (1, 0): (VALUE_COLOURS["draw"], 8),
        (2, 0): (VALUE_COLOURS["loss"], 4),
    }
    assert overlay(None, set()) == {}


def test_one_request_in_flight_and_the_users_first() -> None:
    analyst = Analyst()
    walk = {"type": "analyse", "game_id": "g", "ply": 0}
    analyst.want("hint", {"type": "analyse", "room": "r"})
    purpose, msg = analyst.next(0.0, walk) or ("", {})
    assert (purpose, msg) == ("hint", {"type": "analyse", "room": "r"})
    analyst.sent(purpose, msg, 1, 0.0)
    assert analyst.next(0.5, walk) is None  # one in flight: nothing else goes
    assert analyst.busy_with("hint") and not analyst.busy_with("walk")
    assert analyst.answered(99) is None  # another request's answer
    assert analyst.answered(1) == ("hint", msg)
    assert analyst.next(0.6, walk) == ("walk", walk)
    analyst.sent("walk", walk, 2, 0.6)
    # refused for load: the same request again, after the pause
    assert analyst.refused(2, "rate_limited", 1.0) is None
    assert analyst.next(1.0 + BACKOFF_S["rate_limited"] - 0.1, None) is None
    assert analyst.next(1.0 + BACKOFF_S["rate_limited"], None) == ("walk", walk)
    analyst.sent("walk", walk, 3, 4.0)
    assert analyst.refused(3, "bad_position", 4.1) == ("walk", walk)  # ends it
    # an answer that never comes frees the slot after a while
    analyst.sent("board", walk, 4, 5.0)
    assert not analyst.free(5.0 + LOST_S - 1) and analyst.free(5.0 + LOST_S + 1)
    # a reconnect: what was in flight is asked again
    analyst.sent("board", walk, 5, 100.0)
    analyst.reset()
    assert analyst.next(100.0) == ("board", walk)
    # no bot free: asked again a few times, then given up
    for n in range(MAX_RETRIES):
        at = 200.0 + 10 * n
        assert analyst.next(at, walk) == ("walk", walk)
        analyst.sent("walk", walk, 100 + n, at)
        assert analyst.refused(100 + n, "no_bot_available", at) is None
    assert analyst.next(at + 10, walk) == ("walk", walk)
    analyst.sent("walk", walk, 200, at + 10)
    assert analyst.refused(200, "no_bot_available", at + 10) == ("walk", walk)


def ttt_game(moves: list[tuple[int, int]], winner: int | None, reason: str) -> FinishedGame:
    return FinishedGame("g_1", "r", TTT, ("alice", "bot"), tuple(moves), Result(winner, reason))


def test_a_game_walk_asks_each_position_once_the_shown_one_first() -> None:
    walk = GameWalk(ttt_game([(1, 1), (1, 0), (0, 0)], None, "resign"))
    assert walk.next_ply(2) == 2 and walk.next_ply(7) == 0
    assert walk.request(2) == {"type": "analyse", "game_id": "g_1", "ply": 2, "time": 0.5}
    said = {  # the server's marks: each move once both positions around it were known
        0: [],
        1: [{"ply": 0, "drop": 0, "verdict": None}],
        2: [{"ply": 1, "drop": 45, "verdict": "blunder"}],
    }
    for ply, score in ((0, 0), (1, 0), (2, 3000)):
        to_move = ply & 1
        line = [{"move": [2, 2], "score": score}]
        walk.by_ply[ply] = Analysis.from_wire(
            answer(ply=ply, to_move=to_move, lines=line, marks=said[ply])
        )
    walk.failed.add(3)
    assert walk.next_ply(0) is None and walk.done == 4
    points = walk.points()
    assert points[:2] == [0.0, 0.0] and points[2] == pytest.approx(score_scale(3000))
    assert points[3] is None  # a resignation: the end is unknown
    assert [m.ply for m in walk.marks()] == [0, 1]
    assert [m.ply for m in walk.blunders()] == [1]  # as the server marked it


def test_the_plain_text_record_round_trips() -> None:
    row = {
        "game_id": "g_9",
        "room": "r",
        "game": {"name": "gomoku", "width": 15, "height": 15, "k": 5},
        "players": ["alice", "minimax"],
        "winner": 1,
        "reason": "resign",
        "moves": [
            {"x": 7, "y": 7, "ms": 1100},
            {"x": 8, "y": 8, "ms": 352},
            {"x": 0, "y": 14},
            {"x": 14, "y": 0, "ms": 0},
        ],
    }
    game = record_game(row)
    assert game is not None and game.times_ms == (1100, 352, None, 0)
    text = text_record(game)
    assert text.splitlines() == [
        "# mnk-arena game record (plain text)",
        "# game: g_9",
        "# variant: gomoku 15x15 k=5 rule=freestyle",
        "# first: alice",
        "# second: minimax",
        "1 H8 7,7 1.100",
        "2 J7 8,8 0.352",
        "3 A1 0,14 -",
        "4 P15 14,0 0.000",
        "# result: minimax wins (resign)",
    ]
    back = read_text_record(text)
    assert [(m.x, m.y) for m in back.moves] == list(game.moves)
    assert back.times_ms == game.times_ms
    assert back.players == ("alice", "minimax") and (back.winner, back.reason) == (1, "resign")
    for broken in ("2 J7 8,8", "5 J7 8,8"), ("2 J7 8,8", "2 J8 8,8"), ("P15 14,0", "P15 15,0"):
        with pytest.raises(ValueError):
            read_text_record(text.replace(*broken))
    assert seconds(None) == "-" and seconds(61234) == "61.234"


def test_a_wide_board_record_round_trips_through_a_file(tmp_path: Path) -> None:
    info = GameInfo("mnk", 25, 4, 4)
    game = FinishedGame("g/../x", "r", info, ("a", "b"), ((24, 0), (0, 3)), Result(None, "draw"))
    back = read_text_record(text_record(game))
    assert [(m.x, m.y) for m in back.moves] == [(24, 0), (0, 3)]
    assert back.times_ms == (None, None) and back.winner is None and back.reason == "draw"
    path = save(game.game_id, ".txt", text_record(game), tmp_path)
    assert path.parent == tmp_path and path.name == "mnk-g____x.txt"  # no path out of the folder
    assert [(m.x, m.y) for m in read_text_record(path.read_text()).moves] == list(game.moves)


def test_the_analysis_board_sets_up_a_position_and_plays_from_it() -> None:
    board = AnalysisBoard()  # 4x4, k=4: the exact solver's board
    assert board.info == GameInfo("mnk", 4, 4, 4, "freestyle") and board.mode == "setup"
    board.click((0, 0))
    board.paint = 1
    board.click((1, 1))
    board.click((2, 2))
    board.paint = None
    board.click((2, 2))  # erased again
    assert board.stones == {(0, 0): 0, (1, 1): 1} and board.problem() is None
    board.to_move = 1  # the engine replays set-up stones in turn: white to move needs a black more
    assert "X needs one stone more than O (1 and 1 now)" in (board.problem() or "")
    board.paint = 0
    board.click((2, 0))
    assert board.problem() is None
    board.mode = "play"
    assert board.click((1, 1)) is not None and board.moves == []  # taken: nothing played
    assert board.click((3, 3)) is None and board.side() == 0  # white played, black to move
    assert board.request() == {
        "type": "analyse",
        "game": "mnk",
        "lines": 1,
        "options": {
            "width": 4,
            "height": 4,
            "k": 4,
            "rule": "freestyle",
            "position": {"black": [[0, 0], [2, 0]], "white": [[1, 1]], "to_move": 1},
        },
        "moves": [[3, 3]],
    }
    board.back()
    assert board.moves == [] and board.side() == 1
    board.step("lines", 9)
    assert board.lines == 5


def test_the_analysis_board_knows_a_won_position_and_a_stale_answer() -> None:
    board = AnalysisBoard()
    board.choose("tictactoe")
    for cell in [(0, 0), (1, 0), (2, 0)]:
        board.click(cell)
    assert "winning line" in (board.problem() or "")  # three in a row set up: not a position
    board.load(GameInfo("tictactoe", 3, 3, 3), [(0, 0), (1, 1), (1, 0), (2, 2)])
    assert board.problem() is None and board.request() == {
        "type": "analyse",
        "game": "tictactoe",
        "lines": 1,
        "moves": [[0, 0], [1, 1], [1, 0], [2, 2]],
    }
    board.analysis, board.analysed = Analysis.from_wire(answer(ply=4)), board.key()
    assert board.fresh is not None
    assert board.click((2, 0)) is None and board.outcome() is not None  # X made three
    assert board.problem() == "The game is over here: take a move back."
    assert board.fresh is None  # the answer was about the position before
    assert board.click((0, 2)) is not None  # no move after the end
    board.choose("renju")
    board.mode = "play"
    for cell in [(6, 7), (0, 0), (7, 7), (0, 2), (8, 5), (0, 4), (8, 6), (0, 6)]:
        assert board.click(cell) is None
    assert "forbidden" in (board.click((8, 7)) or "")  # the double-three is not for black


def test_a_move_as_good_as_the_engines_is_not_marked_with_a_better_one() -> None:
    values = [
        {"move": [0, 0], "value": "draw", "plies": 8},
        {"move": [1, 0], "value": "draw", "plies": 8},
        {"move": [2, 0], "value": "loss", "plies": 5},
    ]
    a = Analysis.from_wire(answer(lines=[line_at([0, 0])], values=values))
    assert a.as_good((0, 0)) and a.as_good((1, 0))  # the best, and another draw
    assert not a.as_good((2, 0))  # a loss in a drawn position
    b = Analysis.from_wire(answer(lines=[line_at([0, 0])]))
    assert b.as_good((0, 0)) and not b.as_good((1, 0))  # no proof: only the engine's move


def line_at(move: list[int]) -> dict[str, object]:
    return {"move": move, "score": 0, "pv": [move], "depth": 3}
