"""The connection's direct mode: binary frames parsed without websockets' parser, same results.

The bytes are fed to the server side of a real connection exactly as its transport would, in
pieces cut anywhere, so frames split across reads, several frames in one read, and frames
websockets must handle (text, fragments, control frames) all occur; the replies reach the real
client and must come in the order the requests were written.
"""

from __future__ import annotations

import random

import msgpack
import pytest
from support.waiting import TIMEOUT, until
from websockets.frames import Frame, Opcode

from server.shell.conn import ArenaConnection


def masked(opcode: Opcode, payload: bytes, fin: bool = True) -> bytes:
    """A client's frame as it travels: masked."""
    return Frame(opcode, payload, fin).serialize(mask=True)


def ping(rid: int, pad: int = 0) -> bytes:
    """A ``ping`` request; ``pad`` adds an ignored field to make the frame longer."""
    message: dict[str, object] = {"type": "ping", "id": rid}
    if pad:
        message["pad"] = "x" * pad
    return msgpack.packb(message)


async def _direct_side(server, client) -> ArenaConnection:
    await client.alive()
    (ws,) = server._connections()
    assert isinstance(ws, ArenaConnection)
    await until(lambda: ws.direct)
    return ws


@pytest.mark.parametrize("piece", [1, 2, 3, 5, 7, 64, 100_000])
async def test_a_stream_cut_anywhere_is_answered_in_order(server, client_factory, piece) -> None:
    c = await client_factory("cutter")
    ws = await _direct_side(server, c)
    two = ping(2, pad=300)  # a 16-bit length
    stream = b"".join(
        [
            masked(Opcode.BINARY, ping(1)),
            masked(Opcode.BINARY, two),
            masked(Opcode.TEXT, b"text is a bad frame"),
            masked(Opcode.BINARY, ping(3)),
            masked(Opcode.PING, b"hi"),  # websockets answers it with a pong, unseen here
            masked(Opcode.BINARY, ping(4)[:3], fin=False),  # a fragmented message
            masked(Opcode.CONT, ping(4)[3:]),
            masked(Opcode.BINARY, ping(5)),
            masked(Opcode.BINARY, ping(6, pad=70)),
        ]
    )
    for start in range(0, len(stream), piece):
        ws.data_received(stream[start : start + piece])
    got = [await c.recv(TIMEOUT) for _ in range(7)]
    assert [(m["type"], m.get("id")) for m in got] == [
        ("pong", 1),
        ("pong", 2),
        ("error", None),
        ("pong", 3),
        ("pong", 4),
        ("pong", 5),
        ("pong", 6),
    ]
    assert got[2]["code"] == "bad_frame"
    await c.alive()  # the real socket still works,
    assert ws.direct  # and the direct mode is back once websockets' queue was read


async def test_random_binary_frames_in_random_pieces(server, client_factory) -> None:
    c = await client_factory("random")
    ws = await _direct_side(server, c)
    rng = random.Random(14)
    frames = [
        masked(Opcode.BINARY, ping(i, pad=rng.choice([0, 10, 200, 1000]))) for i in range(1, 41)
    ]
    stream = b"".join(frames)
    pos = 0
    while pos < len(stream):
        step = rng.randint(1, 300)
        ws.data_received(stream[pos : pos + step])
        pos += step
    got = [await c.recv(TIMEOUT) for _ in range(40)]
    assert [m.get("id") for m in got] == list(range(1, 41))


async def test_an_oversized_frame_is_refused_as_websockets_does(server, client_factory) -> None:
    c = await client_factory("big")
    ws = await _direct_side(server, c)
    big = ping(1, pad=70_000)  # over the server's 64 KiB frame limit
    ws.data_received(masked(Opcode.BINARY, big)[:100])
    assert not ws.direct
    await until(lambda: ws.protocol.state.name != "OPEN")
    assert ws.protocol.close_sent is not None and ws.protocol.close_sent.code == 1009


async def test_an_unmasked_frame_closes_the_connection(server, client_factory) -> None:
    c = await client_factory("unmasked")
    ws = await _direct_side(server, c)
    ws.data_received(Frame(Opcode.BINARY, ping(1)).serialize(mask=False))
    await until(lambda: ws.protocol.state.name != "OPEN")
    assert ws.protocol.close_sent is not None and ws.protocol.close_sent.code == 1002


async def test_a_frame_cut_short_is_gathered_by_websockets_then_direct_resumes(
    server, client_factory
) -> None:
    """The connection keeps no partial frame of its own: websockets' reader gathers the pieces
    (without copying the start again for each, as a slow-dripping client would make it do)."""
    c = await client_factory("dripper")
    ws = await _direct_side(server, c)
    frame = masked(Opcode.BINARY, ping(1, pad=1000))
    ws.data_received(frame[:500])
    assert not ws.direct and len(ws.protocol.reader.buffer) > 0
    for i in range(500, len(frame), 100):
        ws.data_received(frame[i : i + 100])
    assert (await c.recv(TIMEOUT))["id"] == 1
    assert ws.direct  # the cut frame ended a read: websockets' parser is idle at a boundary
    ws.data_received(masked(Opcode.BINARY, ping(2)))
    assert (await c.recv(TIMEOUT))["id"] == 2
