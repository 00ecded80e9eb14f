"""Sample server messages for client tests, shaped as docs/PROTOCOL.md describes them."""

from __future__ import annotations

from typing import Any

from protocol.variants import FIXED


def state_message(variant: str = "tictactoe", /, **over: Any) -> dict[str, Any]:
    """A ``state`` for room r1, alice (seat 0, to move) against bob; ``over`` replaces fields."""
    msg: dict[str, Any] = {
        "type": "state",
        "room": "r1",
        "game": FIXED[variant].describe(),
        "players": ["alice", "bob"],
        "player_ids": ["p_a", "p_b"],
        "kinds": ["human", "human"],
        "online": [True, True],
        "seat": 0,
        "moves": [],
        "ply": 0,
        "to_move": 0,
        "status": "playing",
        "result": None,
        "rematch": [False, False],
        "spectators": 0,
        "game_no": 1,
        "game_id": "g_r1_1",
    }
    msg.update(over)
    return msg
