"""Every scheduled game accounted for exactly once, whatever happens to the link or the node.

A game's result comes from its ``game_over`` (or a ``state`` that is over) when the director
saw it end, else from the history (``get_game``, which any node of a cluster answers), never
from a second play of a game that may still end. A game that cannot end with a result (both
seats lost: ``abandoned``, or a room gone without a finished record) raises :class:`GameLost`,
and only then does the director play it again. Pure: no I/O here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bots.tournament.results import GameResult, fault_of
from bots.tournament.schedule import GameSpec

#: Ends that are no result: nobody played the game out (both players were gone, or a first
#: move never came in time: ``aborted``).
NO_RESULT = frozenset({"abandoned", "aborted"})
#: Error codes met while a room changes node (not adopted yet, or already gone): ask again.
TRANSIENT = frozenset({"no_such_room", "no_such_game", "rate_limited", "internal_error"})


class GameLost(Exception):
    """The game will never have a result: the director plays it again (once recorded, never
    twice)."""


def over_result(
    spec: GameSpec,
    room: str | None,
    over: Mapping[str, Any],
    moves: list[list[int]],
    game_id: str | None,
) -> GameResult:
    """The result of ``spec``'s finished game from its end ``over``; GameLost for no result."""
    reason = str(over.get("reason"))
    if reason in NO_RESULT:
        raise GameLost(f"game {spec.key} in room {room} ended {reason}: no result")
    return GameResult(
        key=spec.key,
        round=spec.round,
        players=spec.players,
        opening=[list(m) for m in spec.opening],
        moves=moves,
        winner=over.get("winner"),
        reason=reason,
        fault=fault_of(reason, over.get("fault")),
        game_id=game_id,
        room=room,
    )


def record_moves(record: Mapping[str, Any]) -> list[list[int]]:
    """The moves of a ``get_game`` record as ``[[x, y], …]``."""
    return [[m["x"], m["y"]] for m in record.get("moves") or ()]


def record_result(spec: GameSpec, record: Mapping[str, Any]) -> GameResult | None:
    """What the history says of ``spec``'s game: its result once over, None while it goes on.

    GameLost when it ended without a result, or when the record is another pairing's (a game
    id that is not this game's cannot stand for it).
    """
    if tuple(record.get("players") or ()) != spec.players:
        raise GameLost(f"game {record.get('game_id')} is not {spec.key}'s")
    if record.get("status") != "over":
        return None
    return over_result(spec, record.get("room"), record, record_moves(record), record["game_id"])
