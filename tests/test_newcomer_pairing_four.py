"""Newcomer round four, pairing and ratings: a new server's leaderboard lists its provisional
players (marked "?") under the settled ones, and a seek says which ratings it accepts now and
that the range widens while it waits: over the wire, and in the real chromium."""

from __future__ import annotations

import itertools
import os
from pathlib import Path
from typing import Any

import msgpack
import pytest
from support.browser import WebServer, looks, new_page, record, wait_look
from websockets.sync.client import ClientConnection, connect

pytestmark = pytest.mark.slow

CLOCK = {"initial_s": 180, "increment_s": 2}


async def test_a_seek_says_the_ratings_it_accepts_and_widens_them_wave_by_wave(
    client_factory: Any,
) -> None:
    alice = await client_factory("guest-alice")
    logged = await alice.request(type="register", name="alice", password="correct horse battery")
    assert logged["type"] == "logged_in", logged
    placed = (await alice.request(type="seek", game="gomoku", clock=CLOCK, rated=True))["seek"]
    assert placed["accepts"] == [1400, 1600] and placed["widens"] is True, placed
    update = await alice.expect("seek_update", timeout=10)  # the next wave missed: wider
    assert update["seek"]["seek"] == placed["seek"] and update["seek"]["accepts"] == [1350, 1650]
    listed = (await alice.request(type="list_seeks"))["seeks"]
    assert listed[0]["accepts"][0] <= 1350
    guest = await client_factory("guest")
    theirs = (await guest.request(type="seek", game="renju", clock=CLOCK))["seek"]
    assert theirs["accepts"] == [1000, 2000] and theirs["widens"] is False  # the widest at once


def shot(page: Any, tmp_path: Path, name: str) -> None:
    """A screenshot of ``page`` (into ``$MNK_SHOTS`` when set, to look at; else the tmp dir)."""
    page.screenshot(path=str(Path(os.environ.get("MNK_SHOTS") or tmp_path) / name), full_page=True)


class Wire:
    """A blocking protocol client (the browser tests run no event loop of their own)."""

    def __init__(self, ws: ClientConnection, name: str) -> None:
        self.ws = ws
        self.ids = itertools.count(1)
        self.request(type="hello", protocol=1, name=name, kind="human")

    def request(self, **message: Any) -> dict[str, Any]:
        """Send ``message`` and return the reply to it (welcome for a hello)."""
        rid = next(self.ids)
        self.ws.send(msgpack.packb({**message, "id": rid}, use_bin_type=True))
        while True:
            reply = msgpack.unpackb(self.ws.recv(timeout=30), raw=False)
            if reply.get("id") == rid or reply["type"] == "welcome":
                return reply


def test_a_new_servers_leaderboard_lists_provisional_players_under_a_mark(
    browser: Any, web_server: WebServer, tmp_path: Path
) -> None:
    url = web_server.url.replace("http", "ws")
    with connect(url, compression=None) as a, connect(url, compression=None) as b:
        alice, bob = Wire(a, "guest-a"), Wire(b, "guest-b")
        for c, name in ((alice, "alice"), (bob, "bob")):
            reply = c.request(type="register", name=name, password="correct horse battery")
            assert reply["type"] == "logged_in", reply
        ask = {"type": "create_room", "game": "tictactoe", "seat": 0, "rated": True}
        room = alice.request(**ask, clock={"initial_s": 60, "increment_s": 0})["room"]
        bob.request(type="join_room", room=room)
        alice.request(type="move", room=room, x=0, y=0)
        bob.request(type="move", room=room, x=1, y=1)
        over = alice.request(type="resign", room=room)
        assert len(over["ratings"]) == 2, over
    page = new_page(browser)
    page.goto(web_server.url + "/leaderboard?pool=tictactoe-bullet")
    page.wait_for_selector("#status:has-text('2 provisional (?)')")
    rows = page.locator("#leaders tr.provisional").all_text_contents()
    assert len(rows) == 2 and rows[0].startswith("?bob") and "?" in rows[1], rows
    assert "provisional ratings, marked ?" in page.text_content(".ranks .hint")
    shot(page, tmp_path, "leaderboard-provisional.png")
    assert page.script_errors == []


def test_the_quick_pairing_page_shows_the_rating_range_widening(
    browser: Any, web_server: WebServer, tmp_path: Path
) -> None:
    page = new_page(browser)
    page.goto(web_server.url + "/")
    page.wait_for_selector("#net.online")
    assert "widens while you wait" in page.text_content("#quick-pairing .seek-games .hint")
    page.click("#login-open")
    page.click("#do-register")  # the register form: the password twice
    page.fill("#acc-name", "alice")
    page.fill("#acc-password", "a fine long secret")
    page.fill("#acc-repeat", "a fine long secret")
    page.click("#do-submit")
    page.wait_for_selector("#logout")
    record(page, "ranges", "#seeking .accepts")
    page.click('.tile[data-pool="gomoku 3+2 rated"]')
    # A wave (every 2 s) widens the range: a busy machine may show the first one too briefly
    # for a poll to see it, so the page records every range it shows and the test reads them.
    wait_look(page, "ranges", "1350\u20131650")
    ranges = [look["text"] for look in looks(page, "ranges")]
    assert "opponents rated 1400\u20131600, widening" in ranges[0], ranges
    shot(page, tmp_path, "pairing-range.png")
    assert page.script_errors == []


def test_a_rated_game_resigned_before_two_moves_says_it_was_not_rated(
    browser: Any, web_server: WebServer
) -> None:
    url = web_server.url.replace("http", "ws")
    with connect(url, compression=None) as a, connect(url, compression=None) as b:
        alice, bob = Wire(a, "guest-a"), Wire(b, "guest-b")
        for c, name in ((alice, "alice"), (bob, "bob")):
            reply = c.request(type="register", name=name, password="correct horse battery")
            assert reply["type"] == "logged_in", reply
        ask = {"type": "create_room", "game": "gomoku", "seat": 0, "rated": True, "clock": CLOCK}
        room = alice.request(**ask)["room"]
        bob.request(type="join_room", room=room)
        page = new_page(browser)  # a guest watching
        page.goto(f"{web_server.url}/r/{room}")
        page.wait_for_selector("h2:has-text('rated')")
        over = alice.request(type="resign", room=room)
        assert over["unrated"] == "too_short", over
        page.wait_for_selector("#status:has-text('Not rated: fewer than two moves were played')")
        assert page.script_errors == []
