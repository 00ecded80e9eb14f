"""Each player's network lag as the server measures it: the round trips of its WebSocket pings.

The server's keepalive pings every connection every 20 s (``server/shell/keepalive.py``) and
websockets keeps the last round trip as ``latency``; :class:`ArenaConnection` reports each one.
A connection is also pinged once as it says hello, so that a game started at once has a
measure. The player's estimate (smoothed, ``core/game/lag.py``) bounds what its timed moves get
back; a client's own ``lag_ms`` may only lower it. A client that delays its pongs raises its
estimate: the clock's quota bounds what that buys.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from server.core.game.lag import smoothed
from server.core.players.players import Conn
from server.core.ports import Members
from server.shell.conn import ArenaConnection

log = logging.getLogger("mnk.server")


def watch(
    ws: ServerConnection, members: Members, conn: Conn, spawn: Callable[[Any], object]
) -> None:
    """From now on note each round trip measured on ``ws`` as the lag of ``conn``'s player (the
    one who said hello on it, whoever that is by then), and measure one now."""
    if not isinstance(ws, ArenaConnection):
        return  # websockets' plain connection reports no round trips: no lag, no refunds
    ws.report_latency(functools.partial(noted, members, conn))
    spawn(probe(ws))


def noted(members: Members, conn: Conn, rtt: float) -> None:
    """One round trip ``rtt`` measured on ``conn``'s connection: its player's lag moves to it."""
    pid = conn.pid
    player = members.player(pid) if pid is not None else None
    if player is not None:
        player.note_lag(smoothed(player.lag, rtt))


async def probe(ws: ServerConnection) -> None:
    """Ping ``ws`` once; its pong sets ``latency`` (noted as above). Nothing waits for it: a
    client that never answers is one the keepalive closes."""
    try:
        await ws.ping()
    except ConnectionClosed:
        pass
    except Exception:  # a closing transport, a concurrency error: no measure this time
        log.debug("probing a connection's lag failed", exc_info=True)
