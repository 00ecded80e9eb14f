"""The browser shows the rules the server says and computes none of them, against a real server
process patched to say other rules: when a game may be aborted (``state.actions.abort``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.browser import WebServer, cell, friends_room, new_page, wait_stones, wait_turn

pytestmark = pytest.mark.slow

#: The server process says a game may be aborted until three stones are down (ours: until
#: both sides moved, two), through the one function the room and ``abort`` ask.
ABORT_LATE = """
import os
os.environ["MNK_PURE"] = "1"  # the patch must reach the compiled modules' callers
from server.core.game import messages
messages.abort_until = lambda opening, options: 0 if "tournament" in options else opening + 3
"""


def play(page: Any, x: int, y: int, count: int) -> None:
    """Wait for the page's turn, place at (x, y), and wait for the board to show it."""
    wait_turn(page)
    cell(page, x, y).click()
    wait_stones(page, count)


def test_abort_shows_when_the_server_says_so(browser: Any, tmp_path: Path) -> None:
    server = WebServer(tmp_path, "--no-bots", prelude=ABORT_LATE)
    server.start()
    try:
        alice, bob = new_page(browser), new_page(browser)
        friends_room(alice, bob, server.url)
        play(alice, 7, 7, 1)
        play(bob, 8, 8, 2)
        alice.wait_for_selector("#abort")  # both have moved, but the server says yes
        bob.wait_for_selector("#abort")
        play(alice, 6, 6, 3)
        alice.wait_for_selector("#abort", state="hidden")  # three stones: the server says no
        bob.wait_for_selector("#abort", state="hidden")
        assert alice.script_errors == [] and bob.script_errors == []
    finally:
        server.stop()


#: The server process offers one more clock and labels 5+3 its own way.
CLOCKS_SAID = """
from server.core.game import labels
from server.core.pairing import seeks
seeks.FORM_CLOCKS = seeks.FORM_CLOCKS + ((2700, 15),)
said = labels.clock_label
seeks.clock_label = lambda clock: "five+three" if said(clock) == "5+3" else said(clock)
"""


def clock_choices(page: Any, select: str) -> list[tuple[str, str]]:
    """(value, words) of every clock a form's ``select`` offers."""
    return page.eval_on_selector_all(
        f"{select} option", "os => os.map((o) => [o.value, o.textContent])"
    )


def test_the_forms_offer_the_clocks_the_server_says(browser: Any, tmp_path: Path) -> None:
    server = WebServer(tmp_path, "--no-bots", prelude=CLOCKS_SAID)
    server.start()
    try:
        page = new_page(browser)
        page.goto(server.url + "/")
        page.wait_for_selector("#clock option[value='2700+15']", state="attached")
        new_game = clock_choices(page, "#clock")
        assert ["300+3", "five+three"] in new_game and ["2700+15", "45+15"] in new_game
        assert new_game[0] == ["", "no clock"] and page.input_value("#clock") == ""
        assert "1800+20" not in [value for value, _ in new_game]  # no list of its own
        page.select_option("#clock", "2700+15")
        page.click("#create")
        page.wait_for_url("**/r/*")
        page.goto(server.url + "/tournaments")
        page.wait_for_selector("#ev-clock option[value='2700+15']", state="attached")
        assert clock_choices(page, "#ev-clock") == new_game  # one list, the server's
        assert page.input_value("#ev-clock") == "180+2"  # where the server starts a form
        assert page.script_errors == []
    finally:
        server.stop()


#: The server process titles custom boards its own way.
TITLES_SAID = """
import os
os.environ["MNK_PURE"] = "1"  # the patch must reach the compiled modules' callers
from server.core.game import labels, messages
said = labels.game_title
def title(game):
    mnk = game.get("name") == "mnk"
    return f"{game['width']} by {game['height']}, {game['k']} wins" if mnk else said(game)
labels.game_title = messages.game_title = title
"""


def test_a_custom_board_shows_the_title_the_server_says(browser: Any, tmp_path: Path) -> None:
    server = WebServer(tmp_path, "--no-bots", prelude=TITLES_SAID)
    server.start()
    try:
        page, watcher = new_page(browser), new_page(browser)
        page.goto(server.url + "/")
        page.wait_for_selector("#net.online")
        page.select_option("#game", "mnk")
        page.select_option("#opponent", "human")
        page.fill("#width", "7")
        page.fill("#height", "6")
        page.fill("#k", "4")
        page.click("#create")
        page.wait_for_selector("h2:has-text('7 by 6, 4 wins')")  # the room's title
        watcher.goto(server.url + "/")
        watcher.wait_for_selector("td:has-text('7 by 6, 4 wins')")  # its line in the lobby
        assert not page.is_visible("h2:has-text('in a row')")
        assert page.script_errors == [] and watcher.script_errors == []
    finally:
        server.stop()


#: The server process says gomoku is played on 13x13.
RULES_SAID = """
from server.core.game import labels
labels.GAME_RULES["gomoku"] = {**labels.GAME_RULES["gomoku"], "width": 13, "height": 13}
"""


def test_the_analysis_board_sets_up_the_board_the_server_says(browser: Any, tmp_path: Path) -> None:
    server = WebServer(tmp_path, "--no-bots", prelude=RULES_SAID)
    server.start()
    try:
        page = new_page(browser)
        page.goto(server.url + "/analysis")
        page.wait_for_selector("#net.online")
        page.select_option("#study-game", "gomoku")
        page.click("#new-board")
        page.wait_for_function("document.querySelectorAll('.cell').length === 169")  # 13x13
        page.select_option("#study-game", "tictactoe")
        page.click("#new-board")
        page.wait_for_function("document.querySelectorAll('.cell').length === 9")
        assert page.script_errors == []
    finally:
        server.stop()
