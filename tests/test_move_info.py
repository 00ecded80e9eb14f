"""A bot's search report on its ``move`` (``info``): checked, bounded, shown to spectators only.

The plain move path stays as it was: a move without ``info`` is still ``plain_move``; one with
it is validated field by field and relayed in ``moved`` to spectators, never to the players.
"""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from support.arena import Peer, arena_with
from support.clock import FakeClock

from protocol import wire
from protocol.errors import BadMessage
from server.core.game.members import Send

INFO = {"depth": 9, "seldepth": 14, "score": 35, "nodes": 412_000, "nps": 610_000,
        "time_ms": 930, "pv": [[7, 7], [8, 8]]}  # fmt: skip


def test_move_with_info_validates_and_leaves_the_plain_path() -> None:
    plain = {"type": "move", "room": "r", "x": 1, "y": 2, "ply": 0}
    assert wire.plain_move(plain)
    with_info = {**plain, "info": INFO}
    assert not wire.plain_move(with_info)
    assert wire.validate(with_info) is with_info
    mate = {**plain, "info": {"depth": 3, "mate": -4, "pv": []}}
    assert wire.validate(mate) is mate


@pytest.mark.parametrize(
    "info",
    [
        {"pv": [[1, 1]] * (wire.MAX_PV + 1)},  # too long
        {"pv": [[1, 1, 1]]},
        {"pv": [[1, 256]]},
        {"pv": [[1, -1]]},
        {"pv": [["a", 1]]},
        {"pv": "h8 i9"},
        {"depth": True},  # a bool is not an integer
        {"depth": 1.5},
        {"nodes": 1 << 60},  # out of bounds
        {"score": 1, "mate": 2},  # one or the other
        {"comment": "hello spectators"},  # unknown field: nothing else can ride along
        {7: 1},
    ],
)
def test_bad_info_is_refused(info: dict[Any, Any]) -> None:
    with pytest.raises(BadMessage):
        wire.validate({"type": "move", "room": "r", "x": 1, "y": 2, "info": info})
    with pytest.raises(BadMessage):
        wire.validate({"type": "move", "room": "r", "x": 1, "y": 2, "info": [1, 2]})


def _room(kind: str) -> tuple[Any, Peer, Peer, Peer, str]:
    arena = arena_with(FakeClock())
    mover = Peer(arena, "mover", kind=kind)
    other = Peer(arena, "other")
    watcher = Peer(arena, "watcher")
    room = other.do(type="create_room", game="gomoku", seat=1)[0]["room"]
    mover.do(type="join_room", room=room)
    watcher.do(type="join_room", room=room, spectate=True)
    return arena, mover, other, watcher, room


def _moved_by_addressee(arena: Any, peer: Peer, **message: Any) -> dict[str, dict[str, Any]]:
    """Each addressee's ``moved`` for one request of ``peer`` (by player id)."""
    out = arena.receive(peer.conn, msgpack.packb(message))
    got: dict[str, dict[str, Any]] = {}
    for item in out:
        to = item.to if isinstance(item, Send) else (peer.pid,)
        if item.message.get("type") == "moved":
            for pid in to:
                assert pid not in got, "one moved each"
                got[pid] = item.message
    return got


def test_a_bots_info_reaches_spectators_only() -> None:
    arena, bot, human, watcher, room = _room("bot")
    got = _moved_by_addressee(arena, bot, type="move", room=room, x=7, y=7, id=3, info=INFO)
    assert set(got) == {bot.pid, human.pid, watcher.pid}
    assert got[watcher.pid]["info"] == INFO
    assert "info" not in got[human.pid] and "info" not in got[bot.pid]
    assert got[bot.pid]["id"] == 3  # the mover's reply still answers its request
    assert got[watcher.pid]["x"] == 7 and got[human.pid]["x"] == 7


def test_a_humans_info_is_dropped_and_bad_info_refuses_the_move() -> None:
    arena, mover, other, watcher, room = _room("human")
    got = _moved_by_addressee(arena, mover, type="move", room=room, x=7, y=7, info=INFO)
    assert set(got) == {mover.pid, other.pid, watcher.pid}
    assert all("info" not in m for m in got.values())
    bad = {**INFO, "pv": [[0, 0]] * 40}
    replies = other.do(type="move", room=room, x=8, y=8, id=4, info=bad)
    assert replies == [
        {"type": "error", "code": "bad_message", "id": 4, "message": replies[0]["message"]}
    ]
    assert other.do(type="move", room=room, x=8, y=8, id=5)[0]["type"] == "moved"
