"""Where rooms live, by code: one process's memory, or codes reserved across a cluster."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Protocol

from server.core.game.room import Room

#: Room codes avoid look-alike characters so people can read them out and type them.
CODE_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
CODE_LENGTH = 6
_CODES = len(CODE_ALPHABET) ** CODE_LENGTH


def random_code() -> str:
    """A random room code: one draw from the OS's generator for the whole code (one system
    call, where a draw per letter made six), its base-31 digits as letters."""
    number = secrets.randbelow(_CODES)
    letters = []
    for _ in range(CODE_LENGTH):
        number, digit = divmod(number, len(CODE_ALPHABET))
        letters.append(CODE_ALPHABET[digit])
    return "".join(letters)


class RoomRegistry(Protocol):
    """The rooms of a lobby by id."""

    def get(self, room_id: str) -> Room | None:
        """The room with that id, or None."""
        ...

    def add(self, room: Room) -> None:
        """Register a new room."""
        ...

    def remove(self, room_id: str) -> None:
        """Forget a room (no error if it is already gone)."""
        ...

    def __iter__(self) -> Iterator[Room]:
        """Every room, oldest first."""
        ...

    def __len__(self) -> int:
        """How many rooms there are."""
        ...

    def new_id(self) -> str:
        """A fresh, unused room code."""
        ...


class MemoryRegistry:
    """The embedded default: rooms in a dict of this process."""

    def __init__(self) -> None:
        self._rooms: dict[str, Room] = {}

    def get(self, room_id: str) -> Room | None:
        """The room with that id, or None."""
        return self._rooms.get(room_id)

    def add(self, room: Room) -> None:
        """Register a new room."""
        self._rooms[room.id] = room

    def remove(self, room_id: str) -> None:
        """Forget a room (no error if it is already gone)."""
        self._rooms.pop(room_id, None)

    def __iter__(self) -> Iterator[Room]:
        """Every room, oldest first."""
        return iter(list(self._rooms.values()))

    def __len__(self) -> int:
        """How many rooms there are."""
        return len(self._rooms)

    def new_id(self) -> str:
        """A fresh, unused room code."""
        while True:
            code = random_code()
            if code not in self._rooms:
                return code
