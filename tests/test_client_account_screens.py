"""The account and rating views drawn from sample messages (MNK_SCREENSHOTS=1 copies them into
docs/ for the README): each must show what it is for, with the texts that matter uncut."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pygame
import pytest
from support.client_accounts import (
    ONLINE,
    leaderboard,
    profile,
    rated_game_over,
    rated_state,
    rating,
    welcome,
)
from support.client_shots import shoot
from support.fakenet import FakeNet
from support.samples import state_message

from client.app import App
from client.settings import Settings

SIZE = (1200, 680)
#: Where the account forms' screenshots are copied for a look (the web tests' place too).
SHOTS = os.environ.get("MNK_SHOTS", "/tmp/shots")
ROOMS = {
    "type": "rooms",
    "rooms": [
        {
            "room": "k7m2qx",
            "game": "gomoku",
            "status": "waiting",
            "players": ["bob", None],
            "spectators": 0,
            "accounts": [False, False],
        },
        {
            "room": "p3wz9d",
            "game": "renju",
            "status": "playing",
            "players": ["carol", "minimax"],
            "spectators": 2,
            "accounts": [True, True],
            "rated": True,
        },
        {
            "room": "h8tq4e",
            "game": "tictactoe",
            "status": "playing",
            "players": ["dave", "erin"],
            "spectators": 0,
            "accounts": [True, False],
        },
    ],
}


def app_with(*inbox: dict, scene: str = "lobby", size: tuple[int, int] = SIZE) -> App:
    pygame.font.init()
    a = App(FakeNet([ONLINE, *inbox]), name="alice", size=size, scene=scene, settings=Settings())
    a.step(now=1000.0)
    return a


@pytest.mark.parametrize("size", [SIZE, (900, 600)])
def test_the_start_screen(tmp_path: Path, size: tuple[int, int]) -> None:
    a = app_with(welcome(), scene="login", size=size)
    a.auth.password.text = "hunter2"
    a.auth.error = "Wrong name or password."
    a.focus = "auth_password"
    docs = "screenshot-login.png" if size == SIZE else None
    shot = shoot(a, tmp_path / "login.png", docs)
    for text in ("Welcome to mnk-arena", "Log in  (Enter)", "Wrong name or password."):
        assert shot.shows(text), text
    assert shot.shows("Play as a guest (alice, unrated)") and shot.shows("Remember me")
    assert "hunter2" not in " ".join(shot.texts)  # the password shows as dots
    assert not shot.clipped, shot.clipped
    a.auth.mode, a.auth.error = "register", "That name is taken: pick another."
    shot = shoot(a, tmp_path / "register.png")
    assert shot.shows("Create account") and shot.shows("8 to 128 characters")
    assert shot.shows("Repeat password")
    assert not shot.clipped, shot.clipped
    a.auth.mode, a.auth.error = (
        "reset",
        "Wrong name or reset code (a code works once, for 24 hours).",
    )
    a.auth.name.text, a.auth.code.text = "alice", "k7pq2mz9"
    shot = shoot(a, tmp_path / "reset.png")
    assert shot.shows("Forgot your password?") and shot.shows("Reset code")
    assert shot.shows("Set the new password") and shot.shows("Back to log in")
    assert shot.shows("k7pq2mz9")  # a code is not a secret once spent: shown as typed
    assert not shot.clipped, shot.clipped
    a.auth.mode, a.auth.error = "change", ""
    shot = shoot(a, tmp_path / "change.png")
    assert shot.shows("Change your password") and shot.shows("Current password")
    assert not shot.shows("Play as a guest") and shot.shows("Cancel  (Esc)")
    if size == SIZE:
        for name in ("register", "reset", "change"):
            Path(SHOTS).mkdir(parents=True, exist_ok=True)
            shutil.copy(tmp_path / f"{name}.png", Path(SHOTS) / f"pygame-{name}.png")


def test_the_rated_preview_names_the_pool_the_server_says(tmp_path: Path) -> None:
    # a server that rates 3+2 gomoku as rapid: the client shows that, it computes no pool
    hello = welcome(account=True, gomoku_blitz=rating(1523), gomoku_rapid=rating(1711))
    hello["rating_pools"] = {"180+2": {"gomoku": "gomoku-rapid"}}
    a = app_with(hello)
    a.do_form_rated(None)
    shot = shoot(a, tmp_path / "preview.png")
    assert shot.shows("rated: Gomoku rapid, you 1711"), shot.texts
    a.form.clock = 1  # 1+0: the server named no pool for it, so none is guessed
    shot = shoot(a, tmp_path / "preview-unnamed.png")
    assert not any("Gomoku bullet" in t for t in shot.texts)


def test_the_lobby_marks_guests_and_offers_rated_games(tmp_path: Path) -> None:
    a = app_with(welcome(account=True, gomoku_blitz=rating(1523, 80, games=30)), ROOMS)
    a.do_form_rated(None)
    a.do_lobby_tab("rooms")
    shot = shoot(a, tmp_path / "lobby.png")
    assert shot.shows("bob (guest) vs") and shot.shows("dave vs erin (guest)")
    assert shot.shows("Renju · rated") and shot.shows("rated: Gomoku blitz, you 1523")
    assert shot.shows("Log out") and shot.shows("Leaderboard")
    guest = app_with(welcome(), ROOMS)
    shot = shoot(guest, tmp_path / "lobby-guest.png")
    assert shot.shows("(guest)") and shot.shows("Log in")
    assert shot.shows("rated games need an account (log in)")
    assert guest.hotspot("form_rated") is None


@pytest.mark.parametrize("size", [SIZE, (900, 600)])
def test_the_end_of_a_rated_game(tmp_path: Path, size: tuple[int, int]) -> None:
    playing = rated_state(status="playing", result=None, to_move=1, moves=[], ply=0)
    joined = {"type": "joined", "room": "k7m2qx", "seat": 0}
    a = app_with(welcome(account=True), joined, playing, size=size)
    a.net.inbox += [rated_state(), rated_game_over()]  # type: ignore[attr-defined]
    shot = shoot(a, tmp_path / "rated.png", "screenshot-rated.png" if size == SIZE else None)
    you = "alice (you)" if size == SIZE else "alice"  # a narrow panel keeps the rating instead
    assert shot.shows(you) and shot.shows("1541") and shot.shows("+18")
    assert shot.shows("\u221218") and shot.shows("rated Gomoku blitz")
    assert shot.shows("Rated game: alice 1523 \u2192 1541 (+18)")
    assert not [t for t in shot.clipped if t.startswith(("alice", "minimax"))], shot.clipped


def test_the_leaderboard(tmp_path: Path) -> None:
    a = app_with(welcome(account=True))
    a.do_leaderboard()
    a.net.inbox.append(leaderboard())  # type: ignore[attr-defined]
    shot = shoot(a, tmp_path / "leaderboard.png", "screenshot-leaderboard.png")
    assert shot.shows("LEADERBOARD") and shot.shows("minimax") and shot.shows("2100")
    assert shot.shows("(scroll)") and shot.shows("page 1")
    assert not shot.clipped, shot.clipped
    a.do_board_game("renju")
    shot = shoot(a, tmp_path / "leaderboard-loading.png")
    assert shot.shows("Loading the Renju blitz leaderboard")


def test_the_profile(tmp_path: Path) -> None:
    a = app_with(welcome(account=True))
    a.do_profile("carol")
    a.net.inbox.append(profile())  # type: ignore[attr-defined]
    shot = shoot(a, tmp_path / "profile.png", "screenshot-profile.png")
    for text in ("carol", "236 games · 140 won · 20 drawn · 76 lost", "1500?", "2063"):
        assert shot.shows(text), text
    assert shot.shows("RATING HISTORY · GOMOKU BLITZ") and shot.shows("2026-11-26")
    assert shot.shows("Replay \u203a")
    assert not shot.clipped, shot.clipped


def test_a_guest_using_an_accounts_name_is_marked_in_the_chat(tmp_path: Path) -> None:
    chat = [
        {"from": "alice", "seat": 0, "text": "hello from the real one", "account": True},
        {"from": "alice", "seat": None, "text": "it is me, alice", "account": False},
    ]
    state = state_message("gomoku", accounts=[True, False], chat=chat)
    a = app_with(welcome(account=True), {"type": "joined", "room": "r1", "seat": 0}, state)
    a.net.inbox.append(  # type: ignore[attr-defined]
        {"type": "chat", "room": "r1", "from": "bob", "seat": 1, "text": "gg", "account": False}
    )
    shot = shoot(a, tmp_path / "chat.png")
    assert shot.shows("alice: hello from the real one")  # an account's name: never marked
    assert shot.shows("alice (guest): it is me, alice") and shot.shows("bob (guest): gg")
    Path(SHOTS).mkdir(parents=True, exist_ok=True)
    shutil.copy(tmp_path / "chat.png", Path(SHOTS) / "pygame-guest-chat.png")
