"""A bot's ``analysed`` answer checked and rebuilt before anyone sees it: a bot may be buggy or
hostile, so only the documented fields, each of the documented shape, reach a client."""

from __future__ import annotations

import math
from typing import Any

from protocol.errors import BadMessage
from protocol.rules import Game
from protocol.wire import MAX_INFO_INT, MAX_PV, Message
from server.core.analysis.position import Target

#: Lines an ``analyse`` may ask for, and its time budget in seconds (default, most).
MAX_LINES = 5
DEFAULT_TIME_S = 1.0
MAX_TIME_S = 5.0
VALUES = frozenset({"win", "draw", "loss"})
#: A score at least this far from zero is a won (or lost) game, not an opinion (the built-in
#: engine's WIN is 1,000,000; its won scores stay above half of it).
WON_SCORE = 500_000
#: A score's win chance is 50 + 50 * tanh(score / WIN_SCALE) % (the browser's graph draws the
#: same curve): +2000, a strong threat, is 88 %; +200 is 55 %.
WIN_SCALE = 2000.0


def win_chance(line: Message) -> int | None:
    """The side to move's chance to win, in whole percent, from a line's ``mate`` or ``score``:
    100/0 for a forced end or a won score, else 1-99 on the score's curve; None without either.
    People read this, not the engine's units (issue 44.17): the clients show it as said."""
    if "mate" in line:
        return 100 if line["mate"] > 0 else 0
    if "score" not in line:
        return None
    score = line["score"]
    if abs(score) >= WON_SCORE:
        return 100 if score > 0 else 0
    return min(99, max(1, round(50 + 50 * math.tanh(score / WIN_SCALE))))


def budget(msg: Message) -> tuple[int, float]:
    """The ``lines`` (1-5) and ``time`` (over 0, at most 5 s) of an ``analyse``."""
    lines = msg.get("lines", 1)
    if not 1 <= lines <= MAX_LINES:
        raise BadMessage(f"analyse: lines must be 1..{MAX_LINES}")
    time_s = msg.get("time", DEFAULT_TIME_S)
    if not 0 < time_s <= MAX_TIME_S:  # a NaN fails this too
        raise BadMessage(f"analyse: time must be above 0 and at most {MAX_TIME_S:g} s")
    return lines, float(time_s)


def answer_body(msg: Message, target: Target, lines: int) -> Message:
    """``lines`` and ``values`` of a bot's ``analysed`` for ``target``, rebuilt from checked
    values; BadMessage when anything is off (the askers then get ``analysis_failed``)."""
    game = Game.from_moves(target.variant, list(target.moves))
    raw = msg.get("lines")
    if not isinstance(raw, list) or not 1 <= len(raw) <= lines:
        raise BadMessage(f"analysed: lines must hold 1..{lines} lines")
    body: Message = {"lines": [_line(line, game) for line in raw]}
    values = msg.get("values")
    if values is not None:
        if not isinstance(values, list) or len(values) > target.variant.cells:
            raise BadMessage("analysed: values must be a list of at most a value per cell")
        body["values"] = [_value(v, game) for v in values]
    return body


def _line(raw: object, game: Game) -> Message:
    if not isinstance(raw, dict):
        raise BadMessage("analysed: a line is a map")
    line: Message = {"move": _cell(raw.get("move"), game, empty=True)}
    if "score" in raw and "mate" in raw:
        raise BadMessage("analysed: a line has a score or a mate, not both")
    for name in ("score", "mate"):
        if name in raw:
            line[name] = _int(raw[name], name)
    chance = win_chance(line)
    if chance is not None:
        line["win"] = chance
    pv = raw.get("pv", [])
    if not isinstance(pv, list) or len(pv) > MAX_PV:
        raise BadMessage(f"analysed: pv must be at most {MAX_PV} cells")
    line["pv"] = [_cell(c, game) for c in pv]
    depth = _int(raw.get("depth", 0), "depth")
    if depth < 0:
        raise BadMessage("analysed: depth must not be negative")
    line["depth"] = depth
    return line


def _value(raw: object, game: Game) -> Message:
    if not isinstance(raw, dict) or raw.get("value") not in VALUES:
        raise BadMessage('analysed: a value is {"move", "value": win|draw|loss, "plies"}')
    plies = _int(raw.get("plies"), "plies")
    if not 0 < plies <= game.variant.cells:
        raise BadMessage("analysed: plies must count moves to the end of the game")
    return {"move": _cell(raw.get("move"), game, empty=True), "value": raw["value"], "plies": plies}


def _cell(raw: object, game: Game, empty: bool = False) -> list[int]:
    variant = game.variant
    if not (
        isinstance(raw, list)
        and len(raw) == 2
        and all(type(c) is int for c in raw)
        and 0 <= raw[0] < variant.width
        and 0 <= raw[1] < variant.height
    ):
        raise BadMessage("analysed: a cell is [x, y] on the board")
    if empty and game.board.cells[raw[1] * variant.width + raw[0]] != 0:
        raise BadMessage("analysed: a move must be onto an empty cell")
    return [raw[0], raw[1]]


def _int(raw: Any, name: str) -> int:
    if type(raw) is not int or not -MAX_INFO_INT <= raw <= MAX_INFO_INT:
        raise BadMessage(f"analysed: {name} must be an integer")
    return raw
