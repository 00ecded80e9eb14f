"""A websockets server connection that hands each message to the arena as soon as it is parsed.

websockets queues every incoming message and wakes the connection's handler task to read it:
a future, a task step and four nested awaits per message. The arena never awaits, so a complete
binary message can be handled right where websockets parsed it, in order, with the same result.
Anything else (text, fragmented messages, frames behind queued ones, a closing connection) takes
websockets' usual path and reaches the handler's ``async for`` in order.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.frames import Frame, Opcode
from websockets.protocol import OPEN

log = logging.getLogger("mnk.server")

BINARY = Opcode.BINARY
#: What a served connection's handshake keeps as headers (shared; nothing writes to it).
_NO_HEADERS = Headers()


class ArenaConnection(ServerConnection):
    """A :class:`ServerConnection` with ``on_message``: called with each binary message at once."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        #: Set by the handler once it is ready for messages; None queues them as websockets does.
        self.on_message: Callable[[bytes], None] | None = None
        #: What :meth:`serve` was given, for :meth:`resume` after a :meth:`hold`.
        self._served: Callable[[bytes], None] | None = None

    def serve(self, on_message: Callable[[bytes], None]) -> None:
        """Hand messages to ``on_message`` from now on; let the handshake's headers go.

        Call it once the handler has read what it needs from the request (the client's address):
        at 10,000 idle connections, the two header sets kept for nothing are over 2 KB each.
        """
        self.on_message = self._served = on_message
        for message in (self.request, self.response):
            if message is not None:
                message.headers = _NO_HEADERS

    def hold(self) -> None:
        """Queue messages as websockets does (the handler reads them at its own pace)."""
        self.on_message = None

    def resume(self) -> None:
        """Back to the direct path; queued messages still go first, so the order holds."""
        if self._served is not None:
            self.on_message = self._served

    def unserve(self) -> None:
        """The handler is done: hold, and keep no reference to it (it refers to this socket)."""
        self.on_message = self._served = None

    @property
    def held(self) -> bool:
        """Whether messages are queued instead of handled at once."""
        return self.on_message is None

    def process_event(self, event: object) -> None:
        """Hand a complete binary message to ``on_message`` when nothing is queued before it."""
        on_message = self.on_message
        if (
            on_message is not None
            and type(event) is Frame
            and event.fin
            and event.opcode is BINARY
            and not self.recv_messages.frames
            and self.protocol.state is OPEN
        ):
            data = event.data
            try:
                on_message(data if type(data) is bytes else bytes(data))
            except Exception:  # never into websockets' reader: it would drop the connection
                log.exception("handling a message failed")
            return
        super().process_event(event)  # type: ignore[arg-type]
