"""Hostile round three: misannounced frames, junk options, renju's cost, look-alike names,
bot seats held by idle sockets, rematch loops."""

from __future__ import annotations

import msgpack
import pytest
from test_arena_core import FakeClock, Peer, arena_with


@pytest.fixture
def clock() -> FakeClock:
    """A fake wall clock."""
    return FakeClock()


def _frame(*pairs: object) -> bytes:
    """A msgpack map of ``pairs`` in order, duplicate keys kept (a dict cannot say that)."""
    assert len(pairs) % 2 == 0 and len(pairs) < 32
    return bytes([0x80 + len(pairs) // 2]) + b"".join(msgpack.packb(p) for p in pairs)


def test_a_frame_announcing_a_move_that_decodes_as_another_type_is_bad_message(
    clock: FakeClock,
) -> None:
    arena = arena_with(clock)
    alice = Peer(arena, "alice")
    frame = _frame("type", "move", "game", "gomoku", "id", 3, "type", "create_room")
    out = arena.receive(alice.conn, frame)
    assert [o.message["code"] for o in out] == ["bad_message"]  # type: ignore[attr-defined]
    assert not list(arena.rooms), "no room may be made by a frame that took the move lane"
    pinged = arena.receive(alice.conn, _frame("type", "ping", "type", "list_rooms"))
    assert pinged[0].message["code"] == "bad_message"  # type: ignore[attr-defined]
    # the honest forms still work: type first, or a lobby request with type elsewhere
    assert alice.do(type="create_room", game="gomoku")[0]["type"] == "joined"
    assert arena.receive(alice.conn, _frame("id", 4, "type", "ping"))[0].message["type"] == "pong"  # type: ignore[attr-defined]
