"""Reads tests/data/renju_corpus.txt: hand-built renju positions with a verdict per marked cell."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

CORPUS = Path(__file__).parent.parent / "data" / "renju_corpus.txt"
SIZE = 15
#: A mark in a diagram and the verdict it stands for (None: black may play there).
VERDICTS = {"3": "double-three", "4": "double-four", "6": "overline", "-": None, "5": None}
STONES = {"X": 1, "O": 2, ".": 0}


@dataclass
class Entry:
    """One position: its title, why it holds, the cells and the verdict per marked cell."""

    title: str
    why: str = ""
    cells: list[int] = field(default_factory=lambda: [0] * SIZE * SIZE)
    marks: dict[tuple[int, int], str | None] = field(default_factory=dict)


def _parse(title: str, lines: list[str]) -> Entry:
    entry = Entry(title)
    ox, oy = 2, 2
    rows: list[str] = []
    for line in lines:
        if line.startswith("#"):
            entry.why += line[1:].strip() + " "
        elif line.startswith("@"):
            ox, oy = (int(v) for v in line[1:].split())
        elif line.strip():
            rows.append(line.strip())
    for dy, row in enumerate(rows):
        for dx, ch in enumerate(row):
            x, y = ox + dx, oy + dy
            assert 0 <= x < SIZE and 0 <= y < SIZE, f"{title}: diagram off the board"
            if ch in STONES:
                entry.cells[y * SIZE + x] = STONES[ch]
            else:
                entry.marks[(x, y)] = VERDICTS[ch]
    assert entry.marks, f"{title}: no marked cell"
    return entry


def load() -> list[Entry]:
    """Every entry of the corpus, in file order."""
    entries: list[Entry] = []
    title: str | None = None
    body: list[str] = []
    for line in [*CORPUS.read_text().splitlines(), "## end"]:
        if line.startswith("## "):
            if title is not None:
                entries.append(_parse(title, body))
            title, body = line[3:].strip(), []
        elif title is not None:
            body.append(line)
    return entries
