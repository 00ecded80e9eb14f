"""Game records on disk: the Gomocup/Piskvork ``.psq`` format, read and written.

A ``.psq`` file (as Piskvork and the Gomocup results use) is plain text::

    Piskvorky 15x15, 11:11, 0      <- header: board size; the rest of the line is not used
    8,8,0                          <- one move a line: x,y (1-based column, row), milliseconds used
    9,9,1500
    -1                             <- end of the moves (optional in files made by others)
    alice                          <- player of the first stone
    bob                            <- player of the second stone
    1,Freestyle                    <- winner (1 first, 2 second, 0 draw/unknown), rule
    no result (aborted)            <- only for a game with no result: it was not a draw

Readers stop at the first line that is not three integers, so extra trailing lines are harmless.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from protocol.cells import cell_name
from protocol.rules import Move, WinRule

_RULES_READ = {"standard": WinRule.EXACT, "exact": WinRule.EXACT, "renju": WinRule.RENJU}
_HEADER = re.compile(r"^\s*Piskvork\w*\s+(\d+)x(\d+)", re.IGNORECASE)
_MOVE = re.compile(r"^\s*-?\d+\s*,\s*-?\d+\s*,\s*-?\d+\s*$")
_RULE_NAMES = {WinRule.FREESTYLE: "Freestyle", WinRule.EXACT: "Standard", WinRule.RENJU: "Renju"}
_NO_RESULT_LINE = re.compile(r"^no result \((?P<reason>[^)]*)\)$")

#: Reasons a game ends with no result: neither a win nor a draw (nobody is scored, it is not
#: rated, lists say "aborted"). The one place this rule lives; the server says it on the wire as
#: each game's ``outcome``.
NO_RESULT = frozenset({"aborted"})


def outcome(winner: int | None, reason: str | None) -> str:
    """A finished game's outcome as the wire says it: ``win`` (``winner`` won), ``draw``, or
    ``none`` (no result: aborted, which is not a draw)."""
    if reason in NO_RESULT:
        return "none"
    return "draw" if winner is None else "win"


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
    #: Why a game with no result ended (``aborted``); None for a win, a draw or unknown.
    no_result: str | None = None


def write_psq(record: PsqRecord) -> str:
    """The record as ``.psq`` text."""
    times = (list(record.times_ms) + [0] * len(record.moves))[: len(record.moves)]
    lines = [f"Piskvorky {record.width}x{record.height}, 11:11, 0"]
    pairs = zip(record.moves, times, strict=True)
    lines += [f"{m.x + 1},{m.y + 1},{max(0, int(t))}" for m, t in pairs]
    winner = 0 if record.winner is None else record.winner + 1
    lines += ["-1", *record.players, f"{winner},{_RULE_NAMES[record.rule]}"]
    if record.no_result is not None:
        lines.append(f"no result ({record.no_result})")
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
    found = _NO_RESULT_LINE.match(tail[3]) if len(tail) >= 4 else None
    no_result = found.group("reason") if found else None
    return PsqRecord(width, height, tuple(moves), tuple(times), players, winner, rule, no_result)


#: The plain-text record's first line; every client writes exactly this format (README).
TEXT_TITLE = "# mnk-arena game record (plain text)"
_TEXT_MOVE = re.compile(r"^(\d+) ([A-HJ-Z])(\d+) (\d+),(\d+) (-|\d+\.\d{3})$")
_TEXT_VARIANT = re.compile(r"^(\S+) (\d+)x(\d+) k=(\d+) rule=(\w+)$")
_TEXT_RESULT = re.compile(
    r"^(?:(?P<name>.+) wins|(?P<draw>draw)|(?P<none>no result)|(?P<open>unfinished))"
    r"(?: \((?P<reason>[^)]*)\))?$"
)


@dataclass(frozen=True, slots=True)
class TextRecord:
    """A game as the plain-text record holds it: what it was, who played, each move's time."""

    game_id: str
    name: str
    width: int
    height: int
    k: int
    rule: str
    players: tuple[str, str]
    moves: tuple[Move, ...]
    #: Milliseconds each move took (None where not known).
    times_ms: tuple[int | None, ...] = ()
    #: The winning seat (0 the first player), None for a draw or an unfinished game.
    winner: int | None = None
    #: Why it ended (the protocol's ``reason``), None for an unfinished game.
    reason: str | None = None
    #: When it started, as an ISO 8601 UTC time (``2026-11-27T09:41:02.000Z``), if known.
    started: str | None = None


def write_text(record: TextRecord) -> str:
    """The plain-text record: ``# key: value`` header lines, one move a line (its number, its
    cell's name, its 0-based column and row from the top left, its seconds or ``-``), then the
    result."""
    lines = [
        TEXT_TITLE,
        f"# game: {record.game_id}",
        f"# variant: {record.name} {record.width}x{record.height} k={record.k} rule={record.rule}",
        f"# first: {record.players[0]}",
        f"# second: {record.players[1]}",
    ]
    if record.started:
        lines.append(f"# started: {record.started}")
    times = (*record.times_ms, *[None] * len(record.moves))
    for i, (move, ms) in enumerate(zip(record.moves, times, strict=False), start=1):
        secs = "-" if ms is None else f"{ms / 1000:.3f}"
        name = cell_name(move.x, move.y, record.height)
        lines.append(f"{i} {name} {move.x},{move.y} {secs}")
    if record.reason is None:
        lines.append("# result: unfinished")
    elif outcome(record.winner, record.reason) == "none":
        lines.append(f"# result: no result ({record.reason})")
    elif record.winner is None:
        lines.append(f"# result: draw ({record.reason})")
    else:
        lines.append(f"# result: {record.players[record.winner]} wins ({record.reason})")
    return "\n".join(lines) + "\n"


def read_text(text: str) -> TextRecord:
    """Parse a plain-text record; ValueError for anything :func:`write_text` would not write
    (a move out of order, off the board, or whose name is not its cell)."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != TEXT_TITLE:
        raise ValueError(f"not a plain-text game record: the first line must be {TEXT_TITLE!r}")
    header: dict[str, str] = {}
    moves: list[Move] = []
    times: list[int | None] = []
    for raw in lines[1:]:
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            key, sep, value = line[1:].partition(":")
            if sep:
                header[key.strip()] = value.strip()
            continue
        if "variant" not in header:
            raise ValueError("a move before the record's variant line")
        found = _TEXT_MOVE.match(line)
        if found is None:
            raise ValueError(f"not a move line: {line[:40]!r}")
        number, column, row, x, y, secs = found.groups()
        _, width, height = _variant(header["variant"])[:3]
        move = Move(int(x), int(y))
        if int(number) != len(moves) + 1:
            raise ValueError(f"move {number} out of order")
        if not (move.x < width and move.y < height):
            raise ValueError(f"move {x},{y} is off the {width}x{height} board")
        if f"{column}{row}" != cell_name(move.x, move.y, height):
            raise ValueError(f"move {number}: {column}{row} is not cell {x},{y}")
        moves.append(move)
        times.append(None if secs == "-" else round(float(secs) * 1000))
    name, width, height, k, rule = _variant(header.get("variant", ""))
    players = (header.get("first", ""), header.get("second", ""))
    winner, reason = _result(header.get("result", "unfinished"), players)
    return TextRecord(
        header.get("game", ""), name, width, height, k, rule, players, tuple(moves),
        tuple(times), winner, reason, header.get("started"),
    )  # fmt: skip


def _variant(value: str) -> tuple[str, int, int, int, str]:
    found = _TEXT_VARIANT.match(value)
    if found is None:
        raise ValueError(f"bad variant line: {value[:60]!r}")
    name, width, height, k, rule = found.groups()
    return name, int(width), int(height), int(k), rule


def _result(value: str, players: tuple[str, str]) -> tuple[int | None, str | None]:
    found = _TEXT_RESULT.match(value)
    if found is None:
        raise ValueError(f"bad result line: {value[:60]!r}")
    if found.group("open"):
        return None, None
    reason = found.group("reason") or ""
    if found.group("draw") or found.group("none"):
        return None, reason
    if found.group("name") not in players:
        raise ValueError(f"the result names {found.group('name')!r}, who did not play")
    return players.index(found.group("name")), reason
