"""Pages of the lobby's lists, so that no reply an honest client asks for outgrows a frame."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from protocol.errors import BadMessage

K = TypeVar("K", int, str)

#: Longest cursor a client may send back (cursors are the server's own short strings).
MAX_CURSOR = 64


def page_size(limit: object, max_page: int) -> int:
    """The entries to send: what the client asked for, within 1..``max_page``."""
    if limit is None:
        return max_page
    assert isinstance(limit, int)
    return max(1, min(limit, max_page))


def room_cursor(cursor: object) -> int:
    """The room serial a ``rooms`` page continues after (0: from the start)."""
    if cursor is None:
        return 0
    assert isinstance(cursor, str)
    if len(cursor) > MAX_CURSOR or not cursor.isdigit():
        raise BadMessage("cursor must be the 'next' of a previous page")
    return int(cursor)


def bot_cursor(cursor: object) -> str:
    """The player id a ``bots`` page continues after ('': from the start)."""
    if cursor is None:
        return ""
    assert isinstance(cursor, str)
    if len(cursor) > MAX_CURSOR:
        raise BadMessage("cursor must be the 'next' of a previous page")
    return cursor


def page(
    items: Iterable[tuple[K, Any]], after: K, limit: int, render: Callable[[Any], Any]
) -> tuple[list[Any], str | None]:
    """Up to ``limit`` rendered items with a key above ``after`` (keys ascending), and the
    cursor of the next page (None when this is the last)."""
    out: list[Any] = []
    last: K | None = None
    for key, item in items:
        if key <= after:
            continue
        if len(out) == limit:
            return out, str(last)
        out.append(render(item))
        last = key
    return out, None
