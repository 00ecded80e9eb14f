"""The SPRT in ``protocol/sprt.py``: one computation that ``mnk-tournament`` prints and the
server's ``match`` event stops on; its LLR checked against the figures ``mnk-tournament``
computed before it moved there (``bots/tournament/stats.py`` at 3035990, same records)."""

from __future__ import annotations

import math

import pytest

from protocol.sprt import Sprt, sprt_llr

#: (wins, draws, losses), elo0, elo1 -> the LLR bots/tournament/stats.py gave (to 1e-9).
KNOWN = [
    ((10, 5, 3), 0, 10, 0.269438731),
    ((10, 5, 3), -5, 5, 0.278957736),
    ((10, 5, 3), 0, 50, 1.153481477),
    ((3, 5, 10), 0, 10, -0.28842094),
    ((3, 5, 10), 0, 50, -1.62698774),
    ((0, 0, 10), 0, 10, -0.291964678),
    ((20, 0, 0), 0, 10, 0.567363204),
    ((20, 0, 0), 0, 50, 2.671836942),
    ((7, 30, 7), 0, 10, -0.057163445),
    ((7, 30, 7), -5, 5, 0.0),
    ((1, 0, 0), 0, 10, 0.028368219),
    ((55, 20, 45), -5, 5, 0.345381156),
    ((120, 80, 100), 0, 10, 0.615792885),
    ((120, 80, 100), 0, 50, -0.298705241),
]


@pytest.mark.parametrize(("record", "elo0", "elo1", "llr"), KNOWN)
def test_the_llr_is_what_mnk_tournament_computed_before(
    record: tuple[int, int, int], elo0: float, elo1: float, llr: float
) -> None:
    assert sprt_llr(*record, elo0, elo1) == pytest.approx(llr, abs=1e-8)
    assert Sprt(elo0, elo1).llr(*record) == pytest.approx(llr, abs=1e-8)


def test_bounds_state_and_verdicts() -> None:
    test = Sprt(0, 10)
    assert test.upper == pytest.approx(math.log(19)) and test.lower == -test.upper
    odd = Sprt(0, 5, 0.1, 0.2)
    assert (odd.lower, odd.upper) == pytest.approx((math.log(0.2 / 0.9), math.log(0.8 / 0.1)))
    state = Sprt(0, 50).state(20, 0, 0)
    assert state == {
        "elo0": 0.0, "elo1": 50.0, "alpha": 0.05, "beta": 0.05, "lower": -2.9444,
        "upper": 2.9444, "llr": 2.6718, "wins": 20, "draws": 0, "losses": 0, "verdict": None,
    }  # fmt: skip
    assert Sprt(0, 50).state(30, 0, 0)["verdict"] == "H1"
    assert Sprt(0, 50).state(0, 0, 30)["verdict"] == "H0"
    assert Sprt(0, 10).state(0, 0, 0)["llr"] == 0.0


def test_the_director_uses_the_same_code() -> None:
    from bots.tournament import stats

    assert stats.Sprt is Sprt and stats.sprt_llr is sprt_llr


@pytest.mark.parametrize("bad", [(10, 0), (0, 0), (-2000, 0), (0, 10, 0, 0.05), (0, 10, 0.05, 1)])
def test_a_test_out_of_range_is_refused(bad: tuple[float, ...]) -> None:
    with pytest.raises(ValueError):
        Sprt.checked(*bad)
