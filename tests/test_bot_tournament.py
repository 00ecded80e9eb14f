"""``mnk-bot --tournament ID``: bot processes enter an event on a real server by connecting,
play the games it seats them in, and the event runs to its end."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from support.bots import start_bot, stop
from support.clients import registered
from support.waiting import TIMEOUT


@pytest.mark.slow
async def test_bots_enter_a_swiss_by_its_id_and_play_it_out(
    client_factory: Any, server: Any
) -> None:
    alice = await registered(client_factory, "alice")
    event = await alice.request(
        type="create_tournament", name="Bots", game="tictactoe", format="swiss", rounds=3
    )
    tid = event["tournament"]
    bots = [await start_bot(server, "random", f"rb{i}", "--tournament", tid) for i in range(3)]
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 60
        while len(event["entrants"]) < 3:
            assert loop.time() < deadline, "the bots did not enter"
            event = await alice.expect("tournament", timeout=TIMEOUT)
        assert {e["kind"] for e in event["entrants"]} == {"bot"}
        await alice.request(type="start_tournament", tournament=tid)
        while event["status"] != "finished":
            event = await alice.expect("tournament", timeout=TIMEOUT)
        assert len(event["games"]) == 3 and len(event["byes"]) == 3  # a bye each, one game each
        assert all(g["result"] is not None and g["game_id"] for g in event["games"])
        assert sum(s["points"] for s in event["standings"]) == 6.0  # 3 games + 3 byes
    finally:
        for bot in bots:
            await stop(bot)
