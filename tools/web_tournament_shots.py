"""Take the tournament pages' screenshots of docs/ (/tournaments with an event running, one open
and one finished; /t/ID of a rated swiss during its second round and after its end, its chart
drawn; desktop and phone widths) from a real server and Debian's chromium:
``.venv/bin/python tools/web_tournament_shots.py [OUT_DIR]``. Six accounts on raw sockets enter
and play (one seat of each game resigns it); the pages are a guest's, watching."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from playwright.sync_api import sync_playwright  # noqa: E402
from support.browser import CHROMIUM, WebServer  # noqa: E402
from support.events import Background, Entrants  # noqa: E402

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
NAMES = ["alice", "bob", "carol", "dave", "erin", "frank"]
CLOCK = {"initial_s": 180, "increment_s": 2}


def page_at(browser: Any, viewport: dict[str, int]) -> Any:
    """A guest's page at ``viewport``."""
    context = browser.new_context(viewport=viewport)
    context.add_init_script("localStorage.setItem('mnk.name', 'viewer')")
    context.set_default_timeout(30_000)
    return context.new_page()


def play_round(field: Entrants, tid: str, turn: int) -> None:
    """Every game being played of event ``tid`` ends, one seat or the other resigning."""
    for i, game in enumerate(field.live(tid)):
        field.resign(game, seat=(i + turn) % 2)


def shoot(browser: Any, path: str, out: Path, name: str, *waits: str) -> None:
    """``path`` at both widths, once each of ``waits`` shows: ``name``.png and
    ``name``-phone.png."""
    for viewport, suffix in ((DESKTOP, ""), (PHONE, "-phone")):
        page = page_at(browser, viewport)
        page.goto(path)
        for wait in waits:
            page.wait_for_selector(wait)
        page.screenshot(path=str(out / f"{name}{suffix}.png"), full_page=True)
        page.context.close()


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs"
    server = WebServer(Path(tempfile.mkdtemp()), "--no-bots")
    server.start()
    field = Entrants(Background(), server.url.replace("http", "ws", 1), NAMES)
    try:
        new = {"type": "create_tournament", "game": "gomoku", "clock": CLOCK}
        warm = field.ask("bob", **new, name="Warm-up", format="round_robin", games_per_pair=1)
        for name in ("bob", "carol"):
            field.ask(name, type="join_tournament", tournament=warm["tournament"])
        field.ask("bob", type="start_tournament", tournament=warm["tournament"])
        play_round(field, warm["tournament"], 0)
        arena = {"format": "arena", "duration_s": 3600, "starts_in_s": 1800}
        field.ask("carol", **new, name="Hourly gomoku arena", **arena)
        swiss = {"format": "swiss", "rated": True, "rounds": 3}
        tid = field.ask("alice", **new, name="Sunday gomoku swiss", **swiss)["tournament"]
        field.join(tid)
        field.ask("alice", type="start_tournament", tournament=tid)
        play_round(field, tid, 0)
        openings = [(7, 7), (8, 8), (8, 7), (6, 7), (9, 6), (7, 9), (6, 8), (9, 9), (10, 5)]
        for i, game in enumerate(field.live(tid)):  # the second round is being played
            field.play(game, openings[: 5 + 2 * i])
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM)
            url = server.url
            shoot(browser, f"{url}/tournaments", out, "screenshot-web-tournaments",
                  "#events-finished a")  # fmt: skip
            shoot(browser, f"{url}/t/{tid}", out, "screenshot-web-tournament-live",
                  "#ev-live a.watch", "#ev-progress")  # fmt: skip
            play_round(field, tid, 1)
            play_round(field, tid, 0)
            shoot(browser, f"{url}/t/{tid}", out, "screenshot-web-tournament-final",
                  "#status:has-text('Finished')", "#ev-progress")  # fmt: skip
            browser.close()
    finally:
        field.close()
        server.stop()


if __name__ == "__main__":
    main()
