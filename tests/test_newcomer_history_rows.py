"""Recent-games rows read alike whether or not this client saw the game's moves."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from client.history import parse_rows, record_game
from client.views.lobby import finished_label

ROW = {
    "game_id": "g_1",
    "room": "r1",
    "game": {"name": "tictactoe", "width": 3, "height": 3, "k": 3},
    "players": ["alice", "bob"],
    "winner": 0,
    "reason": "line",
}


def test_a_row_with_moves_here_reads_like_one_without() -> None:
    (listed,) = parse_rows([ROW])
    seen = record_game({**ROW, "moves": [[0, 0], [1, 1], [0, 1], [2, 2], [0, 2]]})
    assert seen is not None
    assert finished_label(listed) == finished_label(seen)
    assert "moves" not in finished_label(seen)
