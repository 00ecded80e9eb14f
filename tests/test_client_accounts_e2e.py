"""The pygame client's start screen against the real server: register, a refused login shown in
the form, log out, log in, and a restart that resumes the remembered session (no password)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pygame
import pytest
from support.app import RecordingNet, app_server  # noqa: F401 - app_server is a fixture
from support.client_shots import shoot

from client.app import App
from client.room import RoomState
from client.settings import Settings
from client.words import ERROR_WORDS

pytestmark = pytest.mark.slow
Ev = pygame.event.Event


class Client:
    """One client window (headless) with its own net thread and settings file."""

    def __init__(self, url: str, settings: Settings, name: str = "erin") -> None:
        pygame.font.init()
        remembered = settings.load(url)
        session = remembered.session if remembered is not None else None
        self.net = RecordingNet(url, remembered.name if remembered else name)
        self.net.state.session = session
        scene = "lobby" if remembered is not None else "login"
        self.app = App(
            self.net,
            name=name,
            size=(1100, 720),
            scene=scene,
            settings=settings,
            resuming=session is not None,
        )
        self.net.start()
        self.closed = False

    def close(self) -> None:
        """Close the net client once (its thread and connection)."""
        if not self.closed:
            self.closed = True
            self.net.close()

    def pump(self, until: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
        deadline = time.monotonic() + timeout
        while not (result := until()):
            self.app.step()
            assert time.monotonic() < deadline, f"timed out waiting for {what}"
            time.sleep(0.01)
        return result

    def submit(self, mode: str, name: str, password: str) -> None:
        auth = self.app.auth
        self.app.do_auth_mode(mode)
        auth.name.text, auth.password.text = name, password
        auth.repeat.text = password  # registering: typed twice
        self.app.do_auth_submit(None)
        self.pump(lambda: auth.pending is None, f"the answer to {mode}")
        self.app.step()

    def skip_without_accounts(self) -> None:
        if self.app.auth.error == ERROR_WORDS["unknown_type"]:
            pytest.skip("this server has no accounts yet (branch acc not merged)")


@pytest.fixture
def client_factory(app_server: str, tmp_path: Path) -> Iterator[Callable[[], Client]]:  # noqa: F811
    made: list[Client] = []
    settings_path = tmp_path / "client.json"

    def make() -> Client:
        client = Client(app_server, Settings(settings_path))
        made.append(client)
        client.pump(lambda: client.app.model.connection == "online", "online")
        return client

    yield make
    for client in made:
        client.close()


def test_register_log_out_log_in_and_resume(client_factory: Callable[[], Client]) -> None:
    c = client_factory()
    assert c.app.scene == "login"
    c.submit("register", "erin", "erin")
    c.skip_without_accounts()
    assert c.app.auth.error == ERROR_WORDS["weak_password"] and c.app.scene == "login"
    c.submit("register", "erin", "a decent passphrase")
    assert c.app.scene == "lobby" and c.app.model.account, c.app.auth.error
    remembered = c.app.settings.load(c.net.url)
    assert remembered is not None and remembered.mode == "account" and remembered.session
    assert "passphrase" not in Path(str(c.app.settings.path)).read_text()

    c.app.do_logout(None)
    c.pump(lambda: c.app.scene == "login" and not c.app.model.account, "logged_out")
    c.submit("login", "erin", "not the passphrase")
    assert c.app.auth.error == ERROR_WORDS["bad_login"]
    c.submit("login", "ERIN", "a decent passphrase")
    assert c.app.scene == "lobby" and c.app.model.account and c.app.model.name == "erin"
    c.close()

    again = client_factory()  # a restart: the remembered session logs in, no form, no password
    assert again.app.scene == "lobby"
    again.pump(lambda: again.app.model.account, "the resumed account")
    assert again.app.model.name == "erin"


def test_an_account_and_a_guest_in_one_room(client_factory: Callable[[], Client]) -> None:
    host = client_factory()
    host.submit("register", "fiona", "another fine passphrase")
    host.skip_without_accounts()
    assert host.app.model.account, host.app.auth.error
    host.app.settings.forget(host.net.url)  # the next window is someone else, as a guest
    host.app.do_form_opponent("human")
    host.app.do_create(None)
    room = host.pump(lambda: host.app.model.room, "the room")
    guest = client_factory()
    assert guest.app.scene == "login"
    guest.app.do_play_guest(None)
    guest.app.do_join(room.room)
    guest.pump(lambda: guest.app.model.room and guest.app.model.room.status == "playing", "start")
    for c in (host, guest):
        seen = c.pump(lambda c=c: c.app.model.room and c.app.model.room.players[1], "both seats")
        assert seen
        c.app.step()
        room = c.app.model.room
        assert room is not None and room.accounts is not None
        assert not room.guest(0) and room.guest(1), room.accounts  # fiona, then the guest
        assert c.app.hotspot("profile", "fiona") is not None  # her name opens her profile


def test_a_rated_game_moves_both_ratings(
    client_factory: Callable[[], Client], tmp_path: Path
) -> None:
    fiona = client_factory()
    fiona.submit("register", "fiona", "another fine passphrase")
    fiona.skip_without_accounts()
    fiona.app.settings.forget(fiona.net.url)  # the next window is another player
    app = fiona.app
    app.do_form_opponent("human")
    app.do_form_clock(1)  # 1+0: bullet
    app.do_form_rated(None)
    app.do_create(None)
    errors = lambda: [t.text for t in app.model.toasts if t.kind == "error"]  # noqa: E731
    room = fiona.pump(lambda: app.model.room or errors(), "the room")
    if not isinstance(room, RoomState) or not room.rated:
        pytest.skip(f"this server does not rate games yet (branch rate not merged): {room!r}"[:400])
    assert room.pool == "gomoku-bullet"

    outsider = client_factory()  # a guest may not sit in a rated room
    outsider.app.do_play_guest(None)
    outsider.app.do_join(room.room)
    words = ERROR_WORDS["rated_needs_account"]
    outsider.pump(lambda: any(t.text == words for t in outsider.app.model.toasts), "refusal")
    outsider.close()

    gina = client_factory()
    gina.submit("register", "gina", "yet another passphrase")
    gina.app.do_join(room.room)
    gina.pump(lambda: gina.app.model.room and gina.app.model.room.status == "playing", "start")
    fiona.pump(lambda: app.model.room and app.model.room.status == "playing", "start")
    for ply, cell in enumerate([(7, 7), (8, 8)]):  # a game of fewer than two moves is not rated
        mover = (fiona, gina)[0 if app.model.room.seat == ply % 2 else 1]  # type: ignore[union-attr]
        mover.pump(lambda m=mover: m.app.model.room and m.app.model.room.my_turn, "our turn")
        mover.app.play(cell)
        for c in (fiona, gina):
            c.pump(lambda c=c, n=ply + 1: c.app.model.room and c.app.model.room.ply == n, "moved")
    app.do_resign(None)
    app.do_resign(None)  # confirmed
    for c in (fiona, gina):
        c.pump(lambda c=c: c.app.model.room and c.app.model.room.changes, "the rating changes")
    changes = {c.seat: c for c in gina.app.model.room.changes}  # type: ignore[union-attr]
    assert changes[0].delta < 0 < changes[1].delta  # fiona resigned, gina won
    assert gina.app.model.ratings["gomoku-bullet"].rating == changes[1].after
    shot = shoot(gina.app, tmp_path / "rated-real.png", now=time.monotonic())
    assert shot.shows(f"+{changes[1].delta}") and shot.shows("fiona resigned, gina wins")
    gina.app.do_profile("fiona")
    prof = gina.pump(lambda: gina.app.model.profile, "fiona's profile")
    assert prof.ratings["gomoku-bullet"].rating == changes[0].after
    assert prof.record.lost == 1 and prof.games
    shot = shoot(gina.app, tmp_path / "profile-real.png", now=time.monotonic())
    assert shot.shows("Gomoku bullet") and not shot.clipped, shot.clipped
    gina.app.do_leaderboard()
    gina.app.do_board_speed("bullet")
    board = gina.pump(lambda: gina.app.shown_board(), "the leaderboard on screen")
    assert board.pool == "gomoku-bullet"
    # one game leaves RD far above the board's 75: both listed, provisional, marked "?"
    assert [(p.name, p.provisional) for p in board.players] == [("gina", True), ("fiona", True)]
    assert shoot(gina.app, tmp_path / "board-real.png").shows(f"{changes[1].after}?")
