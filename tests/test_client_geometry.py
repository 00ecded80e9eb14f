"""Geometry: pixel <-> cell mapping round trips for any board in any window."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from client.geometry import MIN_CELL, fit_board
from protocol.cells import cell_name, column_label, row_label

sides = st.integers(min_value=3, max_value=25)
windows = st.tuples(
    st.integers(0, 200), st.integers(0, 200), st.integers(160, 2400), st.integers(160, 1600)
)


@settings(max_examples=300, deadline=None)
@given(cols=sides, rows=sides, area=windows, labels=st.booleans())
def test_center_round_trips_and_fits(
    cols: int, rows: int, area: tuple[int, int, int, int], labels: bool
) -> None:
    geo = fit_board(cols, rows, area, labels=labels)
    left, top, width, height = area
    bl, bt, bw, bh = geo.board_rect
    if geo.cell > MIN_CELL:  # the board fits inside the area unless it had to be clamped
        assert bl >= left and bt >= top
        assert bl + bw <= left + width and bt + bh <= top + height
    for x in range(cols):
        for y in range(rows):
            assert geo.cell_at(*geo.center(x, y)) == (x, y)


@settings(max_examples=200, deadline=None)
@given(cols=sides, rows=sides, area=windows, fx=st.floats(-0.5, 1.5), fy=st.floats(-0.5, 1.5))
def test_any_pixel_maps_to_its_square_or_none(
    cols: int, rows: int, area: tuple[int, int, int, int], fx: float, fy: float
) -> None:
    geo = fit_board(cols, rows, area)
    gl, gt, gw, gh = geo.grid_rect
    px, py = gl + fx * gw, gt + fy * gh
    cell = geo.cell_at(px, py)
    inside = gl <= px < gl + gw and gt <= py < gt + gh
    assert (cell is not None) == inside
    if cell is not None:
        cx, cy = geo.center(*cell)
        assert abs(px - cx) <= geo.cell / 2 + 1 and abs(py - cy) <= geo.cell / 2 + 1


def test_outside_pixels_are_none() -> None:
    geo = fit_board(15, 15, (0, 0, 800, 600))
    gl, gt, gw, gh = geo.grid_rect
    for p in [(gl - 1, gt), (gl, gt - 1), (gl + gw, gt), (gl, gt + gh), (-50, -50), (5000, 10)]:
        assert geo.cell_at(*p) is None
    assert geo.cell_at(gl, gt) == (0, 0)
    assert geo.cell_at(gl + gw - 1, gt + gh - 1) == (14, 14)


def test_board_is_centred_and_scales_with_the_window() -> None:
    small = fit_board(15, 15, (0, 0, 600, 600))
    big = fit_board(15, 15, (0, 0, 1200, 1200))
    assert big.cell >= 2 * small.cell - 1
    left, top, width, height = small.board_rect
    assert abs(left - (600 - left - width)) <= 2 and abs(top - (600 - top - height)) <= 2
    wide = fit_board(7, 6, (0, 0, 1600, 400))
    assert wide.cell * 6 <= 400


def test_labels_skip_i_and_count_rows_from_the_bottom() -> None:
    assert "".join(column_label(x) for x in range(15)) == "ABCDEFGHJKLMNOP"
    assert column_label(24) == "Z"
    assert row_label(0, 15) == "15" and row_label(14, 15) == "1"
    assert cell_name(7, 7, 15) == "H8"
    assert cell_name(0, 0, 3) == "A3"
