"""Accounts, ratings and game actions in the real chromium against a real server process: two
pages register (one refused first, one logging out and in again), play a rated game whose end
shows both rating changes (a guest only watching it), and open the profile, a replay from it and
the leaderboard; two guests take a move back and agree a draw; a game aborted, then a win
claimed from an opponent gone past half the reconnect grace."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.browser import (
    WebServer,
    account,
    cell,
    friends_room,
    looks,
    new_page,
    record,
    said,
    stones,
    submit,
    wait_stones,
    wait_turn,
)

pytestmark = pytest.mark.slow


def play(page: Any, x: int, y: int, count: int) -> None:
    """Wait for the page's turn, place at (x, y), and wait for the board to show it."""
    wait_turn(page)
    cell(page, x, y).click()
    wait_stones(page, count)


def test_two_accounts_play_a_rated_game_and_see_their_ratings_profile_and_leaderboard(
    browser: Any, web_server: WebServer
) -> None:
    url = web_server.url
    alice, bob = new_page(browser), new_page(browser)
    alice.goto(url + "/")
    alice.wait_for_selector("#me .guest:has-text('(guest)')")
    assert alice.is_disabled("#rated")  # a guest cannot ask for a rated game
    submit(alice, "alice", "short", "register")
    alice.wait_for_selector("#acc-error:has-text('Too weak a password')")
    alice.fill("#acc-password", "a fine long secret")
    alice.fill("#acc-repeat", "a fine long secret")
    alice.click("#do-submit")
    alice.wait_for_selector("#me-name:has-text('alice')")
    account(bob, url, "bob", "another fine secret")
    bob.click("#logout")
    bob.wait_for_selector("#login-open")
    submit(bob, "bob", "not the password", "login")
    bob.wait_for_selector("#acc-error:has-text('Wrong name or password')")
    bob.fill("#acc-password", "another fine secret")
    bob.click("#do-submit")
    bob.wait_for_selector("#logout")
    # A rated tic-tac-toe game with a one-minute clock (the tictactoe-bullet pool).
    alice.select_option("#game", "tictactoe")
    assert alice.is_disabled("#rated")  # no clock yet
    alice.select_option("#clock", "60+0")
    alice.check("#rated")
    alice.select_option("#seat", "0")
    alice.click("#create")
    alice.wait_for_url("**/r/*")
    carol = new_page(browser)  # a guest: may watch a rated game, not sit in it
    carol.goto(alice.input_value("#room-link"))
    said(carol, "log in to take a seat")
    bob.goto(alice.input_value("#room-link"))
    for page in (alice, bob, carol):
        page.wait_for_selector("h2:has-text('rated')")
        page.wait_for_selector(".player .rating:has-text('1500?') >> nth=1")
        assert not page.is_visible("#takeback")  # never in a rated game
    alice.wait_for_selector("#countdown:has-text('Your first move within')")
    assert alice.is_visible("#abort")
    for turn, (x, y) in enumerate([(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)]):
        play(alice if turn % 2 == 0 else bob, x, y, turn + 1)
    for page in (alice, bob):
        page.wait_for_selector("#status:has-text('alice wins')")
        page.wait_for_selector("#status:has-text('Ratings: alice')")
        changes = page.locator(".rating-change").all_text_contents()
        assert len(changes) == 2 and any("(+" in c for c in changes), changes
        assert any("(\u2212" in c for c in changes), changes
    bob.reload()  # the account's session resumes after a reload
    bob.wait_for_selector("#me-name:has-text('bob')")
    assert bob.is_visible("#logout")
    alice.click(".player a.name:has-text('bob')")  # the opponent's profile
    alice.wait_for_url("**/@/bob")
    alice.wait_for_selector("#record:has-text('Rated games: 1')")
    alice.wait_for_selector("#profile-ratings td:has-text('Tic-tac-toe bullet')")
    alice.click("#profile-games a")  # its replay
    alice.wait_for_url("**/g/*")
    alice.wait_for_selector("#status:has-text('Move 5 of 5')")
    alice.goto(url + "/leaderboard?pool=tictactoe-bullet")
    alice.wait_for_selector("#status:has-text('Tic-tac-toe bullet')")
    alice.select_option("#pool", "gomoku-blitz")
    alice.wait_for_selector("#status:has-text('Gomoku blitz: nobody')")
    assert alice.script_errors == bob.script_errors == carol.script_errors == []


def test_guests_take_a_move_back_and_agree_a_draw(browser: Any, web_server: WebServer) -> None:
    alice, bob = new_page(browser), new_page(browser)
    alice.goto(web_server.url + "/")
    alice.wait_for_selector("#net.online")
    alice.select_option("#game", "gomoku")
    alice.select_option("#clock", "300+3")
    alice.select_option("#seat", "0")
    alice.click("#create")
    alice.wait_for_url("**/r/*")
    bob.goto(alice.input_value("#room-link"))
    bob.wait_for_selector(".player .guest >> nth=1")  # both seats are guests
    for turn, (x, y) in enumerate([(7, 7), (8, 8), (7, 8)]):
        play(alice if turn % 2 == 0 else bob, x, y, turn + 1)
    alice.click("#takeback")  # bob to move: alice's (7, 8) goes back
    alice.wait_for_selector("#takeback:has-text('Takeback asked')")
    bob.wait_for_selector("#offer:has-text('offers a takeback')")
    bob.click("#offer .accept")
    for page in (alice, bob):
        wait_stones(page, 2)
    assert (7, 8, "black") not in stones(bob)
    play(alice, 6, 6, 3)
    wait_turn(bob)
    bob.click("#offer-draw")
    alice.wait_for_selector("#offer:has-text('offers a draw')")
    alice.click("#offer .accept")
    for page in (alice, bob):
        page.wait_for_selector("#status:has-text('Draw: agreed')")
        assert not page.is_visible("#offer")
    assert alice.script_errors == bob.script_errors == []


def test_an_abort_then_a_win_claimed_from_an_opponent_gone(browser: Any, tmp_path: Path) -> None:
    server = WebServer(tmp_path, "--no-bots", "--reconnect-grace", "8")  # a claim after 4 s
    server.start()
    try:
        alice, bob = new_page(browser), new_page(browser)
        friends_room(alice, bob, server.url)
        alice.click("#abort")  # before both have moved: no result
        for page in (alice, bob):
            page.wait_for_selector("#status:has-text('Aborted: no result')")
        alice.click("#rematch")
        bob.click("#rematch")
        play(bob, 7, 7, 1)  # colours swapped: bob moves first
        play(alice, 8, 8, 2)
        assert not alice.is_visible("#abort") and not alice.is_visible("#claim")
        record(alice, "claim", "#claim")
        bob.context.close()  # bob is gone
        alice.click("#claim:not([disabled])")  # waits for the claim to open
        # Before it opened, 4 s after bob went, the button counted down, disabled: over by the
        # time a busy machine's poll looks, so the page kept every look of it.
        waited = [look for look in looks(alice, "claim") if "Claim win in" in look["text"]]
        assert waited and all(look["disabled"] for look in waited), looks(alice, "claim")
        alice.wait_for_selector("#status:has-text('wins: claimed: the opponent is gone')")
        assert alice.script_errors == []
    finally:
        server.stop()
