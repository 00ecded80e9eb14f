"""The browser shows the rules the server says and computes none of them, in the real
chromium against a real server: the rating pool of a seek and of a rated room, and the pool a
custom seek's range is centred in (``welcome.rating_pools``)."""

from __future__ import annotations

import itertools
import os
from pathlib import Path
from typing import Any

import msgpack
import pytest
from support.browser import WebServer, new_page
from support.marks import blunders_said, edge_replies
from websockets.sync.client import ClientConnection, connect

pytestmark = pytest.mark.slow

#: 15+10 with 5 s a move: the server rates it blitz (40 x 5 s), the old page said rapid.
CAPPED = {"initial_s": 900, "increment_s": 10, "move_s": 5}


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


def shot(page: Any, tmp_path: Path, name: str) -> None:
    """A screenshot of ``page`` (into ``$MNK_SHOTS`` when set, to look at; else the tmp dir)."""
    page.screenshot(path=str(Path(os.environ.get("MNK_SHOTS") or tmp_path) / name), full_page=True)


def test_the_page_shows_the_pools_the_server_names(
    browser: Any, web_server: WebServer, tmp_path: Path
) -> None:
    with connect(web_server.url.replace("http", "ws") + "/", max_size=None) as ws:
        bob = Wire(ws, "bob")
        reply = bob.request(type="register", name="bobby", password="correct horse battery")
        assert reply["type"] == "logged_in", reply
        seek = bob.request(type="seek", game="gomoku", clock=CAPPED)
        assert seek["seek"]["rating_pool"] == "gomoku-blitz", seek
        room = bob.request(
            type="create_room", game="renju", opponent="human", rated=True, clock=CAPPED
        )
        assert room["type"] == "joined", room
        page = new_page(browser)
        page.goto(web_server.url + "/")
        page.wait_for_selector("#net.online")
        pools = page.evaluate("window.mnk.net.ratingPools")
        assert pools["180+2"]["gomoku-standard"] == "exact-blitz"
        rating = page.wait_for_selector("#seeks tr:has-text('bobby') .seek-rating")
        assert rating.get_attribute("title") == "rating in Gomoku blitz"
        tag = page.wait_for_selector(f"tr[data-room='{room['room']}'] .tag.rated")
        assert tag.get_attribute("title") == "Renju blitz"
        shot(page, tmp_path, "rules-lobby.png")
        assert page.script_errors == []


def test_a_custom_seek_s_range_is_centred_in_the_pool_the_server_names(
    browser: Any, web_server: WebServer
) -> None:
    page = new_page(browser)
    page.goto(web_server.url + "/")
    page.wait_for_selector("#net.online")
    # a server that rates 3+2 gomoku as rapid: the page takes its word, it guesses no pool
    ratings = page.evaluate(
        """async () => {
          const { Pairing } = await import("/assets/pairing.js");
          const pairing = Object.create(Pairing.prototype);
          pairing.net = {
            ratings: { "gomoku-blitz": { rating: 1523 }, "gomoku-rapid": { rating: 1711 } },
            ratingPools: { "180+2": { gomoku: "gomoku-rapid" } },
          };
          const clock = (initial_s, increment_s) => ({ initial_s, increment_s });
          return [pairing.ownRating("gomoku", clock(180, 2)),
                  pairing.ownRating("gomoku", clock(300, 3))];
        }"""
    )
    assert ratings == [1711, 1500]
    assert page.script_errors == []


def test_the_page_marks_the_moves_the_server_marks(browser: Any, web_server: WebServer) -> None:
    replies = edge_replies()  # the server's answers, where the page's old rule marked 0 and 1
    assert blunders_said(replies) == [2, 3]
    page = new_page(browser)
    page.goto(web_server.url + "/")
    page.wait_for_selector("#net.online")
    verdicts = page.evaluate(
        """async (replies) => {
          const E = await import("/assets/evaluation.js");
          const moves = [[0, 0], [1, 0], [1, 1], [2, 0], [2, 2]];
          return E.review(replies, moves, "line").map((e) => e.verdict);
        }""",
        replies,
    )
    assert [i for i, v in enumerate(verdicts) if v == "blunder"] == [2, 3]
    assert page.script_errors == []


def test_the_custom_seek_form_offers_the_servers_clocks_and_ranges(
    browser: Any, web_server: WebServer, tmp_path: Path
) -> None:
    page = new_page(browser)
    page.goto(web_server.url + "/")
    page.wait_for_selector("#net.online")
    said = page.evaluate("window.mnk.net.seekForm")
    assert said["ranges"] == [0, 100, 200, 300, 500] and said["clocks"][0] is None
    page.click(".custom-seek summary")
    options = page.eval_on_selector_all(
        "#seek-clock option", "os => os.map((o) => [o.value, o.textContent])"
    )
    wanted = [["", "no clock (casual)"]]
    wanted += [[f"{c['initial_s']}+{c['increment_s']}", None] for c in said["clocks"][1:]]
    assert [v for v, _ in options] == [v for v, _ in wanted]
    assert ["180+2", "3+2"] in options and ["1800+0", "30+0"] in options
    assert page.input_value("#seek-clock") == "180+2"  # where the server starts the form
    ranges = page.eval_on_selector_all("#seek-range option", "os => os.map((o) => o.textContent)")
    assert ranges == ["any rating", "\u00b1100", "\u00b1200", "\u00b1300", "\u00b1500"]
    shot(page, tmp_path, "rules-custom-seek.png")
    page.select_option("#seek-clock", "60+0")
    page.click("#custom-seek button[type=submit]")
    page.wait_for_selector("#seeking .waiting:has-text('Gomoku 1+0')")
    assert page.script_errors == []
