"""The pygame client's accounts and ratings, headless against the wire spec: the start screen
(log in, register, guest, remembered), errors in the form, ratings and guest marks, the rated
toggle, the rating change, the leaderboard and profiles, and the remembered settings file."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import json
import stat
from pathlib import Path
from typing import Any

import pygame
import pytest
from support.client_accounts import (
    ONLINE,
    leaderboard,
    logged_in,
    profile,
    rated_game_over,
    rated_state,
    welcome,
)
from support.fakenet import FakeNet
from support.samples import state_message

from client.app import ANY, App
from client.cli import start_choice
from client.net import NetClient
from client.settings import Remembered, Settings
from client.words import ERROR_WORDS

Ev = pygame.event.Event
URL = FakeNet.url
SPEC_ERRORS = [
    "bad_login",
    "name_taken",
    "weak_password",
    "long_password",
    "too_many_logins",
    "too_many_registrations",
    "account_disabled",
    "in_game",
    "busy",
    "rated_needs_account",
    "rated_needs_clock",
    "unrated_game",
    "rated_position",
    "unknown_pool",
    "bad_page",
]


def key(k: int) -> Ev:
    return Ev(pygame.KEYDOWN, key=k, mod=0, unicode="", scancode=0)


def typed(text: str) -> Ev:
    return Ev(pygame.TEXTINPUT, text=text)


def click(a: App, action: str, arg: Any = ANY) -> None:
    spot = a.hotspot(action, arg)
    assert spot is not None, f"no {action} {arg!r} on screen ({a.scene})"
    pos = spot.rect.center
    a.step(
        [
            Ev(pygame.MOUSEMOTION, pos=pos, rel=(0, 0), buttons=(0, 0, 0)),
            Ev(pygame.MOUSEBUTTONDOWN, pos=pos, button=1),
        ]
    )


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(tmp_path / "conf" / "client.json")


def start(settings: Settings, *inbox: dict, scene: str = "login", **kw: Any) -> tuple[App, FakeNet]:
    pygame.font.init()
    net = FakeNet([ONLINE, *inbox])
    a = App(net, name="alice", size=(1200, 680), scene=scene, settings=settings, **kw)
    a.step()
    return a, net


def test_every_spec_error_has_words() -> None:
    for code in SPEC_ERRORS:
        assert code in ERROR_WORDS, code


def test_log_in_from_the_start_screen_remembers_the_session_not_the_password(
    settings: Settings,
) -> None:
    a, net = start(settings, welcome())
    assert a.scene == "login" and a.auth.name.text == "alice"
    click(a, "focus_auth_password")
    a.step([typed("correct horse"), key(pygame.K_RETURN)])
    sent = net.sent[-1]
    assert sent["type"] == "login" and sent["name"] == "alice"
    assert sent["password"] == "correct horse"
    assert a.scene == "login" and a.auth.pending == sent["id"]
    net.inbox.append(logged_in(rid=sent["id"]))
    a.step()
    assert a.scene == "lobby" and a.model.account and a.auth.password.text == ""
    assert a.model.ratings["gomoku-blitz"].rating == 1523
    assert net.asked("list_rooms") == 2  # the lobby asked for afresh as the account
    raw = settings.path.read_text()  # type: ignore[union-attr]
    assert "correct horse" not in raw
    assert json.loads(raw)["servers"][URL] == {
        "mode": "account",
        "name": "alice",
        "session": "T_dev",
    }
    assert stat.S_IMODE(os.stat(settings.path).st_mode) == 0o600  # type: ignore[arg-type]
    assert Settings(settings.path).load(URL) == Remembered("account", "alice", "T_dev")


@pytest.mark.parametrize(
    ("code", "focus"),
    [
        ("bad_login", "auth_password"),
        ("too_many_logins", None),
        ("account_disabled", None),
        ("in_game", None),
        ("busy", None),
    ],
)
def test_a_refused_login_says_why_in_the_form(
    settings: Settings, code: str, focus: str | None
) -> None:
    a, net = start(settings, welcome())
    a.auth.name.text, a.auth.password.text = "alice", "wrong password"
    click(a, "auth_submit")
    rid = net.sent[-1]["id"]
    net.inbox.append({"type": "error", "id": rid, "code": code, "message": "no"})
    a.step()
    assert a.scene == "login" and a.auth.error == ERROR_WORDS[code]
    assert not a.model.toasts  # in the form, not a toast as well
    assert a.auth.pending is None and a.focus == focus
    assert (a.auth.password.text == "") == (code == "bad_login")
    assert settings.load(URL) is None


def test_a_login_cut_off_by_a_dropped_link_can_be_sent_again(settings: Settings) -> None:
    a, net = start(settings, welcome())
    a.auth.password.text = "correct horse"
    click(a, "auth_submit")
    assert a.hotspot("auth_submit") is None  # sent: the button waits for the answer
    net.inbox.append({"type": "_net", "status": "offline", "detail": "lost"})
    a.step()
    assert a.auth.pending is None and "dropped" in a.auth.error
    net.inbox += [ONLINE, welcome()]
    a.step()
    click(a, "auth_submit")
    assert net.asked("login") == 2


def test_register_errors_and_success(settings: Settings) -> None:
    a, net = start(settings, welcome())
    click(a, "auth_mode", "register")
    a.auth.name.text, a.auth.password.text, a.auth.repeat.text = "Alice", "password", "password"
    a.step([key(pygame.K_RETURN)])
    assert net.sent[-1] | {"id": 0} == {
        "type": "register",
        "name": "Alice",
        "password": "password",
        "id": 0,
    }
    net.inbox.append({"type": "error", "id": net.sent[-1]["id"], "code": "weak_password"})
    a.step()
    assert "too weak" in a.auth.error and a.auth.password.text == ""
    a.auth.password.text = a.auth.repeat.text = "a much better one"
    click(a, "auth_submit")
    net.inbox.append({"type": "error", "id": net.sent[-1]["id"], "code": "name_taken"})
    a.step()
    assert "taken" in a.auth.error and a.focus == "auth_name"
    a.auth.name.text = "alice2"
    click(a, "auth_submit")
    net.inbox.append(logged_in("alice2", net.sent[-1]["id"]))
    a.step()
    assert a.scene == "lobby" and a.model.name == "alice2" and a.auth.error == ""


def test_empty_boxes_are_not_sent(settings: Settings) -> None:
    a, net = start(settings, welcome())
    a.auth.name.text = ""
    click(a, "auth_submit")
    assert "login" not in net.types() and a.auth.error and a.focus == "auth_name"
    a.step([typed("bob"), key(pygame.K_TAB), key(pygame.K_RETURN)])
    assert a.auth.name.text == "bob" and "password" in a.auth.error
    assert "login" not in net.types()


def test_play_as_a_guest_is_remembered(settings: Settings) -> None:
    a, _net = start(settings, welcome())
    click(a, "play_guest")
    assert a.scene == "lobby" and not a.model.account
    assert settings.load(URL) == Remembered("guest", "alice")
    assert "session" not in json.loads(settings.path.read_text())["servers"][URL]  # type: ignore[union-attr]


def test_not_remembering_leaves_no_trace(settings: Settings) -> None:
    a, net = start(settings, welcome())
    click(a, "auth_remember")
    a.auth.password.text = "correct horse"
    click(a, "auth_submit")
    net.inbox.append(logged_in(rid=net.sent[-1]["id"]))
    a.step()
    assert a.model.account and not settings.path.exists()  # type: ignore[union-attr]


def test_a_remembered_session_that_no_longer_resumes_asks_again(settings: Settings) -> None:
    settings.save(URL, Remembered("account", "alice", "T_old"))
    a, _ = start(settings, welcome(account=False), scene="lobby", resuming=True)
    assert a.scene == "login" and "no longer valid" in a.auth.error
    assert settings.load(URL) is None


def test_a_resumed_account_stays_in_the_lobby(settings: Settings) -> None:
    settings.save(URL, Remembered("account", "alice", "T_old"))
    a, _ = start(settings, welcome(account=True), scene="lobby", resuming=True)
    assert a.scene == "lobby" and a.model.account
    assert settings.load(URL) == Remembered("account", "alice", "S_alice")  # the new token


def test_log_out_and_in_from_the_header(settings: Settings) -> None:
    a, net = start(settings, welcome(), scene="lobby")
    click(a, "show_login")
    assert a.scene == "login" and a.hotspot("leaderboard") is None
    a.step([key(pygame.K_ESCAPE)])  # changed my mind: back to the lobby, still a guest
    assert a.scene == "lobby" and a.confirm is None
    click(a, "show_login")
    a.auth.password.text = "correct horse"
    click(a, "auth_submit")
    net.inbox.append(logged_in(rid=net.sent[-1]["id"]))
    a.step()
    click(a, "logout")
    assert net.sent[-1]["type"] == "logout" and settings.load(URL) is None
    net.inbox.append({"type": "logged_out", "player": "p_g2", "session": "G2", "name": "alice"})
    a.step()
    assert a.scene == "login" and not a.model.account and a.model.session == "G2"


def test_ratings_and_guest_marks_beside_names(settings: Settings) -> None:
    state = state_message(
        "tictactoe",
        players=["alice", "bob"],
        accounts=[True, False],
        ratings=[{"rating": 1500, "rd": 350, "provisional": True}, None],
    )
    a, net = start(
        settings,
        welcome(account=True),
        {"type": "joined", "room": "r1", "seat": 0},
        state,
        scene="lobby",
    )
    assert a.scene == "room"
    room = a.model.room
    assert room is not None and room.guest(1) and not room.guest(0)
    assert room.ratings[0] is not None and room.ratings[0].label == "1500?"
    assert a.hotspot("profile", "alice") is not None  # an account's name opens its profile
    assert a.hotspot("profile", "bob") is None  # a guest has none to open
    rows = {
        "type": "rooms",
        "rooms": [
            {
                "room": "x",
                "game": "gomoku",
                "status": "waiting",
                "players": ["bob", None],
                "spectators": 0,
                "accounts": [False, False],
                "rated": False,
            },
        ],
    }
    net.inbox.append(rows)
    a.step()
    assert a.model.lobby[0].shown_name(0) == "bob (guest)"


def test_the_rating_change_of_a_rated_game(settings: Settings) -> None:
    playing = rated_state(status="playing", result=None, to_move=0, moves=[], ply=0)
    a, net = start(
        settings,
        welcome(account=True),
        {"type": "joined", "room": "k7m2qx", "seat": 0},
        playing,
        scene="lobby",
    )
    room = a.model.room
    assert room is not None and room.rated and room.pool == "gomoku-blitz" and not room.changes
    net.inbox.append(rated_game_over())
    a.step()
    room = a.model.room
    assert room is not None
    assert [(c.seat, c.before, c.after, c.delta) for c in room.changes] == [
        (0, 1523, 1541, 18),
        (1, 1610, 1592, -18),
    ]
    assert "1523 \u2192 1541 (+18)" in room.chat[-1].text
    assert a.model.ratings["gomoku-blitz"].rating == 1541  # our own, for the next game's form
    net.inbox.append(rated_state())  # a fresh state of the same game keeps what game_over said
    a.step()
    assert a.model.room is not None and len(a.model.room.changes) == 2


def test_the_rated_toggle(settings: Settings) -> None:
    a, net = start(settings, welcome(), scene="lobby")
    assert a.hotspot("form_rated") is None  # greyed for a guest
    net.inbox.append(logged_in())
    a.step()
    click(a, "form_clock", 0)
    click(a, "form_rated")
    assert a.form.rated and a.form.clock != 0  # rated needs a clock: one is picked
    click(a, "create")
    sent = net.sent[-1]
    assert sent["type"] == "create_room" and sent["rated"] is True and "clock" in sent
    click(a, "form_clock", 0)
    assert not a.form.rated
    click(a, "create")
    assert "rated" not in net.sent[-1]
    click(a, "form_game", "mnk")
    assert a.hotspot("form_rated") is None  # custom boards are casual only


def test_leaderboard_and_profile(settings: Settings) -> None:
    a, net = start(settings, welcome(account=True), scene="lobby")
    click(a, "profile", "alice")  # an account's own name in the top bar: its profile
    assert a.scene == "profile" and net.sent[-1]["name"] == "alice"
    a.step([key(pygame.K_ESCAPE)])
    click(a, "leaderboard")
    assert a.scene == "leaderboard"
    assert net.sent[-1] | {"id": 0} == {
        "type": "leaderboard",
        "pool": "gomoku-blitz",
        "bots": False,
        "page": 0,
        "id": 0,
    }
    net.inbox.append(leaderboard())
    a.step()
    click(a, "board_speed", "rapid")
    assert net.sent[-1]["pool"] == "gomoku-rapid"
    click(a, "board_bots", True)
    assert net.sent[-1]["bots"] is True and net.sent[-1]["pool"] == "gomoku-rapid"
    net.inbox.append(leaderboard("gomoku-rapid", True))
    a.step()
    a.step([Ev(pygame.MOUSEWHEEL, x=0, y=-3, flipped=False)])
    assert a.board_scroll == 3 and a.hotspot("profile", "carol") is None  # scrolled off
    a.step([Ev(pygame.MOUSEWHEEL, x=0, y=3, flipped=False)])
    click(a, "profile", "carol")
    assert a.scene == "profile" and net.sent[-1] | {"id": 0} == {
        "type": "profile",
        "name": "carol",
        "id": 0,
    }
    net.inbox.append(profile())
    a.step()
    prof = a.model.profile
    assert prof is not None and prof.record.played == 236 and len(prof.games) == 8
    assert prof.ratings["renju-rapid"].label == "1500?"
    assert a.hotspot("profile_newer") is None  # the newest page
    click(a, "profile_older")
    last = profile()["games"]["games"][-1]
    assert net.sent[-1] | {"id": 0} == {
        "type": "profile",
        "name": "carol",
        "before": last["ended_at"],
        "before_id": last["game_id"],
        "id": 0,
    }
    net.inbox.append(profile())
    a.step()
    click(a, "profile_newer")
    assert net.sent[-1] | {"id": 0} == {"type": "profile", "name": "carol", "id": 0}
    click(a, "profile_pool", "tictactoe-bullet")
    assert a.profile_pool == "tictactoe-bullet"
    click(a, "replay", "g_3")
    assert net.sent[-1]["type"] == "get_game" and net.sent[-1]["game_id"] == "g_3"
    a.step([key(pygame.K_ESCAPE)])
    assert a.scene == "lobby"


def test_a_profile_without_an_account_is_just_empty(settings: Settings) -> None:
    a, net = start(settings, welcome(account=True), scene="lobby")
    a.do_profile("nobody")
    net.inbox.append(
        {
            "type": "profile",
            "name": "nobody",
            "bot": False,
            "ratings": {},
            "record": {},
            "history": {},
            "games": {"games": [], "more": False},
        }
    )
    a.step()
    assert a.model.profile is not None and a.model.profile.empty


def test_the_net_client_resumes_whom_the_last_login_made_us() -> None:
    net = NetClient("ws://127.0.0.1:9", "alice", session="S_remembered")
    assert net.session == "S_remembered"
    net._deliver(logged_in(session="T_new"))
    assert net.session == "T_new" and net.poll()[0]["type"] == "logged_in"
    net._deliver({"type": "logged_out", "player": "p", "session": "G", "name": "alice"})
    assert net.session == "G"


def test_what_the_command_line_starts_with(settings: Settings) -> None:
    assert start_choice(settings, URL, "alice") == ("alice", None, "login")
    assert start_choice(settings, URL, "alice", ask=False) == ("alice", None, "lobby")
    settings.save(URL, Remembered("guest", "al"))
    assert start_choice(settings, URL, "alice") == ("al", None, "lobby")
    settings.save(URL, Remembered("account", "Alice", "T"))
    assert start_choice(settings, URL, "alice") == ("Alice", "T", "lobby")
    assert start_choice(settings, "ws://elsewhere:1", "alice") == ("alice", None, "login")


def test_a_damaged_settings_file_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "client.json"
    path.write_text("{not json")
    s = Settings(path)
    assert s.load(URL) is None
    s.save(URL, Remembered("guest", "zoe"))
    assert Settings(path).load(URL) == Remembered("guest", "zoe")
    s.forget(URL)
    assert Settings(path).load(URL) is None


def test_a_late_leaderboard_reply_does_not_replace_the_board_on_screen(settings: Settings) -> None:
    a, net = start(settings, welcome(account=True), scene="lobby")
    click(a, "leaderboard")  # asks gomoku-blitz
    click(a, "board_speed", "rapid")  # then gomoku-rapid
    net.inbox.append(leaderboard("gomoku-rapid", False))  # answered first (off the loop)
    a.step()
    net.inbox.append(leaderboard())  # the blitz page arrives late
    a.step()
    shown = a.shown_board()
    assert shown is not None and shown.pool == "gomoku-rapid"
    assert a.hotspot("profile", "carol") is not None  # its rows are the ones drawn


def test_registration_asks_for_the_password_twice(settings: Settings) -> None:
    a, net = start(settings, welcome())
    click(a, "auth_mode", "register")
    a.auth.name.text, a.auth.password.text = "alice2", "a much better one"
    click(a, "focus_auth", "auth_repeat")
    a.step([typed("a much better on")])  # a typo
    a.step([key(pygame.K_RETURN)])
    assert "register" not in net.types() and "differ" in a.auth.error
    assert a.focus == "auth_repeat"
    a.step([typed("e")])
    a.step([key(pygame.K_TAB)])  # Tab goes round the mode's boxes
    assert a.focus == "auth_name"
    click(a, "auth_submit")
    assert net.sent[-1]["type"] == "register" and net.sent[-1]["password"] == "a much better one"


def test_a_logged_in_player_changes_the_password(settings: Settings) -> None:
    a, net = start(settings, welcome(account=True), scene="lobby")
    click(a, "change_password")
    assert a.scene == "login" and a.auth.mode == "change" and a.focus == "auth_old"
    a.step([typed("the old one")])
    a.step([key(pygame.K_TAB)])
    a.step([typed("a brand new one")])
    a.step([key(pygame.K_TAB)])
    a.step([typed("a brand new one")])
    a.step([key(pygame.K_RETURN)])
    sent = net.sent[-1]
    assert sent | {"id": 0} == {"type": "change_password", "old": "the old one",
                                "new": "a brand new one", "id": 0}  # fmt: skip
    net.inbox.append({"type": "error", "id": sent["id"], "code": "bad_login"})
    a.step()
    assert a.auth.error == "Wrong current password." and a.focus == "auth_old"
    a.auth.old.text = "the right one"
    click(a, "auth_submit")
    net.inbox.append({"type": "password_changed", "id": net.sent[-1]["id"]})
    a.step()
    assert a.scene == "lobby" and not a.auth.password.text and not a.auth.old.text
    assert any("Password changed" in t.text for t in a.model.toasts)


def test_a_forgotten_password_is_reset_with_the_operators_code(settings: Settings) -> None:
    a, net = start(settings, welcome())
    click(a, "auth_mode", "reset")
    assert a.auth.mode == "reset"
    a.auth.name.text = "alice"
    click(a, "focus_auth", "auth_code")
    a.step([typed("k7pq2m")])
    for text in ("new secret!", "new secret!"):  # the new password, twice
        a.step([key(pygame.K_TAB)])
        a.step([typed(text)])
    click(a, "auth_submit")
    want = {"type": "reset_password", "name": "alice", "code": "k7pq2m", "new": "new secret!"}
    assert net.sent[-1] | {"id": 0} == want | {"id": 0}
    net.inbox.append({"type": "error", "id": net.sent[-1]["id"], "code": "bad_login"})
    a.step()
    assert "reset code" in a.auth.error and a.focus == "auth_code"
    click(a, "auth_submit")
    net.inbox.append(logged_in("alice", net.sent[-1]["id"]))
    a.step()
    assert a.scene == "lobby" and not a.auth.code.text and not a.auth.password.text
