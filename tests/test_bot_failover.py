"""A bot given several URLs fails over to the next when its node dies, resumes its session
there, and asks again for each game in play that the new node does not describe.

After a node's death its rooms reappear on a survivor only once their lease lapsed, and the
survivor the bot reached may not be their adopter: nothing tells the bot when they are back,
so it re-joins them until a ``state`` comes. The two nodes here are minimal protocol servers
driven by the server's own sans-I/O room (a real cluster with a chosen adopter cannot be
arranged on demand: tests/cluster/test_tournament_cluster.py plays the real thing).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from support.waiting import until
from websockets.asyncio.server import ServerConnection, serve

import bots.runner as runner_module
from bots.runner import BotRunner
from bots.specs import parse_spec
from protocol.variants import TICTACTOE
from protocol.wire import decode, encode
from server.core.game.members import Member
from server.core.game.room import Room

WELCOME = {"type": "welcome", "protocol": 1, "player": "p_bot", "session": "s1", "name": "b"}


async def test_a_failed_over_bot_rejoins_the_games_its_new_node_did_not_describe(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(runner_module, "REJOIN_EVERY_S", 0.05)
    room = Room("R1", TICTACTOE)
    room.join(Member("p_h", "human"), seat=0)
    room.join(Member("p_bot", "b", "bot"), seat=1)  # the human is to move: the bot waits
    hellos: list[dict[str, Any]] = []
    asked: list[str] = []

    async def node_a(ws: ServerConnection) -> None:
        hellos.append(decode(await ws.recv()))
        await ws.send(encode(WELCOME))
        await ws.send(encode(room.state_for("p_bot")))
        await ws.wait_closed()

    async def node_b(ws: ServerConnection) -> None:  # knows the session, not the room (yet)
        hellos.append(decode(await ws.recv()))
        await ws.send(encode(WELCOME))
        async for frame in ws:
            msg = decode(frame)
            asked.append(msg["type"])
            if asked.count("join_room") == 3:  # adopted at last: the room is described
                await ws.send(encode({"type": "joined", "room": "R1", "seat": 1}))
                await ws.send(encode(room.state_for("p_bot")))

    stop = asyncio.Event()
    async with serve(node_b, "127.0.0.1", 0, compression=None) as b:
        url_b = f"ws://127.0.0.1:{b.sockets[0].getsockname()[1]}"
        async with serve(node_a, "127.0.0.1", 0, compression=None) as a:
            url_a = f"ws://127.0.0.1:{a.sockets[0].getsockname()[1]}"
            bot = BotRunner([url_a, url_b], parse_spec("random"), "b", capacity=1, workers=1)
            running = asyncio.create_task(bot.run(stop))
            await until(lambda: "R1" in bot.seats, timeout=30)
        # node a is gone (closed and no longer listening): the bot goes to b
        await until(lambda: asked.count("join_room") >= 3, timeout=30)
        await until(lambda: bot._undescribed == set(), timeout=30)
        settled = asked.count("join_room")
        await asyncio.sleep(0.3)  # six rejoin periods: none may follow the state
        assert asked.count("join_room") == settled == 3
        assert bot.conn.url == url_b and bot.seats["R1"].status == "playing"
        assert [h.get("session") for h in hellos] == [None, "s1"]  # resumed, not anew
        stop.set()
        await asyncio.wait_for(running, 30)
