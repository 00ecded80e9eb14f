"""The bare relay: pairs clients in rooms of two and echoes each ``move`` as ``moved`` to both.

It is the ceiling for any game server on this machine: the same websockets settings as the real
server (no compression, the same ``max_size``), msgpack in and out, and nothing else (no rules,
no validation, no rate limit). It accepts the message shapes of protocol v1 that the load
generator uses (``hello``, ``create_room``, ``join_room``, ``move``, ``leave_room``, ``ping``) so
the generator does not care which target it talks to.

It runs on stock asyncio unless ``--loop uvloop`` is given (the issue's baseline is stock asyncio;
uvloop shows what the same relay gains from the loop alone).

Run: ``python bench/relay.py --host 127.0.0.1 --port P [--loop asyncio|uvloop]``; it stops on
SIGTERM or SIGINT.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import signal
from typing import Any

import msgpack
from websockets.asyncio.server import ServerConnection, broadcast, serve
from websockets.exceptions import ConnectionClosed

from protocol.wire import MAX_FRAME
from server.shell.loop import run

_ids = itertools.count(1)
#: Room id -> the two seats (a seat is a connection or None).
rooms: dict[str, list[ServerConnection | None]] = {}
_pack = msgpack.Packer(use_bin_type=True).pack


def _reply(ws: ServerConnection, msg: dict[str, Any], message: dict[str, Any]) -> None:
    """Send ``message`` to ``ws``, echoing the request's ``id`` when it had one."""
    if "id" in msg:
        message["id"] = msg["id"]
    broadcast((ws,), _pack(message))


async def handle(ws: ServerConnection) -> None:
    """One connection: decode, relay moves to both seats, answer the few lobby requests."""
    mine: dict[str, int] = {}
    try:
        async for frame in ws:
            msg = msgpack.unpackb(frame)
            kind = msg.get("type")
            if kind == "move":
                room = msg["room"]
                pair = rooms.get(room)
                if pair is None:
                    continue
                moved = {"type": "moved", "room": room, "ply": msg.get("ply"), "seat": mine[room]}
                moved["x"], moved["y"] = msg["x"], msg["y"]
                broadcast([p for p in pair if p is not None], _pack(moved))
            elif kind == "hello":
                pid = f"p_{next(_ids)}"
                welcome = {"type": "welcome", "protocol": 1, "player": pid, "session": pid}
                welcome["name"] = msg.get("name")
                _reply(ws, msg, welcome)
            elif kind == "create_room":
                room = f"r{next(_ids)}"
                seat = msg.get("seat") or 0
                rooms[room] = [None, None]
                rooms[room][seat] = ws
                mine[room] = seat
                _reply(ws, msg, {"type": "joined", "room": room, "seat": seat})
                _reply(ws, {}, {"type": "state", "room": room, "status": "waiting"})
            elif kind == "join_room":
                room = msg["room"]
                pair = rooms.get(room)
                if pair is None or None not in pair:
                    _reply(ws, msg, {"type": "error", "code": "room_full", "message": room})
                    continue
                seat = pair.index(None)
                pair[seat] = ws
                mine[room] = seat
                _reply(ws, msg, {"type": "joined", "room": room, "seat": seat})
                state = _pack({"type": "state", "room": room, "status": "playing"})
                broadcast([p for p in pair if p is not None], state)
            elif kind == "leave_room":
                _leave(msg["room"], mine)
                _reply(ws, msg, {"type": "left", "room": msg["room"]})
            elif kind == "ping":
                _reply(ws, msg, {"type": "pong"})
    except ConnectionClosed:
        pass
    finally:
        for room in list(mine):
            _leave(room, mine)


def _leave(room: str, mine: dict[str, int]) -> None:
    """Free this connection's seat in ``room``; forget the room once both seats are free."""
    seat = mine.pop(room, None)
    pair = rooms.get(room)
    if seat is None or pair is None:
        return
    pair[seat] = None
    if pair == [None, None]:
        del rooms[room]


async def main(host: str, port: int) -> None:
    """Serve until SIGTERM or SIGINT."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    async with serve(
        handle, host, port, compression=None, max_size=MAX_FRAME, server_header=None
    ) as server:
        await stop.wait()
        server.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(server.wait_closed(), 5.0)


def cli() -> None:
    """Parse the command line and run the relay."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8766)
    p.add_argument("--loop", choices=("asyncio", "uvloop"), default="asyncio")
    args = p.parse_args()
    run(main(args.host, args.port), args.loop)


if __name__ == "__main__":
    cli()
