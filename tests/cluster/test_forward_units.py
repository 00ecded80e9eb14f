"""The forwarder's logic on a real arena, without processes: its bounds, a request forwarded
at most once, notes from a node that is no longer the player's, and malformed bus entries."""

from __future__ import annotations

import msgpack
import pytest
from support.forwarding import cluster_node, entry, node, say_hello

from protocol import wire
from protocol.errors import NodeUnavailableError
from server.cluster import forward
from server.core.arena import Arena
from server.core.game.members import Send
from server.core.journal.rows import PlayerRow
from server.core.players.players import Conn
from server.core.ratelimit import TokenBucket


def test_a_request_for_another_node_s_room_is_queued_for_it_until_the_bus_is_full(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fwd, arena, _ = node({"abcdef": "a"})
    conn = say_hello(arena, "bob")
    move = {"type": "move", "room": "abcdef", "x": 1, "y": 2, "id": 7}
    assert arena.receive(conn, wire.encode(move)) == []  # nothing now: the owner answers
    [op] = fwd._outbox["a"]
    assert op[:4] == ["req", conn.pid, "bob", "human"] and wire.decode(op[4]) == move
    monkeypatch.setattr(forward, "MAX_PENDING", 1)
    [reply] = arena.receive(conn, wire.encode({**move, "id": 8}))
    assert reply.message["code"] == "rate_limited" and reply.message["id"] == 8  # type: ignore[union-attr]
    assert fwd.dropped == 1 and len(fwd._outbox["a"]) == 1


def test_a_forwarded_request_for_a_room_not_here_is_refused_not_sent_on() -> None:
    fwd, _, shell = node({"abcdef": "c"})  # even if this node's lobby says c holds it
    move = wire.encode({"type": "move", "room": "abcdef", "x": 1, "y": 2, "id": 3})
    fwd.handle(entry("a", ["req", "p_1", "carol", "human", move, None, False]))
    [error] = shell.sent
    assert isinstance(error, Send) and error.to == ("p_1",)
    assert (error.message["code"], error.message["id"]) == ("no_such_room", 3)
    assert fwd._outbox == {} and fwd.remote == {"p_1": "a"}  # its outputs go back to a


def test_an_offline_note_counts_only_from_the_player_s_current_node() -> None:
    fwd, arena, shell = node()
    ping = wire.encode({"type": "ping", "id": 1})
    fwd.handle(entry("a", ["req", "p_1", "carol", "human", ping, None, False]))
    assert [s.message["type"] for s in shell.sent] == ["pong"]  # type: ignore[union-attr]
    fwd.handle(
        entry("c", ["req", "p_1", "carol", "human", ping, None, False])
    )  # carol moved to node c
    fwd.handle(entry("a", ["off", "p_1"]))  # a's late note: ignored
    assert fwd.remote == {"p_1": "c"} and arena.players["p_1"].online
    fwd.handle(entry("c", ["off", "p_1"]))
    assert fwd.remote == {} and "p_1" not in arena.players  # no room here: forgotten


def test_malformed_bus_entries_lose_only_themselves() -> None:
    fwd, _, shell = node()
    for bad in (b"\xc1 not msgpack", msgpack.packb({"a": 1}), msgpack.packb(["a", "ops"])):
        fwd.handle(bad)
    ping = wire.encode({"type": "ping", "id": 1})
    fwd.handle(
        entry("a", ["bogus"], ["req", "p_1"], ["req", "p_1", "carol", "human", ping, None, False])
    )
    assert [s.message["type"] for s in shell.sent] == ["pong"]  # type: ignore[union-attr]


def test_the_player_s_own_node_saves_its_row_and_the_owner_never_overwrites_it() -> None:
    """A hello writes no row (issue 9), so the node a player reaches another node's room
    through saves it, token hash included; the owner, which knows no token, writes none."""
    _, arena, _ = node({"abcdef": "a"}, durable=True)  # records are journaled
    conn = say_hello(arena, "bob")
    assert [r for r in arena.drain() if isinstance(r, PlayerRow)] == []
    arena.receive(conn, wire.encode({"type": "join_room", "room": "abcdef"}))
    [row] = [r for r in arena.drain() if isinstance(r, PlayerRow)]
    assert (row.pid, row.name) == (conn.pid, "bob") and row.token_hash != ""

    owner = Arena()
    alice = say_hello(owner, "alice")
    out = owner.receive(alice, wire.encode({"type": "create_room", "game": "tictactoe"}))
    [room] = {o.message["room"] for o in out if "room" in getattr(o, "message", {})}  # type: ignore[union-attr]
    owner.drain()
    owner.presence.attach_remote("p_remote", "carol", "human")
    remote = Conn(TokenBucket(100.0, 100.0), pid="p_remote")  # as the forwarder's member conn
    owner.receive(remote, wire.encode({"type": "join_room", "room": room}))
    rows = [r for r in owner.drain() if isinstance(r, PlayerRow)]
    assert rows == [] and owner.rooms.get(room).seat_of("p_remote") is not None  # type: ignore[union-attr]


def test_while_the_bus_is_down_a_request_for_another_node_s_room_is_refused_not_sent() -> None:
    cluster = cluster_node("b")
    arena = cluster.arena
    bus, fwd = cluster.parts.bus, cluster.parts.forwarder
    bus.owners.update({"abcdef": "a"})
    bus._down = True  # as its rounds set it while Redis does not answer
    conn = say_hello(arena, "bob")
    move = {"type": "move", "room": "abcdef", "x": 1, "y": 2, "id": 7}
    [reply] = arena.receive(conn, wire.encode(move))
    assert (reply.message["code"], reply.message["id"]) == ("node_unavailable", 7)  # type: ignore[union-attr]
    assert fwd._outbox == {} and fwd.rerouter.pending == {}  # nothing waits for an answer
    bus._down = False
    assert arena.receive(conn, wire.encode({**move, "id": 8})) == []  # forwarded again
    assert len(fwd._outbox["a"]) == 1


def test_when_the_bus_is_back_remote_members_get_their_rooms_state_again() -> None:
    fwd, arena, shell = node(name="a")
    alice = say_hello(arena, "alice")
    out = arena.receive(alice, wire.encode({"type": "create_room", "game": "tictactoe"}))
    [room] = {o.message["room"] for o in out if "room" in getattr(o, "message", {})}  # type: ignore[union-attr]
    join = wire.encode({"type": "join_room", "room": room, "id": 1})
    fwd.handle(entry("b", ["req", "p_1", "carol", "human", join, None, False]))
    shell.sent.clear()
    fwd.rejoined()  # the outputs of the outage were lost: the state says what they said
    [state] = shell.sent
    assert isinstance(state, Send) and state.to == ("p_1",)
    assert state.message["type"] == "state" and state.message["room"] == room


def test_while_the_bus_is_down_a_room_needing_another_node_s_bot_is_refused() -> None:
    cluster = cluster_node("b")
    arena = cluster.arena
    cluster.parts.bus._down = True
    bob = arena.players[say_hello(arena, "bob").pid]
    create = {"type": "create_room", "game": "gomoku", "bot": "minimax@a", "id": 2}
    with pytest.raises(NodeUnavailableError):
        cluster.hold(bob, create, ["minimax@a"], "gomoku")
