"""The pygame client shows the server's win chance for a line, not the engine's units (44.17)."""

from __future__ import annotations

from client.analysis import Line


def test_a_line_with_the_server_s_win_chance_says_it() -> None:
    line = Line.from_wire({"move": [7, 7], "score": 199, "win": 55, "pv": [], "depth": 6})
    assert line.label() == "55 % win chance"
    older = Line.from_wire({"move": [7, 7], "score": 199, "pv": [], "depth": 6})
    assert older.label() == "+199"  # an older server: the score as it was
    assert Line.from_wire({"move": [7, 7], "mate": 3, "win": 100, "pv": []}).label() == "win in 3"
    assert Line.from_wire({"move": [7, 7], "score": 1, "win": 900, "pv": []}).win is None
