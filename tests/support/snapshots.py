"""What a store gives back from the rows an arena journalled: a restart's or an adoption's
snapshot, without a database."""

from __future__ import annotations

from typing import Any

from server.core.journal.rows import (
    EntrantRow,
    GameRow,
    MoveRow,
    PairingRow,
    PlayerRow,
    ResultRow,
    RoomGone,
    RoomRow,
    Snapshot,
    TournamentRow,
)


def snapshot_of(records: list[Any]) -> Snapshot:
    """What a store holding ``records`` gives back: players, live rooms, tournament rows."""
    games = {r.game_id: r for r in records if isinstance(r, GameRow)}
    rooms = {r.room: r for r in records if isinstance(r, RoomRow)}
    for gone in (r for r in records if isinstance(r, RoomGone)):
        rooms.pop(gone.room, None)
    moves = [r for r in records if isinstance(r, MoveRow)]
    live = [
        (row, games[row.game_id], [m for m in moves if m.game_id == row.game_id])
        for row in rooms.values()
    ]
    players = [r for r in records if isinstance(r, PlayerRow)]
    rows = [
        r for r in records if isinstance(r, TournamentRow | EntrantRow | PairingRow | ResultRow)
    ]
    return Snapshot(players, live, None, tournaments=tuple(rows))
