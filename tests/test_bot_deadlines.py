"""A bot answers well inside every deadline the server sets: the first-move deadline is said on
the wire (``moved``'s ``first_move_left``) and the bot's time plan keeps within half of it."""

from __future__ import annotations

from typing import Any

import pytest
from support.bots import bot_running

from bots.seats import Seat
from protocol.variants import FIXED

#: 5 + 3, the issue's game: the first-move deadline of that speed is 25 s at the default 30.
CLOCK = {"initial_s": 300, "increment_s": 3}
#: ``first_move_timeout`` 6 scales that 25 s to 5 s.
DEADLINE_S = 5.0


@pytest.fixture
def limits_override() -> dict[str, float]:
    """A short first-move deadline, as a busy human would meet a slow bot."""
    return {"first_move_timeout": 6.0}


def test_a_first_move_deadline_caps_the_bots_plan() -> None:
    seat = Seat(room="r1", seat=1, variant=FIXED["gomoku"], clock=CLOCK, clocks=[300.0, 300.0])
    free = seat.plan()
    assert free.planned > 10  # a 5-minute clock alone would spend a lot on this move
    seat.first_move_left = 25.0
    capped = seat.plan()
    assert capped.maximum <= 12.5 and capped.planned <= capped.maximum
    assert seat.flag_in() == 25.0  # a hung engine is given up before the abort, not the flag


async def play_first_moves(human: Any, room: str) -> dict[str, Any]:
    """The human opens at H8; the bot's answer, or the message that ended the game instead."""
    state = await human.expect("state", status="playing")
    assert state["actions"]["first_move_s"] == DEADLINE_S
    reply = await human.request(type="move", room=room, x=7, y=7, ply=0)
    assert reply["type"] == "moved", reply
    assert reply["first_move_left"] == DEADLINE_S  # the bot's first move is awaited now
    while True:
        msg = await human.recv(timeout=60)
        if msg["type"] == "game_over" or (msg["type"] == "moved" and msg["seat"] == 1):
            return msg


@pytest.mark.slow  # a real bot process
async def test_level_10_answers_inside_a_short_first_move_deadline(
    client_factory: Any, server: Any
) -> None:
    async with bot_running(server, "minimax", "deep", "--capacity", "2"):
        human = await client_factory("human")
        joined = await human.request(
            type="create_room",
            game="gomoku",
            opponent="bot",
            level=10,
            seat=0,
            clock=CLOCK,
            options={"full_strength": True},  # the clock's time, not a human's pace
        )
        answer = await play_first_moves(human, joined["room"])
        assert answer["type"] == "moved", f"the game ended before the bot moved: {answer}"
        assert "first_move_left" not in answer  # each seat has moved: no deadline any more
