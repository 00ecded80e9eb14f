"""The lobby's list of rooms: this node's and other nodes', in the order they were opened, and
when its changes are pushed to subscribed players."""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from typing import Any

from protocol.wire import Message
from server.core.game.room import Room
from server.core.lobby.paging import page, page_size, room_cursor
from server.core.lobby.registry import RoomRegistry


class Lobby:
    """Rooms by opening order (``rooms`` pages continue after a serial), and a dirty flag."""

    def __init__(self, rooms: RoomRegistry, max_page: int, push_interval: float) -> None:
        self.rooms = rooms
        self.max_page = max_page
        self.push_interval = push_interval
        self._serial: dict[str, int] = {}
        self._next_serial = 0
        #: Other cluster nodes' lobby lines by room, with their serials.
        self._remote: dict[str, Message] = {}
        self._remote_serial: dict[str, int] = {}
        self.dirty = False
        self._pushed = 0.0
        #: Moves on each time the lobby's changes are pushed (a cluster's bus rewrites it then).
        self.version = 0

    def changed(self) -> None:
        """Something a lobby line shows changed: push the lobby on the next sweep."""
        self.dirty = True

    def opened(self, room: Room) -> None:
        """A room joins the list, after every room opened before it."""
        self._next_serial += 1
        self._serial[room.id] = self._next_serial
        self.dirty = True

    def closed(self, room_id: str) -> None:
        """A room leaves the list."""
        self._serial.pop(room_id, None)
        self.dirty = True

    def elsewhere(self, room_id: str) -> bool:
        """Whether another node's lobby lists ``room_id``."""
        return room_id in self._remote

    def own(self) -> Iterable[Room]:
        """This node's rooms (a cluster node publishes their lines)."""
        return self.rooms

    def set_remote(self, lines: dict[str, Message]) -> None:
        """The lobby lines of the rooms other cluster nodes own, listed after this node's."""
        if lines == self._remote:
            return
        serials = self._remote_serial
        for room_id in [r for r in serials if r not in lines]:
            del serials[room_id]
        for room_id in lines:
            if room_id not in serials:
                self._next_serial += 1
                serials[room_id] = self._next_serial
        self._remote = lines
        self.dirty = True

    def push_due(self, now: float) -> bool:
        """Whether the lobby changed and may be pushed now (at most every push interval)."""
        if not self.dirty or now - self._pushed < self.push_interval:
            return False
        self.dirty = False
        self._pushed = now
        self.version += 1
        return True

    def message(self, limit: object = None, cursor: object = None) -> Message:
        """A page of the lobby, oldest rooms first (``next`` continues it)."""
        size = page_size(limit, self.max_page)
        serials = self._serial
        items: Iterable[tuple[int, Any]] = ((serials.get(room.id, 0), room) for room in self.rooms)
        if self._remote:  # a cluster node: the other nodes' rooms too, in one order
            here, lines = self.rooms, self._remote
            there = ((s, lines[r]) for r, s in self._remote_serial.items() if here.get(r) is None)
            items = heapq.merge(items, there, key=lambda item: item[0])
        rooms, after = page(items, room_cursor(cursor), size, _lobby_line)
        return {"type": "rooms", "rooms": rooms, "next": after}


def _lobby_line(item: Room | Message) -> Message:
    """A room's lobby line: a room here renders its own, another node's comes rendered."""
    return item.summary() if isinstance(item, Room) else item
