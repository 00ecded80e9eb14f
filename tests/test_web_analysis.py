"""Analysis in the real chromium against a real server process: a finished game's replay with
each move's time and its exports (.psq and the plain-text record), the analysis board's set-up,
moves and takebacks, and what the engine says there, a training game's Hint and Takeback against
the built-in bot, and a finished game's review (graph, blunders, proven values)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from support.browser import WebServer, cell, new_page, said, stones, wait_stones, wait_turn

from protocol.records import read_psq, read_text

pytestmark = pytest.mark.slow


def finished_tictactoe(
    alice: Any, bob: Any, url: str, moves: list[tuple[int, int]], bot: bool = False
) -> str:
    """Play ``moves`` alternately (alice first) in a new tic-tac-toe room; the game's id
    (``bot``: once the built-in bot, which analyses, is online)."""
    alice.goto(url + "/")
    alice.wait_for_selector("#bots:has-text('minimax')" if bot else "#net.online")
    alice.select_option("#game", "tictactoe")
    alice.select_option("#seat", "0")
    alice.click("#create")
    alice.wait_for_url("**/r/*")
    bob.goto(alice.input_value("#room-link"))
    for i, (x, y) in enumerate(moves):
        page = alice if i % 2 == 0 else bob
        wait_turn(page)
        cell(page, x, y).click()
        wait_stones(page, i + 1)
    alice.wait_for_selector("#status:has-text('wins'), #status:has-text('Draw')")
    alice.wait_for_selector("#analyse-link")
    href = alice.get_attribute("#analyse-link", "href") or ""
    return href.split("/g/", 1)[1].split("?", 1)[0]


def downloaded(page: Any, button: str) -> tuple[str, str]:
    """Click ``button`` and read the file it saves: (its name, its text)."""
    with page.expect_download() as info:
        page.click(button)
    download = info.value
    return download.suggested_filename, Path(download.path()).read_text()


def test_the_replay_shows_each_moves_time_and_exports_psq_and_a_text_record(
    browser: Any, tmp_path: Path
) -> None:
    server = WebServer(tmp_path, "--no-bots")
    server.start()
    try:
        alice, bob, viewer = new_page(browser), new_page(browser), new_page(browser)
        moves = [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2)]
        game_id = finished_tictactoe(alice, bob, server.url, moves)
        viewer.goto(f"{server.url}/g/{game_id}")
        viewer.wait_for_selector("#moves li >> nth=4")
        record = viewer.evaluate(
            f"window.mnk.net.request({{type: 'get_game', game_id: '{game_id}'}})"
        )
        times = [m["ms"] / 1000 for m in record["game"]["moves"]]
        shown = viewer.locator("#moves li .ms").all_text_contents()
        assert shown == [f" {t:.1f} s" if t < 10 else f" {round(t)} s" for t in times]
        viewer.click("#first")
        viewer.click("#next")
        viewer.wait_for_selector(f"#status:has-text('Move 1 of 5 · A3 in {times[0]:.1f} s')")
        name, text = downloaded(viewer, "#export-psq")
        assert name == f"{game_id}.psq"
        psq = read_psq(text)
        assert [(m.x, m.y) for m in psq.moves] == moves
        assert list(psq.times_ms) == [m["ms"] for m in record["game"]["moves"]]
        name, text = downloaded(viewer, "#export-text")
        assert name == f"{game_id}.txt"
        lines = text.splitlines()
        assert lines[0] == "# mnk-arena game record (plain text)"
        assert (
            f"# game: {game_id}" in lines and "# variant: tictactoe 3x3 k=3 rule=freestyle" in lines
        )
        played = [line for line in lines if not line.startswith("#")]
        assert [line.split()[:3] for line in played] == [
            ["1", "A3", "0,0"], ["2", "B3", "1,0"], ["3", "A2", "0,1"], ["4", "B2", "1,1"],
            ["5", "A1", "0,2"],
        ]  # fmt: skip
        assert [float(line.split()[3]) for line in played] == [
            round(m["ms"] / 1000, 3) for m in record["game"]["moves"]
        ]
        assert lines[-1].startswith("# result: ") and "wins (line)" in lines[-1]
        back = read_text(
            text
        )  # the one format, as protocol/records.py (and the pygame client) read it
        assert [(m.x, m.y) for m in back.moves] == moves and back.reason == "line"
        assert back.times_ms == tuple(m["ms"] for m in record["game"]["moves"])
        assert alice.script_errors == bob.script_errors == viewer.script_errors == []
    finally:
        server.stop()


def test_the_analysis_board_sets_up_plays_and_takes_back_any_variant(
    browser: Any, tmp_path: Path
) -> None:
    server = WebServer(tmp_path, "--no-bots")
    server.start()
    try:
        page = new_page(browser)
        page.goto(server.url + "/analysis")
        page.wait_for_selector("#net.online")
        page.uncheck("#study-auto")  # this test asks the engine nothing
        assert page.locator(".cell").count() == 9  # tic-tac-toe first
        page.select_option("#study-mode", "black")
        cell(page, 0, 0).click()
        cell(page, 1, 1).click()
        page.select_option("#study-mode", "white")
        cell(page, 2, 2).click()
        cell(page, 0, 0).click()  # a set-up stone changes colour
        page.select_option("#study-mode", "erase")
        cell(page, 1, 1).click()
        assert stones(page) == [(0, 0, "white"), (2, 2, "white")]
        page.select_option("#study-to-move", "1")
        page.wait_for_selector("#status:has-text('O to move')")
        page.select_option("#study-mode", "play")
        cell(page, 0, 1).click()  # O, then X
        cell(page, 1, 0).click()
        assert stones(page) == [(0, 0, "white"), (0, 1, "white"), (1, 0, "black"), (2, 2, "white")]
        assert page.input_value("#study-to-move") == "1"
        cell(page, 0, 2).click()  # O completes the column
        page.wait_for_selector("#status:has-text('White / O has won')")
        cell(page, 2, 0).click()  # the game is over here: not played
        said(page, "game is over")
        assert len(stones(page)) == 5
        for _ in range(4):
            page.click("#undo")
        assert stones(page) == [(0, 0, "white"), (2, 2, "white")]
        assert page.input_value("#study-to-move") == "0"  # back before "O to move"
        page.click("#clear")
        assert stones(page) == []
        page.select_option("#study-game", "mnk")
        page.fill("#study-width", "7")
        page.fill("#study-height", "5")
        page.fill("#study-k", "4")
        page.click("#new-board")
        assert page.locator(".cell").count() == 35 and page.is_visible(".board-wrap.stones")
        page.fill("#study-k", "8")  # longer than the board's longer side
        page.click("#new-board")
        said(page, "no more than its longer side")
        assert page.locator(".cell").count() == 35  # refused: the board stays
        assert page.script_errors == []
    finally:
        server.stop()


#: A tic-tac-toe game with one blunder: O's edge reply to the centre (a draw played into a loss
#: in 6 plies); X then wins with best play (checked with a minimax by hand).
BLUNDERED = [(1, 1), (1, 0), (0, 0), (2, 2), (0, 2), (0, 1), (2, 0)]
CORNERS = [(0, 0), (2, 0), (0, 2), (2, 2)]
EDGES = [(1, 0), (0, 1), (2, 1), (1, 2)]


def notes(page: Any) -> dict[tuple[int, int], tuple[str, str]]:
    """The board's notes: (x, y) → (its value class or "pv…", its text)."""
    found = page.eval_on_selector_all(
        ".cell.noted",
        """cells => cells.map(c => [+c.dataset.x, +c.dataset.y,
            [...c.classList].filter(k => k.startsWith("v-") || k === "pv1").join(" "),
            c.dataset.note])""",
    )
    return {(x, y): (cls, text) for x, y, cls, text in found}


def test_a_finished_game_is_analysed_with_its_blunder_and_the_proven_values(
    browser: Any, web_server: WebServer
) -> None:
    alice, bob, viewer = new_page(browser), new_page(browser), new_page(browser)
    game_id = finished_tictactoe(alice, bob, web_server.url, BLUNDERED, bot=True)
    alice.click("#analyse-link")  # the room's link to the game's analysis
    alice.wait_for_url(f"**/g/{game_id}?analyse")
    alice.wait_for_selector("#analyse-progress[data-done]")
    assert alice.text_content("#analyse-progress") == "done: 1 blunder"
    blunders = alice.eval_on_selector_all(
        "#moves li", "items => items.map((li, i) => li.classList.contains('blunder') ? i : -1)"
    )
    assert [i for i in blunders if i >= 0] == [1]  # O's edge, the second move
    second = alice.locator("#moves li").nth(1)
    assert "??" in (second.text_content() or "") and "(best " in (second.text_content() or "")
    assert alice.locator("#eval-graph .dot.blunder").count() == 1
    assert alice.locator("#eval-graph .dot.blunder").get_attribute("data-ply") == "2"
    assert "(the server marks them)" in (alice.text_content("#blunder-rule") or "")
    shots = os.environ.get("MNK_SHOTS")
    if shots:  # to look at: the review with the server's marks
        alice.screenshot(path=str(Path(shots) / "web-review-marks.png"), full_page=True)
    alice.click("#first")  # the empty board: every cell a draw in 9
    alice.wait_for_selector("#ply-analysis:has-text('proven draw')")
    assert notes(alice) == {(x, y): ("v-draw", "=") for x in range(3) for y in range(3)}
    alice.click("#next")  # after the centre: O's corners draw, its edges lose in 6
    alice.wait_for_selector("#status:has-text('Move 1 of 7')")
    expected = {c: ("v-draw", "=") for c in CORNERS} | {e: ("v-loss", "6") for e in EDGES}
    assert notes(alice) == expected
    alice.click("#next")
    alice.wait_for_selector("#status:has-text('blunder')")
    # Another page analyses the same game: the replay's walk, not the room, needs no seat.
    viewer.goto(f"{web_server.url}/")
    assert viewer.get_attribute("#games a.analyse", "href") == f"/g/{game_id}?analyse"
    viewer.goto(f"{web_server.url}/g/{game_id}")
    viewer.wait_for_selector("#moves li >> nth=6")
    viewer.click("#analyse-game")
    viewer.wait_for_selector("#analyse-progress[data-done]")
    assert viewer.locator("#moves li.blunder").count() == 1
    viewer.click("#explore")  # the position on the analysis board
    viewer.wait_for_url("**/analysis?game_id=*&ply=7")
    viewer.wait_for_selector("#status:has-text('has won')")
    assert len(stones(viewer)) == 7
    for page in (alice, bob, viewer):
        assert page.script_errors == []


def test_the_analysis_board_shows_proven_values_and_the_engines_lines(
    browser: Any, web_server: WebServer
) -> None:
    page = new_page(browser)
    page.goto(web_server.url + "/")
    page.wait_for_selector("#bots:has-text('minimax')")  # the built-in bot analyses
    page.goto(web_server.url + "/analysis")
    page.wait_for_selector("#study-value:has-text('Proven: draw')")
    assert page.locator("#lines li").count() == 3  # three lines by default, each a proven draw
    assert all(" draw " in t for t in page.locator("#lines li").all_text_contents())
    cell(page, 1, 1).click()  # X in the centre: O to move
    page.wait_for_selector(".cell.v-loss")
    expected = {c: ("v-draw", "=") for c in CORNERS} | {e: ("v-loss", "6") for e in EDGES}
    assert notes(page) == expected
    page.click("#undo")
    page.wait_for_selector("#study-value:has-text('Proven: draw')")
    assert stones(page) == []
    # Gomoku: the engine's three best lines, one click to play the best.
    page.select_option("#study-game", "gomoku")
    page.click("#new-board")
    for x, y in [(7, 7), (8, 8), (7, 8), (6, 6)]:
        cell(page, x, y).click()
    page.wait_for_selector("#lines li >> nth=2")
    assert page.locator("#lines li").count() == 3
    assert page.locator(".cell.pv1").count() == 1
    page.click("#play-best")
    wait_stones(page, 5)
    # A set-up whose stones could not have been played in turn: said, not analysed.
    page.click("#clear")
    page.select_option("#study-mode", "white")
    cell(page, 3, 3).click()
    cell(page, 4, 4).click()
    page.wait_for_selector("#status[data-code='bad_position']")
    page.select_option("#study-mode", "black")
    cell(page, 5, 5).click()
    cell(page, 6, 6).click()  # two of each, black to move: analysed
    page.wait_for_selector("#lines li")
    assert page.script_errors == []


def test_a_training_game_gives_hints_and_takebacks_against_the_bot(
    browser: Any, web_server: WebServer
) -> None:
    page = new_page(browser)
    page.goto(web_server.url + "/")
    page.wait_for_selector("#bots:has-text('minimax')")
    page.select_option("#game", "tictactoe")
    page.select_option("#opponent", "bot")
    page.select_option("#seat", "0")
    page.check("#hints")
    page.click("#create")
    page.wait_for_url("**/r/*")
    wait_turn(page)
    page.click("#hint")
    page.wait_for_selector("#hint-line:has-text('Hint: ')")
    assert "draw" in (page.text_content("#hint-line") or "")  # the empty board's proven value
    assert page.locator(".cell.noted").count() >= 1
    assert page.locator(".cell.noted[data-stone]").count() == 0  # the line is on empty cells
    best = page.locator(".cell.pv1")
    x, y = best.get_attribute("data-x"), best.get_attribute("data-y")
    best.click()  # play the hint
    page.wait_for_selector(f'.cell[data-x="{x}"][data-y="{y}"][data-stone="black"]')
    wait_stones(page, 2)  # the bot answered
    assert not page.is_visible("#hint-line") and page.locator(".cell.noted").count() == 0
    wait_turn(page)
    free = page.locator(".cell:not([data-stone])").first
    free.click()
    wait_stones(page, 4)
    wait_turn(page)
    page.click("#takeback")  # the bot grants it: back to two stones, my move
    wait_stones(page, 2)
    wait_turn(page)
    assert page.is_visible("#hint")
    # A casual game against the bot without hints has no Hint.
    page.click("a.button:has-text('Lobby')")
    page.select_option("#game", "tictactoe")
    page.select_option("#opponent", "bot")
    page.uncheck("#hints")
    page.click("#create")
    page.wait_for_url("**/r/*")
    page.wait_for_selector("#status:has-text('to move'), #status:has-text('Your move')")
    assert page.locator("#hint").count() == 0
    assert page.script_errors == []


def test_a_game_from_a_set_up_position_replays_and_is_analysed_from_it(
    browser: Any, web_server: WebServer
) -> None:
    alice, bob = new_page(browser), new_page(browser)
    alice.goto(web_server.url + "/")
    alice.wait_for_selector("#bots:has-text('minimax')")
    position = {"black": [[7, 7], [8, 8]], "white": [[7, 8]], "to_move": 1}  # white to move
    joined = alice.evaluate(
        """(position) => window.mnk.net.request({type: "create_room", game: "gomoku", seat: 0,
            options: {position}})""",
        position,
    )
    alice.goto(f"{web_server.url}/r/{joined['room']}")
    bob.goto(f"{web_server.url}/r/{joined['room']}")
    wait_stones(alice, 3)
    wait_turn(bob)  # white, seat 1, moves first from the set-up
    cell(bob, 0, 0).click()
    wait_stones(bob, 4)
    wait_turn(alice)
    cell(alice, 1, 0).click()
    wait_stones(alice, 5)
    bob.on("dialog", lambda dialog: dialog.accept())
    bob.click("#resign")
    alice.wait_for_selector("#analyse-link")
    alice.click("#analyse-link")
    alice.wait_for_selector("#analyse-progress[data-done]")  # 3 positions: 0, 1 and the last
    alice.click("#last")
    assert stones(alice) == [
        (0, 0, "white"), (1, 0, "black"), (7, 7, "black"), (7, 8, "white"), (8, 8, "black")
    ]  # fmt: skip
    alice.click("#first")
    alice.wait_for_selector("#ply-analysis:has-text('To move: white')")
    assert alice.locator(".cell.pv1").count() == 1  # the best move for white, on an empty cell
    assert alice.locator(".cell.noted[data-stone]").count() == 0
    assert alice.script_errors == bob.script_errors == []
