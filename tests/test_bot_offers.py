"""Bots answer offers: the SDK's ``on_draw_offer`` / ``on_takeback_offer`` defaults, the
minimax bot's (a draw only when its search proves one, takebacks at levels 1-5), and ``mnk-bot``
answering a human over the wire."""

from __future__ import annotations

from typing import Any

import pytest
from support.bots import bot_running

from bots.engine.limits import Limit
from bots.sdk import MinimaxBot, RandomBot
from bots.seats import think
from protocol.rules import Move
from protocol.variants import make_variant

TTT = make_variant("tictactoe")
#: A tic-tac-toe position nobody can win any more (X centre, O corner, X blocks, O blocks).
DRAWN = [Move(1, 1), Move(0, 0), Move(2, 0), Move(0, 2), Move(0, 1)]
#: One where the side to move (O) loses: X has two open threes.
LOST = [Move(1, 1), Move(0, 1), Move(0, 0), Move(2, 1), Move(2, 0)]


def test_the_sdk_declines_by_default_and_minimax_accepts_only_a_proven_draw() -> None:
    limit = Limit(time_s=1.0)
    assert RandomBot().on_draw_offer(TTT, DRAWN, limit) is False
    assert RandomBot().on_takeback_offer(TTT, DRAWN, limit) is False
    assert MinimaxBot(level=10).on_draw_offer(TTT, DRAWN, limit) is True
    assert MinimaxBot(level=10).on_draw_offer(TTT, LOST, limit) is False
    assert MinimaxBot(level=5).on_takeback_offer(TTT, DRAWN, limit) is True
    assert MinimaxBot(level=6).on_takeback_offer(TTT, DRAWN, limit) is False


def test_the_worker_answers_offers_for_the_rooms_level() -> None:
    moves = [[m.x, m.y] for m in DRAWN]
    assert think("minimax", 3, TTT.describe(), moves, 0.5, ("takeback", None)) is True
    assert think("minimax", 8, TTT.describe(), moves, 0.5, ("takeback", None)) is False
    assert think("minimax", 8, TTT.describe(), moves, 0.5, ("draw", None)) is True
    assert think("random", None, TTT.describe(), moves, 0.5, ("draw", None)) is False


@pytest.mark.slow
async def test_mnk_bot_grants_a_takeback_at_level_3_and_plays_on(
    client_factory: Any, server: Any
) -> None:
    async with bot_running(server, "minimax", "kind", "--capacity", "2"):
        human = await client_factory("human")
        create = {"game": "gomoku", "opponent": "bot", "level": 3, "seat": 0}
        room = (await human.request(type="create_room", **create))["room"]
        await human.request(type="move", room=room, x=7, y=7, ply=0)
        await human.expect("moved", ply=1)  # the bot's reply
        await human.request(type="move", room=room, x=0, y=0, ply=2)  # a mis-click
        await human.expect("moved", ply=3)
        offer = await human.request(type="takeback_offer", room=room)
        assert offer["type"] == "offer"
        taken = await human.expect("taken_back")
        assert taken["ply"] == 2 and taken["by"] == 0
        state = await human.expect("state", ply=2)
        assert state["to_move"] == 0
        # A free cell beside the centre: the bot's first reply varies from game to game.
        taken_cells = {(x, y) for x, y in state["moves"]}
        x, y = next(c for c in ((8, 7), (6, 7), (7, 8)) if c not in taken_cells)
        played = await human.request(type="move", room=room, x=x, y=y, ply=2)
        assert played["type"] == "moved", played
        await human.expect("moved", ply=3)  # the bot plays on from the new position
        asked = await human.request(type="draw_offer", room=room)  # gomoku: not drawn
        assert asked["type"] == "offer"
        declined = await human.expect("offer_declined")
        assert declined["kind"] == "draw" and declined["by"] == 0
