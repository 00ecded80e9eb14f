"""The hostile benchmark's statistics: known quantiles, bands and verdicts."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from hostile_verdict import band, disturbed, pct, pooled_verdicts, summary, verdict

#: 1 ms, 2 ms, ... 1000 ms (in seconds, as the bench records them).
RAMP = [i / 1000 for i in range(1, 1001)]


def test_the_p99_and_its_band_are_order_statistics() -> None:
    assert pct(RAMP, 0.99) == 991.0  # the 991st of 1,000 (nearest rank above 0.99 n)
    assert band(RAMP) == (983.0, 997.0)  # ranks 990 -/+ 1.96 sqrt(1000 * 0.99 * 0.01), widened
    assert band([]) is None and pct([], 0.99) is None


def test_the_verdict_says_when_the_band_straddles_the_target() -> None:
    fast = [v / 100 for v in RAMP]  # 0.01 ms ... 10 ms: under the 100 ms bound
    calm = summary(fast)
    same = verdict(calm, calm)
    assert same["ratio"] == 1.0 and same["meets"] and same["sure"]
    at_target = verdict(calm, summary([2 * v for v in fast]))
    assert at_target["ratio"] == 2.0 and at_target["meets"] and not at_target["sure"]
    assert at_target["ratio_band"] == [round(1966 / 997, 2), round(1994 / 983, 2)]
    far = verdict(calm, summary([3 * v for v in fast]))
    assert not far["meets"] and far["sure"]
    too_slow = verdict(summary(RAMP), summary(RAMP))  # 1x, but a p99 of 991 ms
    assert not too_slow["meets"] and too_slow["sure"]


def test_a_phase_is_disturbed_when_other_processes_used_the_machine() -> None:
    assert not disturbed({"calm": 3, "attack": 15})
    assert disturbed({"calm": 3, "attack": 16})


def test_pooled_runs_are_judged_on_all_their_moves_with_a_narrower_band() -> None:
    fast = [v / 100 for v in RAMP]
    one = {"human_ms": {"calm": fast, "attack": [2 * v for v in fast]}, "bot_ms": {}}
    pooled = pooled_verdicts([one, one, one, one])
    humans = pooled["human_ms"]
    assert humans["calm"]["moves"] == humans["attack"]["moves"] == 4_000
    assert humans["verdict"]["ratio"] == 2.0  # the same distribution, four times over
    single = verdict(summary(fast), summary([2 * v for v in fast]))["ratio_band"]
    low, high = humans["verdict"]["ratio_band"]
    assert single[0] < low <= 2.0 <= high < single[1]
    assert pooled["bot_ms"]["calm"]["moves"] == 0 and pooled["bot_ms"]["verdict"]["ratio"] is None
