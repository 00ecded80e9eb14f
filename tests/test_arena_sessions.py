"""The sans-I/O side of resuming a session on any cluster node: a session unknown here becomes a
``Resolve`` for the shared store, bounded, and the store's answer completes the hello."""

from __future__ import annotations

from typing import Any

import msgpack

from server.core.arena import Arena
from server.core.journal.rows import PlayerRow
from server.core.limits import Limits
from server.core.node import Standalone
from server.core.outputs import Out, Reply, Resolve
from server.core.players.players import Conn, hash_token

TOKEN = "a-session-another-node-issued"
ROW = PlayerRow("p_elsewhere01", "bob", "human", hash_token(TOKEN), 1_800_000_000.0)


def hello(arena: Arena, conn: Conn, session: str | None = TOKEN, **extra: Any) -> list[Out]:
    """Say hello (as bob, with ``session``) on ``conn``."""
    message = {"type": "hello", "protocol": 1, "name": "bob", "kind": "human", "id": 7}
    frame = msgpack.packb(message | {"session": session} | extra)
    return arena.receive(conn, frame)


def replies(out: list[Out]) -> list[dict[str, Any]]:
    return [o.message for o in out if isinstance(o, Reply)]


def shared(**limits: Any) -> Arena:
    return Arena(limits=Limits(**limits), durable=False, node=Standalone(shared_sessions=True))


def test_an_unknown_session_is_looked_up_and_the_answer_completes_the_hello_as_a_resume() -> None:
    arena = shared()
    conn = arena.connect()
    assert hello(arena, conn) == [Resolve(hash_token(TOKEN))]
    assert arena.admission.lookups == 1 and conn.pid is None
    for frame in ({"type": "ping", "id": 8}, {"type": "hello", "protocol": 1, "id": 9}):
        [error] = replies(arena.receive(conn, msgpack.packb(frame)))
        assert (error["code"], error["id"]) == ("not_hello", frame["id"])  # one in flight
    [welcome] = replies(arena.session_resolved(conn, ROW))
    assert welcome["type"] == "welcome" and welcome["id"] == 7
    assert (welcome["player"], welcome["session"]) == (ROW.pid, TOKEN)
    assert conn.pid == ROW.pid and arena.admission.lookups == 0 and conn.lookups == 0
    again = arena.connect()  # now known here: no second lookup
    assert replies(hello(arena, again))[0]["player"] == ROW.pid


def test_a_session_nobody_has_is_refused_once_looked_up_and_sqlite_mode_refuses_at_once() -> None:
    arena = shared()
    conn = arena.connect()
    assert hello(arena, conn) == [Resolve(hash_token(TOKEN))]
    [error] = replies(arena.session_resolved(conn, None))
    assert (error["code"], error["id"]) == ("bad_session", 7) and arena.admission.lookups == 0
    assert hello(arena, conn) == [Resolve(hash_token(TOKEN))]  # the store fails this time
    [failed] = replies(arena.session_resolved(conn, None, failed=True))
    assert failed["code"] == "internal_error" and conn.pid is None
    single = Arena(durable=False)  # not a cluster node: no lookup
    [error] = replies(hello(single, single.connect()))
    assert error["code"] == "bad_session"


def test_lookups_in_flight_are_bounded_and_a_closed_connection_gives_its_slot_back() -> None:
    arena = shared(max_lookups=1)
    first, second = arena.connect(), arena.connect()
    assert hello(arena, first) == [Resolve(hash_token(TOKEN))]
    [error] = replies(hello(arena, second))
    assert error["code"] == "rate_limited" and second.hello is None
    arena.admission.drop_hello(first)  # its socket closed before the answer
    assert arena.admission.lookups == 0 and arena.session_resolved(first, ROW) == []
    assert hello(arena, second) == [Resolve(hash_token(TOKEN))]


def test_a_remote_member_known_without_its_token_resumes_with_the_stored_one() -> None:
    arena = shared()
    arena.presence.attach_remote(ROW.pid, "bob", "human")  # it asked about a room here via its node
    conn = arena.connect()
    assert hello(arena, conn) == [Resolve(hash_token(TOKEN))]
    [welcome] = replies(arena.session_resolved(conn, ROW))
    assert welcome["player"] == ROW.pid and arena.players[ROW.pid].token_hash == ROW.token_hash
