"""``mnk-bot --tournament ID``: bot processes enter an event on a real server by connecting,
play the games it seats them in, and the event runs to its end. ``mnk-bot --seek …
--enter-events``: the events of the pools it seeks, found and entered by the bot itself."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from support.bots import start_bot, stop
from support.clients import registered
from support.waiting import TIMEOUT

from bots.cli import main
from bots.entering import CHECKING, IN, MAX_EVENTS, REFUSED, EventPicker


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


def line(tid: str, pool: str | None, status: str = "open", fmt: str = "swiss") -> dict[str, Any]:
    """An event's line in ``tournaments`` (the fields the picker reads)."""
    return {"tournament": tid, "rating_pool": pool, "status": status, "format": fmt}


def test_the_picker_enters_each_event_of_its_pools_once() -> None:
    picker = EventPicker()
    assert not picker.wanted(line("t1", None)) and not picker.wanted(line("t1", "gomoku-blitz"))
    assert picker.learn("gomoku-blitz") and not picker.learn("gomoku-blitz")
    assert not picker.learn(None)
    assert picker.wanted(line("t1", "gomoku-blitz"))
    assert picker.wanted(line("t2", "gomoku-blitz", "running", "arena"))
    assert not picker.wanted(line("t3", "gomoku-blitz", "running", "swiss"))  # takes nobody
    assert not picker.wanted(line("t4", "gomoku-blitz", "finished", "arena"))
    assert not picker.wanted(line("t5", "gomoku-bullet")) and not picker.wanted(line("t6", None))
    for rid, tid in enumerate(("t1", "t2", "t7", "t8", "t9"), start=1):
        picker.asked(rid, tid)
    assert not picker.wanted(line("t1", "gomoku-blitz"))  # asked once: not again
    assert picker.answered(1) == "t1" and picker.answered(1) is None
    assert picker.refused(2, "entry_check_running") == "t2"
    assert picker.refused(3, "tournament_full") == "t7" and picker.refused(3, "x") is None
    assert picker.refused(4, "busy") == "t8"  # not now: the next sweep asks again
    assert picker.wanted(line("t8", "gomoku-blitz")) and not picker.wanted(
        line("t7", "gomoku-blitz")
    )
    assert picker.events == {"t1": IN, "t2": CHECKING, "t7": REFUSED, "t9": "asking"}
    assert picker.rejoining() == ["t1", "t2"] and picker.rejoining(checked=True) == ["t2"]
    assert picker.unpooled() and not picker.unpooled()  # an untimed seek: said once
    picker.asked(10, "t1")  # a rejoin: still in until answered
    picker.reset()  # a new connection: the join of t9 never gets its answer, so ask again
    assert picker.events == {"t1": IN, "t2": CHECKING, "t7": REFUSED} and not picker.joins
    for rid in range(MAX_EVENTS + 10):
        picker.asked(100 + rid, f"e{rid}")
    assert len(picker.events) == MAX_EVENTS and len(picker.joins) <= MAX_EVENTS


def test_enter_events_goes_with_a_seek() -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--enter-events", "--check"])
    assert "--enter-events go with --seek" in str(stopped.value.code)
    main(["--seek", "gomoku 3+2", "--enter-events", "--check"])  # accepted


@pytest.mark.slow
async def test_a_seeking_bot_enters_the_events_of_its_pool_and_plays_them(
    client_factory: Any, server: Any
) -> None:
    alice = await registered(client_factory, "alice")
    blitz = {"initial_s": 180, "increment_s": 2}
    made = {}
    for game, clock in (("tictactoe", blitz), ("gomoku", {"initial_s": 60, "increment_s": 0}),
                        ("gomoku", blitz)):  # fmt: skip
        made[game, clock["initial_s"]] = await alice.request(
            type="create_tournament", name=f"{game} {clock['initial_s']}", game=game,
            format="round_robin", clock=clock, games_per_pair=1,
        )  # fmt: skip
    event = made["gomoku", 180]
    tid = event["tournament"]
    bots = [
        await start_bot(server, "random", "seeker", "--seek", "gomoku 3+2", "--enter-events"),
        await start_bot(server, "random", "entrant", "--tournament", tid),
    ]
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 60
        while {e["name"] for e in event["entrants"]} != {"seeker", "entrant"}:
            assert loop.time() < deadline, "the seeking bot did not enter its pool's event"
            event = await alice.expect("tournament", timeout=TIMEOUT)
        await alice.request(type="start_tournament", tournament=tid)
        while event["status"] != "finished":
            event = await alice.expect("tournament", timeout=TIMEOUT)
        (game,) = event["games"]
        assert game["result"] is not None and game["game_id"], game
        for other in (made["tictactoe", 180], made["gomoku", 60]):  # other pools: not entered
            seen = await alice.request(type="get_tournament", tournament=other["tournament"])
            assert seen["entrants"] == [], seen["name"]
    finally:
        for bot in bots:
            await stop(bot)


@pytest.mark.slow
async def test_a_seeking_bot_enters_a_running_arena_of_its_pool(
    client_factory: Any, server: Any
) -> None:
    alice = await registered(client_factory, "alice")
    event = await alice.request(
        type="create_tournament", name="Blitz arena", game="gomoku", format="arena",
        clock={"initial_s": 180, "increment_s": 2}, duration_s=120,
    )  # fmt: skip
    tid = event["tournament"]
    bots = [await start_bot(server, "random", f"e{i}", "--tournament", tid) for i in range(2)]
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 60
        while len(event["entrants"]) < 2:
            assert loop.time() < deadline, "the bots did not enter"
            event = await alice.expect("tournament", timeout=TIMEOUT)
        event = await alice.request(type="start_tournament", tournament=tid)
        assert event["status"] == "running"
        seek = ("--seek", "gomoku 3+2", "--enter-events")
        bots.append(await start_bot(server, "random", "seeker", *seek))
        while "seeker" not in {e["name"] for e in event["entrants"]}:
            assert loop.time() < deadline, "the seeking bot did not enter the running arena"
            event = await alice.expect("tournament", timeout=TIMEOUT)
    finally:
        for bot in bots:
            await stop(bot)
