"""Take the browser's analysis screenshots of docs/img/ (a finished gomoku game analysed, a
tic-tac-toe game's blunder with every cell's proven value, the analysis board on a solved 4x4
board and on gomoku with three lines, a training game's hint) from a real server with its
built-in bots and Debian's chromium: ``.venv/bin/python tools/web_analysis_shots.py [OUT_DIR]``.
Every game is played through the pages."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from playwright.sync_api import sync_playwright  # noqa: E402
from support.browser import CHROMIUM, WebServer, cell, wait_stones, wait_turn  # noqa: E402

VIEW = {"width": 1100, "height": 760}
#: The gomoku game of tools/web_screenshots.py (alice wins on move 19).
GOMOKU = [(7, 7), (8, 8), (8, 6), (9, 5), (6, 6), (5, 8), (7, 6), (7, 5), (6, 7), (5, 7)]
GOMOKU += [(5, 6), (4, 6), (4, 5), (8, 7), (6, 5), (6, 9), (6, 4), (7, 8), (6, 8)]
#: Tic-tac-toe with O's losing edge reply to the centre (tests/test_web_analysis.py).
BLUNDERED = [(1, 1), (1, 0), (0, 0), (2, 2), (0, 2), (0, 1), (2, 0)]


def page_as(browser: Any, name: str) -> Any:
    """A page of its own player called ``name``."""
    context = browser.new_context(viewport=VIEW)
    context.add_init_script(f"localStorage.setItem('mnk.name', {name!r})")
    context.set_default_timeout(60_000)
    return context.new_page()


def played(first: Any, second: Any, url: str, game: str, moves: list[tuple[int, int]]) -> str:
    """A game between two pages, ``first`` moving first; its id."""
    first.goto(url + "/")
    first.wait_for_selector("#net.online")
    first.select_option("#game", game)
    first.select_option("#seat", "0")
    first.click("#create")
    first.wait_for_url("**/r/*")
    second.goto(first.input_value("#room-link"))
    for i, (x, y) in enumerate(moves):
        page = first if i % 2 == 0 else second
        wait_turn(page)
        cell(page, x, y).click()
        wait_stones(page, i + 1)
    first.wait_for_selector("#analyse-link")
    href = first.get_attribute("#analyse-link", "href") or ""
    return href.split("/g/", 1)[1].split("?", 1)[0]


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "img"
    out.mkdir(parents=True, exist_ok=True)
    server = WebServer(Path(tempfile.mkdtemp()))
    server.start()
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM)
            shoot(browser, server.url, out)
            browser.close()
    finally:
        server.stop()
    squeeze(out)


def squeeze(out: Path) -> None:
    """Quantise the pictures to a palette with pngquant when it is installed (a few tens of KB
    each instead of a hundred); left as taken otherwise."""
    pngquant = shutil.which("pngquant")
    if pngquant is None:
        print("pngquant is not installed: the pictures are left as taken")
        return
    for png in sorted(out.glob("web-*.png")):
        command = [pngquant, "--force", "--skip-if-larger", "--quality", "60-90"]
        subprocess.run([*command, "--output", str(png), str(png)], check=False)


def shoot(browser: Any, url: str, out: Path) -> None:
    alice, bob = page_as(browser, "alice"), page_as(browser, "bob")
    # A finished gomoku game, analysed: the graph, the blunders, the best moves.
    played(alice, bob, url, "gomoku", GOMOKU)
    alice.click("#analyse-link")
    alice.select_option("#analyse-time", "0.3")
    alice.wait_for_selector("#analyse-progress[data-done]")
    blunder = alice.locator("#moves li.blunder button").first
    if blunder.count():
        blunder.click()
    alice.screenshot(path=str(out / "web-review.png"), full_page=True)
    # Tic-tac-toe: O's blunder, and every cell's proven value before it.
    played(alice, bob, url, "tictactoe", BLUNDERED)
    alice.click("#analyse-link")
    alice.wait_for_selector("#analyse-progress[data-done]")
    alice.click("#first")
    alice.click("#next")
    alice.wait_for_selector(".cell.v-loss")
    alice.screenshot(path=str(out / "web-review-tictactoe.png"), full_page=True)
    # The analysis board: a 4x4 board, 3 in a row (solved: a first player's win).
    study = page_as(browser, "carol")
    study.goto(url + "/analysis")
    study.wait_for_selector("#net.online")
    study.select_option("#study-game", "mnk")
    study.fill("#study-width", "4")
    study.fill("#study-height", "4")
    study.fill("#study-k", "3")
    study.click("#new-board")
    for x, y in [(1, 1), (2, 2)]:
        cell(study, x, y).click()
    study.wait_for_selector(".cell.v-win, .cell.v-loss")
    study.screenshot(path=str(out / "web-analysis-board.png"), full_page=True)
    # The analysis board on gomoku: three lines.
    study.select_option("#study-game", "gomoku")
    study.click("#new-board")
    for x, y in [(7, 7), (8, 8), (7, 8), (6, 6), (7, 6), (7, 9)]:
        cell(study, x, y).click()
    study.select_option("#study-time", "1")
    study.wait_for_selector("#lines li >> nth=2")
    study.screenshot(path=str(out / "web-analysis-gomoku.png"), full_page=True)
    # A training game against the bot: the hint on the board.
    dave = page_as(browser, "dave")
    dave.goto(url + "/")
    dave.wait_for_selector("#bots:has-text('minimax')")
    dave.select_option("#game", "gomoku")
    dave.select_option("#opponent", "bot")
    dave.select_option("#seat", "0")
    dave.check("#hints")
    dave.click("#create")
    dave.wait_for_url("**/r/*")
    for n, (x, y) in enumerate([(7, 7), (8, 7), (6, 8)]):
        wait_turn(dave)
        if cell(dave, x, y).get_attribute("data-stone"):
            free = dave.locator(".cell:not([data-stone])").nth(100)
            free.click()
        else:
            cell(dave, x, y).click()
        wait_stones(dave, 2 * n + 2)
    wait_turn(dave)
    dave.click("#hint")
    dave.wait_for_selector("#hint-line:has-text('Hint')")
    assert dave.locator(".cell[data-stone]").count() == 6, "three moves each"
    assert dave.locator(".cell.noted[data-stone]").count() == 0, "the hint's line on empty cells"
    dave.screenshot(path=str(out / "web-training-hint.png"), full_page=True)


if __name__ == "__main__":
    main()
