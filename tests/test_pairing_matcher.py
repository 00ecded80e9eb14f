"""The wave matcher's promises, for any pool hypothesis makes: nobody paired twice, never with
themselves or a blocked player, every pair within both sides' accepted gaps and ranges and
never past 500; and, in a pool no larger than the window, no two seeks left out could pair."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from server.core.pairing.matcher import WINDOW, allowed, wave
from server.core.pairing.seeks import GAP_MAX, Seek


@st.composite
def pools(draw: st.DrawFn, most: int = 40) -> tuple[list[Seek], set[frozenset[str]]]:
    """A pool of seeks (some players holding two, as a bot may) and the blocked pairs."""
    count = draw(st.integers(0, most))
    players = [f"p{i}" for i in range(draw(st.integers(1, max(1, count))))]
    seeks = []
    for i in range(count):
        guest = draw(st.booleans())
        rating = None if guest else float(draw(st.integers(0, 4000)))
        level = 1500 if rating is None else int(rating)
        span = None
        if not guest and draw(st.booleans()):
            span = (draw(st.integers(0, level)), draw(st.integers(level, 4000)))
        seek = Seek(
            f"s{i}", draw(st.sampled_from(players)), "n", "human", not guest, "gomoku", None,
            False, span, None, rating, False, 0.0,
        )  # fmt: skip
        seek.waves = draw(st.integers(0, 12))
        seek.priority = draw(st.booleans()) and draw(st.booleans())
        seek.serial = i
        seeks.append(seek)
    pairs = list(itertools.combinations(players, 2))
    blocked = (
        {frozenset(p) for p in draw(st.lists(st.sampled_from(pairs), max_size=5))}
        if pairs
        else set()
    )
    return seeks, blocked


def check(seeks: list[Seek], blocked: set[frozenset[str]]) -> list[tuple[Seek, Seek]]:
    """The wave of ``seeks``, its promises checked."""
    is_blocked = lambda a, b: frozenset((a, b)) in blocked  # noqa: E731
    pairs = wave(seeks, is_blocked)
    seen = [s.id for pair in pairs for s in pair]
    assert len(seen) == len(set(seen))  # nobody paired twice
    for a, b in pairs:
        gap = abs(a.level - b.level)
        assert a.pid != b.pid  # never with themselves
        assert frozenset((a.pid, b.pid)) not in blocked
        assert gap <= a.gap and gap <= b.gap and gap <= GAP_MAX
        assert a.admits(b.level) and b.admits(a.level)
    return pairs


@settings(max_examples=400, deadline=None)
@given(pools())
def test_every_pair_a_wave_makes_keeps_its_promises(pool: tuple[list[Seek], set]) -> None:
    check(*pool)


@settings(max_examples=300, deadline=None)
@given(pools(most=WINDOW + 1))
def test_in_a_small_pool_no_two_seeks_left_out_could_pair(pool: tuple[list[Seek], set]) -> None:
    seeks, blocked = pool
    pairs = check(seeks, blocked)
    paired = {s.id for pair in pairs for s in pair}
    left = [s for s in seeks if s.id not in paired]
    is_blocked = lambda a, b: frozenset((a, b)) in blocked  # noqa: E731
    assert not any(allowed(a, b, is_blocked) for a, b in itertools.combinations(left, 2))


def test_a_thousand_guests_are_all_paired_in_one_wave() -> None:
    seeks = [
        Seek(
            f"s{i}",
            f"p{i}",
            "n",
            "human",
            False,
            "gomoku",
            None,
            False,
            None,
            None,
            None,
            False,
            0.0,
        )
        for i in range(1000)
    ]
    pairs = check(seeks, set())
    assert len(pairs) == 500


def test_a_priority_seek_is_paired_before_a_closer_pair() -> None:
    def make(i: int, rating: float, priority: bool = False) -> Seek:
        seek = Seek(
            f"s{i}",
            f"p{i}",
            "n",
            "human",
            True,
            "gomoku",
            None,
            False,
            None,
            None,
            rating,
            False,
            0.0,
        )
        seek.priority, seek.serial, seek.waves = priority, i, 4
        return seek

    first, close, far = make(0, 1500, priority=True), make(1, 1600), make(2, 1601)
    pairs = wave([first, close, far], lambda a, b: False)
    assert len(pairs) == 1 and first in pairs[0]
