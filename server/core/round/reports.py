"""A bot's search report (``info`` on its ``move``), shown to the room's spectators only.

Off the plain move path: a move with ``info`` is not :func:`protocol.wire.plain_move`, so it is
checked by :func:`protocol.wire.validate` (bounded: known integer fields, a short ``pv``) and
comes here through the arena's handler table. The seated players get the plain ``moved`` (an
engine never reads its opponent's analysis); spectators get it with ``info``. A human's
``info`` is dropped: only a bot's search is relayed. In a training game (``options.hints``)
its human gets it too, as a spectator does: there the engine's view is a hint (docs/PROTOCOL.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from protocol.vocab import Kind
from protocol.wire import Message
from server.core.game.members import Member, Send
from server.core.lobby.registry import RoomRegistry
from server.core.outputs import Out
from server.core.players.players import Player

Handler = Callable[[Player, Message], list[Out]]


def reporting(move: Handler, rooms: RoomRegistry) -> Handler:
    """The arena's ``move`` handler, relaying a bot's ``info`` to the spectators."""

    def handle(player: Player, msg: Message) -> list[Out]:
        out = move(player, msg)
        info = msg.get("info")
        if info is None or player.kind != Kind.BOT:
            return out
        room = rooms.get(msg["room"])
        if room is None:
            return out
        training = bool(room.options.get("hints"))  # its human may see what the bot saw
        return split(out, room.seats, info, training)

    return handle


def split(
    out: list[Out], seats: Sequence[Member | None], info: Message, training: bool = False
) -> list[Out]:
    """``out`` with its ``moved`` send split: seated players plain, spectators with ``info``
    (and, in a ``training`` game, its human too: the bot's search is a hint there)."""
    if not out or not isinstance(out[0], Send) or out[0].message.get("type") != "moved":
        return out
    first = out[0]
    seated = {m.pid for m in seats if m is not None and not (training and m.kind != Kind.BOT)}
    players = tuple(p for p in first.to if p in seated)
    watchers = tuple(p for p in first.to if p not in seated)
    if not watchers:
        return out
    shown = Send(watchers, {**first.message, "info": info})
    return [Send(players, first.message, first.reply), shown, *out[1:]]
