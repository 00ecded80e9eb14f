"""Openings: stones on the board before the bots play, from a file or drawn at random.

Two file formats, one opening a line (blank lines and ``#`` comments are skipped):

* Gomocup offsets: ``0, 0, 1, 0, -1, 1`` — comma-separated dx, dy pairs from the centre cell
  (``width // 2``, ``height // 2``); the numbers may be separated by spaces after the commas.
* Plain moves: ``7,7 8,7 6,8`` — absolute 0-based ``x,y`` moves separated by whitespace, with
  no space inside a move.

Stones alternate colours, seat 0 first, exactly as if the moves had been played.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from pathlib import Path

from protocol.openings import BALANCED_BOARD, balanced_openings
from protocol.rules import EMPTY, STONE, Board, Game, Move, Variant

Opening = tuple[tuple[int, int], ...]

_PLAIN_MOVE = re.compile(r"^-?\d+,-?\d+$")
#: Random stones are drawn from the square of this radius around the centre (smaller boards
#: use what fits).
RANDOM_RADIUS = 2


def parse_line(line: str, variant: Variant) -> Opening:
    """One opening from a line in either format; ValueError when it is neither."""
    tokens = line.split()
    if tokens and all(_PLAIN_MOVE.match(t) for t in tokens):
        return tuple(tuple(int(v) for v in t.split(",")) for t in tokens)  # type: ignore[misc]
    try:
        numbers = [int(p) for p in line.replace(";", ",").split(",") if p.strip()]
    except ValueError:
        raise ValueError(f"not an opening: {line.strip()!r}") from None
    if len(numbers) % 2:
        raise ValueError(f"odd number of offsets in {line.strip()!r}")
    cx, cy = variant.width // 2, variant.height // 2
    return tuple((cx + numbers[i], cy + numbers[i + 1]) for i in range(0, len(numbers), 2))


def check_opening(opening: Opening, variant: Variant) -> None:
    """ValueError unless every stone is legal and the opening does not end the game."""
    try:
        game = Game.from_moves(variant, [Move(x, y) for x, y in opening])
    except Exception as exc:
        raise ValueError(f"illegal opening {format_opening(opening)}: {exc}") from None
    if game.over:
        raise ValueError(f"opening {format_opening(opening)} already ends the game")


def parse_openings(lines: Iterable[str], variant: Variant) -> list[Opening]:
    """Every opening in ``lines`` (either format, checked against ``variant``)."""
    openings = []
    for number, raw in enumerate(lines, 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            opening = parse_line(line, variant)
            check_opening(opening, variant)
        except ValueError as exc:
            raise ValueError(f"line {number}: {exc}") from None
        openings.append(opening)
    return openings


def load_openings(path: Path, variant: Variant) -> list[Opening]:
    """The openings in a file; ValueError if it holds none or a bad line."""
    try:
        text = path.read_text()
    except OSError as exc:
        raise ValueError(f"cannot read openings: {exc}") from None
    openings = parse_openings(text.splitlines(), variant)
    if not openings:
        raise ValueError(f"{path} holds no openings")
    return openings


def has_immediate_win(board: Board) -> bool:
    """Whether either side could complete a winning line with one more stone."""
    for index, cell in enumerate(board.cells):
        if cell != EMPTY:
            continue
        for stone in STONE:
            board.cells[index] = stone
            won = board.wins_at(index)
            board.cells[index] = EMPTY
            if won:
                return True
    return False


def is_quiet(opening: Opening, variant: Variant) -> bool:
    """Whether the opening is legal, not over, and no side has a move that completes k."""
    try:
        check_opening(opening, variant)
    except ValueError:
        return False
    game = Game.from_moves(variant, [Move(x, y) for x, y in opening])
    return not has_immediate_win(game.board)


def random_opening(variant: Variant, stones: int, rng: random.Random) -> Opening:
    """``stones`` random stones near the centre, alternating colours, with no immediate win."""
    cx, cy = variant.width // 2, variant.height // 2
    radius = max(1, min(RANDOM_RADIUS, (min(variant.width, variant.height) - 1) // 2))
    box = [
        (x, y)
        for y in range(max(0, cy - radius), min(variant.height, cy + radius + 1))
        for x in range(max(0, cx - radius), min(variant.width, cx + radius + 1))
    ]
    if stones > len(box):
        raise ValueError(f"{stones} stones do not fit in the {len(box)} cells near the centre")
    for _ in range(10_000):
        opening = tuple(rng.sample(box, stones))
        if is_quiet(opening, variant):
            return opening
    raise ValueError(f"found no quiet opening of {stones} stones")


def random_openings(variant: Variant, stones: int, count: int, seed: int) -> list[Opening]:
    """``count`` distinct random openings (fewer if that many do not exist), reproducible."""
    rng = random.Random(f"openings:{seed}")
    found: list[Opening] = []
    for _ in range(count * 50):
        opening = random_opening(variant, stones, rng)
        if opening not in found:
            found.append(opening)
        if len(found) == count:
            break
    return found


def balanced_count(arg: str | None) -> int | None:
    """K of ``--openings balanced:K`` (``balanced``: the whole list); None for another
    ``--openings``; ValueError when K is not 1..the list's length."""
    if not arg or arg.split(":")[0] != "balanced":
        return None
    total = len(balanced_openings())
    count = arg.partition(":")[2] or str(total)
    if not count.isdigit() or not 1 <= int(count) <= total:
        raise ValueError(f"use --openings balanced:K (K 1..{total}: that many balanced openings)")
    return int(count)


def openings_from_arg(arg: str | None, variant: Variant, seed: int) -> list[Opening]:
    """The openings of ``--openings``: None (just the empty board), a FILE, random:K[:N], or
    balanced:K (the first K of the balanced openings, ``protocol/openings.py``; 15x15)."""
    if not arg:
        return [()]
    count = balanced_count(arg)
    if count is not None:
        if (variant.width, variant.height) != BALANCED_BOARD:
            raise ValueError("--openings balanced:K is for 15x15 games")
        found = list(balanced_openings()[:count])
        for opening in found:
            check_opening(opening, variant)
        return found
    if arg.startswith("random:"):
        parts = arg.split(":")[1:]
        if not 1 <= len(parts) <= 2 or not all(p.isdigit() for p in parts):
            raise ValueError("use --openings random:K or random:K:N (K stones, N openings)")
        stones = int(parts[0])
        count = int(parts[1]) if len(parts) == 2 else 1
        return random_openings(variant, stones, max(1, count), seed)
    return load_openings(Path(arg), variant)


def format_opening(opening: Opening) -> str:
    """The opening in the plain move-list format (``-`` for the empty board)."""
    return " ".join(f"{x},{y}" for x, y in opening) or "-"
