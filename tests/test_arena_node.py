"""The arena asks its ``Node`` about the rest of a cluster, and only that: on a recording node
(no bus, no process), a request for a room held elsewhere is forwarded and nothing else is, a
closed connection is told to the node, and the node's bots and lent seats count in bot choice."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgpack

from protocol.errors import NoBotAvailable
from protocol.wire import Message
from server.core.arena import Arena
from server.core.node import Standalone
from server.core.outputs import Out, Reply
from server.core.players.keys import new_key
from server.core.players.players import Conn, Player


class RecordingNode(Standalone):
    """A cluster node as the arena sees it: what it is asked is recorded."""

    standalone = False

    def __init__(self) -> None:
        super().__init__(shared_sessions=False)
        self.forwarded: list[tuple[str, Message]] = []
        self.gone: list[str] = []
        self.lent: dict[str, int] = {}
        self.elsewhere: set[str] = set()
        self.bots: dict[str, Message] = {}
        self.held: list[list[str]] = []

    def forward(self, player: Player, msg: Message) -> list[Out]:
        self.forwarded.append((player.pid, msg))
        return []

    def offline(self, player: Player) -> None:
        self.gone.append(player.pid)

    def connected_elsewhere(self, pid: str) -> bool:
        return pid in self.elsewhere

    def seats_lent(self, pid: str) -> int:
        return self.lent.get(pid, 0)

    def other_bots(self) -> Mapping[str, Message]:
        return self.bots

    def bot_elsewhere(self, name: str, game: str, asker: str) -> bool:
        return any(entry["name"] == name for entry in self.bots.values())

    def hold(self, player: Player, msg: Message, names: list[str], game: str) -> list[Out]:
        self.held.append(names)
        return []


def hello(arena: Arena, name: str, **extra: Any) -> Conn:
    """A connection of ``name`` that said hello."""
    conn = arena.connect()
    message = {"type": "hello", "protocol": 1, "name": name, "kind": "human"} | extra
    arena.receive(conn, msgpack.packb(message))
    assert conn.pid is not None
    return conn


def ask(arena: Arena, conn: Conn, **message: Any) -> list[dict[str, Any]]:
    """The replies to one request (it carries an ``id``, so its answer is a reply)."""
    out = arena.receive(conn, msgpack.packb({"id": 1} | message))
    return [o.message for o in out if isinstance(o, Reply)]


def test_a_request_for_a_room_not_held_here_goes_to_the_node_and_one_held_here_does_not() -> None:
    node = RecordingNode()
    arena = Arena(durable=False, node=node)
    alice, bob = hello(arena, "alice"), hello(arena, "bob")
    [joined] = ask(arena, alice, type="create_room", game="tictactoe", seat=0)
    room = joined["room"]
    ask(arena, bob, type="join_room", room=room)
    ask(arena, alice, type="move", room=room, x=1, y=1)  # the move fast path, held here
    ask(arena, bob, type="move", room="zzzzzz", x=0, y=0, id=5)  # another node's room
    ask(arena, bob, type="chat", room="zzzzzz", text="hi")
    assert [(pid, msg["type"]) for pid, msg in node.forwarded] == [
        (bob.pid, "move"),
        (bob.pid, "chat"),
    ]
    assert len(arena.rooms.get(room).game.moves) == 1  # type: ignore[union-attr]


def test_a_standalone_arena_refuses_a_room_it_does_not_hold() -> None:
    arena = Arena(durable=False)
    bob = hello(arena, "bob")
    [error] = ask(arena, bob, type="move", room="zzzzzz", x=0, y=0, id=5)
    assert (error["code"], error["id"]) == ("no_such_room", 5)


def test_a_closed_connection_is_told_to_the_node() -> None:
    node = RecordingNode()
    arena = Arena(durable=False, node=node)
    bob = hello(arena, "bob")
    arena.disconnect(bob)
    assert node.gone == [bob.pid]


def test_seats_lent_elsewhere_count_in_a_bot_s_load_and_one_there_is_not_picked() -> None:
    node = RecordingNode()
    arena = Arena(durable=False, node=node)
    key = new_key()
    arena.keys.add("solo", key)
    solo = hello(arena, "solo", kind="bot", key=key, games=["*"], capacity=1)
    alice = hello(arena, "alice")
    node.lent[solo.pid or ""] = 1  # its one seat is in a room of another node
    [error] = ask(arena, alice, type="create_room", game="tictactoe", opponent="bot", id=3)
    assert error["code"] == NoBotAvailable.code
    node.lent.clear()
    node.elsewhere.add(solo.pid or "")  # a remote member here: connected to another node
    [error] = ask(arena, alice, type="create_room", game="tictactoe", opponent="bot", id=4)
    assert error["code"] == NoBotAvailable.code
    node.elsewhere.clear()
    [joined] = ask(arena, alice, type="create_room", game="tictactoe", opponent="bot", id=6)
    assert joined["type"] == "joined"


def test_a_room_naming_bots_of_other_nodes_is_held_by_the_node_and_they_are_listed() -> None:
    node = RecordingNode()
    node.bots = {"p_far": {"name": "far", "player": "p_far", "games": ["*"], "capacity": 1}}
    arena = Arena(durable=False, node=node)
    alice = hello(arena, "alice")
    assert ask(arena, alice, type="create_room", game="gomoku", bot="far", id=2) == []
    assert node.held == [["far"]]
    [bots] = ask(arena, alice, type="list_bots")
    assert [b["name"] for b in bots["bots"]] == ["far"]
