"""A finished game saved to a file: the server's ``.psq`` record, or the plain-text record
(``protocol.records.write_text``: one move a line with its time, the format every client
writes, README "Analysis"), and the folder they go to."""

from __future__ import annotations

import os
import re
from pathlib import Path

from client.values import FinishedGame
from protocol.records import TextRecord, read_text, write_text
from protocol.rules import Move


def text_record(game: FinishedGame) -> str:
    """``game`` as the plain-text record."""
    info = game.game
    result = game.result
    return write_text(
        TextRecord(
            game_id=game.game_id,
            name=info.name,
            width=info.width,
            height=info.height,
            k=info.k,
            rule=info.rule,
            players=game.players,
            moves=tuple(Move(x, y) for x, y in game.moves),
            times_ms=game.times_ms,
            winner=result.winner,
            reason=result.reason,
        )
    )


def seconds(ms: int | None) -> str:
    """A move's time as the replay shows it: seconds with milliseconds, ``-`` when unknown."""
    return "-" if ms is None else f"{ms / 1000:.3f}"


def read_text_record(text: str) -> TextRecord:
    """A plain-text record read back (ValueError for a malformed one)."""
    return read_text(text)


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
