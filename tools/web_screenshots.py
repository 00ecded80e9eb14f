"""Take the browser screenshots of docs/ (lobby, quick pairing with a seek waiting, live gomoku,
renju, replay, phone, a rated room with its actions, a profile, the leaderboard) from a real
server and Debian's chromium: ``.venv/bin/python tools/web_screenshots.py [OUT_DIR]``. The
leaderboard's people are seeded straight into the database (a place there needs dozens of rated
games); the rest is played."""

from __future__ import annotations

import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from playwright.sync_api import sync_playwright  # noqa: E402
from support.browser import CHROMIUM, WebServer, cell, wait_stones, wait_turn  # noqa: E402

DESKTOP = {"width": 1280, "height": 820}
PHONE = {"width": 390, "height": 844}


def page_as(browser: Any, name: str, viewport: dict[str, int] = DESKTOP, **extra: Any) -> Any:
    """A page of its own player called ``name``."""
    context = browser.new_context(viewport=viewport, **extra)
    context.add_init_script(f"localStorage.setItem('mnk.name', {name!r})")
    context.set_default_timeout(20_000)
    return context.new_page()


def room(page: Any, url: str, game: str, **choices: str) -> str:
    """Create a room from the lobby; its link."""
    page.goto(url + "/")
    page.wait_for_selector("#net.online")
    page.select_option("#game", game)
    for name, choice in choices.items():
        if name == "rated":
            page.check("#rated")
        else:
            page.select_option(f"#{name}", choice)
    page.click("#create")
    page.wait_for_url("**/r/*")
    return page.input_value("#room-link")


def moves(first: Any, second: Any, cells: list[tuple[int, int]], start: int = 0) -> None:
    """Play ``cells`` alternately, ``first`` on the even plies."""
    for i, (x, y) in enumerate(cells):
        page = first if (start + i) % 2 == 0 else second
        wait_turn(page)
        cell(page, x, y).click()
        wait_stones(page, start + i + 1)


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs"
    server = WebServer(Path(tempfile.mkdtemp()))
    server.start()
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM)
            shoot_ratings(browser, server, out)
            shoot(browser, server.url, out)
            shoot_pairing(browser, server.url, out)
            browser.close()
    finally:
        server.stop()


def shoot(browser: Any, url: str, out: Path) -> None:
    alice, bob, carol = (page_as(browser, name) for name in ("alice", "bob", "carol"))
    # A finished gomoku game, for the replay and the lobby's recent games.
    link = room(alice, url, "gomoku", seat="0")
    bob.goto(link)
    game = [(7, 7), (8, 8), (8, 6), (9, 5), (6, 6), (5, 8), (7, 6), (7, 5), (6, 7), (5, 7)]
    game += [(5, 6), (4, 6), (4, 5), (8, 7), (6, 5), (6, 9), (6, 4), (7, 8), (6, 8)]
    moves(alice, bob, game)
    alice.wait_for_selector("#status:has-text('wins')")
    replay = alice.evaluate("window.mnk.net.request({type: 'list_games', limit: 1})")
    game_id = replay["games"][0]["game_id"]
    # A live gomoku game with a clock, chat and a watcher.
    link = room(alice, url, "gomoku", seat="0", clock="300+3")
    bob.goto(link)
    live = [(7, 7), (8, 7), (8, 8), (6, 6), (9, 9), (10, 10), (7, 9), (6, 10), (8, 9), (6, 9)]
    live += [(9, 8), (10, 7), (9, 10), (9, 7), (8, 10)]
    moves(alice, bob, live)
    bob.fill("#chat-input", "gl hf")
    bob.press("#chat-input", "Enter")
    alice.fill("#chat-input", "you too! nice shape")
    alice.press("#chat-input", "Enter")
    bob.wait_for_selector("#chat-log:has-text('nice shape')")
    carol.goto(link)  # a watcher: the players are told the count (an ``audience`` note)
    carol.wait_for_selector("#status:has-text('to move')")
    bob.wait_for_selector("#spectators:text-is('1')")
    bob.screenshot(path=str(out / "screenshot-web-gomoku.png"))
    # A renju game: black's double three at J8 is marked.
    dave, erin = page_as(browser, "dave"), page_as(browser, "erin")
    link = room(dave, url, "renju", seat="0", clock="600+5")
    erin.goto(link)
    moves(dave, erin, [(7, 7), (7, 8), (6, 7), (9, 6), (8, 6), (6, 9), (8, 5), (10, 5)])
    wait_turn(dave)
    dave.check("#opt-numbers")
    dave.wait_for_selector(".cell.forbidden")
    dave.screenshot(path=str(out / "screenshot-web-renju.png"))
    # The phone: the same game on a small screen, a first tap waiting for its second.
    dave.set_viewport_size(PHONE)
    if not dave.is_checked("#opt-confirm"):
        dave.check("#opt-confirm")
    cell(dave, 9, 8).click()
    dave.wait_for_selector("#status:has-text('again to confirm')")
    dave.screenshot(path=str(out / "screenshot-web-phone.png"))
    # A waiting room, then the lobby.
    frank = page_as(browser, "frank")
    room(frank, url, "tictactoe", seat="0")
    lobby = page_as(browser, "grace")
    lobby.goto(url + "/")
    lobby.wait_for_selector("#bots:has-text('minimax')")
    lobby.wait_for_selector("#games a")
    lobby.wait_for_selector("#rooms tr[data-room]")
    lobby.screenshot(path=str(out / "screenshot-web-lobby.png"), full_page=True)
    # The replay of the first game, stopped at move 13.
    viewer = page_as(browser, "henry")
    viewer.goto(f"{url}/g/{game_id}")
    viewer.wait_for_selector("#moves li")
    for _ in range(6):
        viewer.click("#prev")
    viewer.wait_for_selector("#status:has-text('Move 13 of 19')")
    viewer.screenshot(path=str(out / "screenshot-web-replay.png"))


def shoot_pairing(browser: Any, url: str, out: Path) -> None:
    """The lobby's Quick pairing: others seeking (a tile with one waiting, the open seeks) and
    our own seek waiting a few seconds, with its Cancel."""
    for name, game, pool in (
        ("ivy", "gomoku", "gomoku 1+0 casual"),
        ("jack", "renju", "renju 5+3 casual"),
    ):
        other = page_as(browser, name)
        other.goto(url + "/")
        other.click(f".seek-game[data-game='{game}']")
        other.click(f'.tile[data-pool="{pool}"]')
        other.wait_for_selector("#seeking .waiting")
    kate = page_as(browser, "kate")
    kate.goto(url + "/")
    kate.wait_for_selector(
        '.tile[data-pool="gomoku 1+0 casual"] .tile-status:has-text("1 waiting")'
    )
    kate.click('.tile[data-pool="gomoku 3+2 casual"]')
    kate.wait_for_selector("#seeking .elapsed:has-text('0:04')")
    kate.wait_for_selector("#seeks tr:has-text('jack')")
    kate.screenshot(path=str(out / "screenshot-web-pairing.png"))


def register(page: Any, url: str, name: str) -> None:
    """Register ``name`` through the top bar's dialog."""
    page.goto(url + "/")
    page.wait_for_selector("#net.online")
    page.click("#login-open")
    page.click("#do-register")
    page.fill("#acc-name", name)
    page.fill("#acc-password", "plays gomoku well")  # never holding the name
    page.fill("#acc-repeat", "plays gomoku well")
    page.click("#do-submit")
    page.wait_for_selector("#logout")


def seed_leaderboard(db: str) -> None:
    """Settled ratings for a leaderboard worth a picture (RD under 75, played today)."""
    rng = random.Random(7)
    names = ["tengen", "renjuka", "meijin", "fivefold", "kuromaru", "shiroi", "openfour"]
    names += ["vcf_hunter", "sanan", "doublethree", "hoshi", "tsumego", "katachi", "sabaki"]
    now = time.time()
    with sqlite3.connect(db, timeout=30) as conn:
        for i, name in enumerate(names):
            rating = 2150 - i * 41 - rng.randint(0, 30)
            games = rng.randint(40, 400)
            won = games * rng.randint(45, 65) // 100
            drawn = games // 12
            conn.execute(
                "INSERT INTO ratings (account, pool, pid, name, bot, rating, rd, vol, games, won, "
                "drawn, lost, at) VALUES (?, 'gomoku-blitz', ?, ?, 0, ?, ?, 0.06, ?, ?, ?, ?, ?)",
                (name, f"p_seed{i}", name, rating, rng.randint(46, 74), games, won, drawn,
                 games - won - drawn, now),
            )  # fmt: skip


def shoot_ratings(browser: Any, server: WebServer, out: Path) -> None:
    """Two accounts: two rated tic-tac-toe games (a profile), a rated gomoku game with a draw
    offer standing, and the leaderboard."""
    url = server.url
    alice, bob = page_as(browser, "alice-guest"), page_as(browser, "bob-guest")
    register(alice, url, "alice")
    register(bob, url, "bob")
    link = room(alice, url, "tictactoe", seat="0", clock="60+0", rated="on")
    bob.goto(link)
    moves(alice, bob, [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)])
    bob.wait_for_selector(".rating-change >> nth=1")
    bob.screenshot(path=str(out / "screenshot-web-rating-change.png"))
    alice.click("#rematch")
    bob.click("#rematch")
    moves(bob, alice, [(1, 1), (0, 0), (0, 1), (2, 1), (1, 0), (2, 0), (1, 2)])
    alice.wait_for_selector(".rating-change >> nth=1")
    # A rated gomoku blitz game: bob offers a draw on his move, alice sees it with her actions.
    link = room(alice, url, "gomoku", seat="0", clock="180+2", rated="on")
    bob.goto(link)
    moves(alice, bob, [(7, 7), (8, 8), (8, 7), (6, 7), (7, 8), (7, 6), (6, 9), (9, 6)])
    wait_turn(alice)
    cell(alice, 9, 8).click()
    wait_stones(alice, 9)
    wait_turn(bob)
    bob.click("#offer-draw")
    cell(bob, 5, 10).click()
    alice.wait_for_selector("#offer:has-text('offers a draw')")
    alice.screenshot(path=str(out / "screenshot-web-rated.png"), full_page=True)
    bob.goto(url + "/@/alice")
    bob.wait_for_selector("#profile-games a")
    bob.screenshot(path=str(out / "screenshot-web-profile.png"))
    seed_leaderboard(server.db)
    bob.goto(url + "/leaderboard?pool=gomoku-blitz")
    bob.wait_for_selector("#leaders tr")
    bob.screenshot(path=str(out / "screenshot-web-leaderboard.png"))


if __name__ == "__main__":
    main()
