"""The plain-text game record (protocol/records.py): what it writes reads back the same."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.cells import cell_name
from protocol.records import TextRecord, read_text, write_text
from protocol.rules import Move


@st.composite
def records(draw: st.DrawFn) -> TextRecord:
    """Any record: a board 3-25 a side, distinct cells, times known or not, any result."""
    width, height = draw(st.integers(3, 25)), draw(st.integers(3, 25))
    cells = draw(
        st.lists(
            st.tuples(st.integers(0, width - 1), st.integers(0, height - 1)),
            unique=True,
            max_size=30,
        )
    )
    times = draw(
        st.lists(st.none() | st.integers(0, 10**7), min_size=len(cells), max_size=len(cells))
    )
    name = st.text("abcdefghijklmnopqrstuvwxyz_0123456789", min_size=1, max_size=12)
    players = (draw(name), draw(name))
    reason, winner = draw(
        st.sampled_from([(None, None), ("draw", None), ("line", 0), ("resign", 1), ("time", 0)])
    )
    rule = draw(st.sampled_from(["freestyle", "exact", "renju"]))
    return TextRecord(
        game_id=draw(st.from_regex(r"g_[0-9a-f]{1,12}", fullmatch=True)),
        name=draw(st.sampled_from(["mnk", "gomoku", "tictactoe"])),
        width=width,
        height=height,
        k=draw(st.integers(3, 5)),
        rule=rule,
        players=players,
        moves=tuple(Move(x, y) for x, y in cells),
        times_ms=tuple(times),
        winner=winner if players[0] != players[1] else (None if winner is None else 0),
        reason=reason,
        started=draw(st.none() | st.just("2026-11-27T09:41:02.000Z")),
    )


@given(records())
def test_a_record_reads_back_as_written(record: TextRecord) -> None:
    assert read_text(write_text(record)) == record


def test_the_names_of_cells_are_the_players_names() -> None:
    assert cell_name(7, 7, 15) == "H8" and cell_name(8, 0, 15) == "J15"  # no column I
    assert cell_name(24, 24, 25) == "Z1"


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        ("1 A3 0,0 1.100", "a move before"),
        ("x", "first line"),
    ],
)
def test_a_malformed_record_is_refused(bad: str, why: str) -> None:
    text = bad + "\n" if why == "first line" else f"# mnk-arena game record (plain text)\n{bad}\n"
    with pytest.raises(ValueError, match=why):
        read_text(text)
