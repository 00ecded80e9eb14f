"""The browser's account forms in a real chromium against a real server process (issues 44.7
and 45.4): registration asks for the password twice, a logged-in page changes its password, a
forgotten one comes back with the operator's one-time code, and a guest calling itself by an
account's name is marked "(guest)" in the chat (the account's own lines are not)."""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path
from typing import Any

import pytest
from support.browser import WebServer, new_page, said

from server.admin import accounts_main

pytestmark = pytest.mark.slow

#: Where the screenshots of the forms go (looked at by whoever changes them).
SHOTS = Path(os.environ.get("MNK_SHOTS", "/tmp/shots"))


def shot(page: Any, name: str) -> None:
    """A screenshot of the page as it is now."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def test_register_twice_typed_change_and_reset_a_password(
    browser: Any, web_server: WebServer
) -> None:
    page = new_page(browser)
    page.goto(web_server.url + "/")
    page.wait_for_selector("#net.online")
    page.click("#login-open")
    page.click("#do-register")
    page.fill("#acc-name", "nora")
    page.fill("#acc-password", "a fine long secret")
    page.fill("#acc-repeat", "a fine long secrte")  # a typo: refused here, nothing sent
    page.click("#do-submit")
    page.wait_for_selector("#acc-error:has-text('The two passwords differ')")
    shot(page, "web-register-repeat")
    page.fill("#acc-repeat", "a fine long secret")
    page.click("#do-submit")
    page.wait_for_selector("#me-name:has-text('nora')")
    page.click("#password-open")  # change it
    page.fill("#acc-old", "not the password")
    page.fill("#acc-password", "a newer long secret")
    page.fill("#acc-repeat", "a newer long secret")
    page.click("#do-submit")
    page.wait_for_selector("#acc-error:has-text('Wrong current password')")
    shot(page, "web-change-password")
    page.fill("#acc-old", "a fine long secret")
    page.click("#do-submit")
    said(page, "Password changed")
    page.click("#logout")
    page.wait_for_selector("#login-open")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert accounts_main(["reset", "nora", "--db", web_server.db]) == 0
    code = out.getvalue().split("reset code for nora: ")[1].split()[0]
    page.click("#login-open")
    page.click("#acc-forgot")
    page.wait_for_selector("#acc-hint:has-text('mnk-server accounts reset')")
    page.fill("#acc-name", "nora")
    page.fill("#acc-code", code)
    page.fill("#acc-password", "remembered at last")
    page.fill("#acc-repeat", "remembered at last")
    shot(page, "web-forgot-password")
    page.click("#do-submit")
    page.wait_for_selector("#me-name:has-text('nora')")
    page.wait_for_selector("#logout")
    assert page.script_errors == []


def test_a_guest_using_an_accounts_name_is_marked_in_the_chat(
    browser: Any, web_server: WebServer
) -> None:
    owner, impostor = new_page(browser), new_page(browser)
    owner.goto(web_server.url + "/")
    owner.wait_for_selector("#net.online")
    owner.click("#login-open")
    owner.click("#do-register")
    owner.fill("#acc-name", "oscar")
    owner.fill("#acc-password", "a fine long secret")
    owner.fill("#acc-repeat", "a fine long secret")
    owner.click("#do-submit")
    owner.wait_for_selector("#me-name:has-text('oscar')")
    owner.select_option("#game", "gomoku")
    owner.click("#create")
    owner.wait_for_url("**/r/*")
    link = owner.input_value("#room-link")
    impostor.add_init_script("localStorage.setItem('mnk.name', 'oscar')")  # a guest named oscar
    impostor.goto(link)
    impostor.wait_for_selector("#net.online")
    owner.fill("#chat-input", "hello from the real one")
    owner.press("#chat-input", "Enter")
    impostor.wait_for_selector("#chat-log:has-text('hello from the real one')")
    impostor.fill("#chat-input", "it is me, oscar")
    impostor.press("#chat-input", "Enter")
    for page in (owner, impostor):
        page.wait_for_selector("#chat-log li:has-text('it is me') .guest:has-text('(guest)')")
        real = page.locator("#chat-log li:has-text('hello from the real one')")
        assert real.locator(".guest").count() == 0  # an account's name is never marked
    owner.wait_for_selector(".player .guest:has-text('(guest)')")  # and beside its seat
    shot(owner, "web-guest-marked-chat")
    assert owner.script_errors == impostor.script_errors == []
