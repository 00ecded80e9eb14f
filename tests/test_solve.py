"""The exact solver against known m,n,k results, through ``bots.solve.main`` and ``solve``."""

from __future__ import annotations

import json

import pytest

from bots.engine.solver import Solver, solve
from bots.solve import main


@pytest.mark.parametrize(
    ("w", "h", "k", "value"),
    [(3, 3, 3, "draw"), (4, 4, 3, "win"), (4, 4, 4, "draw"), (3, 4, 3, "win"), (4, 3, 4, "draw")],
)
def test_cli_known_values(
    w: int, h: int, k: int, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``mnk-solve W H K`` prints one JSON line with the known game value."""
    assert main([str(w), str(h), str(k)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1
    out = json.loads(lines[0])
    assert set(out) == {"width", "height", "k", "value", "best_move", "nodes", "seconds"}
    assert (out["width"], out["height"], out["k"], out["value"]) == (w, h, k, value)
    x, y = out["best_move"]
    assert 0 <= x < w and 0 <= y < h
    assert out["nodes"] > 0 and out["seconds"] < 30


def test_best_move_really_achieves_the_value() -> None:
    """On 4x4 k=3 the reported first move wins: the second player, after it, loses."""
    sol = solve(4, 4, 3)
    assert sol.value == 1 and sol.best_move is not None
    x, y = sol.best_move
    solver = Solver(4, 4, 3)
    value = solver.value(0, 1 << (y * 4 + x))
    assert value == -1


def test_symmetry_key_is_invariant() -> None:
    """All eight images of a position share one canonical key."""
    solver = Solver(4, 4, 4)
    me, opp = 0b0000_0000_0010_0001, 0b0000_0100_0000_0010
    keys = {solver.canonical(solver._apply(p, me), solver._apply(p, opp)) for p in solver.perms}
    assert len(keys) == 1


@pytest.mark.slow
def test_5x5_k4_is_a_draw() -> None:
    """The stretch case: 5x5 k=4 is a known draw (about 10 s here)."""
    sol = solve(5, 5, 4, time_limit=120)
    assert sol.value == 0


def test_cli_rejects_bad_sizes(capsys: pytest.CaptureFixture[str]) -> None:
    """Out-of-range boards exit with status 2 and a message, not a traceback."""
    assert main(["2", "3", "3"]) == 2
    assert main(["4", "4", "5"]) == 2
    assert "mnk-solve" in capsys.readouterr().err
