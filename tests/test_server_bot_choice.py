"""Which bot a human gets: the level asked is honoured, and a bot can be picked by name."""

from __future__ import annotations

from typing import Any

from support.servers import bot_key


async def bot(client_factory: Any, name: str, level: int | None, capacity: int = 4) -> Any:
    """A raw bot client that plays every game (``level`` None: any level asked)."""
    extra: dict[str, Any] = {"games": ["*"], "capacity": capacity}
    if level is not None:
        extra["level"] = level
    return await client_factory(name, "bot", **extra)


async def seated(human: Any, **create: Any) -> tuple[str, dict[str, Any]]:
    """Create a game against a bot; the bot's name and the room's state."""
    joined = await human.request(type="create_room", game="tictactoe", seat=0, **create)
    assert joined["type"] == "joined", joined
    state = await human.expect("state", room=joined["room"], status="playing")
    return state["players"][1], state


async def test_the_level_asked_picks_a_bot_that_plays_it(client_factory: Any) -> None:
    await bot(client_factory, "seven", 7)
    await bot(client_factory, "greedy", 0)  # plays no level: only when named
    human = await client_factory("human")
    await human.error("no_bot_available", type="create_room", game="tictactoe", opponent="bot")
    await human.error(
        "no_bot_available", type="create_room", game="tictactoe", opponent="bot", level=3
    )
    name, state = await seated(human, opponent="bot", level=7)
    assert name == "seven" and state["options"]["level"] == 7
    await human.request(type="leave_room", room=state["room"])  # resigns: seven is idle again
    await bot(client_factory, "pool", None)
    for level in (1, 3, 5, 10):
        name, state = await seated(human, opponent="bot", level=level)
        assert name == "pool" and state["options"]["level"] == level
        await human.request(type="leave_room", room=state["room"])
    name, _ = await seated(human, opponent="bot", level=7)  # equal load: the exact level wins
    assert name == "seven"


async def test_a_bot_picked_by_name_and_listed_with_its_level(client_factory: Any) -> None:
    await bot(client_factory, "seven", 7)
    await bot(client_factory, "greedy", 0)
    await bot(client_factory, "pool", None)
    human = await client_factory("human")
    listed = {b["name"]: b["level"] for b in (await human.request(type="list_bots"))["bots"]}
    assert listed == {"seven": 7, "greedy": 0, "pool": None}
    name, state = await seated(human, bot="greedy")
    assert name == "greedy" and "level" not in state["options"]
    assert state["options"]["opponent"] == "bot"
    name, state = await seated(human, bot="seven", level=2)  # a fixed bot plays its own level
    assert name == "seven" and state["options"]["level"] == 7
    name, state = await seated(human, bot="pool", level=2)
    assert name == "pool" and state["options"]["level"] == 2
    await human.error("no_bot_available", type="create_room", game="tictactoe", bot="nobody")
    await human.error("bad_message", type="create_room", game="tictactoe", bot=7)


async def test_a_bot_level_out_of_range_is_refused(client_factory: Any, server: Any) -> None:
    raw = await client_factory()
    key = bot_key(server, "b")  # a real bot: refused for its level, not for want of a key
    await raw.send(type="hello", protocol=1, name="b", kind="bot", key=key, games=["*"], level=11)
    err = await raw.expect("error")
    assert err["code"] == "bad_message"
