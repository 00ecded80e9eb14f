"""A move journaled on its fast path (:meth:`Journal.moved`) gives exactly the records the whole
look at its room (:meth:`Journal.touch`) gives.

Random scripts of requests (moves good and bad, in and out of turn, on timed and opening-rule
rooms, with the clock running out, wins, resignations, opening choices, rematches, sweeps) run
through two arenas whose randomness and time are fixed: one journals moves on the fast path, the
other looks at every touched room whole. After every request both must drain the same records,
in the same order. The fixed scripts below show the fast path is taken (and where it is not).
"""

from __future__ import annotations

import itertools
from typing import Any
from unittest import mock

import msgpack
from hypothesis import given, settings
from hypothesis import strategies as st

from server.core.arena import Arena
from server.core.journal.recovery import Journal
from server.core.journal.rows import JournalRow
from server.core.limits import Limits

ROOMS = (
    {"game": "gomoku"},
    {"game": "gomoku", "clock": {"initial_s": 5.0, "increment_s": 1.0}},
    {"game": "gomoku", "options": {"opening_rule": "swap2"}},
    {"game": "gomoku", "options": {"max_moves": 4}},
)

move = st.tuples(
    st.just("move"),
    st.integers(0, 3),  # room
    st.integers(0, 1),  # who
    st.integers(5, 9),  # x
    st.integers(6, 8),  # y
)
step = st.one_of(
    move,
    move,
    move,
    move,
    st.tuples(st.just("wait"), st.sampled_from((0.5, 3.0, 9.0))),
    st.tuples(st.sampled_from(("resign", "rematch")), st.integers(0, 3), st.integers(0, 1)),
    st.tuples(
        st.just("choose"),
        st.integers(0, 3),
        st.integers(0, 1),
        st.sampled_from(("black", "white", "place")),
    ),
    st.tuples(st.just("sweep")),
)


class Clock:
    """Wall time that moves only when the script says so."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


class Counting:
    """The arena's journal with its fast path counted (``fast``), or made a whole look (a
    compiled Journal's methods cannot be replaced on it: the arena's calls come through here)."""

    def __init__(self, journal: Journal, fast: bool) -> None:
        self.journal, self.fast, self.rows = journal, fast, 0

    def moved(self, room: Any) -> None:
        if not self.fast:
            return self.journal.touch(room)
        before = len(self.journal._records)
        self.journal.moved(room)
        self.rows += len(self.journal._records) - before

    def __getattr__(self, name: str) -> Any:
        return getattr(self.journal, name)


def play(script: list[tuple[Any, ...]], fast: bool) -> tuple[list[list[JournalRow]], int]:
    """The records drained after each request of ``script``; and the rows the fast path made."""
    counter = itertools.count()
    rooms = itertools.count(1)
    clock = Clock()
    with (
        mock.patch("secrets.token_hex", lambda n=8: f"{next(counter):0{2 * n}x}"),
        mock.patch("secrets.token_urlsafe", lambda n=24: f"t{next(counter)}"),
        mock.patch("secrets.randbelow", lambda n: 0),
        mock.patch(
            "server.core.lobby.registry.MemoryRegistry.new_id", lambda self: f"r{next(rooms):04d}"
        ),
    ):
        arena = Arena(limits=Limits(human_rate=1e9, human_burst=1e9), clock=clock)
        journal = Counting(arena._journal, fast)
        arena._journal = journal  # type: ignore[assignment]  # the arena's moves go through it
        conns = [arena.connect(), arena.connect()]
        drained: list[list[JournalRow]] = []

        def send(who: int, **message: Any) -> None:
            arena.receive(conns[who], msgpack.packb(message))
            drained.append(arena.drain())

        for i in (0, 1):
            send(i, type="hello", protocol=1, name=f"p{i}", kind="human")
        for spec in ROOMS:
            send(0, type="create_room", seat=0, **spec)
        for n in range(1, len(ROOMS) + 1):
            send(1, type="join_room", room=f"r{n:04d}")
        for action, *args in script:
            if action == "move":
                room, who, x, y = args
                send(who, type="move", room=f"r{room + 1:04d}", x=x, y=y)
            elif action == "wait":
                clock.now += args[0]
            elif action == "choose":
                room, who, choice = args
                send(who, type="choose", room=f"r{room + 1:04d}", choice=choice)
            elif action == "sweep":
                arena.sweep()
                drained.append(arena.drain())
            else:
                room, who = args
                send(who, type=action, room=f"r{room + 1:04d}")
    return drained, journal.rows


@settings(max_examples=80, deadline=None)
@given(st.lists(step, max_size=120))
def test_the_fast_path_journals_exactly_what_a_whole_look_does(
    script: list[tuple[Any, ...]],
) -> None:
    fast, _ = play(script, fast=True)
    slow, _ = play(script, fast=False)
    assert fast == slow


def test_plain_moves_take_the_fast_path_and_a_timeout_on_a_move_does_not() -> None:
    script: list[tuple[Any, ...]] = [("move", 1, 0, 7, 7), ("move", 1, 1, 8, 8)]
    script += [("move", 1, 0, 6, 6), ("move", 0, 0, 7, 7), ("move", 0, 1, 5, 5)]
    script += [("wait", 9.0), ("move", 1, 1, 9, 9)]  # white's clock ran out: the move ends it
    fast, rows = play(script, fast=True)
    slow, _ = play(script, fast=False)
    assert fast == slow
    assert rows == 3  # the first move of each game looks at the room whole, the others not
    last = fast[-1]
    assert [type(r).__name__ for r in last] == ["GameRow"]
    assert last[0].status == "over" and last[0].reason == "timeout"


def test_a_winning_move_and_an_adjudicated_one_are_journaled_with_their_header() -> None:
    script: list[tuple[Any, ...]] = []
    for i in range(4):  # black wins along row 7 in room 0; room 3 is adjudicated at 4 moves
        script += [("move", 0, 0, 5 + i, 7), ("move", 0, 1, 5 + i, 8)]
        script += [("move", 3, 0, 5 + i, 7), ("move", 3, 1, 5 + i, 8)]
    script += [("move", 0, 0, 9, 7)]
    fast, rows = play(script, fast=True)
    slow, _ = play(script, fast=False)
    assert fast == slow
    assert rows == 7 + 2  # the first move of each game looks at the room whole, the last too
    over = [d for d in fast if any(getattr(r, "status", None) == "over" for r in d)]
    assert [[type(r).__name__ for r in d] for d in over] == [["GameRow", "MoveRow"]] * 2
    assert {d[1].ply for d in over} == {3, 8}  # the adjudicated fourth move, the win
