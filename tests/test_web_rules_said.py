"""The browser shows the rules the server says and computes none of them, against a real server
process patched to say other rules: when a game may be aborted (``state.actions.abort``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.browser import WebServer, cell, new_page, wait_stones, wait_turn

pytestmark = pytest.mark.slow

#: The server process says a game may be aborted only once exactly two stones are down.
ABORT_LATE = """
import os
os.environ["MNK_PURE"] = "1"  # the patch must reach the compiled modules' callers
from server.core.game import messages
messages.abortable = lambda room: len(room.game.moves) == 2
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
        alice.goto(server.url + "/")
        alice.wait_for_selector("#net.online")
        alice.select_option("#game", "gomoku")
        alice.select_option("#seat", "0")
        alice.click("#create")
        alice.wait_for_url("**/r/*")
        bob.goto(alice.input_value("#room-link"))
        wait_turn(alice)
        assert not alice.is_visible("#abort")  # no move yet, but the server says no
        play(alice, 7, 7, 1)
        play(bob, 8, 8, 2)
        alice.wait_for_selector("#abort")  # both have moved, but the server says yes
        bob.wait_for_selector("#abort")
        assert alice.script_errors == [] and bob.script_errors == []
    finally:
        server.stop()
