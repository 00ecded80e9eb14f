"""Against a human a bot plays at a human's pace (a few seconds a move) unless the room asks for
``full_strength``; against a bot, and in a director's room, it uses its clock."""

from __future__ import annotations

import time
from typing import Any

import pytest
from support.bots import bot_running

from bots.seats import HUMAN_PACE, Seat
from protocol.variants import FIXED

CLOCK = {"initial_s": 300, "increment_s": 3}


def seat_of(**over: Any) -> Seat:
    """The bot's seat 1 in a 5+3 gomoku game, both clocks full."""
    return Seat(
        room="r1", seat=1, variant=FIXED["gomoku"], clock=CLOCK, clocks=[300.0, 300.0], **over
    )


def test_against_a_human_the_plan_is_a_humans_pace() -> None:
    clock = seat_of().plan()
    paced = seat_of(human_pace=True).plan()
    assert clock.planned > 10 and clock.maximum > 30  # the clock alone: 17 s, up to 76 s
    assert paced.planned <= HUMAN_PACE.planned <= paced.maximum <= HUMAN_PACE.maximum <= 5


async def bot_answer_s(human: Any, room: str, ply: int, x: int, y: int) -> float:
    """Play (x, y) at ``ply``; the seconds until the bot's answer came."""
    reply = await human.request(type="move", room=room, x=x, y=y, ply=ply)
    assert reply["type"] == "moved", reply
    started = time.monotonic()
    while True:
        msg = await human.recv(timeout=60)
        assert msg["type"] != "game_over", msg
        if msg["type"] == "moved" and msg["seat"] == 1:
            return time.monotonic() - started


@pytest.mark.slow  # a real bot process
async def test_level_10_against_a_human_answers_in_a_few_seconds(
    client_factory: Any, server: Any
) -> None:
    async with bot_running(server, "minimax", "deep", "--capacity", "2"):
        human = await client_factory("human")
        joined = await human.request(
            type="create_room", game="gomoku", opponent="bot", level=10, seat=0, clock=CLOCK
        )
        room = joined["room"]
        state = await human.expect("state", status="playing")
        assert "full_strength" not in state["options"]
        times = [await bot_answer_s(human, room, 0, 7, 7)]
        times.append(await bot_answer_s(human, room, 2, 9, 5))
        assert max(times) < 6.5, times  # 5 s at most, and the round trips


async def test_full_strength_is_an_option_of_a_humans_game_against_a_bot(
    client_factory: Any, server: Any
) -> None:
    human = await client_factory("human")
    error = await human.request(
        type="create_room", game="gomoku", opponent="human", options={"full_strength": True}
    )
    assert error["type"] == "error" and error["code"] == "bad_options", error
    error = await human.request(
        type="create_room", game="gomoku", opponent="bot", options={"full_strength": 1}
    )
    assert error["type"] == "error" and error["code"] == "bad_options", error


@pytest.mark.slow  # a real bot process
async def test_a_training_games_human_sees_what_the_bot_saw(
    client_factory: Any, server: Any
) -> None:
    async with bot_running(server, "minimax", "deep", "--capacity", "2"):
        human = await client_factory("human")
        joined = await human.request(
            type="create_room", game="gomoku", opponent="bot", level=10, seat=0,
            options={"hints": True},
        )  # fmt: skip
        await human.expect("state", status="playing")
        await human.request(type="move", room=joined["room"], x=7, y=7, ply=0)
        answer = await human.expect("moved", seat=1, timeout=60)
        info = answer.get("info")
        assert info is not None and info["pv"][0] == [answer["x"], answer["y"]], answer
