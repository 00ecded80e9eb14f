"""Sample account and rating messages for client tests, shaped as the accounts-ratings spec
(docs/PROTOCOL.md) describes them."""

from __future__ import annotations

from typing import Any

from server.core.arena import welcome_forms
from support.samples import state_message

ONLINE = {"type": "_net", "status": "online", "detail": "ws://127.0.0.1:8765"}
GOMOKU = {"name": "gomoku", "width": 15, "height": 15, "k": 5, "rule": "freestyle"}
LINE = [[6, 8], [7, 7], [8, 6], [9, 5], [10, 4]]
MOVES = [[6, 8], [5, 8], [7, 7], [7, 8], [8, 6], [8, 8], [9, 5], [9, 8], [10, 4]]


def rating(value: int, rd: int = 60, provisional: bool = False, games: int = 0) -> dict:
    """A ``{rating, rd, provisional, games}``."""
    return {"rating": value, "rd": rd, "provisional": provisional, "games": games}


def welcome(name: str = "alice", account: bool = False, **ratings: dict) -> dict[str, Any]:
    """A ``welcome`` (an account's carries its ratings)."""
    msg: dict[str, Any] = {
        "type": "welcome",
        "player": f"p_{name}",
        "session": f"S_{name}",
        "name": name,
        "account": account,
        **welcome_forms(),  # the server's own: pools, forms, labels, rules
    }
    if account:
        msg["ratings"] = {pool.replace("_", "-"): r for pool, r in ratings.items()}
    return msg


def logged_in(name: str = "alice", rid: int | None = None, session: str = "T_dev") -> dict:
    """The answer to ``login``/``register``."""
    msg = {
        "type": "logged_in",
        "name": name,
        "player": f"p_acc_{name}",
        "session": session,
        "ratings": {"gomoku-blitz": rating(1523, 80, games=30)},
    }
    if rid is not None:
        msg["id"] = rid
    return msg


def rated_state(**over: Any) -> dict[str, Any]:
    """A finished rated gomoku blitz room: alice (account, seat 0) beat minimax (bot)."""
    fields: dict[str, Any] = {
        "room": "k7m2qx",
        "players": ["alice", "minimax"],
        "kinds": ["human", "bot"],
        "options": {"opponent": "bot", "level": 5},
        "moves": MOVES,
        "ply": len(MOVES),
        "to_move": None,
        "status": "over",
        "result": {"winner": 0, "reason": "line", "line": LINE},
        "clock": {"initial_s": 180.0, "increment_s": 2.0, "move_s": None},
        "clocks": [171.2, 201.5],
        "accounts": [True, True],
        "rated": True,
        "pool": "gomoku-blitz",
        "ratings": [rating(1523, 80), rating(1610, 60)],
        "game_id": "g_k7m2qx_1",
    }
    fields.update(over)
    return state_message("gomoku", **fields)


def rated_game_over() -> dict[str, Any]:
    """The ``game_over`` of :func:`rated_state`'s game, with both rating changes."""
    return {
        "type": "game_over",
        "room": "k7m2qx",
        "winner": 0,
        "reason": "line",
        "line": LINE,
        "game_id": "g_k7m2qx_1",
        "ratings": [
            {
                "seat": 0,
                "pool": "gomoku-blitz",
                "before": 1523,
                "after": 1541,
                "provisional": False,
            },
            {
                "seat": 1,
                "pool": "gomoku-blitz",
                "before": 1610,
                "after": 1592,
                "provisional": False,
            },
        ],
    }


#: A leaderboard page's names: more than a window shows at once (the rest scroll).
NAMES = ["minimax", "carol", "alice", "dave", "erin", *(f"player{i}" for i in range(25))]


def leaderboard(pool: str = "gomoku-blitz", bots: bool = False, page: int = 0) -> dict:
    """A ``leaderboard`` page of :data:`NAMES`."""
    players = [
        {
            "rank": 50 * page + i + 1,
            "name": n,
            "rating": 2100 - 37 * i,
            "rd": 45 + i,
            "games": 200 - 7 * i,
        }
        for i, n in enumerate(NAMES)
    ]
    return {"type": "leaderboard", "pool": pool, "bots": bots, "page": page, "players": players}


def profile(name: str = "carol") -> dict[str, Any]:
    """A ``profile`` with three pools, a month of daily history and a page of games."""
    games = [
        {
            "game_id": f"g_{i}",
            "room": f"r{i}",
            "game": GOMOKU,
            "players": [name, "minimax" if i % 2 else "alice"],
            "winner": i % 2,
            "reason": "line",
            "ended_at": 1_795_000_000.0 - 5000 * i,
        }
        for i in range(8)
    ]
    history = [[f"2026-11-{d:02d}", 1500 + (13 * d) % 90 + 8 * d] for d in range(1, 27)]
    return {
        "type": "profile",
        "name": name,
        "bot": False,
        "ratings": {
            "gomoku-blitz": rating(2063, 46, games=193),
            "tictactoe-bullet": rating(1720, 90, games=41),
            "renju-rapid": rating(1500, 420, True, 2),
        },
        "record": {"played": 236, "won": 140, "drawn": 20, "lost": 76},
        "history": {"gomoku-blitz": history},
        "games": {"type": "games", "games": games, "more": True},
    }
