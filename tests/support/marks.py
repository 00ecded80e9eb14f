"""Answers the server gives a game analysed ply by ply, built by the server's own functions
(its win chance and its marks): the oracle both clients' marks are checked against."""

from __future__ import annotations

from typing import Any

from protocol.rules import Move
from protocol.variants import FIXED
from server.core.analysis.marks import marks
from server.core.analysis.position import GameLine
from server.core.analysis.reply import win_chance

#: Scores where the clients' old copies disagreed with the server: +1402 against the mover is
#: a fall of 30 points of win chance for the server (no blunder) but 0.605 on the page's tanh
#: scale (over its 0.6) and 0.55 on the pygame client's (over its 0.4): both marked moves 0
#: and 1 as blunders. Moves 2 and 3 are blunders by every rule.
EDGE = [0, 1402, 0, 3000, None]


def edge_replies() -> list[dict[str, Any]]:
    """The answers the server gives for ``EDGE`` on ``finished_tictactoe``'s game, analysed ply
    by ply (built by the server's own functions: its win chance and its marks)."""
    moves = [Move(x, y) for x, y in ((0, 0), (1, 0), (1, 1), (2, 0), (2, 2))]
    line = GameLine.of(FIXED["tictactoe"], [], moves, "line")
    kept: dict[bytes, dict[str, Any]] = {}
    out = []
    for ply, score in enumerate(EDGE):
        entry: dict[str, Any] = {"move": [2, 2], "pv": [], "depth": 3}
        entry |= {"score": score} if score is not None else {"mate": 1}
        body = {"lines": [entry | {"win": win_chance(entry)}]}
        kept[line.key(ply)] = body
        out.append({"type": "analysis", "ply": ply, "to_move": ply % 2, **body})
        out[-1]["marks"] = marks(line, ply, body, kept.get)
    return out


def blunders_said(replies: list[dict[str, Any]]) -> list[int]:
    """The plies the server's marks call blunders."""
    return sorted(m["ply"] for r in replies for m in r["marks"] if m["verdict"] == "blunder")
