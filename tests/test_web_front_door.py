"""The browser's front door in the real chromium (newcomer round four): pages and assets never
spend the game sockets' admission budget, a page whose socket is refused says so and tries again,
a path that is no page gets the site's "not found" page, a missing room or player says so with
the way back, and "Join by code" takes a pasted room link."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from support.browser import WebServer, new_page, said

pytestmark = pytest.mark.slow

#: Where the screenshots go (``MNK_SHOTS=DIR`` keeps them to look at; else the test's tmp).
SHOTS = os.environ.get("MNK_SHOTS")


def shot(page: Any, tmp_path: Path, name: str) -> None:
    """A screenshot of the whole page (to look at: see ``SHOTS``)."""
    folder = Path(SHOTS) if SHOTS else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


def start(tmp_path: Path, *options: str) -> WebServer:
    """A server without its bot (these pages need none), with ``options`` last (they win)."""
    server = WebServer(tmp_path, "--no-bots", *options)
    server.start()
    return server


def test_quick_reloads_and_a_third_page_from_one_address_all_render(
    browser: Any, tmp_path: Path
) -> None:
    """Ten new game sockets per address at once, one a second: six quick loads of the lobby
    from one browser, then two players and a spectator of one room, all get the page and a
    socket (a first load is ~20 requests: once these spent the sockets' budget)."""
    server = start(tmp_path, "--hello-rate", "1", "--hello-burst", "10")
    try:
        page = new_page(browser)
        for _ in range(6):
            page.goto(server.url + "/")
            page.wait_for_selector("#create")
            page.wait_for_selector("#net.online")
        alice, bob, carol = page, new_page(browser), new_page(browser)
        alice.select_option("#opponent", "friend")
        alice.select_option("#seat", "0")  # black: her move once bob sits (a random seat: not)
        alice.click("#create")
        alice.wait_for_url("**/r/*")
        link = alice.input_value("#room-link")
        bob.goto(link)
        # generous: a socket refused on a busy machine is tried again after a backoff
        alice.wait_for_selector("#status:has-text('Your move')", timeout=60_000)
        carol.goto(link)  # the room is full: watches, from the players' address
        carol.wait_for_selector("#net.online", timeout=60_000)
        carol.wait_for_selector("#status:has-text('to move')", timeout=60_000)
        assert not page.script_errors and not bob.script_errors and not carol.script_errors
    finally:
        server.stop()


def test_a_refused_socket_is_said_on_the_page_and_tried_again(browser: Any, tmp_path: Path) -> None:
    """One new game socket per address at once, one every ten seconds: a second page gets
    its page, says its socket was refused, and gets in when the server lets it. (Ten, not
    four: a busy machine may take seconds to load the second page, whose socket must still
    come before the next one is let in, and the refusal it shows lasts until then.)"""
    server = start(tmp_path, "--hello-rate", "0.1", "--hello-burst", "1")
    try:
        first = new_page(browser)
        first.goto(server.url + "/")
        first.wait_for_selector("#net.online")
        second = new_page(browser)
        second.goto(server.url + "/")
        second.wait_for_selector("#create")  # the page is there, not blank
        said(second, "Could not connect to the game server")
        second.wait_for_selector("#net:has-text('retrying in')")
        shot(second, tmp_path, "refused-socket")
        # tried again, later and later (0.25, 0.75, 1.75, 3.75, 7.75, 15.75 s): now let in
        second.wait_for_selector("#net.online", timeout=60_000)
        second.wait_for_selector("#notice", state="hidden")
        assert not second.script_errors
    finally:
        server.stop()


def test_no_page_a_missing_room_and_a_missing_player_say_so_with_the_way_back(
    browser: Any, tmp_path: Path
) -> None:
    server = start(tmp_path)
    try:
        page = new_page(browser)
        for path in ("/foo", "/@/", "/r/bad!code"):
            response = page.goto(server.url + path)
            assert response is not None and response.status == 404
            page.wait_for_selector("#status:has-text('There is no page')")
            assert page.is_visible("header .brand")  # the site's header
            if path == "/foo":
                shot(page, tmp_path, "not-found")
        page.click("#back-to-lobby")
        page.wait_for_selector("#create")
        assert page.url == server.url + "/"
        page.goto(server.url + "/@/nobody-here")
        page.wait_for_selector("#status:has-text('No such player')")
        page.goto(server.url + "/r/qqqqqq")
        page.wait_for_selector("#status:has-text('There is no room qqqqqq')")
        shot(page, tmp_path, "missing-room")
        for gone in ("#room-link", "#chat-log", "#spectators", ".player", ".board"):
            assert page.query_selector(gone) is None, gone
        page.click("#back-to-lobby")
        page.fill("#code", f"  {server.url}/r/qqqqqq  ")  # a pasted link, as a code
        page.click("#join button")
        page.wait_for_url("**/r/qqqqqq")
        page.wait_for_selector("#status:has-text('There is no room qqqqqq')")
        not_found = [e for e in page.script_errors if "status of 404 (Not Found)" in e]
        assert len(not_found) == 3 == len(page.script_errors)  # the three 404 pages' own
    finally:
        server.stop()
