"""Real ``mnk-bot`` processes against the real server: perfect tic-tac-toe, reconnects, pings."""

from __future__ import annotations

import asyncio
import dataclasses
import subprocess
import time
from collections.abc import AsyncIterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from support.bots import start_bot, stop, wait_for_bot

pytestmark = pytest.mark.slow  # real bot processes

BOARD = [(x, y) for y in range(3) for x in range(3)]
LINES = [[(x, y) for x in range(3)] for y in range(3)] + [
    [(x, y) for y in range(3)] for x in range(3)
]
LINES += [[(i, i) for i in range(3)], [(2 - i, i) for i in range(3)]]


@cache
def value(moves: tuple[tuple[int, int], ...]) -> int:
    """Perfect-play value for the side to move (+1 win, 0 draw, -1 loss): the test's own oracle."""
    last = set(moves[len(moves) - 1 :: -2])
    if any(all(c in last for c in line) for line in LINES):
        return -1
    if len(moves) == 9:
        return 0
    return max(-value((*moves, c)) for c in BOARD if c not in moves)


@pytest.fixture
def limits_override() -> dict[str, float]:
    """Games at machine speed, by more clients on 127.0.0.1 than one address may open."""
    limits = {"human_rate": 1000.0, "human_burst": 1000.0, "max_connections_per_address": 10_000}
    limits |= {"bot_seat_share": 1.0}  # eight humans of one address play one bot at once
    limits |= {"max_games_per_address_hour": 1_000_000}  # every line: over a thousand games
    limits |= {"page_rate": 1e9, "page_burst": 1e9}  # ... each from a new connection
    return limits | {"hello_burst": 10_000}  # and opened faster than one address may


@pytest.fixture
async def bot(server: Any) -> AsyncIterator[subprocess.Popen[bytes]]:
    """The strongest engine as a bot process with room for eight games at once."""
    proc = await start_bot(server, "minimax", "perfect", "--capacity", "8")
    await wait_for_bot(server, "perfect")
    yield proc
    await stop(proc)


async def play_line(client_factory: Any, human_seat: int, choices: list[int]) -> tuple[list, int]:
    """One game against the level-10 bot; the human plays the ``choices[i]``-th free cell.

    Returns the human's option counts at each decision and the result for the human. Every bot
    move is checked against the oracle: it never turns a won position into less, nor a drawn
    one into a loss.
    """
    human = await client_factory(f"h{human_seat}")
    joined = await human.request(
        type="create_room", game="tictactoe", opponent="bot", level=10, seat=human_seat
    )
    room = joined["room"]
    moves: list[tuple[int, int]] = []
    options: list[int] = []
    while True:
        msg = await human.recv()
        assert msg["type"] != "error", msg
        if msg["type"] == "game_over":
            winner = msg["winner"]
            assert msg["reason"] in ("line", "draw"), msg
            return options, 0 if winner is None else (1 if winner == human_seat else -1)
        if msg["type"] == "moved":
            if msg["seat"] != human_seat:
                before = value(tuple(moves))
                moves.append((msg["x"], msg["y"]))
                after = -value(tuple(moves))
                assert after == before, f"the bot let {before} slip to {after} after {moves}"
            else:
                moves.append((msg["x"], msg["y"]))
        if msg["type"] == "state" and msg["status"] == "playing" and not moves:
            moves = [tuple(m) for m in msg["moves"]]  # the bot may already have opened
        if len(moves) % 2 == human_seat and len(moves) // 2 == len(options) and len(moves) < 9:
            if msg["type"] == "state" and msg["status"] != "playing":
                continue
            free = [c for c in BOARD if c not in moves]
            i = len(options)
            pick = choices[i] if i < len(choices) else 0
            options.append(len(free))
            x, y = free[pick]
            await human.send(type="move", room=room, x=x, y=y)


@pytest.mark.timeout(600)  # some 150 games: minutes when the machine is busy beside the suite
async def test_level_10_never_loses_whatever_the_human_plays(client_factory: Any, bot: Any) -> None:
    """Every human line (by free-cell index), as X and as O: the bot never loses."""
    for seat in (0, 1):
        pending: list[list[int]] = [[]]
        games = 0
        while pending:
            batch, pending = pending[:8], pending[8:]
            results = await asyncio.gather(*(play_line(client_factory, seat, c) for c in batch))
            for choices, (options, result) in zip(batch, results, strict=True):
                games += 1
                assert result <= 0, f"the human won with choices {choices}"
                # expand: every alternative at each decision beyond the fixed prefix
                for depth in range(len(choices), len(options)):
                    for alt in range(1, options[depth]):
                        pending.append([*choices, *[0] * (depth - len(choices)), alt])
        assert games >= (100 if seat == 0 else 50)


async def test_bot_reconnects_and_resumes_its_game(client_factory: Any, server: Any) -> None:
    proc = await start_bot(server, "minimax:level=3", "hopper", "--capacity", "2")
    try:
        player = await wait_for_bot(server, "hopper")
        human = await client_factory("human")
        room = (await human.request(type="create_room", game="gomoku", bot="hopper", seat=0))[
            "room"
        ]
        await human.request(type="move", room=room, x=7, y=7)
        reply = await human.expect("moved", seat=1)
        server.fanout.sockets[player.pid].transport.abort()  # the bot's connection drops
        await human.expect("presence", online=False)
        await human.expect("presence", online=True, timeout=30)
        # A free cell beside the centre: level 3 often replies on one of them, at random.
        x, y = next(c for c in ((8, 7), (6, 7), (7, 8)) if c != (reply["x"], reply["y"]))
        await human.request(type="move", room=room, x=x, y=y)
        reply = await human.expect("moved", seat=1, timeout=30)
        assert reply["ply"] == 3
    finally:
        await stop(proc)


SLOW_BOT = """
import time
from bots.sdk import RandomBot

class Slow(RandomBot):
    def choose(self, variant, moves, limit):
        time.sleep(1.5)
        return super().choose(variant, moves, limit)

class Hung(RandomBot):
    def choose(self, variant, moves, limit):
        time.sleep(60)
        return super().choose(variant, moves, limit)
"""


async def test_thinking_bot_answers_pings_and_a_hung_one_loses(
    client_factory: Any, server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.arena.limits = dataclasses.replace(server.arena.limits, bot_move_timeout=2.0)
    (tmp_path / "slowbots.py").write_text(SLOW_BOT)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    slow = await start_bot(server, "slowbots:Slow", "slow", "--games", "tictactoe")
    hung = await start_bot(server, "slowbots:Hung", "hung", "--games", "gomoku")
    try:
        slow_player = await wait_for_bot(server, "slow")
        await wait_for_bot(server, "hung")
        human = await client_factory("human")
        room = (await human.request(type="create_room", game="tictactoe", bot="slow"))["room"]
        state = await human.expect("state", status="playing")
        if state["seat"] == 0:
            await human.request(type="move", room=room, x=1, y=1)
        await asyncio.sleep(0.3)  # the bot is now inside its 1.5 s search
        ws = server.fanout.sockets[slow_player.pid]
        started = time.monotonic()
        await asyncio.wait_for(await ws.ping(), 1.0)
        assert time.monotonic() - started < 0.5
        assert (await human.expect("moved", seat=1 - state["seat"], timeout=30))["room"] == room

        room2 = (await human.request(type="create_room", game="gomoku", bot="hung", seat=0))["room"]
        await human.request(type="move", room=room2, x=7, y=7)
        over = await human.expect("game_over", room=room2, timeout=30)
        assert over["reason"] == "timeout" and over["winner"] == 0
    finally:
        for proc in (slow, hung):
            await stop(proc)
