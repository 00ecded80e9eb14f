"""The pygame client's game actions: the opponent's offer with Accept / Decline, the Offer draw
/ Takeback / Abort buttons, the first-move countdown and a claim, each drawn to a PNG (kept in
``MNK_ACTION_SHOTS`` when set, to look at) and checked for what it must show and send."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from pathlib import Path
from typing import Any

import pygame
from support.fakenet import FakeNet
from support.samples import state_message

from client import theme
from client.app import App

NOW = 1000.0
WELCOME = {"type": "welcome", "player": "p_a", "session": "S", "name": "alice"}
CLOCK = {"initial_s": 180.0, "increment_s": 2.0, "move_s": None}
ACTIONS = {"offers": [], "start_ply": 0, "first_move_s": 25.0, "claim_s": 30.0}


def shoot(app: App, path: Path, now: float = NOW) -> list[str]:
    """Draw one frame and save it as a PNG; the texts drawn."""
    shown: list[str] = []
    real = theme.text

    def spy(surface: Any, text: str, *args: Any, **kw: Any) -> Any:
        shown.append(text)
        return real(surface, text, *args, **kw)

    theme.text = spy  # type: ignore[assignment]
    try:
        app.step([], now=now, lazy=False)
    finally:
        theme.text = real  # type: ignore[assignment]
    keep = os.environ.get("MNK_ACTION_SHOTS")
    pygame.image.save(app.surface, str(Path(keep) / path.name if keep else path))
    return shown


def room_app(moves: list[list[int]], to_move: int, **actions: Any) -> tuple[App, FakeNet]:
    """Alice (seat 0) against bob in a timed gomoku game with ``moves`` played."""
    state = state_message(
        "gomoku",
        room="k7m2qx",
        moves=moves,
        ply=len(moves),
        to_move=to_move,
        clock=CLOCK,
        clocks=[171.2, 176.5],
        clock_running=to_move,
        actions={**ACTIONS, **actions},
    )
    net = FakeNet([WELCOME, {"type": "joined", "room": "k7m2qx", "seat": 0}, state])
    app = App(net, name="alice", size=(1200, 680))
    app.step(now=NOW)
    return app, net


def clickable(app: App) -> set[tuple[str, Any]]:
    """The (action, argument) of every enabled button of the last frame."""
    return {(h.action, h.arg) for h in app.frame.hotspots}


def test_the_first_move_countdown_and_abort(tmp_path: Path) -> None:
    pygame.font.init()
    app, net = room_app([], 0, first_move_left=18.0, abort=True)
    shown = shoot(app, tmp_path / "actions-first-move.png")
    assert "Your first move: 18 s, then the game is aborted" in shown
    shown = shoot(app, tmp_path / "actions-first-move-later.png", NOW + 10)
    assert "Your first move: 8 s, then the game is aborted" in shown
    assert ("abort", None) in clickable(app) and ("offer", "draw") not in clickable(app)
    app.act("abort", None)
    assert net.sent[-1] == {"type": "abort", "room": "k7m2qx", "id": net.sent[-1]["id"]}


def test_abort_is_offered_only_when_the_server_says_so(tmp_path: Path) -> None:
    """No move yet, but the server says no abort (a tournament's game, say): none; a ``moved``
    saying it may be aborted: Abort, and one saying not: none (the client counts no moves)."""
    pygame.font.init()
    app, _net = room_app([], 0, abort=False)
    shoot(app, tmp_path / "actions-no-abort.png")
    assert ("abort", None) not in clickable(app)
    moved = {"type": "moved", "room": "k7m2qx", "seat": 0, "ply": 0, "x": 7, "y": 7}
    app.model.apply({**moved, "abort": True}, NOW)
    shoot(app, tmp_path / "actions-abort-said.png")
    assert ("abort", None) in clickable(app)
    app.model.apply({**moved, "seat": 1, "ply": 1, "x": 8, "y": 8, "abort": False}, NOW)
    shoot(app, tmp_path / "actions-abort-gone.png")
    assert ("abort", None) not in clickable(app)


def test_the_opponents_draw_offer_with_accept_and_decline(tmp_path: Path) -> None:
    pygame.font.init()
    moves = [[7, 7], [8, 8], [7, 8], [9, 9]]
    app, net = room_app(moves, 0, offers=[{"kind": "draw", "by": 1}])
    shown = shoot(app, tmp_path / "actions-draw-offer.png", NOW + 4)
    assert "bob offers a draw · 4 s" in shown
    assert {("offer", "draw"), ("offer", "takeback")} <= clickable(app)
    assert ("answer", ("draw", True)) in clickable(app) and ("abort", None) not in clickable(app)
    app.act("answer", ("draw", True))
    assert net.sent[-1]["type"] == "draw_answer" and net.sent[-1]["accept"] is True
    shown = shoot(app, tmp_path / "actions-after-answer.png", NOW + 5)
    assert not any("offers a draw" in t for t in shown)


def test_a_takeback_asked_and_a_claim_over_a_gone_opponent(tmp_path: Path) -> None:
    pygame.font.init()
    moves = [[7, 7], [8, 8], [7, 8]]
    app, net = room_app(moves, 1)
    assert ("offer", "takeback") in clickable(app) and ("offer", "draw") not in clickable(app)
    app.act("offer", "takeback")
    assert net.sent[-1]["type"] == "takeback_offer"
    app.model.apply({"type": "offer", "room": "k7m2qx", "kind": "takeback", "by": 0}, NOW)
    shown = shoot(app, tmp_path / "actions-takeback-asked.png")
    assert "You offered a takeback: waiting for bob" in shown
    app.model.apply({"type": "presence", "room": "k7m2qx", "seat": 1, "online": False}, NOW)
    shown = shoot(app, tmp_path / "actions-claim-wait.png", NOW + 10)
    assert "Claim in 20 s" in shown and ("claim", None) not in clickable(app)
    shown = shoot(app, tmp_path / "actions-claim.png", NOW + 31)
    assert "Claim win" in shown and ("claim", None) in clickable(app)
    app.act("claim", None)
    assert net.sent[-1]["type"] == "claim_victory"
