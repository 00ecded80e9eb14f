"""Quick pairing in the real chromium against a real server process: two pages click the same
tile and are paired into one room and play a move each; a page accepts another's seek from the
open seeks; a seek waiting shows its time and is cancelled by its button or by leaving the
lobby; a custom seek with "play a bot after 15 s" gets the built-in bot."""

from __future__ import annotations

from typing import Any

import pytest
from support.browser import WebServer, cell, new_page, wait_stones, wait_turn

pytestmark = pytest.mark.slow

TILE = '.tile[data-pool="gomoku 3+2 casual"]'


def lobby(browser: Any, url: str) -> Any:
    """A page of a new guest in the lobby, with the Quick pairing tiles drawn."""
    page = new_page(browser)
    page.goto(url + "/")
    page.wait_for_selector("#net.online")
    page.wait_for_selector(TILE)
    return page


def test_two_pages_click_one_tile_are_paired_and_play(browser: Any, web_server: WebServer) -> None:
    alice, bob = lobby(browser, web_server.url), lobby(browser, web_server.url)
    alice.click(TILE)
    alice.wait_for_selector("#seeking .waiting:has-text('Seeking Gomoku 3+2 · casual')")
    alice.wait_for_selector(f"{TILE}.on .tile-status:has-text('seeking')")
    bob.wait_for_selector(f"{TILE} .tile-status:has-text('1 waiting')")  # the push reached bob
    bob.click(TILE)
    for page in (alice, bob):
        page.wait_for_url("**/r/*")
    assert alice.input_value("#room-link") == bob.input_value("#room-link")
    first, second = (alice, bob)
    first.wait_for_selector("#status:has-text('move')")
    if "Your move" not in first.text_content("#status"):
        first, second = bob, alice
    wait_turn(first)
    cell(first, 7, 7).click()
    wait_stones(second, 1)
    wait_turn(second)
    cell(second, 8, 8).click()
    wait_stones(first, 2)
    assert alice.script_errors == bob.script_errors == []


def test_a_page_accepts_an_open_seek(browser: Any, web_server: WebServer) -> None:
    carol, dave = lobby(browser, web_server.url), lobby(browser, web_server.url)
    carol.click(".seek-game[data-game='renju']")
    carol.click('.tile[data-pool="renju 10+5 casual"]')
    carol.wait_for_selector("#seeking .waiting:has-text('Renju 10+5')")
    row = dave.wait_for_selector("#seeks tr:has-text('Renju') .accept-seek")
    assert "10+5" in dave.text_content("#seeks")
    carol.wait_for_selector("#seeks tr .cancel-seek")  # her own row: Cancel, not Accept
    row.click()
    for page in (carol, dave):
        page.wait_for_url("**/r/*")
        page.wait_for_selector("h2:has-text('Renju')")
    assert carol.input_value("#room-link") == dave.input_value("#room-link")
    assert carol.script_errors == dave.script_errors == []


#: Whether the page's seek has waited two seconds or more by its own "m:ss".
RAN_TWO_SECONDS = """() => {
  const shown = document.querySelector("#seeking .waiting .elapsed");
  const [m, s] = shown ? shown.textContent.split(":").map(Number) : [0, 0];
  return m * 60 + s >= 2;
}"""


def test_a_waiting_seek_is_cancelled_by_its_button_or_by_leaving(
    browser: Any, web_server: WebServer
) -> None:
    erin, frank = lobby(browser, web_server.url), lobby(browser, web_server.url)
    erin.click(TILE)
    # The time runs: 0:02 or later (each second shows for one second only: a late poll may
    # see 0:03 first).
    erin.wait_for_function(RAN_TWO_SECONDS)
    frank.wait_for_selector("#seeks .accept-seek")
    erin.click("#seeking .cancel-seek")
    erin.wait_for_selector("#seeking .waiting", state="detached")
    frank.wait_for_selector("#seeks .accept-seek", state="detached")
    erin.click(TILE)
    frank.wait_for_selector("#seeks .accept-seek")
    erin.click("a[href='/leaderboard']")  # leaving the lobby withdraws the seek
    frank.wait_for_selector("#seeks .accept-seek", state="detached")
    frank.wait_for_selector(f"{TILE} .tile-status:has-text('nobody waiting')")
    assert erin.script_errors == frank.script_errors == []


def test_a_custom_seek_gets_a_bot_when_nobody_comes(browser: Any, web_server: WebServer) -> None:
    page = lobby(browser, web_server.url)
    page.click(".custom-seek summary")
    assert page.is_disabled("#seek-rated") and page.is_disabled("#seek-range")  # a guest
    page.select_option("#seek-game", "tictactoe")
    page.select_option("#seek-clock", "60+0")
    page.select_option("#seek-bot", "15")
    page.click("#seek-custom")
    page.wait_for_selector("#seeking .waiting:has-text('Seeking Tic-tac-toe 1+0 · casual')")
    page.wait_for_url("**/r/*", timeout=40_000)  # 15 s, then the next wave seats the bot
    page.wait_for_selector(".player:has-text('minimax')")
    assert page.script_errors == []


#: The server process says other labels: a game's, its button's, a pool's and a clock's.
RELABEL = """
from server.core.game import labels
labels.GAME_LABELS["renju"] = "Renju (RIF rules)"
labels.GAME_SHORT["renju"] = "RIF renju"
said = labels.clock_label
labels.clock_label = lambda clock: "three+two" if said(clock) == "3+2" else said(clock)
"""


def test_the_lobby_shows_the_labels_the_server_says(browser: Any, tmp_path: Any) -> None:
    server = WebServer(tmp_path, prelude=RELABEL)
    server.start()
    try:
        page = lobby(browser, server.url)
        page.wait_for_selector(".seek-game[data-game='renju']:has-text('RIF renju')")
        page.wait_for_selector(f"{TILE} .tile-clock:has-text('three+two')")
        assert page.text_content("#game option[value='renju']") == "Renju (RIF rules)"
        assert page.text_content("#seek-clock").count("three+two") == 1  # the custom form's
        page.goto(server.url + "/leaderboard?pool=renju-blitz")
        blitz = "#pool option[value='renju-blitz']:has-text('Renju (RIF rules) blitz')"
        page.wait_for_selector(blitz, state="attached")
        assert page.input_value("#pool") == "renju-blitz"
        assert page.script_errors == []
    finally:
        server.stop()
