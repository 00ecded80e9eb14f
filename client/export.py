"""A finished game saved to a file: the server's ``.psq`` record, or the client's plain-text
record (one move a line with its time), and the folder they go to.

The plain-text record (README, "Analysis")::

    # mnk-arena game g_4k2…
    game: gomoku 15x15 k=5 freestyle
    black: alice
    white: minimax
    result: minimax wins with 5 in a row
    1 H8 1.100
    2 J9 0.352
    3 G7 -

Header lines are ``key: value`` (``#`` lines are comments); then one move a line: its number,
the cell as players write it (column letter without I, row counted from the bottom) and the
seconds the move took (``-`` when the server did not say).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from client.geometry import COLUMN_LETTERS, cell_name
from client.records import Cell, FinishedGame
from client.words import result_text

_MOVE = re.compile(r"^\s*(\d+)\s+([A-HJ-Z]{1,2})(\d+)\s+(-|\d+(?:\.\d+)?)\s*$")


def text_record(game: FinishedGame) -> str:
    """``game`` as the client's plain-text record."""
    info = game.game
    names = ("X", "O") if info.uses_marks else ("black", "white")
    lines = [
        f"# mnk-arena game {game.game_id}",
        f"game: {info.name} {info.width}x{info.height} k={info.k} {info.rule}",
        f"{names[0]}: {game.players[0]}",
        f"{names[1]}: {game.players[1]}",
        f"result: {result_text(game.result, game.players, info.k)}",
    ]
    times = [*game.times_ms, *[None] * len(game.moves)]
    for i, ((x, y), ms) in enumerate(zip(game.moves, times, strict=False), start=1):
        lines.append(f"{i} {cell_name(x, y, info.height)} {seconds(ms)}")
    return "\n".join(lines) + "\n"


def seconds(ms: int | None) -> str:
    """A move's time as the record writes it: seconds with milliseconds, ``-`` when unknown."""
    return "-" if ms is None else f"{ms / 1000:.3f}"


@dataclass(frozen=True, slots=True)
class TextRecord:
    """What a plain-text record holds: its header fields, the moves and their times."""

    header: dict[str, str]
    moves: tuple[Cell, ...]
    times_ms: tuple[int | None, ...]


def read_text_record(text: str) -> TextRecord:
    """Parse a plain-text record; ValueError for a move line out of order or off the board."""
    header: dict[str, str] = {}
    moves: list[Cell] = []
    times: list[int | None] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        found = _MOVE.match(line)
        if found is None:
            key, sep, value = line.partition(":")
            if not sep:
                raise ValueError(f"not a record line: {line[:40]!r}")
            header[key.strip()] = value.strip()
            continue
        number, column, row, secs = found.groups()
        if int(number) != len(moves) + 1:
            raise ValueError(f"move {number} out of order")
        height = _height(header)
        moves.append((_column(column), height - int(row)))
        times.append(None if secs == "-" else round(float(secs) * 1000))
    return TextRecord(header, tuple(moves), tuple(times))


def _height(header: dict[str, str]) -> int:
    size = re.search(r"\b(\d+)x(\d+)\b", header.get("game", ""))
    if size is None:
        raise ValueError("the record names no board size before its moves")
    return int(size.group(2))


def _column(label: str) -> int:
    if len(label) == 1:
        return COLUMN_LETTERS.index(label)
    n = len(COLUMN_LETTERS)
    return (COLUMN_LETTERS.index(label[0]) + 1) * n + COLUMN_LETTERS.index(label[1])


def export_dir() -> Path:
    """Where exports go: ``$MNK_EXPORT_DIR``, else ``~/Downloads`` when there is one, else
    the home folder."""
    chosen = os.environ.get("MNK_EXPORT_DIR")
    if chosen:
        return Path(chosen).expanduser()
    downloads = Path.home() / "Downloads"
    return downloads if downloads.is_dir() else Path.home()


def save(game_id: str, suffix: str, text: str, folder: Path | None = None) -> Path:
    """Write ``text`` to ``mnk-<game_id><suffix>`` in ``folder`` (the export folder by
    default); the path written."""
    folder = export_dir() if folder is None else folder
    folder.mkdir(parents=True, exist_ok=True)
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", game_id)[:64] or "game"
    path = folder / f"mnk-{safe}{suffix}"
    path.write_text(text, encoding="utf-8")
    return path
