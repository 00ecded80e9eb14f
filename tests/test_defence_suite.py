"""A sample of the white-defence suite, its claims re-proved by the core's threat search.

The suite (``bench/defence.json``, written by ``bench/make_defence.py``) runs whole in
``bench/defence_suite.py``; here every few positions are checked, so the file stays honest
when the engine changes: white is to move early in the game, black would win by threats were
white to pass, every accepted answer leaves black without a VCF, and a refuted candidate
(the best-ordered move that is not an answer) does lose.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bots.engine.fast import core_for, load_core
from protocol import GOMOKU, Move

SUITE = json.loads((Path(__file__).resolve().parents[1] / "bench" / "defence.json").read_text())
SAMPLE = SUITE[::3]
FOREVER = 1e18
#: The re-proof's budgets: the generator's (a win is found fast, a VCF's absence too).
VCF_PLIES, VCT_PLIES, NODES = 25, 15, 200_000
#: A moderate VCT check of every answer: it must not find a win (it may run out of budget).
CHECK_VCT_PLIES, CHECK_VCT_NODES = 11, 20_000


def _far_cell(moves: list[Move]) -> Move:
    """A white "pass": the empty cell farthest from every stone (an extra white stone never
    helps black in freestyle, so black's win with it stands for a win after a pass)."""
    empty = [Move(x, y) for y in range(15) for x in range(15) if Move(x, y) not in moves]
    return max(empty, key=lambda c: min(max(abs(c.x - m.x), abs(c.y - m.y)) for m in moves))


def _black_wins(core: object) -> bool:
    """Whether the side to move (black) has a proven VCF or VCT."""
    by_fours = core.threat_win(VCF_PLIES, False, NODES, FOREVER)  # type: ignore[attr-defined]
    return by_fours >= 0 or core.threat_win(VCT_PLIES, True, NODES, FOREVER) >= 0  # type: ignore[attr-defined]


def test_suite_is_big_and_early() -> None:
    """40 or more distinct positions, white to move with 7-19 stones, a few answers each."""
    assert len(SUITE) >= 40
    assert len({json.dumps(e["moves"]) for e in SUITE}) == len(SUITE)
    for entry in SUITE:
        assert len(entry["moves"]) % 2 == 1 and 7 <= len(entry["moves"]) <= 19
        assert 1 <= len(entry["accepted"]) < entry["refuted"] and entry["refuted"] >= 3
        assert entry["category"] in ("defend-vcf", "defend-vct") and entry["source"]


@pytest.mark.parametrize("entry", SAMPLE, ids=lambda e: f"{e['category']}-{len(e['moves'])}")
def test_claims_are_proved_by_threat_search(entry: dict) -> None:  # type: ignore[type-arg]
    """Black wins after a white pass; every answer stops its VCF (and no VCT is found); the
    best-ordered non-answer loses."""
    moves = [Move(x, y) for x, y in entry["moves"]]
    passed = core_for(GOMOKU, [*moves, _far_cell(moves)], load_core(), keep=False)
    assert passed.side() == 0 and _black_wins(passed)
    core = core_for(GOMOKU, moves, load_core(), keep=False)
    assert core.side() == 1 and not core.over()
    for x, y in entry["accepted"]:
        core.play(y * 15 + x)
        try:
            assert core.threat_win(VCF_PLIES, False, NODES, FOREVER) == -1
            assert core.threat_win(CHECK_VCT_PLIES, True, CHECK_VCT_NODES, FOREVER) < 0
        finally:
            core.undo()
    others = [c for c in core.root_moves() if [c % 15, c // 15] not in entry["accepted"]]
    core.play(others[0])
    try:
        assert _black_wins(core)
    finally:
        core.undo()
