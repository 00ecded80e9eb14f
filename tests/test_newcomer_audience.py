"""Players see who watches (issue 44.5): a spectator's arrival and departure reach everyone in
the room as an ``audience`` note, not only the spectator's own ``state``."""

from __future__ import annotations

from typing import Any

from support.clients import seated_pair
from support.samples import state_message

from client.model import ClientModel


async def test_the_players_are_told_the_spectator_count_when_it_changes(
    client_factory: Any,
) -> None:
    alice, bob, room = await seated_pair(client_factory)
    carol = await client_factory("carol")
    dave = await client_factory("dave")
    await carol.request(type="join_room", room=room, spectate=True)
    await dave.request(type="join_room", room=room, spectate=True)
    for player in (alice, bob):
        note = await player.expect("audience", room=room, spectators=2)
        assert set(note) == {"type", "room", "spectators"}
    await carol.expect("audience", room=room, spectators=2)
    await carol.request(type="leave_room", room=room)
    await dave.close()  # a dropped spectator leaves too
    for player in (alice, bob):
        await player.expect("audience", room=room, spectators=0)


def test_the_pygame_client_takes_the_audience_note() -> None:
    m = ClientModel(name="alice")
    m.apply({"type": "welcome", "protocol": 1, "player": "p_a", "session": "S1", "name": "alice"})
    m.apply(state_message("tictactoe"))
    (room,) = m.rooms.values()
    assert room.spectators == 0
    m.apply({"type": "audience", "room": room.room, "spectators": 2})
    assert room.spectators == 2
