"""Events (tournaments) on a cluster node, without processes: a request about another node's
event goes to that node, a forwarded player enters as the account its node names, a remote
entrant whose socket closed is kept to be seated in the next games, and ``list_tournaments``
shows the other nodes' events (docs/CLUSTER.md, "Events (tournaments) over nodes")."""

from __future__ import annotations

from typing import Any

from support.forwarding import entry, node, say_hello

from protocol import wire
from server.core.game.members import Send
from server.core.outputs import Out
from server.core.tournament.event import read_settings

SWISS = {"name": "Cup", "game": "tictactoe", "format": "swiss"}
RATED = {"name": "Rated cup", "game": "gomoku", "format": "swiss", "rated": True,
         "clock": {"initial_s": 60, "increment_s": 1}}  # fmt: skip


def messages(sent: list[Out]) -> list[dict[str, Any]]:
    """What the node sent, as messages."""
    return [s.message for s in sent if isinstance(s, Send)]


def test_a_request_about_another_node_s_event_is_sent_to_that_node() -> None:
    fwd, arena, _ = node({"t:EvEnT123": "a"})
    conn = say_hello(arena, "bob")
    join = {"type": "join_tournament", "tournament": "EvEnT123", "id": 4}
    assert arena.receive(conn, wire.encode(join)) == []  # a answers
    [op] = fwd._outbox["a"]
    assert op[:4] == ["req", conn.pid, "bob", "human"] and wire.decode(op[4]) == join


def test_a_forwarded_player_enters_a_rated_event_as_the_account_its_node_names() -> None:
    fwd, arena, shell = node(name="a")
    tid = arena.tournaments.open_event(read_settings(RATED), None, None).id
    join = wire.encode({"type": "join_tournament", "tournament": tid, "id": 1})
    fwd.handle(entry("b", ["req", "p_1", "carol", "human", join, 7, False]))  # a guest
    assert messages(shell.sent)[-1]["code"] == "rated_needs_account"
    fwd.handle(entry("b", ["req", "p_1", "carol", "human", join, 8, False, "carol"]))
    reply = messages(shell.sent)[-1]
    assert reply["type"] == "tournament" and [e["id"] for e in reply["entrants"]] == ["p_1"]
    assert arena.players["p_1"].account == "carol"


def test_a_remote_entrant_whose_socket_closed_is_kept_for_its_next_games() -> None:
    fwd, arena, _ = node(name="a")
    tid = arena.tournaments.open_event(read_settings(SWISS), None, None).id
    join = wire.encode({"type": "join_tournament", "tournament": tid, "id": 1})
    ping = wire.encode({"type": "ping", "id": 2})
    fwd.handle(entry("b", ["req", "p_1", "carol", "human", join, None, False]))
    fwd.handle(entry("b", ["req", "p_2", "dave", "human", ping, None, False]))
    fwd.handle(entry("b", ["off", "p_1"], ["off", "p_2"]))
    assert "p_1" in arena.players and not arena.players["p_1"].online  # to be seated
    assert "p_2" not in arena.players  # in nothing here: forgotten


def test_every_node_s_events_are_listed_and_this_node_s_own_win() -> None:
    _, arena, _ = node(name="a")
    mine = arena.tournaments.open_event(read_settings(SWISS), None, None)
    theirs = {**mine.summary(), "tournament": "Other123", "status": "running"}
    stale = {**mine.summary(), "status": "finished"}  # a line of ours read back late
    arena.event_board.set_remote({"Other123": theirs, mine.id: stale})
    conn = say_hello(arena, "x")
    [reply] = arena.receive(conn, wire.encode({"type": "list_tournaments", "id": 1}))
    listed = reply.message["tournaments"]  # type: ignore[union-attr]
    assert [(t["tournament"], t["status"]) for t in listed] == [
        ("Other123", "running"),
        (mine.id, "open"),
    ]


def test_a_watcher_here_of_a_dead_node_s_event_watches_it_again_at_the_adopter() -> None:
    fwd, arena, shell = node({"t:EvEnT123": "a"})
    bob, sue = say_hello(arena, "bob"), say_hello(arena, "sue")
    shell.here.update({bob.pid, sue.pid})
    arena.receive(sue, wire.encode({"type": "watch_tournament", "tournament": "EvEnT123"}))
    arena.receive(bob, wire.encode({"type": "join_tournament", "tournament": "EvEnT123"}))
    watch, join = fwd._outbox.pop("a")
    fwd.handle(entry("a", ["ack", watch[5], True], ["ack", join[5], True]))
    fwd.handle(entry("c", ["who", "a", [bob.pid]]))  # c adopted a's rooms and events
    ops = fwd._outbox.pop("c")
    again = wire.encode({"type": "watch_tournament", "tournament": "EvEnT123"})
    for pid, name in ((bob.pid, "bob"), (sue.pid, "sue")):  # each attached, watching again
        assert ["att", pid, name, "human"] in ops
        assert ["req", pid, name, "human", again, None, False] in ops
    assert fwd.rerouter.owner_of["t:EvEnT123"] == "c"
