"""What a search reports while it thinks, the way Gomocup engines do.

Two forms of one :class:`~bots.engine.limits.SearchResult`: a Piskvork ``MESSAGE`` line
(``MESSAGE depth 9-14 ev 35 n 412k n/s 610k tm 930 pv h8 i9``) and the optional ``info`` map a
bot may add to its ``move`` on the wire (docs/PROTOCOL.md): ``depth``, ``seldepth``, ``score``
or ``mate``, ``nodes``, ``nps``, ``time_ms`` and ``pv`` as ``[[x, y], …]``.
"""

from __future__ import annotations

from typing import Any

from bots.engine.limits import SearchResult
from protocol.rules import Move

#: The longest principal variation sent (the server refuses longer ones).
PV_MAX = 32


def square(move: Move) -> str:
    """A cell as Gomocup engines print it: column letter from ``a`` (x), row from 1 (y)."""
    return f"{chr(ord('a') + move.x)}{move.y + 1}"


def count(n: int) -> str:
    """A node count, short: 950, 41k, 12M."""
    if n < 10_000:
        return str(n)
    if n < 10_000_000:
        return f"{n // 1000}k"
    return f"{n // 1_000_000}M"


def evaluation(result: SearchResult) -> str:
    """``35``, ``-120``, or a mate distance in plies: ``M3`` (we win), ``-M4`` (we lose)."""
    mate = result.mate_in()
    if mate is None:
        return str(result.score)
    return f"M{mate}" if mate > 0 else f"-M{-mate}"


def message_line(result: SearchResult) -> str:
    """The Piskvork ``MESSAGE`` line for a search so far."""
    depth = f"{result.depth}-{max(result.depth, result.seldepth)}"
    pv = " ".join(square(m) for m in result.pv[:PV_MAX])
    return (
        f"MESSAGE depth {depth} ev {evaluation(result)} n {count(result.nodes)} "
        f"n/s {count(result.nps)} tm {int(result.seconds * 1000)} pv {pv}"
    ).rstrip()


def wire_info(result: SearchResult) -> dict[str, Any]:
    """The ``info`` map of a bot's ``move`` (every field within the server's bounds)."""
    info: dict[str, Any] = {
        "depth": result.depth,
        "seldepth": max(result.depth, result.seldepth),
        "nodes": result.nodes,
        "nps": result.nps,
        "time_ms": int(result.seconds * 1000),
        "pv": [[m.x, m.y] for m in result.pv[:PV_MAX]],
    }
    mate = result.mate_in()
    if mate is None:
        info["score"] = result.score
    else:
        info["mate"] = mate
    return info
