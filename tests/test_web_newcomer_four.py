"""Newcomer round four (issue 44) in the real chromium against a real server process: an aborted
game listed as aborted (never a draw) in the lobby, the profile and the text export; the players
told how many watch; a phone's second-tap confirmation; a guest's rename asked about only when a
game would be left; no invitation or move-confirm options where they do not apply."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.browser import WebServer, new_page, wait_turn

from protocol.records import read_text

pytestmark = pytest.mark.slow


def account(page: Any, url: str, name: str, password: str) -> None:
    """Open the lobby and register ``name`` through the top bar's dialog."""
    page.goto(url + "/")
    page.wait_for_selector("#net.online")
    page.click("#login-open")
    page.fill("#acc-name", name)
    page.fill("#acc-password", password)
    page.click("#do-register")
    page.wait_for_selector("#logout")


def friends_room(alice: Any, bob: Any, url: str, game: str = "gomoku") -> str:
    """Alice opens a room (seat 0) from the lobby and Bob takes its free seat: the room's link."""
    alice.goto(url + "/")
    alice.wait_for_selector("#net.online")
    alice.select_option("#game", game)
    alice.select_option("#seat", "0")
    alice.click("#create")
    alice.wait_for_url("**/r/*")
    link = alice.input_value("#room-link")
    bob.goto(link)
    wait_turn(alice)
    return link


def downloaded(page: Any, button: str) -> str:
    """Click ``button`` and read the text of the file it saves."""
    with page.expect_download() as info:
        page.click(button)
    return Path(info.value.path()).read_text()


def test_an_aborted_game_is_listed_as_aborted_never_a_draw(browser: Any, tmp_path: Path) -> None:
    server = WebServer(tmp_path, "--no-bots")
    server.start()
    try:
        alice, bob = new_page(browser), new_page(browser)
        account(alice, server.url, "alice", "a fine long secret")
        account(bob, server.url, "bob", "another fine secret")
        friends_room(alice, bob, server.url)
        alice.click("#abort")  # no move at all
        alice.wait_for_selector("#status:has-text('Aborted: no result')")
        alice.goto(server.url + "/")
        alice.wait_for_selector("#games li:has-text('alice vs bob')")
        row = alice.inner_text("#games li")
        assert "aborted" in row and "draw" not in row, row
        alice.goto(server.url + "/@/alice")
        alice.wait_for_selector("#profile-games li:has-text('alice vs bob')")
        row = alice.inner_text("#profile-games li")
        assert "aborted" in row and "draw" not in row, row
        assert "drawn 0" in alice.inner_text("#record")
        alice.click("#profile-games li a")
        alice.wait_for_selector("#status:has-text('Aborted: no result')")
        text = downloaded(alice, "#export-text")
        assert text.endswith("# result: no result (aborted)\n"), text
        assert read_text(text).reason == "aborted"
        assert alice.script_errors == [] and bob.script_errors == []
    finally:
        server.stop()


def test_the_players_see_how_many_watch(browser: Any, tmp_path: Path) -> None:
    server = WebServer(tmp_path, "--no-bots")
    server.start()
    try:
        alice, bob, carol = new_page(browser), new_page(browser), new_page(browser)
        link = friends_room(alice, bob, server.url)
        carol.goto(link)  # the room is full: carol watches
        for page in (alice, bob, carol):
            page.wait_for_selector("#spectators:text-is('1')")
        carol.goto(server.url + "/")
        for page in (alice, bob):
            page.wait_for_selector("#spectators:text-is('0')")
        assert alice.script_errors == [] and bob.script_errors == [] and carol.script_errors == []
    finally:
        server.stop()


def test_a_guest_s_rename_asks_only_when_it_would_leave_a_game(
    browser: Any, tmp_path: Path
) -> None:
    server = WebServer(tmp_path, "--no-bots")
    server.start()
    try:
        alice, bob = new_page(browser), new_page(browser)
        asked: list[str] = []
        alice.on("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
        alice.goto(server.url + "/")
        alice.wait_for_selector("#net.online")
        alice.fill("#name", "alicia")
        alice.click("#rename button")
        alice.wait_for_selector("#me-name:text-is('alicia')")
        assert asked == []  # no game open: nothing to ask
        friends_room(alice, bob, server.url)
        alice.goto(server.url + "/")  # the game goes on while alice looks at the lobby
        alice.wait_for_selector("#net.online")
        alice.fill("#name", "alice")
        alice.click("#rename button")
        alice.evaluate("0")  # a round trip: the dialog, if any, has been handled
        assert len(asked) == 1 and "left to time out" in asked[0], asked
        assert alice.evaluate("localStorage.getItem('mnk.name')") == "alicia"  # dismissed
        assert alice.script_errors == [] and bob.script_errors == []
    finally:
        server.stop()
