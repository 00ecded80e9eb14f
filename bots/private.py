"""Secrets on disk: session and key files readable by their owner only."""

from __future__ import annotations

import os
from pathlib import Path


def write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` with mode 0600 from the start, replacing the file atomically.

    The file is created 0600 (never made readable and narrowed afterwards), and an older file
    with looser permissions is replaced rather than reused.
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w") as out:
            out.write(text)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def read_key(key: str | None, key_file: Path | None) -> str | None:
    """A bot's key: ``key``, else the first line of ``key_file``, else ``$MNK_BOT_KEY``."""
    if key:
        return key.strip()
    if key_file is not None:
        return key_file.read_text().strip() or None
    return os.environ.get("MNK_BOT_KEY", "").strip() or None
