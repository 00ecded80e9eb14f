"""A client's side of the protocol without I/O: hello, resume, request ids and ordered dispatch.

:class:`Session` takes frames in and gives messages out; it never touches a socket, so the
pygame client's thread, the bot runner and the tournament referee share it under one asyncio
connection (:mod:`protocol.connection`), and tests drive it with plain bytes.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from typing import Any

from protocol.errors import ArenaError
from protocol.vocab import Kind
from protocol.wire import PROTOCOL_VERSION, Message, decode

#: Requests kept awaiting a reply at most; older ones are forgotten (a hostile server cannot
#: make a client remember without bound).
MAX_PENDING = 1000


class HelloRefused(Exception):
    """The server answered ``hello`` with an error other than a stale session."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code


class Session:
    """Who we are to the server, across connections: name, kind, key and the saved session."""

    def __init__(
        self,
        name: str,
        kind: str = Kind.HUMAN,
        *,
        key: str | None = None,
        session: str | None = None,
        games: list[str] | None = None,
        capacity: int | None = None,
        level: int | None = None,
        analyses: int | None = None,
    ) -> None:
        self.name, self.kind, self.key = name, Kind(kind), key
        #: The secret from the last ``welcome``: sent with the next ``hello`` to resume.
        self.session = session
        self.games, self.capacity = games, capacity
        #: A bot's level: None plays any level asked, 1-10 only that one, 0 none (named only).
        self.level = level
        #: A bot's analyses at once (``analyse_job``s it answers; None: it says nothing, 0).
        self.analyses = analyses
        #: Our public id, once welcomed.
        self.player: str | None = None
        #: Whether the current connection got its ``welcome``.
        self.welcomed = False
        #: Set when the server forgot our session: the connection should start again without it.
        self.restart = False
        self._ids = itertools.count(1)
        #: Request id -> the request's type, until its reply arrives.
        self.pending: dict[int, str] = {}

    def hello(self) -> Message:
        """The first message on a new connection (resuming with the saved session)."""
        self.welcomed = self.restart = False
        self.pending.clear()  # replies to requests sent on an older connection never come
        msg: Message = {
            "type": "hello",
            "protocol": PROTOCOL_VERSION,
            "name": self.name,
            "kind": str(self.kind),
        }
        if self.session:
            msg["session"] = self.session
        if self.key:
            msg["key"] = self.key
        if self.kind is Kind.BOT:
            msg["games"] = list(self.games or ["*"])
            if self.capacity is not None:
                msg["capacity"] = self.capacity
            if self.level is not None:
                msg["level"] = self.level
            if self.analyses:
                msg["analyses"] = self.analyses
        return msg

    def request(self, message: Mapping[str, Any]) -> Message:
        """``message`` with a fresh ``id`` (unless it has one), remembered until answered."""
        msg = dict(message)
        rid = msg.setdefault("id", next(self._ids))
        self.pending[rid] = str(msg["type"])
        if len(self.pending) > MAX_PENDING:
            self.pending.pop(next(iter(self.pending)))
        return msg

    def receive(self, frame: bytes | str) -> Message | None:
        """The message in a frame (None for one we cannot read: the link carries on).

        Keeps the session from ``welcome``, forgets a session the server no longer knows
        (sets :attr:`restart`), and raises :class:`HelloRefused` when ``hello`` was refused.
        """
        try:
            msg = decode(frame)
        except ArenaError:
            return None
        kind = msg["type"]
        if "id" in msg:
            self.pending.pop(msg["id"], None)
        if kind == "welcome":
            self.welcomed = True
            self.session = msg.get("session") or self.session
            self.player = msg.get("player")
        elif kind == "error" and not self.welcomed:
            if msg.get("code") == "bad_session" and self.session:
                self.session = None
                self.restart = True
            else:
                raise HelloRefused(str(msg.get("code")), str(msg.get("message", "")))
        return msg


def handler_of(target: object, msg: Mapping[str, Any], prefix: str = "on_") -> Callable | None:
    """``target``'s method for a message type (``on_moved`` for ``moved``), if it has one.

    One dispatch style for every side: a message goes to the method named after its type, in
    the order the server sent it.
    """
    return getattr(target, prefix + str(msg.get("type", "")), None)
