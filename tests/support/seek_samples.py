"""Sample pairing messages for client tests, shaped as docs/PROTOCOL.md's Pairing section
(and /work/notes' pairing spec) describes them: pools, SEEK maps, a ``seeks`` page."""

from __future__ import annotations

from typing import Any

from server.core.game.clock import ClockSpec
from server.core.pairing.seeks import clock_view

#: The server's standard pools: tictactoe 1+0 and 3+0; the 15x15 games at five clocks.
STANDARD = {
    "tictactoe": ((60, 0), (180, 0)),
    "gomoku": ((60, 0), (180, 2), (300, 3), (600, 5), (1800, 0)),
    "gomoku-standard": ((60, 0), (180, 2), (300, 3), (600, 5), (1800, 0)),
    "renju": ((60, 0), (180, 2), (300, 3), (600, 5), (1800, 0)),
}


def label(game: str, clock: tuple[int, int] | None, rated: bool) -> str:
    """A pool's label, ``gomoku 3+2 rated``."""
    minutes = f"{clock[0] / 60:g}+{clock[1]}" if clock else "untimed"
    return f"{game} {minutes} {'rated' if rated else 'casual'}"


def wire_clock(clock: tuple[int, int] | None) -> dict[str, Any] | None:
    """A clock as the server sends it in a seek or a pool (with its ``label``)."""
    return clock_view(ClockSpec(*map(float, clock))) if clock else None


def pools(waiting: dict[str, int] | None = None) -> list[dict[str, Any]]:
    """Every standard pool, rated and casual, with ``waiting`` seeks by label (else none)."""
    waiting = waiting or {}
    out = []
    for game, clocks in STANDARD.items():
        for initial, increment in clocks:
            for rated in (True, False):
                name = label(game, (initial, increment), rated)
                out.append(
                    {
                        "pool": name,
                        "game": game,
                        "clock": wire_clock((initial, increment)),
                        "rated": rated,
                        "waiting": waiting.get(name, 0),
                    }
                )
    return out


def seek(
    sid: str,
    name: str,
    game: str = "gomoku",
    clock: tuple[int, int] | None = (180, 2),
    rated: bool = False,
    rating: int | None = None,
    span: list[int] | None = None,
    kind: str = "human",
) -> dict[str, Any]:
    """A SEEK map (an account's when it has a ``rating``)."""
    return {
        "seek": sid,
        "game": game,
        "clock": wire_clock(clock),
        "rated": rated,
        "range": span,
        "player": f"p_{name}",
        "name": name,
        "account": rating is not None,
        "kind": kind,
        "rating": rating,
        "provisional": False,
        "pool": label(game, clock, rated),
        "since": 1_795_000_000.5,
    }


#: A few open seeks of other players, as the lobby list shows them.
OTHERS = [
    seek("s_bob", "bob", rated=True, rating=1523, span=[1400, 1700]),
    seek("s_carol", "carol", rated=True, rating=1610),
    seek("s_minimax", "minimax", clock=(600, 5), rated=True, rating=1720, kind="bot"),
    seek("s_dave", "dave", game="renju", clock=(300, 3)),
    seek("s_erin", "erin", clock=(60, 0)),
]


def seeks_page(
    rows: list[dict[str, Any]] | None = None,
    next_: Any = None,
    waiting: dict[str, int] | None = None,
    rid: int | None = None,
) -> dict[str, Any]:
    """A ``seeks`` reply (``rid``) or push (no id)."""
    msg: dict[str, Any] = {
        "type": "seeks",
        "seeks": OTHERS if rows is None else rows,
        "next": next_,
        "pools": pools(waiting),
    }
    if rid is not None:
        msg["id"] = rid
    return msg
