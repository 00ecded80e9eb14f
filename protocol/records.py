"""Game records on disk: the Gomocup/Piskvork ``.psq`` format, read and written.

A ``.psq`` file (as Piskvork and the Gomocup results use) is plain text::

    Piskvorky 15x15, 11:11, 0      <- header: board size; the rest of the line is not used
    8,8,0                          <- one move a line: x,y (1-based column, row), milliseconds used
    9,9,1500
    -1                             <- end of the moves (optional in files made by others)
    alice                          <- player of the first stone
    bob                            <- player of the second stone
    1,Freestyle                    <- winner (1 first, 2 second, 0 draw/unknown), rule

Readers stop at the first line that is not three integers, so extra trailing lines are harmless.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from protocol.rules import Move, WinRule

_RULES_READ = {"standard": WinRule.EXACT, "exact": WinRule.EXACT, "renju": WinRule.RENJU}
_HEADER = re.compile(r"^\s*Piskvork\w*\s+(\d+)x(\d+)", re.IGNORECASE)
_MOVE = re.compile(r"^\s*-?\d+\s*,\s*-?\d+\s*,\s*-?\d+\s*$")
_RULE_NAMES = {WinRule.FREESTYLE: "Freestyle", WinRule.EXACT: "Standard", WinRule.RENJU: "Renju"}


@dataclass(frozen=True, slots=True)
class PsqRecord:
    """What a ``.psq`` file holds: board size, moves with their times, names, result, rule."""

    width: int
    height: int
    moves: tuple[Move, ...]
    times_ms: tuple[int, ...] = ()
    players: tuple[str, str] = ("", "")
    winner: int | None = None
    rule: WinRule = WinRule.FREESTYLE


def write_psq(record: PsqRecord) -> str:
    """The record as ``.psq`` text."""
    times = (list(record.times_ms) + [0] * len(record.moves))[: len(record.moves)]
    lines = [f"Piskvorky {record.width}x{record.height}, 11:11, 0"]
    pairs = zip(record.moves, times, strict=True)
    lines += [f"{m.x + 1},{m.y + 1},{max(0, int(t))}" for m, t in pairs]
    winner = 0 if record.winner is None else record.winner + 1
    lines += ["-1", *record.players, f"{winner},{_RULE_NAMES[record.rule]}"]
    return "\n".join(lines) + "\n"


def read_psq(text: str) -> PsqRecord:
    """Parse ``.psq`` text; raises ValueError when the header or a coordinate is wrong."""
    lines = text.splitlines()
    if not lines or not (header := _HEADER.match(lines[0])):
        raise ValueError("not a .psq file: the first line must be 'Piskvorky WxH, ...'")
    width, height = int(header.group(1)), int(header.group(2))
    moves: list[Move] = []
    times: list[int] = []
    rest = 1
    while rest < len(lines) and _MOVE.match(lines[rest]):
        x, y, t = (int(p) for p in lines[rest].split(","))
        if not (1 <= x <= width and 1 <= y <= height):
            raise ValueError(f"move {x},{y} is off the {width}x{height} board")
        moves.append(Move(x - 1, y - 1))
        times.append(t)
        rest += 1
    tail = [line.strip() for line in lines[rest:] if line.strip()]
    if tail and tail[0] == "-1":
        tail = tail[1:]
    players = (tail[0], tail[1]) if len(tail) >= 3 else ("", "")
    winner: int | None = None
    rule = WinRule.FREESTYLE
    if len(tail) >= 3 and re.fullmatch(r"\d,\w+", tail[2]):
        code, rule_name = tail[2].split(",")
        winner = {"1": 0, "2": 1}.get(code)
        rule = _RULES_READ.get(rule_name.lower(), WinRule.FREESTYLE)
    return PsqRecord(width, height, tuple(moves), tuple(times), players, winner, rule)
