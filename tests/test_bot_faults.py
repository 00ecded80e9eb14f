"""A bot's engine failing in one game forfeits that game only; a replaced bot steps aside."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.bots import alive, bot_running, executable, start_bot, stop, wait_for_bot
from support.waiting import until

pytestmark = pytest.mark.slow  # real bot and brain processes

MOODY = """
import time
from bots.sdk import RandomBot

class Moody(RandomBot):
    def choose(self, variant, moves, limit):
        if variant.name == "gomoku":
            time.sleep(60)  # hangs in gomoku, plays tic-tac-toe at once
        return super().choose(variant, moves, limit)
"""

#: A timed game whose flag is far past the bot's budget plus its slack: 8 s on the clock, no
#: cap a move, so a move's budget is a quarter of it (~1.9 s) and a hang is called ~0.2 s after
#: that, ~6 s before the clock would flag it. (A 2 s cap a move left 0.09 s between the hang and
#: the flag, and a loaded machine saw a timeout instead of a forfeit.)
CLOCK = {"initial_s": 8.0, "increment_s": 0.0}


@pytest.fixture
def limits_override() -> dict[str, float]:
    """Raw clients here move at machine speed; one human plays two games of a bot of two seats."""
    return {"human_rate": 1000.0, "human_burst": 1000.0, "bot_seat_share": 1.0}


async def bot_game(human: Any, game: str, **extra: Any) -> str:
    """Create a game against the bot with the human as seat 0; the room id."""
    return (await human.request(type="create_room", game=game, opponent="bot", seat=0, **extra))[
        "room"
    ]


async def test_hung_engine_forfeits_its_game_and_spares_the_others(
    client_factory: Any, server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "moody.py").write_text(MOODY)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    moody = ("moody:Moody", "moody", "--capacity", "2", "--hang-slack", "0.2")
    async with bot_running(server, *moody):
        human = await client_factory("human")
        gomoku = await bot_game(human, "gomoku", clock=CLOCK, bot="moody")
        ttt = await bot_game(human, "tictactoe", bot="moody")
        await human.request(type="move", room=gomoku, x=7, y=7)
        over = await human.expect("game_over", room=gomoku, timeout=30)
        assert over["reason"] == "forfeit" and over["fault"] == "hang" and over["winner"] == 0
        # the other game of the same bot goes on, on a fresh worker
        free = [(x, y) for y in range(3) for x in range(3)]
        room = server.arena.rooms.get(ttt)
        while room.status != "over":
            x, y = free.pop(0)
            reply = await human.request(type="move", room=ttt, x=x, y=y)
            if reply["type"] == "error" or room.status == "over":
                continue  # that cell was the bot's, or our move ended the game
            msg = await human.expect("moved", room=ttt, seat=1, timeout=30)
            free = [c for c in free if c != (msg["x"], msg["y"])]
        assert server.arena.rooms.get(ttt).game.outcome.termination in ("line", "draw")


#: ``HANGER`` that writes down which process hung: a spare brain of the same file waits
#: beside it (started ahead for the next game), alive by design.
HANGS_AND_SAYS = """
import os, sys
for line in sys.stdin:
    if line.startswith(("START", "RECTSTART")):
        print("OK", flush=True)
    elif line.startswith(("BEGIN", "TURN", "DONE")):
        with open(sys.argv[0] + ".hung", "w") as f:
            f.write(str(os.getpid()))
        sys.stdin.read()  # says nothing more, ever: reads until its input closes
"""


async def test_hung_brain_forfeits_and_is_killed(
    client_factory: Any, server: Any, tmp_path: Path
) -> None:
    brain = executable(tmp_path / "pbrain-hangs", HANGS_AND_SAYS)
    async with bot_running(server, f"piskvork:{brain}", "hangs", "--hang-slack", "0.2"):
        human = await client_factory("human")
        room = await bot_game(human, "gomoku", clock=CLOCK, bot="hangs")
        await human.request(type="move", room=room, x=7, y=7)
        over = await human.expect("game_over", room=room, timeout=30)
        assert over["reason"] == "forfeit" and over["fault"] == "hang"
        hung = int(Path(brain + ".hung").read_text())
        # END, a second's grace to exit, then SIGKILL (and the bot reaps it)
        await until(lambda: not alive(hung), timeout=30.0)
    spares = subprocess.run(["pgrep", "-f", f"^[^ ]*python[^ ]* {brain}$"], capture_output=True)
    assert spares.stdout.strip() == b"", "a spare brain must not outlive its bot"


async def test_a_bot_replaced_on_its_session_stops(server: Any, tmp_path: Path) -> None:
    session = tmp_path / "bot.session"
    first = await start_bot(server, "random", "twin", "--session-file", str(session))
    try:
        await wait_for_bot(server, "twin")
        for _ in range(100):
            if session.exists():
                break
            await asyncio.sleep(0.05)
        second = await start_bot(server, "random", "twin", "--session-file", str(session))
        try:
            code = await asyncio.to_thread(first.wait, 15)
            assert code == 0  # closed with 4000, it stepped aside instead of fighting back
            assert (await wait_for_bot(server, "twin")).online
        finally:
            await stop(second)
    finally:
        if first.poll() is None:
            await stop(first)


def test_the_bot_cli_rejects_a_bad_engine() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bots", "--engine", "alphazero"], capture_output=True, text=True
    )
    assert done.returncode != 0 and "unknown engine" in done.stderr
