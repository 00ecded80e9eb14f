"""Property: the room's kept audience is always who is in the room and online, in order."""

from __future__ import annotations

import contextlib

from hypothesis import example, given, settings
from hypothesis import strategies as st

from protocol.errors import ArenaError
from protocol.variants import make_variant
from server.core.game.members import Member
from server.core.game.room import Room

PIDS = ("a", "b", "c")
JOIN = ("join", "a", False, None), ("join", "b", False, None), ("join", "c", True, None)

OPS = st.one_of(
    st.tuples(st.just("join"), st.sampled_from(PIDS), st.booleans(), st.sampled_from([None, 0, 1])),
    st.tuples(st.just("leave"), st.sampled_from(PIDS)),
    st.tuples(st.just("online"), st.sampled_from(PIDS), st.booleans()),
    st.tuples(st.just("drop"), st.sampled_from(PIDS)),
    st.tuples(st.just("move"), st.sampled_from(PIDS), st.integers(0, 2), st.integers(0, 2)),
    st.tuples(st.just("resign"), st.sampled_from(PIDS)),
    st.tuples(st.just("rematch"), st.sampled_from(PIDS)),
)


def apply(room: Room, op: tuple[object, ...]) -> None:
    """One request or connection event, as the arena would pass it on."""
    kind, pid = op[0], str(op[1])
    if kind == "join":
        room.join(Member(pid, pid.upper()), spectate=bool(op[2]), seat=op[3])  # type: ignore[arg-type]
    elif kind == "leave":
        room.leave(pid)
    elif kind == "online":
        room.set_online(pid, bool(op[2]), 1.0)
    elif kind == "drop" and room.seat_of(pid) is None:
        room.drop_spectator(pid)
    elif kind == "move":
        room.move(pid, op[2], op[3])
    elif kind == "resign":
        room.resign(pid)
    elif kind == "rematch":
        room.ask_rematch(pid)


@settings(max_examples=300, deadline=None)
@given(st.lists(OPS, max_size=40))
@example([*JOIN, ("resign", "a"), ("rematch", "a"), ("rematch", "b")])  # the seats swap
@example([*JOIN, ("online", "b", False), ("move", "a", 1, 1), ("online", "b", True)])
def test_the_kept_audience_matches_the_room(ops: list[tuple[object, ...]]) -> None:
    room = Room("r1", make_variant("tictactoe"), now=lambda: 1.0)
    for op in ops:
        with contextlib.suppress(ArenaError):  # refused requests must change nothing either
            apply(room, op)
        expected = tuple(p for p in room.members if p in room.online)
        assert room.audience == expected, op
