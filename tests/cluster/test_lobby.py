"""The arena's cluster-wide lobby on its own: other nodes' lines paged with this node's rooms."""

from __future__ import annotations

from typing import Any

from support.arena import Peer

from server.core.arena import Arena
from server.core.game.members import Send
from server.core.limits import Limits


def line(room: str) -> dict[str, Any]:
    """Another node's lobby line for ``room``."""
    return {"room": room, "game": "gomoku", "status": "waiting", "players": ["x", None]}


def pages(peer: Peer, limit: int) -> list[str]:
    """Every room listed, page after page of ``limit``."""
    rooms, cursor = [], None
    while True:
        ask = {"cursor": cursor} if cursor is not None else {}
        [reply] = peer.do(type="list_rooms", limit=limit, **ask)
        rooms += [r["room"] for r in reply["rooms"]]
        if (cursor := reply["next"]) is None:
            return rooms


def test_other_nodes_rooms_are_paged_with_this_node_s_in_the_order_they_came() -> None:
    arena = Arena(durable=False, limits=Limits(lobby_push_interval=0.0))
    alice = Peer(arena, "alice")
    first = alice.do(type="create_room", game="tictactoe", seat=0)[0]
    arena.lobby.set_remote({"rem1": line("rem1"), "rem2": line("rem2")})
    second = alice.do(type="create_room", game="tictactoe", seat=0)[0]
    here = [first["room"], second["room"]]
    assert pages(alice, 1) == pages(alice, 100) == [here[0], "rem1", "rem2", here[1]]
    arena.lobby.set_remote({"rem2": line("rem2"), "rem3": line("rem3")})  # rem1 went away
    assert pages(alice, 2) == [here[0], "rem2", here[1], "rem3"]
    # a room adopted here while its old line is still read from Redis is listed once, as ours
    adopted = arena.rooms.get(here[1])
    arena.lobby.set_remote({here[1]: line(here[1]), "rem3": line("rem3")})
    assert pages(alice, 100) == [here[0], here[1], "rem3"]
    assert adopted is not None and pages(alice, 100).count(here[1]) == 1
    error = alice.do(type="join_room", room="rem3")[0]
    assert error["code"] == "no_such_room" and "another node" in error["message"]
    assert alice.do(type="join_room", room="nosuch")[0]["message"] == "no room 'nosuch'"


def test_a_change_elsewhere_is_pushed_to_subscribers_and_no_change_is_not() -> None:
    arena = Arena(durable=False, limits=Limits(lobby_push_interval=0.0))
    watcher = Peer(arena, "watcher")
    watcher.do(type="list_rooms", subscribe=True)
    arena.sweep()
    version = arena.lobby.version  # the bus renders this node's lines again when it moves on
    arena.lobby.set_remote({"rem1": line("rem1")})
    pushed = [o.message for o in arena.sweep() if isinstance(o, Send)]
    assert [[r["room"] for r in m["rooms"]] for m in pushed] == [["rem1"]]
    assert arena.lobby.version == version + 1
    arena.lobby.set_remote({"rem1": line("rem1")})
    assert [o for o in arena.sweep() if isinstance(o, Send)] == []
    assert arena.lobby.version == version + 1
