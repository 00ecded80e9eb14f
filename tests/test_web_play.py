"""Games played in the real chromium against a real server process: two pages to five in a
row with a third watching every move, a page against the built-in bot, renju's forbidden
points, a page from another origin, a server killed with -9 mid-game, and a page against the
pygame client."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.browser import WebServer, cell, new_page, said, stones, wait_stones, wait_turn

pytestmark = pytest.mark.slow


def open_room(page: Any, url: str, game: str, **choices: str) -> str:
    """Create a room from the lobby's form; its link (the page is in the room)."""
    page.goto(url + "/")
    page.wait_for_selector("#net.online")
    page.select_option("#game", game)
    for name, choice in choices.items():
        page.select_option(f"#{name}", choice)
    page.click("#create")
    page.wait_for_url("**/r/*")
    return page.input_value("#room-link")


def play(page: Any, x: int, y: int, count: int) -> None:
    """Wait for the page's turn, place at (x, y), and wait for the board to show it."""
    wait_turn(page)
    cell(page, x, y).click()
    wait_stones(page, count)


def test_two_pages_play_gomoku_to_five_while_a_third_watches_every_move(
    browser: Any, web_server: WebServer
) -> None:
    alice, bob, carol = (new_page(browser) for _ in range(3))
    link = open_room(alice, web_server.url, "gomoku", seat="0", clock="300+3")
    alice.wait_for_selector("#status:has-text('Waiting for an opponent')")  # the room's state
    bob.goto(link)  # the friend's link: takes the free seat
    wait_turn(alice)
    carol.goto(link)  # the room is full: watches
    carol.wait_for_selector("#status:has-text('to move')")
    carol.check("#opt-numbers")
    carol.wait_for_selector("#spectators:has-text('1')")
    black = [(7, 7), (8, 7), (9, 7), (10, 7), (11, 7)]
    white = [(7, 8), (8, 8), (9, 8), (10, 8)]
    order: list[tuple[int, int]] = []
    for turn in range(9):
        page, (x, y) = (alice, black[turn // 2]) if turn % 2 == 0 else (bob, white[turn // 2])
        play(page, x, y, turn + 1)
        order.append((x, y))
        wait_stones(carol, turn + 1)  # the watcher sees each move, the last one marked
        assert carol.get_attribute(".cell.last", "data-x") == str(x)
        assert carol.get_attribute(".cell.last", "data-y") == str(y)
    for page in (alice, bob, carol):
        page.wait_for_selector("#status:has-text('wins: five in a row')")
        assert len(page.query_selector_all(".cell.win")) == 5
    numbered = [cell(carol, x, y).text_content() for x, y in order]
    assert numbered == [str(n) for n in range(1, 10)]  # every move, in order
    assert stones(carol) == stones(alice) == stones(bob)
    carol.click(".so-far summary")
    assert carol.locator("#room-moves li").all_text_contents() == [
        "H8", "H7", "J8", "J7", "K8", "K7", "L8", "L7", "M8"
    ]  # fmt: skip
    assert alice.is_visible("#rematch") and not carol.is_visible("#rematch")
    alice.fill("#chat-input", "gg")
    alice.press("#chat-input", "Enter")
    carol.wait_for_selector("#chat-log:has-text('gg')")
    assert alice.script_errors == bob.script_errors == carol.script_errors == []


def test_a_page_plays_the_built_in_bot_at_tictactoe_to_the_end(
    browser: Any, web_server: WebServer
) -> None:
    page = new_page(browser)
    page.goto(web_server.url + "/")
    page.wait_for_selector("#bots:has-text('minimax')")  # the built-in bot is online
    page.select_option("#game", "tictactoe")
    page.select_option("#opponent", "bot")
    page.select_option("#level", "3")
    page.select_option("#seat", "0")
    page.click("#create")
    page.wait_for_url("**/r/*")
    over = "#status:has-text('wins'), #status:has-text('Draw')"
    for _ in range(5):
        page.wait_for_selector(f"#status:has-text('Your move'), {over}")
        if "Your move" not in (page.text_content("#status") or ""):
            break
        free = page.locator(".cell:not([data-stone])").first
        x, y = free.get_attribute("data-x"), free.get_attribute("data-y")
        cell(page, x, y).click()
        # The bot's winning move arrives as `moved`, then `game_over`: in between the page says
        # "Your move" for a moment, and a click then lands on a finished game (the page ignores
        # it). So the stone, or the end.
        page.wait_for_selector(f'.cell[data-x="{x}"][data-y="{y}"][data-stone="black"], {over}')
    page.wait_for_selector(over)
    assert page.is_visible("#rematch")
    assert page.script_errors == []


def test_a_renju_forbidden_point_is_shown_and_refused(browser: Any, web_server: WebServer) -> None:
    black_page, white_page = new_page(browser), new_page(browser)
    link = open_room(black_page, web_server.url, "renju", seat="0")
    white_page.goto(link)
    black = [(7, 7), (6, 7), (8, 6), (8, 5)]  # (8, 7) makes two open threes: forbidden
    white = [(0, 0), (0, 2), (0, 4), (0, 6)]
    for turn in range(8):
        page, (x, y) = (black_page, black[turn // 2]) if turn % 2 == 0 else (
            white_page, white[turn // 2])  # fmt: skip
        play(page, x, y, turn + 1)
    wait_turn(black_page)
    for page in (black_page, white_page):  # both see it marked
        page.wait_for_selector('.cell.forbidden[data-x="8"][data-y="7"]')
    cell(black_page, 8, 7).click()
    said(black_page, "forbidden for black")
    assert len(stones(black_page)) == 8 and len(stones(white_page)) == 8
    play(black_page, 3, 3, 9)  # another point is played
    assert black_page.script_errors == white_page.script_errors == []


def test_a_page_from_another_origin_cannot_open_a_game_socket(
    browser: Any, web_server: WebServer
) -> None:
    probe = """new Promise((done) => {
        const ws = new WebSocket("ws://127.0.0.1:PORT/");
        ws.onopen = () => { done("open"); ws.close(); };
        ws.onclose = () => done("refused");
    })""".replace("PORT", str(web_server.port))
    evil = new_page(browser)
    evil.route(
        "http://evil.test/**",
        lambda route: route.fulfill(status=200, content_type="text/html", body="<p>hi</p>"),
    )
    evil.goto("http://evil.test/")
    assert evil.evaluate(probe) == "refused"
    own = new_page(browser)
    own.goto(web_server.url + "/")
    assert own.evaluate(probe) == "open"  # the same script on the server's own page


def test_pages_resume_after_the_server_is_killed_mid_game(browser: Any, tmp_path: Path) -> None:
    server = WebServer(tmp_path, "--no-bots")
    server.start()
    try:
        alice, bob = new_page(browser), new_page(browser)
        link = open_room(alice, server.url, "gomoku", seat="0")
        bob.goto(link)
        black = [(3, 3), (4, 4), (5, 5), (6, 6), (7, 7)]
        white = [(3, 4), (4, 5), (5, 6), (6, 7)]
        for turn in range(4):
            page, (x, y) = (alice, black[turn // 2]) if turn % 2 == 0 else (bob, white[turn // 2])
            play(page, x, y, turn + 1)
        wait_turn(alice)
        server.kill()
        for page in (alice, bob):
            page.wait_for_selector("#net.offline")
            page.wait_for_selector("#status:has-text('Offline')")
        cell(alice, 5, 5).click()  # never queued: said, not placed
        # said until the next failed reconnect says "Could not connect" (0.25-8 s): kept by
        # the page's record of its notices, which a late poll still finds
        said(alice, "Offline: the move was not sent")
        assert len(stones(alice)) == 4
        server.start()
        for page in (alice, bob):
            page.wait_for_selector("#net.online")
        wait_stones(bob, 4)
        for turn in range(4, 9):
            page, (x, y) = (alice, black[turn // 2]) if turn % 2 == 0 else (bob, white[turn // 2])
            play(page, x, y, turn + 1)
        for page in (alice, bob):
            page.wait_for_selector("#status:has-text('wins: five in a row')")
        assert alice.script_errors == bob.script_errors == []
    finally:
        server.stop()


def test_a_browser_page_and_the_pygame_client_play_each_other(
    browser: Any, web_server: WebServer
) -> None:
    from support.app import Driver  # pygame, headless

    alice = new_page(browser)
    link = open_room(alice, web_server.url, "gomoku", seat="0")
    bob = Driver(f"ws://127.0.0.1:{web_server.port}", "bob")
    try:
        app = bob.app
        bob.pump(lambda: app.model.connection == "online", 20, "the desktop client online")
        app.act("join", link.rsplit("/", 1)[1])  # the code from the room's link
        bob.pump(lambda: app.model.room and app.model.room.status == "playing", 20, "the start")
        black = [(7, 7), (7, 8), (7, 9), (7, 10), (7, 11)]
        white = [(8, 7), (8, 8), (8, 9), (8, 10)]
        for turn in range(9):
            if turn % 2 == 0:
                play(alice, *black[turn // 2], turn + 1)
                continue
            bob.pump(lambda: bob.room.my_turn, 20, "the desktop client's turn")
            geo = app.geo
            assert geo is not None
            bob.click_at(geo.center(*white[turn // 2]))
            bob.pump(lambda: bob.room.ply == turn + 1, 20, "its move")  # noqa: B023
            wait_stones(alice, turn + 1)
        alice.wait_for_selector("#status:has-text('wins: five in a row')")
        room = bob.pump(lambda: bob.room.status == "over" and bob.room, 20, "the end")
        assert room.result is not None and (room.result.winner, room.result.reason) == (0, "line")
        assert stones(alice) == sorted(
            [(x, y, "black") for x, y in black] + [(x, y, "white") for x, y in white]
        )
        assert alice.script_errors == []
    finally:
        bob.close()


def test_a_phone_taps_twice_a_keyboard_plays_tv_follows_and_the_replay_steps(
    browser: Any, web_server: WebServer
) -> None:
    small = {"width": 390, "height": 844}
    phone = new_page(browser, viewport=small, is_mobile=True, has_touch=True)
    link = open_room(phone, web_server.url, "tictactoe", seat="0")
    if not phone.is_checked("#opt-confirm"):
        phone.check("#opt-confirm")
    keyboard = new_page(browser)
    keyboard.goto(link)
    tv = new_page(browser)
    tv.goto(web_server.url + "/tv")  # the only game being played
    tv.wait_for_selector("#status:has-text('to move')")
    wait_turn(phone)
    cell(phone, 1, 1).tap()  # the first tap only shows where the mark would go
    phone.wait_for_selector('.cell.ghost[data-x="1"][data-y="1"]')
    assert stones(phone) == []
    cell(phone, 1, 1).tap()  # the second tap places it
    wait_stones(phone, 1)
    wait_turn(keyboard)
    keyboard.locator(".cell[tabindex='0']").focus()  # the board's cursor starts in the middle
    keyboard.keyboard.press("ArrowLeft")
    keyboard.keyboard.press("Enter")
    wait_stones(keyboard, 2)
    assert (0, 1, "white") in stones(keyboard)
    for x, y, count in ((0, 0, 3), (2, 1, 4), (2, 2, 5)):
        page = phone if count % 2 == 1 else keyboard
        wait_turn(page)
        if page is phone:
            cell(page, x, y).tap()
            cell(page, x, y).tap()
        else:
            cell(page, x, y).click()
        wait_stones(page, count)
    for page in (phone, keyboard, tv):
        page.wait_for_selector("#status:has-text('wins')")
    assert stones(tv) == stones(phone)
    games = phone.evaluate("window.mnk.net.request({type: 'list_games', limit: 1})")
    keyboard.goto(f"{web_server.url}/g/{games['games'][0]['game_id']}")
    keyboard.wait_for_selector("#status:has-text('Move 5 of 5')")
    keyboard.click("#first")
    wait_stones(keyboard, 0)
    keyboard.click("#next")
    wait_stones(keyboard, 1)
    assert stones(keyboard) == [(1, 1, "black")]
    assert phone.script_errors == keyboard.script_errors == tv.script_errors == []


def test_a_swap2_opening_is_placed_and_chosen_in_the_page(
    browser: Any, web_server: WebServer
) -> None:
    alice, bob = new_page(browser), new_page(browser)
    link = open_room(alice, web_server.url, "renju", seat="0", opening="swap2")
    bob.goto(link)
    alice.wait_for_selector("#status:has-text('You: place 3 more opening stones')")
    for count, (x, y) in enumerate([(7, 7), (8, 7), (7, 8)], 1):
        alice.wait_for_selector("#status:has-text('You: place')")
        cell(alice, x, y).click()
        wait_stones(alice, count)
    assert stones(alice) == [(7, 7, "black"), (7, 8, "black"), (8, 7, "white")]
    bob.click(".choice[data-choice='black']")  # bob takes black: alice is white, to move
    wait_turn(alice)
    assert alice.get_attribute(".player.me .badge", "class") == "badge c1"
    play(alice, 9, 9, 4)
    wait_turn(bob)
    assert (9, 9, "white") in stones(bob)
    assert alice.script_errors == bob.script_errors == []


def test_a_custom_board_is_created_and_drawn(browser: Any, web_server: WebServer) -> None:
    page = new_page(browser)
    page.goto(web_server.url + "/")
    page.wait_for_selector("#net.online")
    page.select_option("#game", "mnk")
    page.fill("#width", "7")
    page.fill("#height", "6")
    page.fill("#k", "4")
    page.click("#create")
    page.wait_for_selector("h2:has-text('7\u00d76, 4 in a row')")
    assert page.locator(".cell").count() == 42
    assert page.script_errors == []
