"""``mnk-bot --seek``: the plan (one seek per free seat, seek again after a game or a refusal),
and two real bot processes on a real server that pair with each other in a rated pool, finish
a game and seek again."""

from __future__ import annotations

import time
from typing import Any

import pytest
from support.bots import start_bot, stop, wait_for_bot
from support.clients import connected

from bots.cli import build_parser, main
from bots.seeking import RETRY_S, SeekPlan, parse_seek


def test_the_seek_text_reads_as_the_wire_wants_it() -> None:
    assert parse_seek("gomoku 3+2") == ("gomoku", {"initial_s": 180, "increment_s": 2})
    assert parse_seek(" renju 0.5+1 ") == ("renju", {"initial_s": 30, "increment_s": 1})
    assert parse_seek("tictactoe") == ("tictactoe", None)
    for bad in ("mnk 3+2", "gomoku 3", "gomoku 0+2", "gomoku three+2", ""):
        with pytest.raises(ValueError):
            parse_seek(bad)
    with pytest.raises(ValueError, match="needs a clock"):
        SeekPlan.from_text("gomoku", rated=True, capacity=2)


def test_the_plan_keeps_one_seek_per_free_seat() -> None:
    plan = SeekPlan.from_text("gomoku 3+2", rated=True, capacity=4)
    assert plan.request() == {
        "type": "seek",
        "game": "gomoku",
        "rated": True,
        "clock": {"initial_s": 180, "increment_s": 2},
    }
    assert plan.wanted(playing=0, now=0) == 3  # the server lets a player hold 3
    plan.asking |= {1, 2, 3}
    assert plan.wanted(0, 0) == 0
    for rid in (1, 2, 3):
        plan.placed(rid, {"seek": f"s_{rid}"})
    assert plan.wanted(0, 0) == 0 and plan.surplus(0) == []
    assert plan.ended("s_1") and not plan.ended("s_1")  # paired: its game takes a seat
    assert plan.wanted(playing=1, now=0) == 1 and plan.surplus(1) == []
    assert plan.surplus(playing=3) == ["s_2"]  # games came another way: one seek too many
    plan.asking.add(9)
    assert plan.refused(9, now=100) and not plan.refused(9, now=100)
    assert plan.wanted(0, now=100 + RETRY_S / 2) == 0  # held back after a refusal
    assert plan.wanted(0, now=100 + RETRY_S) == 1
    plan.reset()
    assert plan.wanted(0, now=1000) == 3


def test_the_command_line_checks_the_seek_options() -> None:
    args = build_parser().parse_args(["--seek", "gomoku 3+2", "--seek-rated"])
    assert args.seek == "gomoku 3+2" and args.seek_rated
    for argv in (["--seek", "chess 3+2"], ["--seek-rated"], ["--seek", "gomoku", "--seek-rated"]):
        with pytest.raises(SystemExit) as stopped:
            main([*argv, "--check"])
        assert "mnk-bot:" in str(stopped.value.code)


async def bot_games(watcher: Any, names: set[str]) -> list[dict[str, Any]]:
    """The finished games between the bots ``names``, from the server's history."""
    reply = await watcher.request(type="list_games", limit=50)
    return [g for g in reply.get("games", ()) if set(g["players"]) == names]


@pytest.mark.slow
async def test_two_seeking_bots_pair_play_and_seek_again(server: Any) -> None:
    names = {"seeker-a", "seeker-b"}
    seek = ("--seek", "tictactoe 1+0", "--seek-rated", "--capacity", "1")
    bots = [await start_bot(server, "random", name, *seek) for name in sorted(names)]
    watcher = await connected(server.url, "watcher")
    try:
        for name in sorted(names):
            await wait_for_bot(server, name)
        deadline = time.monotonic() + 90
        seen: dict[str, dict[str, Any]] = {}  # each bot's seeks as the lobby lists them
        page = await watcher.request(type="list_seeks", subscribe=True)
        while True:  # every change of the seeks is pushed: a seek placed, paired or ended
            seen.update((s["name"], s) for s in page.get("seeks", ()) if s["name"] in names)
            if len(await bot_games(watcher, names)) >= 2:  # a second game: they sought again
                break
            left = deadline - time.monotonic()
            assert left > 0, "the bots did not play two paired games"
            page = await watcher.expect("seeks", timeout=left)
        games = await bot_games(watcher, names)
        assert all(g["reason"] in ("line", "draw") for g in games), games
        assert seen, "no seek of theirs was ever listed"
        for s in seen.values():
            assert s["kind"] == "bot" and s["pool"] == "tictactoe 1+0 rated", s
            assert s["account"] is True and s["rating"] is not None, s  # a keyed bot is rated
    finally:
        await watcher.close()
        for proc in bots:
            await stop(proc)
