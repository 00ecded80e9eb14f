"""A sample of the generated tactics suite: its answers re-proved, and the engine finding them.

The whole suite (``bench/tactics.json``, >= 200 positions) runs in ``bench/tactics_suite.py``;
here every 20th position is checked, so the file's claims and the engine stay honest in CI.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bots.engine import Limit
from bots.engine.fast import core_for, fast_search, load_core
from protocol import GOMOKU, Move

SUITE = json.loads((Path(__file__).resolve().parents[1] / "bench" / "tactics.json").read_text())
SAMPLE = SUITE[::20]
FOREVER = 1e18


def test_suite_is_big_and_varied() -> None:
    """At least 200 positions, with win and defence puzzles both well represented."""
    cats = [e["category"] for e in SUITE]
    assert len(SUITE) >= 200
    assert cats.count("vcf-win") >= 50
    assert cats.count("defend-vcf") + cats.count("defend-vct") >= 30


@pytest.mark.parametrize("entry", SAMPLE, ids=lambda e: f"{e['category']}-{len(e['moves'])}")
def test_answers_are_proved_by_threat_search(entry: dict) -> None:  # type: ignore[type-arg]
    """A win's answers each leave the defender lost; a defence's answers each hold."""
    moves = [Move(x, y) for x, y in entry["moves"]]
    core = core_for(GOMOKU, moves, load_core(), keep=False)
    threes = entry["category"] == "defend-vct"
    for x, y in entry["accepted"]:
        core.play(y * 15 + x)
        try:
            if entry["category"] == "vcf-win":
                assert core.threat_lost(25, False, 200_000, FOREVER) == 1
            else:
                assert core.threat_win(25, False, 200_000, FOREVER) == -1
                if threes:
                    assert core.threat_win(11, True, 50_000, FOREVER) == -1
        finally:
            core.undo()
    if entry["category"] != "vcf-win":  # and some other candidate loses
        others = [c for c in core.root_moves() if [c % 15, c // 15] not in entry["accepted"]]
        core.play(others[0])
        try:
            by_fours = core.threat_win(25, False, 200_000, FOREVER) >= 0
            assert by_fours or (threes and core.threat_win(11, True, 50_000, FOREVER) >= 0)
        finally:
            core.undo()


@pytest.mark.parametrize("entry", SAMPLE, ids=lambda e: f"{e['category']}-{len(e['moves'])}")
def test_engine_solves_the_sample(entry: dict) -> None:  # type: ignore[type-arg]
    """With a fixed node budget (deterministic on any machine) the engine plays an answer."""
    moves = [Move(x, y) for x, y in entry["moves"]]
    result = fast_search(GOMOKU, moves, Limit(nodes=60_000), keep=False)
    assert [result.move.x, result.move.y] in entry["accepted"]
