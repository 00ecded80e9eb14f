"""Bots play from a set-up position (``options.position``): "continue from here against the
bot". The built-in engine and a Piskvork brain (over ``BOARD``) are both given it, and a
position no game could reach is refused with ``bad_options``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from support.bots import bot_running, executable

from bots.seats import Seat, game_of
from protocol.positions import setup_moves
from protocol.rules import Move
from protocol.variants import FIXED

#: White (the bot) to move: black has a four on row 7 closed at its left end by white's (4, 7):
#: the only move that does not lose at once is the block at (9, 7).
POSITION = {
    "black": [[5, 7], [6, 7], [7, 7], [8, 7]],
    "white": [[4, 7], [6, 9], [7, 9]],
    "to_move": 1,
}

#: Our own engine as a Piskvork brain, strong enough to see a four (level 8: no careless moves).
BRAIN = f"""
import sys
sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r})
from bots.cli import main
main(["--piskvork", "--engine", "minimax:level=8"])
"""


def test_a_position_is_given_to_the_engine_as_moves_from_the_empty_board() -> None:
    order = setup_moves(POSITION)
    assert order is not None and order[:2] == [Move(5, 7), Move(4, 7)] and len(order) == 7
    game, setup = game_of(FIXED["gomoku"], POSITION)
    assert game.ply == 0 and game.to_move == 1 and setup == order
    seat = Seat(room="r1", seat=1, variant=FIXED["gomoku"], game=game, setup=setup)
    seat.colour = 1
    assert seat.my_turn and seat.moves == order  # the engine sees the stones, then the moves
    assert setup_moves({"black": [[1, 1], [2, 2]], "white": [], "to_move": 0}) is None


async def blocks_the_four(human: Any, create: dict[str, Any]) -> None:
    """Create the room from POSITION (the human black, seat 0): the bot's first move blocks."""
    joined = await human.request(
        type="create_room", game="gomoku", seat=0, options={"position": POSITION}, **create
    )
    assert joined["type"] == "joined", joined
    answer = await human.expect("moved", seat=1, timeout=60)
    assert (answer["x"], answer["y"], answer["ply"]) == (9, 7, 0), answer
    reply = await human.request(type="move", room=joined["room"], x=9, y=9, ply=1)
    assert reply["type"] == "moved", reply
    second = await human.expect("moved", seat=1, timeout=60)
    assert second["ply"] == 2  # it plays on from there


@pytest.mark.slow  # a real bot process
async def test_the_built_in_bot_plays_from_a_set_up_position(
    client_factory: Any, server: Any
) -> None:
    async with bot_running(server, "minimax", "deep", "--capacity", "2"):
        human = await client_factory("human")
        await blocks_the_four(human, {"opponent": "bot", "level": 6})
        odd = {"black": [[1, 1], [2, 2]], "white": [], "to_move": 1}  # two black, none white
        error = await human.request(
            type="create_room", game="gomoku", opponent="bot", options={"position": odd}
        )
        assert error["type"] == "error" and error["code"] == "bad_options", error
        assert "could reach" in error["message"]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs a POSIX process model")
@pytest.mark.slow  # a bot process and its brain
async def test_a_piskvork_brain_plays_from_a_set_up_position(
    client_factory: Any, server: Any, tmp_path: Path
) -> None:
    path = executable(tmp_path / "pbrain-ours", BRAIN)
    async with bot_running(server, f"piskvork:{path}", "brainy"):
        human = await client_factory("human")
        await blocks_the_four(human, {"bot": "brainy"})
