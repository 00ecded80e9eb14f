"""Quick pairing end to end in the pygame client, against the real server: two players click
the same tile and are paired into one room within a wave, each plays a stone; and a third
player takes an open seek from the list with Accept."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from support.app import Driver, app_server  # noqa: F401  (a fixture)

from client.room import RoomState

POOL = "gomoku 3+2 casual"


def room_of(d: Driver) -> RoomState | None:
    """The room on screen once it is being played."""
    room = d.app.model.room
    return room if d.app.scene == "room" and room is not None and room.status == "playing" else None


@pytest.mark.slow
def test_two_players_click_one_tile_and_play(app_server: str, tmp_path: Path) -> None:  # noqa: F811
    alice, bob = Driver(app_server, "alice"), Driver(app_server, "bob")
    try:
        for d in (alice, bob):
            d.pump(lambda d=d: d.app.hotspot("seek_tile", POOL), 30, "the Quick pairing tiles")
        alice.click("seek_tile", POOL)
        alice.pump(lambda: alice.app.model.seeks.mine, 10, "alice's seek placed")
        bob.pump(lambda: any(s.name == "alice" for s in bob.app.model.seeks.rows), 10, "the list")
        bob.click("seek_tile", POOL)
        started = time.monotonic()
        for d in (alice, bob):
            d.pump(lambda d=d: room_of(d), 15, "the pairing")
        assert time.monotonic() - started < 10  # a wave is every 2 s
        a, b = room_of(alice), room_of(bob)
        assert a is not None and b is not None and a.room == b.room
        assert {a.seat, b.seat} == {0, 1} and a.clocks is not None
        first, second = (alice, bob) if a.seat == a.to_move else (bob, alice)
        for d, cell, ply in ((first, (7, 7), 1), (second, (8, 8), 2)):
            d.click_at(d.app.cell_pixel(*cell))
            for e in (alice, bob):
                e.pump(lambda e=e, ply=ply: e.room.ply == ply, 10, f"ply {ply}")
        assert not alice.app.model.seeks.mine and not bob.app.model.seeks.mine
    finally:
        alice.close()
        bob.close()


@pytest.mark.slow
def test_a_player_accepts_an_open_seek_from_the_list(app_server: str) -> None:  # noqa: F811
    carol, dave = Driver(app_server, "carol"), Driver(app_server, "dave")
    try:
        carol.pump(lambda: carol.app.hotspot("seek_game", "renju"), 30, "the games")
        carol.click("seek_game", "renju")
        carol.pump(lambda: carol.app.hotspot("seek_tile", "renju 10+5 casual"), 10, "tiles")
        carol.click("seek_tile", "renju 10+5 casual")
        carol.pump(lambda: carol.app.model.seeks.mine, 10, "carol's seek placed")
        sid = next(iter(carol.app.model.seeks.mine))
        dave.pump(lambda: dave.app.hotspot("lobby_tab", "seeks"), 30, "the tabs")
        dave.click("lobby_tab", "seeks")
        dave.pump(lambda: dave.app.hotspot("accept_seek", sid), 10, "carol's seek listed")
        dave.click("accept_seek", sid)
        for d in (carol, dave):
            d.pump(lambda d=d: room_of(d), 10, "the room")
        c, v = room_of(carol), room_of(dave)
        assert c is not None and v is not None and c.room == v.room
        assert c.game.name == "renju" and c.clocks is not None
    finally:
        carol.close()
        dave.close()
