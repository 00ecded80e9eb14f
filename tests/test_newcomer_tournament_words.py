"""A tournament says where to watch it, resumes with its standings, charts stay readable."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pygame
import pytest
from rich.console import Console

from bots.tournament.chart import ROW_H, TOP, VALUE_W, WIDTH, draw_elo_chart
from bots.tournament.report import RichReporter
from bots.tournament.results import Standing

MNK_TOURNAMENT = str(Path(sys.executable).parent / "mnk-tournament")


@pytest.mark.slow
def test_the_run_says_where_to_watch_and_what_it_wrote(tmp_path: Path) -> None:
    argv = ["--game", "tictactoe", "--bot", "a=minimax:level=10", "--bot", "b=random"]
    done = subprocess.run(
        [MNK_TOURNAMENT, *argv, "--games", "2", "--out", "runs/t", "--plain"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("watch it live: mnk-client --server 127.0.0.1:")
    assert lines[1].startswith("or in a browser: http://127.0.0.1:") and "/tv " in lines[1]
    assert "chart:   runs/t/elo.png" in lines and (tmp_path / "runs/t/elo.png").exists()
    assert any(line.startswith("games:   runs/t/games/") for line in lines)


def test_a_resumed_run_shows_its_standings_at_once() -> None:
    out = io.StringIO()
    reporter = RichReporter(Console(file=out, width=100, force_terminal=False))
    table = [Standing("alpha"), Standing("beta")]
    reporter.start(12, 5, table)
    reporter.finish()
    shown = out.getvalue()
    assert "alpha" in shown and "beta" in shown and "5/12" in shown
    assert "-:--:--" not in shown and "after a game" in shown


def test_value_labels_sit_clear_of_bars_that_run_off_the_axis(tmp_path: Path) -> None:
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    rows = [
        {"name": "perfect", "elo": 1050.0, "elo_error": 700.0},
        {"name": "a-bot-with-a-very-long-name-indeed", "elo": -900.0, "elo_error": 650.0},
    ]
    path = tmp_path / "elo.png"
    draw_elo_chart(rows, path)
    image = pygame.image.load(str(path))
    # Nothing of the rows' plot (bars, error bars, arrow heads) reaches the value column.
    for y in range(TOP, TOP + ROW_H * len(rows)):
        for x in range(WIDTH - VALUE_W - 12, WIDTH - VALUE_W - 2):
            colour = image.get_at((x, y))
            assert colour.r + colour.g + colour.b > 600, (x, y, colour)
