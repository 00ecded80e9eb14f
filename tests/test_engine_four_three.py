"""Move generation against a four-three (round three): what it leaves out loses, proven."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from bots.engine.fast import core_for, load_core
from protocol import GOMOKU, Move

SUITE = Path(__file__).resolve().parents[1] / "bench" / "tactics.json"
C_FOUR_THREE, C_FLEX4 = 10, 11  # bots.engine.shapes.C_FOUR_THREE, C_FLEX4
#: Positions checked (the first found in the self-play games' prefixes, in order).
POSITIONS = 12


def four_three_positions(limit: int) -> list[list[Move]]:
    """Self-play positions (prefixes of the tactics suite's games) where the side that just
    moved has a four-three point and no open three or four, and nobody has a win cell."""
    module, seen, found = load_core(), set(), []
    for entry in json.loads(SUITE.read_text()):
        moves = [Move(x, y) for x, y in entry["moves"]]
        for k in range(6, len(moves) + 1):
            core = core_for(GOMOKU, moves[:k], module, keep=False)
            if core.over() or core.zobrist() in seen:
                continue
            seen.add(core.zobrist())
            att = 1 - core.side()
            if core.win_cells(0) or core.win_cells(1):
                continue
            codes = [core.cell_code(att, c) for c in range(225) if core.at(c) == 0]
            if C_FOUR_THREE in codes and max(codes) < C_FLEX4:
                found.append(moves[:k])
                if len(found) == limit:
                    return found
    return found


@pytest.mark.slow
def test_every_move_left_out_against_a_four_three_loses_to_fours() -> None:
    """With ``gen_mode`` a node facing a four-three searches only the cells that may spoil
    it (and its own fours); every other nearby cell is proven lost: after it the attacker
    wins by fours (the threat search, run to the end within its budget). Checked on the
    first positions of the self-play games with such a point; the first version of this
    generation (the point's windows only) left out a block that makes a four of its own."""
    positions = four_three_positions(POSITIONS)
    assert len(positions) == POSITIONS
    checked = 0
    for moves in positions:
        core = core_for(GOMOKU, moves, load_core(), keep=False)
        core.gen_mode = 1
        kept = set(core.candidates(0))
        core.gen_mode = 0
        every = core.candidates(0)
        assert len(kept) < len(every), moves  # it narrows the node
        for cell in every:
            if cell in kept:
                continue
            core.play(cell)
            won = core.threat_win(9, False, 20_000, time.perf_counter() + 60)
            core.undo()
            assert won >= 0, (moves, cell, won)
            checked += 1
    assert checked > 10 * POSITIONS
