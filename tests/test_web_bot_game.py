"""A game against the bot in the real chromium: the page says the bot is thinking (with a
spinner and the seconds) and offers "full strength"; "Continue from here against the bot" from
the analysis board and from a replay opens a room from that position, and the bot plays on."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from support.browser import (
    WebServer,
    cell,
    looks,
    new_page,
    record,
    stones,
    wait_look,
    wait_stones,
    wait_turn,
)

pytestmark = pytest.mark.slow

#: Where the screenshots of the changed pages go (looked at by hand; MNK_SHOTS to keep them).
SHOTS = Path(os.environ.get("MNK_SHOTS", "/tmp"))
#: A bot's move at full strength may take its whole first-move share (about 12 s in 5+3).
BOT_MS = 60_000


def test_the_page_shows_the_bot_thinking_and_asks_for_full_strength(
    browser: Any, web_server: WebServer
) -> None:
    page = new_page(browser)
    page.goto(web_server.url + "/")
    page.wait_for_selector("#bots:has-text('minimax')")
    page.select_option("#game", "gomoku")
    page.select_option("#clock", "300+3")
    page.select_option("#opponent", "bot")
    page.select_option("#level", "10")
    page.select_option("#seat", "0")
    page.check("#full-strength")
    page.screenshot(path=str(SHOTS / "web-bot-form.png"), full_page=True)
    page.click("#create")
    page.wait_for_url("**/r/*")
    page.wait_for_selector("h2:has-text('bot at full strength')")
    wait_turn(page)
    # The bot thinks for its share of the clock (some 12 s now, but a faster bot or a busy
    # machine's late poll may miss a moment of it): the page keeps every look of its status.
    record(page, "statuses", "#status")
    cell(page, 7, 7).click()
    wait_look(page, "statuses", "thinking.1 s", timeout=BOT_MS)  # the seconds count up
    page.screenshot(path=str(SHOTS / "web-bot-thinking.png"))
    page.wait_for_selector("#status:has-text('Your move')", timeout=BOT_MS)
    wait_stones(page, 2)  # the page's stone and the bot's answer
    assert not page.is_visible("#status .spinner")
    thinking = [look for look in looks(page, "statuses") if "thinking" in look["cls"].split()]
    assert thinking and all(
        "minimax is thinking" in look["text"] and 'class="spinner"' in look["html"]
        for look in thinking
    ), thinking
    assert page.script_errors == []


def test_a_training_game_shows_what_the_bot_saw(browser: Any, web_server: WebServer) -> None:
    page = new_page(browser)
    page.goto(web_server.url + "/")
    page.wait_for_selector("#bots:has-text('minimax')")
    page.select_option("#opponent", "bot")
    page.select_option("#level", "10")
    page.select_option("#seat", "0")
    page.check("#hints")
    page.click("#create")
    page.wait_for_url("**/r/*")
    wait_turn(page)
    cell(page, 7, 7).click()
    wait_turn(page)
    page.wait_for_selector("#bot-info:has-text('minimax saw')")
    assert "its line: " in (page.text_content("#bot-info") or "")
    page.screenshot(path=str(SHOTS / "web-bot-info.png"))
    assert page.script_errors == []


def test_continue_from_the_analysis_board_against_the_bot(
    browser: Any, web_server: WebServer
) -> None:
    page = new_page(browser)
    page.goto(web_server.url + "/")
    page.wait_for_selector("#bots:has-text('minimax')")  # the built-in bot is online
    page.click("#analysis-link")
    page.select_option("#study-game", "gomoku")
    page.click("#new-board")
    page.select_option("#study-mode", "black")
    cell(page, 7, 7).click()
    page.select_option("#study-mode", "white")
    cell(page, 8, 8).click()
    page.select_option("#study-mode", "play")
    cell(page, 6, 6).click()  # black's move: white (the player) is to move
    wait_stones(page, 3)
    page.select_option("#versus-level", "3")
    page.screenshot(path=str(SHOTS / "web-analysis-versus.png"), full_page=True)
    page.click("#versus-bot")
    page.wait_for_url("**/r/*")
    wait_stones(page, 3)
    assert stones(page) == [(6, 6, "black"), (7, 7, "black"), (8, 8, "white")]
    wait_turn(page)
    assert page.get_attribute(".player.me .badge", "class") == "badge c1"  # white
    cell(page, 5, 5).click()
    wait_stones(page, 5)  # the bot answered from the position
    wait_turn(page)
    assert page.script_errors == []


def test_continue_from_a_replay_against_the_bot(browser: Any, web_server: WebServer) -> None:
    page = new_page(browser)
    page.on("dialog", lambda dialog: dialog.accept())  # "Resign this game?"
    page.goto(web_server.url + "/")
    page.wait_for_selector("#bots:has-text('minimax')")
    page.select_option("#opponent", "bot")
    page.select_option("#level", "2")
    page.select_option("#seat", "0")
    page.click("#create")
    page.wait_for_url("**/r/*")
    wait_turn(page)
    cell(page, 7, 7).click()
    wait_stones(page, 2)
    wait_turn(page)
    page.click("#resign")
    page.wait_for_selector("#analyse-link")
    href = page.get_attribute("#analyse-link", "href") or ""
    page.goto(web_server.url + href.split("?")[0])  # the replay, at its last move
    page.wait_for_selector("#status:has-text('Move 2 of 2')")
    page.screenshot(path=str(SHOTS / "web-replay-versus.png"), full_page=True)
    before = stones(page)
    page.click("#versus-bot")
    page.wait_for_url("**/r/*")
    wait_stones(page, 2)
    assert stones(page) == before
    wait_turn(page)  # black (the player) to move, as on the replay
    free = next(
        (x, y) for x, y in ((6, 6), (8, 8), (6, 8)) if (x, y) not in {s[:2] for s in before}
    )
    cell(page, *free).click()
    wait_stones(page, 4)
    wait_turn(page)
    assert page.script_errors == []
