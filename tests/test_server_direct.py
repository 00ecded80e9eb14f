"""The connection's direct mode: binary frames parsed without websockets' parser, same results.

The bytes are fed to the server side of a real connection exactly as its transport would, in
pieces cut anywhere, so frames split across reads, several frames in one read, and frames
websockets must handle (text, fragments, control frames) all occur; the replies reach the real
client and must come in the order the requests were written.
"""

from __future__ import annotations

import random
from collections.abc import Generator

import msgpack
import pytest
from support.waiting import TIMEOUT, until
from websockets.frames import Frame, Opcode
from websockets.streams import StreamReader

from server.shell import conn
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


def test_the_direct_paths_pass_their_self_check_on_the_installed_websockets() -> None:
    """pyproject.toml pins websockets to versions whose internals the direct paths know: if
    this fails, the pinned version changed them and every message takes the slower path."""
    at_boundary, why = conn.self_check()
    assert at_boundary is not None, why
    assert conn.DIRECT and not conn.WHY_NOT_DIRECT


def _waits_for_data(reader: StreamReader) -> Generator[None, None, bool]:
    """What ``StreamReader.at_eof`` does, in a generator of another name."""
    while not reader.buffer and not reader.eof:
        yield
    return not reader.buffer


@pytest.mark.parametrize("change", ["wrapped", "removed"])
def test_the_self_check_notices_a_changed_parser(
    monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    if change == "wrapped":  # the parser waits at a boundary, but in another generator
        monkeypatch.setattr(StreamReader, "at_eof", lambda self: _waits_for_data(self))
    else:
        monkeypatch.delattr(StreamReader, "at_eof")
    at_boundary, why = conn.self_check()
    assert at_boundary is None and "at_eof" in why


async def test_without_the_direct_paths_a_game_is_played_through_websockets(
    server, client_factory, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(conn, "DIRECT", False)  # as if the self-check had failed
    monkeypatch.setattr(conn, "_warned", False)
    alice, bob = await client_factory("alice"), await client_factory("bob")
    for ws in server._connections():
        assert isinstance(ws, ArenaConnection) and ws.held and not ws.direct
    room = (await alice.request(type="create_room", game="tictactoe", seat=0))["room"]
    await bob.request(type="join_room", room=room)
    moves = [(0, 0), (1, 1), (0, 1), (2, 2), (0, 2)]
    for ply, (x, y) in enumerate(moves):
        moved = await (alice, bob)[ply % 2].request(type="move", room=room, x=x, y=y, ply=ply)
        assert moved["type"] == "moved" and moved["ply"] == ply
    over = await bob.expect("game_over")
    assert over["winner"] == 0
    assert not any(ws.direct for ws in server._connections())
    warned = [r for r in caplog.records if "usual path" in r.getMessage()]
    assert len(warned) == 1  # once, not per connection
