"""Real browser pages for tests: Debian's chromium driven by Playwright (launched on the system
browser, never a downloaded one) against a real ``python -m server`` process."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.servers import free_port

ROOT = Path(__file__).resolve().parents[2]
#: Where Debian puts its chromium (``.ci/run`` installs it when missing).
CHROMIUM = os.environ.get("MNK_CHROMIUM", "/usr/bin/chromium")
#: How long a page may take to show what a test waits for (ms): generous, never slept.
WAIT_MS = 20_000


def chromium_path() -> str:
    """The system chromium, or a skip (a failure where CI requires its services)."""
    path = CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium")
    if path is None:
        if os.environ.get("MNK_REQUIRE_SERVICES"):
            pytest.fail("chromium is not installed (apt-get install chromium)")
        pytest.skip("chromium is not installed")
    return path


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless chromium per test module; each test opens its own contexts.

    Per module, not per session: Playwright's sync API keeps an event loop running in this
    thread while it is open, and pytest-asyncio cannot run the async tests of later modules
    beside it (a module using this fixture holds only sync tests)."""
    path = chromium_path()
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=path, args=["--no-sandbox"])
        try:
            yield chromium
        finally:
            chromium.close()


class WebServer:
    """``python -m server`` on a fixed port and database: its pages' URL, killable with -9."""

    def __init__(self, tmp: Path, *options: str, prelude: str = "") -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.db = str(tmp / "web.sqlite3")
        self.log = tmp / "server.log"
        self.options = options
        #: Python run in the server process before it starts (a test's change to what it says).
        self.prelude = prelude
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start the process and wait until it accepts connections."""
        run = (
            ["-c", f"{self.prelude}\nfrom server.cli import main\nmain()"]
            if self.prelude
            else ["-m", "server"]
        )
        command = [sys.executable, *run, "--port", str(self.port), "--db", self.db]
        command += ["--rate", "1000", "--hello-rate", "1000", "--hello-burst", "1000"]
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(
                [*command, *self.options], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + 60
        while True:
            assert self.proc.poll() is None, self.log.read_text()[-3000:]
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return
            except OSError:
                assert time.monotonic() < deadline, "the server did not start listening"
                time.sleep(0.05)

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs at all."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        """SIGTERM and wait (SIGKILL past ten seconds)."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def web_server(tmp_path: Path) -> Iterator[WebServer]:
    """The real server with a SQLite database and its built-in minimax bot."""
    server = WebServer(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


#: Run in every page before its own scripts: ``window.notices`` keeps each text the notice line
#: shows. A notice goes after 6 s, and a failed reconnect's "Could not connect" replaces one at
#: once: a busy machine's poll may miss it, this record does not (``said`` reads it).
NOTICES = """(() => {
  window.notices = [];
  const look = () => {
    const notice = document.getElementById("notice");
    if (!notice || notice.hidden || !notice.textContent) return;
    if (notice.textContent !== window.notices[window.notices.length - 1]) {
      window.notices.push(notice.textContent);
    }
  };
  const all = {subtree: true, childList: true, characterData: true, attributes: true};
  new MutationObserver(look).observe(document, all);
})();"""

#: Keeps in ``window[name]`` each new look of the element ``selector`` finds: its text, class,
#: inner HTML and whether it is disabled (``record``).
RECORD = """([name, selector]) => {
  const seen = (window[name] = []);
  const look = () => {
    const el = document.querySelector(selector);
    if (!el) return;
    const now = {text: el.textContent, cls: el.className, html: el.innerHTML};
    now.disabled = !!el.disabled;
    if (JSON.stringify(now) !== JSON.stringify(seen[seen.length - 1])) seen.push(now);
  };
  look();
  const all = {subtree: true, childList: true, characterData: true, attributes: true};
  new MutationObserver(look).observe(document.body, all);
}"""


def record(page: Any, name: str, selector: str) -> None:
    """From now on, keep every look of ``selector`` in ``window[name]``: a state a later push or
    timer replaces within a second or two is still seen by a test that polls late."""
    page.evaluate(RECORD, [name, selector])


def looks(page: Any, name: str) -> list[dict[str, Any]]:
    """Every look kept by ``record(page, name, ...)``: text, cls, html, disabled."""
    return list(page.evaluate("(name) => window[name]", name))


def wait_look(page: Any, name: str, pattern: str, timeout: float | None = None) -> None:
    """Wait until a look kept by ``record(page, name, ...)`` has a text that the regular
    expression ``pattern`` matches (now, or for a moment since ``record``)."""
    seen = "([name, pattern]) => window[name].some((look) => new RegExp(pattern).test(look.text))"
    page.wait_for_function(seen, arg=[name, pattern], timeout=timeout)


def said(page: Any, text: str) -> None:
    """Wait until the page's notice line has shown ``text`` (now, or for a moment since the
    page loaded: see ``NOTICES``)."""
    page.wait_for_function("(text) => window.notices.some((n) => n.includes(text))", arg=text)


def new_page(browser: Any, **options: Any) -> Any:
    """A page in a context of its own (its own localStorage: another player), failing the test
    on any script error; it keeps every notice it shows (``said``)."""
    context = browser.new_context(**options)
    context.set_default_timeout(WAIT_MS)
    context.add_init_script(NOTICES)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: _console(message, errors))
    page.script_errors = errors
    return page


def _console(message: Any, errors: list[str]) -> None:
    """Keep the console's errors (a CSP violation is one), but not a socket that failed while
    the server was down: that is what the page is meant to ride out."""
    text = message.text
    if message.type == "error" and "WebSocket connection to" not in text:
        errors.append(text)


def cell(page: Any, x: int, y: int) -> Any:
    """The board's button at column ``x``, row ``y`` (0-based from the top left)."""
    return page.locator(f'.cell[data-x="{x}"][data-y="{y}"]')


def stones(page: Any) -> list[tuple[int, int, str]]:
    """Every stone or mark on the page's board: (x, y, "black"|"white")."""
    found = page.eval_on_selector_all(
        ".cell[data-stone]",
        "cells => cells.map(c => [+c.dataset.x, +c.dataset.y, c.dataset.stone])",
    )
    return sorted((x, y, colour) for x, y, colour in found)


def wait_stones(page: Any, count: int) -> None:
    """Wait until the page's board shows ``count`` stones."""
    from playwright.sync_api import expect

    expect(page.locator(".cell[data-stone]")).to_have_count(count, timeout=WAIT_MS)


def wait_turn(page: Any) -> None:
    """Wait until it is the page's player's move."""
    page.wait_for_selector("#status:has-text('Your move')")


def account(page: Any, url: str, name: str, password: str, kind: str = "register") -> None:
    """Open the page's lobby and register (or log in) ``name`` through the top bar's dialog."""
    page.goto(url + "/")
    page.wait_for_selector("#net.online")
    submit(page, name, password, kind)
    page.wait_for_selector(f"#me-name:has-text('{name}')")
    page.wait_for_selector("#logout")


def submit(page: Any, name: str, password: str, kind: str) -> None:
    """Fill the account dialog and press Log in, or Register (the password typed twice)."""
    page.click("#login-open")
    if kind == "register":
        page.click("#do-register")
        page.fill("#acc-repeat", password)
    page.fill("#acc-name", name)
    page.fill("#acc-password", password)
    page.click("#do-submit")


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
