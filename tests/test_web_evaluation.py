"""The browser's analysis logic (server/web/evaluation.js, the analysis board's line check in
study.js, the page's analyser), run as it is in the real chromium on known answers: the bounded
scale, the value of a reply, the blunders of a game by score and by proven value, the graph's
points, the plain-text record, which lines win under each rule, and one request in flight."""

from __future__ import annotations

import math
from typing import Any

import pytest
from support.browser import new_page

from protocol.records import TextRecord, read_text, write_text
from protocol.rules import Move

pytestmark = pytest.mark.slow

IMPORT = 'const E = await import("/assets/evaluation.js");'


def run(page: Any, body: str, arg: Any = None) -> Any:
    """Evaluate ``body`` (an async function's body, with ``E`` the evaluation module and ``S``
    the analysis board's module) in the page."""
    script = f"""async (arg) => {{ {IMPORT}
        const S = await import("/assets/study.js");
        {body} }}"""
    return page.evaluate(script, arg)


@pytest.fixture(scope="module")
def page(browser: Any, tmp_path_factory: Any) -> Any:
    from support.browser import WebServer

    server = WebServer(tmp_path_factory.mktemp("evaluation"), "--no-bots")
    server.start()
    page = new_page(browser)
    page.goto(server.url + "/")
    yield page
    assert page.script_errors == []
    server.stop()


def test_scores_are_squashed_onto_a_bounded_scale_with_mates_at_the_ends(page: Any) -> None:
    got = run(page, "return [0, 2000, -2000, 500, 9000, 500000, -1000000].map(E.scaled);")
    assert got[:2] == [0, pytest.approx(math.tanh(1))]
    assert got[2] == pytest.approx(-math.tanh(1)) and got[3] == pytest.approx(math.tanh(0.25))
    assert got[4] < 1 and got[5:] == [1, -1]  # a won score (past WIN / 2) is at the end
    words = run(page, "return [0, 350, -1200.4, 1e6].map(E.scoreText);")
    assert words == ["0", "+350", "\u22121200", "won"]
    values = run(
        page, "return [E.valueText('win', 1), E.valueText('loss', 4), E.valueText('draw', 9)];"
    )
    assert values == ["win in 1 ply", "loss in 4 plies", "draw"]


def test_a_reply_says_its_value_from_the_side_to_move(page: Any) -> None:
    replies = [
        {"lines": [{"move": [1, 1], "score": 2000, "pv": [], "depth": 4}]},
        {"lines": [{"move": [1, 1], "mate": 3, "pv": [], "depth": 4}]},
        {"lines": [{"move": [1, 1], "mate": -4, "pv": [], "depth": 4}]},
        {"lines": [], "values": [
            {"move": [0, 0], "value": "loss", "plies": 4},
            {"move": [1, 1], "value": "win", "plies": 7},
            {"move": [2, 2], "value": "win", "plies": 5},
            {"move": [0, 2], "value": "draw", "plies": 9}]},
        {"lines": [], "values": [
            {"move": [0, 0], "value": "loss", "plies": 4},
            {"move": [1, 0], "value": "loss", "plies": 6}]},
        {"lines": []},
        {"lines": [{"move": [1, 1], "score": 199, "win": 55, "pv": [], "depth": 4}]},
    ]  # fmt: skip
    got = run(page, "return arg.map((r) => E.positionValue(r));", replies)
    assert got[6]["text"] == "55 % win chance"  # the server's win chance, not raw units
    assert got[0]["kind"] == "score" and got[0]["v"] == pytest.approx(math.tanh(1))
    assert got[0]["text"] == "engine score +2000"  # an older server's reply: the unit is said
    assert got[1] == {"v": 1, "kind": "mate", "text": "win in 3 plies"}
    assert got[2] == {"v": -1, "kind": "mate", "text": "loss in 4 plies"}
    assert got[3] == {"v": 1, "kind": "exact", "text": "win in 5 plies"}  # the shortest win
    assert got[4] == {"v": -1, "kind": "exact", "text": "loss in 6 plies"}  # the longest loss
    assert got[5] is None


def test_blunders_by_score_fall_past_the_threshold_and_not_when_already_lost(page: Any) -> None:
    def line(
        score: int | None = None, mate: int | None = None, move: tuple[int, int] = (3, 3)
    ) -> Any:
        entry: dict[str, Any] = {"move": list(move), "pv": [list(move)], "depth": 6}
        if mate is None:
            entry["score"] = score
        else:
            entry["mate"] = mate
        return {"lines": [entry]}

    replies = [  # replies[i]: before move i, the side to move's view (the first player's at even i)
        line(0, move=(0, 0)),  # even
        line(2000),  # the second player at +2000: move 0 fell by 0.76 (a blunder)
        line(-1800),  # the first player at -1800: move 1 kept the second's lead
        line(mate=3),  # the second player wins in 3: move 2 fell, but from -0.72: only 0.28
        line(-500),  # the first player at -500: move 3 threw the win in 3 away (1 → 0.24)
        line(600),  # the second player at +600: move 4 fell by 0.05
    ]
    moves = [[0, 1], [1, 1], [2, 1], [3, 1], [4, 1]]
    # the verdicts are the server's marks (whichever reply brought them), never the page's own
    marked = [dict(r) for r in replies]
    marked[1]["marks"] = [{"ply": 0, "drop": 38, "verdict": "blunder"}]
    marked[3]["marks"] = [{"ply": 2, "drop": 14, "verdict": None}]
    marked[4]["marks"] = [{"ply": 3, "drop": 70, "verdict": "blunder"}]
    got = run(
        page, "return E.review(arg.replies, arg.moves, null);", {"replies": marked, "moves": moves}
    )
    assert [e["verdict"] for e in got] == ["blunder", None, None, "blunder", None]
    unmarked = run(
        page, "return E.review(arg.replies, arg.moves, null);", {"replies": replies, "moves": moves}
    )
    assert [e["verdict"] for e in unmarked] == [None] * 5  # no marks said: none shown
    assert got[0]["drop"] == pytest.approx(math.tanh(1))
    assert got[0]["mover"] == 0 and got[1]["mover"] == 1
    assert got[0]["best"] == [0, 0] and got[1]["best"] == [3, 3]
    assert got[2]["after"] == -1  # the mate against the mover
    curve = run(
        page, "return E.curve(arg.replies, arg.moves, null);", {"replies": replies, "moves": moves}
    )
    expected = [0, -math.tanh(1), -math.tanh(0.9), -1, -math.tanh(0.25), -math.tanh(0.3)]
    assert curve == [pytest.approx(v) for v in expected]
    # A reply's own to_move wins over the ply's parity (a set-up position gave white the move).
    swapped = [{**r, "to_move": 1 - i % 2} for i, r in enumerate(replies)]
    turned = run(
        page, "return E.curve(arg, [[0, 1], [1, 1], [2, 1], [3, 1], [4, 1]], null);", swapped
    )
    assert turned == [pytest.approx(-v) for v in expected]
    movers = run(page, "return E.review(arg, [[0, 1], [1, 1]], null).map((e) => e.mover);", swapped)
    assert movers == [1, 0]
    # Unknown positions break nothing: no verdict where either side of a move is missing.
    sparse = run(page, "return E.review([arg[0]], [[0, 1], [1, 1]], null);", replies)
    assert [e["verdict"] for e in sparse] == [None, None]
    # The board ended the game: the last move's mover won (+1), a full board is a draw.
    ends = run(
        page,
        """return [E.curve([arg[0]], [[0, 1]], "line"), E.curve([arg[0]], [[0, 1]], "full"),
                   E.curve([arg[0], arg[1]], [[0, 1], [1, 1]], "line")];""",
        replies,
    )
    assert ends == [[0, 1], [0, 0], [0, -math.tanh(1), -1]]
    edge = run(page, "return E.review([arg], [[3, 3]], null, 0);", line(0))
    assert edge[0]["after"] is None and edge[0]["verdict"] is None


def test_the_review_of_a_solved_board_shows_the_marks_and_the_solvers_best(page: Any) -> None:
    def cells(*found: tuple[int, int, str, int]) -> list[dict[str, Any]]:
        return [{"move": [x, y], "value": value, "plies": plies} for x, y, value, plies in found]

    draws = cells((1, 1, "draw", 9), (0, 0, "draw", 9), (0, 1, "loss", 7))
    wins = cells((2, 2, "win", 3), (2, 0, "draw", 5), (1, 0, "loss", 2))
    replies = [{"lines": [], "values": values} for values in (draws, wins, wins, wins)]
    said = [("blunder", 50), ("mistake", 50), ("blunder", 100), (None, 0)]
    for ply, (verdict, drop) in enumerate(said):
        replies[ply]["marks"] = [{"ply": ply, "drop": drop, "verdict": verdict}]
    moves = [[0, 1], [2, 0], [1, 0], [2, 2]]
    got = run(
        page,
        "return E.review(arg.replies, arg.moves, 'line');",
        {"replies": replies, "moves": moves},
    )
    assert [e["verdict"] for e in got] == ["blunder", "mistake", "blunder", None]
    assert got[0]["played"] == {"move": [0, 1], "value": "loss", "plies": 7}
    assert got[0]["best"] == [1, 1] and got[1]["best"] == [2, 2]  # the solver's best
    assert [e["missed"] for e in got] == [True, True, True, False]
    equal = run(page, "return E.review([{lines: [], values: arg}], [[0, 0]], null);", draws)
    assert equal[0]["best"] == [1, 1] and not equal[0]["missed"]  # another draw: as good
    notes = run(page, "return E.overlay(arg);", wins)
    assert notes == [
        {"x": 2, "y": 2, "cls": "v-win", "text": "3"},
        {"x": 2, "y": 0, "cls": "v-draw", "text": "="},
        {"x": 1, "y": 0, "cls": "v-loss", "text": "2"},
    ]


def test_the_graph_line_and_the_plain_text_record(page: Any) -> None:
    assert (
        run(page, "return E.polyline([1, null, 0, -1], 300, 100);")
        == "0.0,0.0 200.0,50.0 300.0,100.0"
    )
    game = {
        "game_id": "g_7", "players": ["alice", "bob"], "winner": 0, "reason": "line",
        "game": {"name": "tictactoe", "width": 3, "height": 3, "k": 3, "rule": "freestyle"},
        "moves": [{"x": 0, "y": 0, "ms": 1100}, {"x": 1, "y": 1, "ms": 250},
                  {"x": 2, "y": 2, "ms": 12345}],
    }  # fmt: skip
    assert run(page, "return E.textRecord(arg);", game) == (
        "# mnk-arena game record (plain text)\n"
        "# game: g_7\n"
        "# variant: tictactoe 3x3 k=3 rule=freestyle\n"
        "# first: alice\n"
        "# second: bob\n"
        "1 A3 0,0 1.100\n"
        "2 B2 1,1 0.250\n"
        "3 C1 2,2 12.345\n"
        "# result: alice wins (line)\n"
    )
    python = TextRecord(
        "g_7", "tictactoe", 3, 3, 3, "freestyle", ("alice", "bob"),
        (Move(0, 0), Move(1, 1), Move(2, 2)), (1100, 250, 12345), 0, "line",
    )  # fmt: skip
    assert run(page, "return E.textRecord(arg);", game) == write_text(python)  # one format
    game["moves"][1].pop("ms")  # a time the server did not give
    drawn = run(page, "return E.textRecord({...arg, winner: null, reason: 'draw'});", game)
    assert drawn.endswith("# result: draw (draw)\n") and "\n2 B2 1,1 -\n" in drawn
    assert read_text(drawn).times_ms == (1100, None, 12345)
    times = run(page, "return [900, 12345, 65000].map(E.secondsText);")
    assert times == ["0.9 s", "12 s", "1:05"]


def test_the_analysis_boards_line_check_follows_each_rule(page: Any) -> None:
    got = run(
        page,
        """const row = (n, y = 7, c = 0) =>
             new Map(Array.from({length: n}, (_, i) => [`${3 + i},${y}`, c]));
        const diag = new Map([[`0,4`, 1], [`1,3`, 1], [`2,2`, 1], [`3,1`, 1], [`4,0`, 1]]);
        const w = (cells, size, x, y, c, k, rule) => S.wins(cells, size, size, x, y, c, k, rule);
        return [
          w(row(5), 15, 5, 7, 0, 5, "freestyle"), w(row(6), 15, 5, 7, 0, 5, "freestyle"),
          w(row(6), 15, 5, 7, 0, 5, "exact"), w(row(5), 15, 5, 7, 0, 5, "exact"),
          w(row(6), 15, 5, 7, 0, 5, "renju"), w(row(6, 7, 1), 15, 5, 7, 1, 5, "renju"),
          w(row(4), 15, 5, 7, 0, 5, "freestyle"), w(diag, 5, 2, 2, 1, 5, "freestyle"),
          w(row(3, 0), 3, 0, 0, 0, 3, "freestyle"),
          S.wins(row(3, 0), 6, 3, 3, 0, 0, 3, "freestyle"),
        ];""",
    )
    assert got == [True, True, False, True, False, True, False, True, False, True]


def test_the_page_sends_one_analyse_at_a_time_and_retries_a_refusal_for_load(page: Any) -> None:
    got = page.evaluate(
        """async () => {
        const { analyserOf } = await import("/assets/analyser.js");
        // A stand-in for the socket: counts what is in flight, answers when told.
        const net = { inFlight: 0, most: 0, sent: [], answers: [],
          request(msg) {
            this.inFlight++; this.most = Math.max(this.most, this.inFlight); this.sent.push(msg);
            return new Promise((resolve, reject) => this.answers.push((err) => {
              this.inFlight--;
              if (err) reject(Object.assign(new Error(err), {code: err}));
              else resolve({n: msg.ply});
            }));
          } };
        const a = analyserOf(net);
        const owner = {};
        const asked = [0, 1, 2, 3].map((ply) =>
          a.ask({ game_id: "g", ply }, ply === 3 ? owner : null).then((r) => r.n, (e) => e.code));
        const tick = () => new Promise((done) => setTimeout(done, 0));
        await tick();
        const before = net.sent.length;  // only the first went out
        a.drop(owner);  // the last one is dropped before it is sent
        net.answers.shift()("rate_limited");  // refused for load: asked again after a pause
        const start = performance.now();
        while (net.sent.length < 2) await tick();
        const paused = performance.now() - start;
        net.answers.shift()();
        while (net.sent.length < 3) await tick();
        net.answers.shift()("no_such_game");  // any other error is the asker's
        while (net.sent.length < 4) await tick();
        net.answers.shift()();
        const results = await Promise.all(asked);
        const sent = net.sent.map((m) => [m.type, m.ply]);
        return { before, paused, results, sent, most: net.most, same: analyserOf(net) === a,
                 pending: a.pending };
        }"""
    )
    assert got["before"] == 1 and got["most"] == 1  # never two in flight
    assert got["paused"] >= 900  # the first pause is a second
    assert got["results"] == [0, "no_such_game", 2, "dropped"]
    assert got["sent"] == [["analyse", 0], ["analyse", 0], ["analyse", 1], ["analyse", 2]]
    assert got["same"] and got["pending"] == 0
