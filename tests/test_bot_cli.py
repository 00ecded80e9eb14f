"""``mnk-bot`` as a newcomer runs it: the console script, a module in the working directory."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.bots import stop, wait_for_bot
from support.servers import bot_env as keyed_env

pytestmark = pytest.mark.slow  # real bot processes

#: The custom bot of docs/BOTS.md, verbatim.
GREEDY = '''
from bots.sdk import Bot
from protocol import Game, Move


class Greedy(Bot):
    name = "greedy"

    def choose(self, variant, moves, limit):
        """Take a winning cell if there is one, else the first free cell."""
        game = Game.from_moves(variant, moves)
        for move in game.legal_moves():
            trial = Game.from_moves(variant, [*moves, move])
            if trial.outcome is not None:
                return move
        return game.legal_moves()[0]
'''

MNK_BOT = str(Path(sys.executable).parent / "mnk-bot")


def bot_env(server: Any = None, name: str = "") -> dict[str, str]:
    """The environment without PYTHONPATH (the module must be found as documented, from cwd),
    with the key the test ``server`` made for the bot ``name`` when there is one."""
    env = dict(os.environ) if server is None else keyed_env(server, name)
    env.pop("PYTHONPATH", None)
    return env


@pytest.fixture
def greedy_dir(tmp_path: Path) -> Path:
    """A directory holding ``mymodule.py`` with the documented Greedy bot."""
    (tmp_path / "mymodule.py").write_text(GREEDY)
    return tmp_path


async def test_documented_custom_bot_plays_from_its_directory(
    client_factory: Any, server: Any, greedy_dir: Path
) -> None:
    cmd = [MNK_BOT, "--server", server.url, "--engine", "mymodule:Greedy", "--name", "greedy"]
    proc = subprocess.Popen(cmd, cwd=greedy_dir, env=bot_env(server, "greedy"))
    try:
        await wait_for_bot(server, "greedy")
        human = await client_factory("human")
        room = (await human.request(type="create_room", game="tictactoe", bot="greedy", seat=0))[
            "room"
        ]
        await human.request(type="move", room=room, x=2, y=2)
        moved = await human.expect("moved", seat=1)
        assert (moved["x"], moved["y"]) == (0, 0)  # Greedy's first free cell, not a forfeit
    finally:
        await stop(proc)


def test_documented_custom_bot_runs_as_a_piskvork_brain(greedy_dir: Path) -> None:
    done = subprocess.run(
        [MNK_BOT, "--piskvork", "--engine", "mymodule:Greedy"],
        cwd=greedy_dir,
        env=bot_env(),
        input="START 15\nBEGIN\nEND\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "OK" in done.stdout and "0,0" in done.stdout


@pytest.mark.parametrize(
    ("engine", "words"),
    [
        ("nosuch:Thing", "No module named 'nosuch'"),
        ("mymodule:Nothing", "Nothing"),
        ("piskvork:/no/such/pbrain", "no executable Gomocup brain"),
    ],
)
def test_a_bad_engine_stops_the_bot_before_it_goes_online(
    greedy_dir: Path, engine: str, words: str
) -> None:
    cmd = [MNK_BOT, "--server", "ws://127.0.0.1:9", "--engine", engine]
    done = subprocess.run(
        cmd, cwd=greedy_dir, env=bot_env(), capture_output=True, text=True, timeout=60
    )
    assert done.returncode != 0
    assert words in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


async def test_the_bot_says_where_it_connected(server: Any, greedy_dir: Path) -> None:
    cmd = [MNK_BOT, "--server", server.url, "--engine", "random", "--name", "chatty"]
    env = bot_env(server, "chatty")
    proc = subprocess.Popen(cmd, cwd=greedy_dir, env=env, stderr=subprocess.PIPE, text=True)
    try:
        await wait_for_bot(server, "chatty")
        assert proc.stderr is not None
        for _ in range(20):  # the first few lines of its log
            line = await asyncio.wait_for(asyncio.to_thread(proc.stderr.readline), 60)
            if "connected to" in line:
                break
        assert f"connected to {server.url} as chatty" in line
    finally:
        await stop(proc)
