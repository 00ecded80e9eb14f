"""``mnk-bot certify SPEC`` as its user runs it: the built-in minimax passes every check in a
few seconds; a bot that answers gomoku with an illegal move fails exactly the checks that play
gomoku (and says why), passes the others, and the exit status says it was not certified."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.bots import ILLEGAL

pytestmark = pytest.mark.slow  # an embedded server and a bot process

ROOT = Path(__file__).resolve().parents[1]


RECKLESS = """
from bots.sdk import RandomBot
from protocol.rules import Move

class Reckless(RandomBot):
    def choose(self, variant, moves, limit):
        if variant.name == "renju" and Move(7, 7) not in moves:
            return Move(7, 7)  # the centre, even where it is a forbidden double three
        return super().choose(variant, moves, limit)
"""

EVERY_CHECK = [
    "connects", "tictactoe", "gomoku", "renju", "clock", "takeback", "abort", "rematch",
    "reconnect", "position",
]  # fmt: skip


def certify(*args: str, path: Path | None = None) -> tuple[int, dict[str, str], str]:
    """Run ``mnk-bot certify``; its exit status, each check's line by name, and its output."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(str(p) for p in (path, ROOT) if p is not None)
    done = subprocess.run(
        [sys.executable, "-m", "bots", "certify", *args],
        capture_output=True, text=True, env=env, cwd=path or ROOT, timeout=300,
    )  # fmt: skip
    lines = {}
    for line in done.stdout.splitlines():
        name, _, rest = line.partition(" ")
        if name in EVERY_CHECK:
            lines[name] = rest.strip()
    return done.returncode, lines, done.stdout + done.stderr


def test_the_built_in_minimax_is_certified() -> None:
    code, lines, out = certify("minimax")
    assert code == 0, out
    assert list(lines) == EVERY_CHECK, out
    assert all(line.startswith("pass") for line in lines.values()), out
    assert "forbidden" in lines["renju"] and "came back" in lines["reconnect"]
    assert "10 of 10 checks passed" in out and "minimax: certified in" in out


def test_a_bot_illegal_in_gomoku_fails_the_checks_that_play_gomoku(tmp_path: Path) -> None:
    (tmp_path / "illegal.py").write_text(ILLEGAL)
    code, lines, out = certify("illegal:Illegal", path=tmp_path)
    assert code == 1, out
    failed = {name for name, line in lines.items() if line.startswith("FAIL")}
    gomoku = {"gomoku", "clock", "takeback", "abort", "rematch", "reconnect", "position"}
    assert failed == gomoku, out  # every check but the variants it plays right is on gomoku
    assert "illegal_move" in lines["gomoku"], out
    assert "illegal:Illegal: not certified" in out


def test_a_bot_claiming_only_tic_tac_toe_is_checked_on_tic_tac_toe(tmp_path: Path) -> None:
    (tmp_path / "illegal.py").write_text(ILLEGAL)
    code, lines, out = certify("illegal:Illegal", "--games", "tictactoe", path=tmp_path)
    assert code == 0, out
    assert "gomoku" not in lines and "renju" not in lines and len(lines) == 8, out


def test_a_bot_playing_a_forbidden_point_as_black_fails_the_renju_check(tmp_path: Path) -> None:
    (tmp_path / "reckless.py").write_text(RECKLESS)
    code, lines, out = certify("reckless:Reckless", "--games", "renju", path=tmp_path)
    assert code == 1, out
    failed = {name for name, line in lines.items() if line.startswith("FAIL")}
    assert failed == {"renju"}, out  # from the empty board and the other position it is legal
    assert "illegal_move" in lines["renju"], out


def test_a_bad_spec_or_game_is_refused_before_anything_starts() -> None:
    code, _, out = certify("nosuchengine")
    assert code == 2 and "unknown engine" in out
    code, _, out = certify("minimax", "--games", "chess")
    assert code == 2 and "unknown game 'chess'" in out
