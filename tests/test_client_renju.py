"""The pygame client in renju and swap2 rooms, against the real server: forbidden points marked
with a red x and refused with a message, and the swap2 choice buttons; saves the screenshots
kept in docs/."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from support.app import ROOT, Driver, app_server
from support.render import GOMOKU_INFO, dark, light, render

from client import theme
from client.words import ERROR_WORDS

#: The server process with history and its built-in bot, not conftest's in-process one.
server = app_server

pytestmark = pytest.mark.timeout(120)
#: Black's open threes across and down meet at (7,7); white's stones are scattered.
DOUBLE_THREE = [(5, 7), (2, 2), (6, 7), (12, 2), (7, 5), (2, 12), (7, 6), (12, 12)]


def keep(path: Path, name: str) -> None:
    """Copy a screenshot into docs/ when MNK_SCREENSHOTS is set (how docs/ images are made)."""
    if os.environ.get("MNK_SCREENSHOTS"):
        shutil.copy(path, ROOT / "docs" / name)


def reddish(c) -> bool:  # type: ignore[no-untyped-def]
    """The forbidden mark's colour."""
    return abs(c.r - theme.DANGER[0]) < 30 and c.g < 130 and c.b < 130


def human_pair(url: str, game: str, *clicks: tuple[str, object]) -> tuple[Driver, Driver]:
    """Alice opens a room against a human through the form (after ``clicks`` on it); Bob joins
    by its code."""
    alice, bob = Driver(url, "alice"), Driver(url, "bob")
    for action, arg in [("form_game", game), *clicks, ("form_opponent", "human")]:
        alice.pump(lambda a=action, g=arg: alice.app.hotspot(a, g), 10, f"the {action} button")
        alice.click(action, arg)
    alice.pump(lambda: alice.app.hotspot("form_seat", 0), 10)
    alice.click("form_seat", 0)
    alice.click("create")
    code = alice.pump(lambda: alice.app.model.room and alice.app.model.room.room, 10, "a room")
    bob.pump(lambda: bob.app.model.connection == "online", 10, "bob online")
    bob.app.act("join", code)
    for d in (alice, bob):
        d.pump(lambda d=d: d.app.model.room and d.app.model.room.status == "playing", 10)
    return alice, bob


def play(driver: Driver, cell: tuple[int, int]) -> None:
    """Click ``cell`` and wait until the server played it."""
    ply = driver.room.ply
    pos = driver.app.cell_pixel(*cell)
    assert pos is not None
    driver.click_at(pos)
    driver.pump(lambda: driver.room.ply > ply, 10, f"the move {cell}")


@pytest.mark.slow
def test_renju_forbidden_points_are_marked_and_refused(server: str, tmp_path: Path) -> None:
    alice, bob = human_pair(server, "renju")
    try:
        for i, cell in enumerate(DOUBLE_THREE):
            (alice, bob)[i % 2].pump(lambda i=i: (alice, bob)[i % 2].room.my_turn, 10)
            play((alice, bob)[i % 2], cell)
        alice.pump(lambda: alice.room.forbidden, 10, "the forbidden points")
        assert alice.room.forbidden == {(7, 7)}
        assert "Renju" in alice.room.game.title
        img = alice.save(tmp_path / "renju.png")
        keep(tmp_path / "renju.png", "screenshot-renju.png")
        geo = alice.app.geo
        assert geo is not None
        cx, cy = geo.center(7, 7)
        arm = max(3, geo.cell // 4)
        assert reddish(img.get_at((cx - arm + 1, cy - arm + 1)))
        assert reddish(img.get_at((cx + arm - 1, cy - arm + 1)))
        assert not reddish(img.get_at(geo.center(8, 8)))  # an ordinary empty point
        sent = len(alice.net.sent)
        alice.click_at(alice.app.cell_pixel(7, 7))
        assert alice.app.model.toasts[-1].text == ERROR_WORDS["forbidden_move"]
        assert len(alice.net.sent) == sent  # refused before it left the client
        play(alice, (0, 14))  # black plays elsewhere
        bob.pump(lambda: bob.room.my_turn, 10)
        play(bob, (7, 7))  # white may take the point
        assert bob.room.forbidden == frozenset() or (7, 7) not in bob.room.forbidden
    finally:
        alice.close()
        bob.close()


@pytest.mark.slow
def test_swap2_choice_buttons(server: str, tmp_path: Path) -> None:
    alice, bob = human_pair(
        server, "renju", ("form_opening", "swap1"), ("form_opening", "swap2")
    )  # the rule button steps: no swap, swap1, swap2
    try:
        assert alice.room.opening is not None and alice.room.opening.phase == "place"
        for cell in ((7, 7), (8, 7), (7, 9)):
            alice.pump(lambda: alice.room.my_turn and alice.room.opening.phase == "place", 10)
            play(alice, cell)
        bob.pump(lambda: bob.room.choosing, 10, "bob's choice")
        assert bob.room.opening.choices == ("black", "white", "place")
        bob.app.step()
        img = bob.save(tmp_path / "swap2.png")
        keep(tmp_path / "swap2.png", "screenshot-swap2.png")
        assert img.get_size() == bob.app.surface.get_size()
        for choice in ("black", "white", "place"):
            assert bob.app.hotspot("choose", choice) is not None
        sent = len(bob.net.sent)
        bob.click_at(bob.app.cell_pixel(0, 0))  # a board click while a choice is due
        assert len(bob.net.sent) == sent
        bob.click("choose", "white")
        assert bob.net.sent[-1] == {"type": "choose", "room": bob.room.room, "choice": "white"}
        bob.pump(lambda: bob.room.colours == (0, 1) and bob.room.my_turn, 10, "bob as white")
        alice.pump(lambda: alice.room.colours == (0, 1), 10)
        assert not alice.room.in_opening and not alice.room.my_turn
        play(bob, (8, 8))
    finally:
        alice.close()
        bob.close()


def test_a_set_up_position_is_drawn_and_followed(tmp_path: Path) -> None:
    from client.room import apply_moved, room_from_state
    from client.views.board import BoardPicture

    position = {"black": [[7, 7], [8, 8]], "white": [[9, 9]], "to_move": 1}
    state = {
        "room": "r1", "game": {"name": "renju", "width": 15, "height": 15, "k": 5,
        "rule": "renju"}, "options": {"position": position}, "players": ["a", "b"],
        "seat": 1, "moves": [], "status": "playing", "to_move": 1, "colours": [0, 1],
    }  # fmt: skip
    room = room_from_state(state, 0.0)
    assert room.stones == {(7, 7): 0, (8, 8): 0, (9, 9): 1} and room.my_turn
    assert apply_moved(room, {"ply": 0, "seat": 1, "x": 3, "y": 3}, 0.0)  # white moves first
    assert room.stones[(3, 3)] == 1 and room.to_move == 0
    assert not apply_moved(room, {"ply": 1, "seat": 1, "x": 4, "y": 4}, 0.0)  # not white again
    pic = BoardPicture(GOMOKU_INFO, room.moves, setup=room.setup, first=room.first)
    img, geo = render(pic, (600, 600), tmp_path / "position.png")
    assert dark(img.get_at(geo.center(7, 7))) and dark(img.get_at(geo.center(8, 8)))
    cx, cy = geo.center(3, 3)  # the last move: its centre carries the red dot
    assert light(img.get_at(geo.center(9, 9))) and light(img.get_at((cx + geo.cell // 4, cy)))
