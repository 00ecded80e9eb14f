"""Forwarding across an owner's death, on real arenas without processes: acknowledgements behind
the outputs, a retried move answered once and applied once, requests and spectators sent on to
the adopter (or handled here when this node adopted), and the bookkeeping's bounds."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from support.forwarding import Shell, Store, cluster_node, entry, node, say_hello
from support.snapshots import snapshot_of
from support.waiting import until

from protocol import wire
from protocol.errors import RateLimited
from server.cluster import reroute
from server.cluster.audience import RemoteMember, parse, render
from server.cluster.ops import Offline
from server.cluster.reroute import Rerouter
from server.core.game.members import Send
from server.core.players.players import Conn


def req(pid: str, msg: dict[str, Any], seq: int, retry: bool = False) -> list[Any]:
    return ["req", pid, "bob", "human", wire.encode(msg), seq, retry]


def sent_types(shell: Shell) -> list[tuple[str, ...]]:
    return [(s.message["type"], *s.to) for s in shell.sent if isinstance(s, Send)]


def test_a_retried_move_the_room_already_has_is_answered_with_it_not_applied_again() -> None:
    owner, arena, shell = node(name="c")
    alice = say_hello(arena, "alice")
    out = arena.receive(
        alice, wire.encode({"type": "create_room", "game": "gomoku", "seat": 0, "id": 1})
    )
    room = out[0].message["room"]  # type: ignore[union-attr]
    owner.handle(entry("b", req("p_bob", {"type": "join_room", "room": room, "id": 2}, 5)))
    assert owner._outbox["b"][-1] == ["ack", 5, True]  # behind the join's outputs, same entry
    arena.receive(alice, wire.encode({"type": "move", "room": room, "x": 7, "y": 7, "ply": 0}))
    move = {"type": "move", "room": room, "x": 8, "y": 8, "ply": 1, "id": 3}
    owner.handle(entry("b", req("p_bob", move, 6)))
    first = [s.message for s in shell.sent if isinstance(s, Send) and "id" in s.message][-1]
    shell.sent.clear()
    owner.handle(entry("b", req("p_bob", move, 6, retry=True)))  # its answer was lost
    [again] = [s.message for s in shell.sent if isinstance(s, Send)]
    assert again == {k: v for k, v in first.items() if k != "clocks"}
    assert [(m.x, m.y) for m in arena.rooms.get(room).game.moves] == [(7, 7), (8, 8)]  # type: ignore[union-attr]
    assert owner._outbox["b"][-1] == ["ack", 6, True]
    shell.sent.clear()  # the same stone by the other seat is no retry of bob's: refused
    taken = {"type": "move", "room": room, "x": 7, "y": 7, "ply": 0, "id": 4}
    owner.handle(entry("b", req("p_bob", taken, 8, retry=True)))
    [error] = [s.message for s in shell.sent if isinstance(s, Send)]
    assert error["code"] == "not_your_turn" and owner._outbox["b"][-1] == ["ack", 8, False]
    shell.sent.clear()  # a retried move the dead owner never committed is simply played
    new = {"type": "move", "room": room, "x": 8, "y": 9, "ply": 3, "id": 5}
    arena.receive(alice, wire.encode({"type": "move", "room": room, "x": 7, "y": 8, "ply": 2}))
    owner.handle(entry("b", req("p_bob", new, 9, retry=True)))
    assert len(arena.rooms.get(room).game.moves) == 4  # type: ignore[union-attr]


def test_the_adopter_s_note_sends_unanswered_requests_and_spectators_to_it() -> None:
    fwd, arena, shell = node({"r1": "a", "r2": "a"})
    bob, sue = say_hello(arena, "bob"), say_hello(arena, "sue")
    shell.here.update({bob.pid, sue.pid})
    arena.receive(sue, wire.encode({"type": "join_room", "room": "r1", "spectate": True}))
    [op] = fwd._outbox.pop("a")
    fwd.handle(entry("a", ["ack", op[5], True]))  # sue watches r1 (owned by a)
    move = {"type": "move", "room": "r2", "x": 1, "y": 1, "ply": 4, "id": 9}
    arena.receive(bob, wire.encode(move))  # a dies before it reads this
    [lost] = fwd._outbox.pop("a")
    fwd.handle(entry("c", ["who", "a", [bob.pid, "p_elsewhere"]]))  # c adopted a's rooms
    ops = fwd._outbox.pop("c")
    assert ["att", bob.pid, "bob", "human"] in ops  # seated in an adopted room: online at c
    assert ["sp", sue.pid, "sue", "human", "r1"] in ops  # a spectator watches r1 at c again
    assert [*lost[:6], True] in ops and lost[5] in fwd.rerouter.pending  # waited for from c
    fwd.handle(entry("a", ["ack", lost[5], True]))  # a late word from a counts no more
    assert fwd.rerouter.pending[lost[5]].owner == "c"
    fwd.handle(entry("c", ["ack", lost[5], True]))
    assert fwd.rerouter.pending == {} and shell.sent == []


async def test_a_room_this_node_adopted_gets_its_unanswered_requests_and_spectators_here() -> None:
    fwd, arena, shell = node({"r1": "a"})
    alice, bob, sue = say_hello(arena, "alice"), say_hello(arena, "bob"), say_hello(arena, "sue")
    out = arena.receive(alice, wire.encode({"type": "create_room", "game": "gomoku", "seat": 0}))
    room = arena.rooms.get(out[0].message["room"])  # type: ignore[union-attr]
    assert room is not None
    arena.receive(bob, wire.encode({"type": "join_room", "room": room.id}))
    arena.receive(alice, wire.encode({"type": "move", "room": room.id, "x": 7, "y": 7, "ply": 0}))
    # pretend the room was a's and this node has just adopted it: bob's move went to a, and
    # sue watched it through a
    fwd.rerouter.track(sue.pid, room.id, "a", True)
    move = {"type": "move", "room": room.id, "x": 8, "y": 8, "ply": 1, "id": 3}
    fwd.rerouter.sent("a", bob.pid, move, wire.encode(move), time.monotonic())
    shell.sent.clear()
    await fwd.failover.reroute()
    got = sent_types(shell)
    assert ("state", sue.pid) in got and sue.pid in room.spectators
    assert ("moved", bob.pid) in got and len(room.game.moves) == 2
    assert fwd.rerouter.pending == {} and fwd.rerouter.members == {} and fwd._outbox == {}


def test_unanswered_requests_are_bounded_per_room_and_forgotten_in_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(reroute, "MAX_PER_ROOM", 2)
    r = Rerouter()
    move = {"type": "move", "room": "r1"}
    r.sent("a", "p", move, b"", 0.0)
    r.sent("a", "p", move, b"", 1.0)
    with pytest.raises(RateLimited):
        r.sent("a", "p", move, b"", 2.0)
    r.sent("a", "p", {"type": "move", "room": "r2"}, b"", 2.0)  # another room is not held up
    r.expire(1.0 + reroute.UNANSWERED_S + 0.5)
    assert [p.at for p in r.pending.values()] == [2.0]
    assert r.suspects({"r2": "c"}.get) == {("r2", "a", "c")}


def test_memberships_follow_acknowledged_joins_and_leaves_only() -> None:
    r = Rerouter()
    join = {"type": "join_room", "room": "r1", "spectate": True}
    refused = r.sent("a", "p", join, b"", 0.0)
    r.answered("a", refused, False)  # an error: p watches nothing
    assert r.members == {}
    r.answered("a", r.sent("a", "p", join, b"", 0.0), True)
    r.answered("a", r.sent("a", "q", {"type": "move", "room": "r1"}, b"", 0.0), True)
    assert r.members == {"r1": {"p": True, "q": False}} and r.rooms_on("a") == {"r1"}
    r.answered("a", r.sent("a", "p", {"type": "leave_room", "room": "r1"}, b"", 0.0), True)
    r.gone("q")
    assert r.members == {} and r.owner_of == {} and r.pending == {}  # all answered


class Redis:
    """Records what the sender writes."""

    def __init__(self) -> None:
        self.added: list[str] = []

    async def xadd(self, key: str, fields: dict[str, bytes], maxlen: int) -> None:
        self.added.append(key)


async def test_a_node_past_its_lease_writes_nothing_more_to_the_bus() -> None:
    fwd, _, _ = node()
    fwd.redis = Redis()  # type: ignore[assignment]
    store = fwd.store
    assert isinstance(store, Store)
    sender = asyncio.create_task(fwd._send_forever())
    try:
        fwd.queue("a", Offline("p_1"))
        await until(lambda: fwd.redis.added == ["mnk:0:node:a:in"])  # type: ignore[attr-defined]
        store.held = False  # woken from SIGSTOP past the lease: adopted elsewhere
        fwd.queue("a", Offline("p_1"))
        await until(lambda: fwd.dropped == 1)
        assert fwd.redis.added == ["mnk:0:node:a:in"]  # type: ignore[attr-defined]
    finally:
        sender.cancel()


def test_a_retried_renju_move_is_answered_with_black_s_forbidden_points_as_the_first_was() -> None:
    """The adopter answers a retried move with the room's own ``moved``: in renju that carries
    the cells black may not play next, as the lost first answer did (a copy built by hand in
    failover once left them out)."""
    owner, arena, shell = node(name="c")
    alice = say_hello(arena, "alice")
    out = arena.receive(
        alice, wire.encode({"type": "create_room", "game": "renju", "seat": 0, "id": 1})
    )
    room = out[0].message["room"]  # type: ignore[union-attr]
    owner.handle(entry("b", req("p_bob", {"type": "join_room", "room": room, "id": 2}, 5)))
    # black's (6, 7) would make two open threes at once: forbidden once black is to move
    plies = [(7, 7), (0, 0), (8, 7), (14, 14), (6, 8), (0, 14), (6, 9)]
    for ply, (x, y) in enumerate(plies):
        step = {"type": "move", "room": room, "x": x, "y": y, "ply": ply}
        if ply % 2 == 0:
            arena.receive(alice, wire.encode(step))
        else:
            owner.handle(entry("b", req("p_bob", step, 10 + ply)))
    move = {"type": "move", "room": room, "x": 14, "y": 0, "ply": 7, "id": 3}
    shell.sent.clear()
    owner.handle(entry("b", req("p_bob", move, 20)))
    [first] = [s.message for s in shell.sent if isinstance(s, Send) and s.message.get("id") == 3]
    assert [6, 7] in first["forbidden"]
    shell.sent.clear()
    owner.handle(entry("b", req("p_bob", move, 20, retry=True)))  # its answer was lost
    [again] = [s.message for s in shell.sent if isinstance(s, Send)]
    assert again == {k: v for k, v in first.items() if k != "clocks"}
    assert len(arena.rooms.get(room).game.moves) == 8  # type: ignore[union-attr]


def test_a_retried_move_a_takeback_took_off_is_refused_as_stale_not_played_again() -> None:
    """The dead owner committed bob's move and then a takeback of it (both answers lost): the
    adopter must not play it again on the retry (that would undo the takeback)."""
    owner, arena, shell = node(name="c")
    alice = say_hello(arena, "alice")
    out = arena.receive(
        alice, wire.encode({"type": "create_room", "game": "gomoku", "seat": 0, "id": 1})
    )
    room = out[0].message["room"]  # type: ignore[union-attr]
    owner.handle(entry("b", req("p_bob", {"type": "join_room", "room": room, "id": 2}, 5)))
    arena.receive(alice, wire.encode({"type": "move", "room": room, "x": 7, "y": 7, "ply": 0}))
    move = {"type": "move", "room": room, "x": 8, "y": 8, "ply": 1, "id": 3}
    owner.handle(entry("b", req("p_bob", move, 6)))
    owner.handle(entry("b", req("p_bob", {"type": "takeback_offer", "room": room, "id": 4}, 7)))
    arena.receive(alice, wire.encode({"type": "takeback_answer", "room": room, "accept": True}))
    game = arena.rooms.get(room).game  # type: ignore[union-attr]
    assert [(m.x, m.y) for m in game.moves] == [(7, 7)]
    shell.sent.clear()
    owner.handle(entry("b", req("p_bob", move, 6, retry=True)))  # the move's answer was lost
    [error] = [s.message for s in shell.sent if isinstance(s, Send)]
    assert error["code"] == "stale_ply" and error["id"] == 3
    assert [(m.x, m.y) for m in game.moves] == [(7, 7)]
    shell.sent.clear()  # bob plays a new stone there: a retry of that one is answered with it
    other = {"type": "move", "room": room, "x": 9, "y": 9, "ply": 1, "id": 5}
    owner.handle(entry("b", req("p_bob", other, 8)))
    owner.handle(entry("b", req("p_bob", other, 8, retry=True)))
    assert [(m.x, m.y) for m in game.moves] == [(7, 7), (9, 9)]


def test_the_owner_publishes_its_rooms_members_on_other_nodes_and_an_adopter_reads_them() -> None:
    owner, arena, _ = node(name="a")
    alice = say_hello(arena, "alice")
    out = arena.receive(alice, wire.encode({"type": "create_room", "game": "gomoku", "seat": 0}))
    room = out[0].message["room"]  # type: ignore[union-attr]
    owner.handle(entry("b", req("p_bob", {"type": "join_room", "room": room}, 1)))
    watch = {"type": "join_room", "room": room, "spectate": True}
    owner.handle(entry("c", ["req", "p_sue", "sue", "human", wire.encode(watch), 2, False]))
    members = owner.failover.remote_members()  # alice's socket is here: not listed
    assert members == {
        room: [
            RemoteMember("p_bob", "b", "bob", "human", False),
            RemoteMember("p_sue", "c", "sue", "human", True),
        ]
    }
    table = {k.encode(): v.encode() for k, v in render(members).items()}
    assert parse(table) == {room: sorted(members[room], key=lambda m: m.pid)}
    assert parse({b"r1": b"[[1, 2]]", b"r2": b"not json"}) == {}  # junk is skipped, not trusted


def test_an_adopter_seats_the_rooms_remote_members_before_any_move_is_played() -> None:
    adopter, arena, shell = node(name="c")
    alice = say_hello(arena, "alice")
    out = arena.receive(alice, wire.encode({"type": "create_room", "game": "gomoku", "seat": 0}))
    room = arena.rooms.get(out[0].message["room"])  # type: ignore[union-attr]
    assert room is not None
    adopter.handle(entry("b", req("p_bob", {"type": "join_room", "room": room.id}, 1)))
    adopter.handle(entry("b", ["off", "p_bob"]))  # as restored: bob is offline in his seat
    assert "p_bob" not in room.online
    shell.sent.clear()
    audience = {
        room.id: [
            RemoteMember("p_sue", "b", "sue", "human", True),
            RemoteMember("p_bob", "b", "bob", "human", False),
            RemoteMember("p_gone", "a", "gone", "human", True),  # was on the dead node
        ]
    }
    adopter.failover.attach_audience("a", audience)
    assert {"p_bob", "p_sue"} <= room.online and "p_sue" in room.spectators
    assert adopter.remote["p_bob"] == adopter.remote["p_sue"] == "b"
    assert "p_gone" not in room.members
    [sue_state] = [s.message for s in shell.sent if isinstance(s, Send) and s.to == ("p_sue",)]
    assert sue_state["type"] == "state" and sue_state["online"] == [True, True]  # bob online
    move = {"type": "move", "room": room.id, "x": 7, "y": 7, "ply": 0}
    heard = {
        pid for s in arena.receive(alice, wire.encode(move)) if isinstance(s, Send) for pid in s.to
    }
    assert {"p_bob", "p_sue"} <= heard  # the first move after the adoption reaches both


def test_a_node_told_of_an_adoption_detaches_the_players_it_no_longer_holds() -> None:
    fwd, arena, shell = node({"r1": "a"})
    bob = say_hello(arena, "bob")
    shell.here.add(bob.pid)
    fwd.handle(entry("c", ["who", "a", [bob.pid, "p_left"]]))
    ops = fwd._outbox.pop("c")
    assert ["att", bob.pid, "bob", "human"] in ops and ["off", "p_left"] in ops


def lapsed_room() -> tuple[Store, str, Conn]:
    """Node a's gomoku room (alice and bob seated, one move), as a look for lapsed nodes
    takes it; the store's look waits at its gate (closed), as PostgreSQL's claim commits."""
    _, old, _ = node(name="a", durable=True)
    alice, bob = say_hello(old, "alice"), say_hello(old, "bob")
    out = old.receive(alice, wire.encode({"type": "create_room", "game": "gomoku", "seat": 0}))
    room = out[0].message["room"]  # type: ignore[union-attr]
    old.receive(bob, wire.encode({"type": "join_room", "room": room}))
    old.receive(alice, wire.encode({"type": "move", "room": room, "x": 7, "y": 7, "ply": 0}))
    store = Store()
    store.lapsed = [("a", snapshot_of(old.drain()))]
    store.owners[room] = "c"  # the claim committed: PostgreSQL names c before c restored it
    store.gate.clear()
    return store, room, bob


async def test_a_forwarded_request_for_a_room_being_adopted_waits_for_the_restore() -> None:
    store, room, bob = lapsed_room()
    c = cluster_node("c", store=store)
    adopter, arena, shell = c.parts.forwarder, c.arena, c.server
    look = asyncio.create_task(c.parts.keeper.adopt())
    await until(store.claiming.is_set)
    # b looked the room up in PostgreSQL and sent bob's move here before c restored it; an
    # unknown room's request comes in the same moment
    move = {"type": "move", "room": room, "x": 8, "y": 8, "ply": 1, "id": 9}
    adopter.handle(entry("b", req(bob.pid, move, 4)))
    adopter.handle(entry("b", req("p_sue", {"type": "join_room", "room": "zzzzzz", "id": 2}, 5)))
    adopter.handle(entry("b", ["off", bob.pid]))  # then bob's socket on b closed: it waits too
    assert adopter.failover.parked == 3 and sent_types(shell) == []  # no refusal yet
    assert ["ack", 4, True] not in adopter._outbox.get("b", [])
    store.gate.set()
    assert await look == 1
    played = arena.rooms.get(room)
    assert played is not None and [(m.x, m.y) for m in played.game.moves] == [(7, 7), (8, 8)]
    replies = [s.message for s in shell.sent if isinstance(s, Send) and "id" in s.message]
    assert [(m["type"], m["id"]) for m in replies] == [("moved", 9), ("error", 2)]
    assert replies[1]["code"] == "no_such_room"  # nobody holds it: refused at the end
    assert adopter._outbox["b"][-2:] == [["ack", 4, True], ["ack", 5, False]]
    assert adopter.failover.parked == 0
    assert bob.pid not in played.online and bob.pid not in adopter.remote  # in the order sent


async def test_a_player_here_whose_room_is_being_adopted_here_waits_for_the_restore() -> None:
    store, room, _ = lapsed_room()
    c = cluster_node("c", store=store)
    adopter, arena, shell = c.parts.forwarder, c.arena, c.server
    sue = say_hello(arena, "sue")
    look = asyncio.create_task(c.parts.keeper.adopt())
    await until(store.claiming.is_set)
    # the lobby lists the room nowhere: PostgreSQL is asked, and names this node
    watch = {"type": "join_room", "room": room, "spectate": True, "id": 3}
    assert arena.receive(sue, wire.encode(watch)) == []
    await until(lambda: adopter.failover.parked == 1)
    assert shell.sent == []
    store.gate.set()
    assert await look == 1
    [joined] = [s.message for s in shell.sent if isinstance(s, Send) and s.message.get("id") == 3]
    assert joined["type"] == "joined" and joined["room"] == room
    watched = arena.rooms.get(room)
    assert watched is not None and sue.pid in watched.spectators
