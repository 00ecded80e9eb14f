"""The entry check as ``mnk-server`` runs it: a bot process that asks to enter a rated event
is examined by the server's own examiner process over the wire; the minimax bot passes and
enters (one check for two joins, kept across a restart); a bot that plays illegally in gomoku
is refused with the failed checks named, and still enters an unrated event."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from support.bots import ILLEGAL
from support.clients import PASSWORD, RawClient
from support.servers import ServerProcess
from websockets.asyncio.client import connect

from server.core.players.keys import new_key

pytestmark = pytest.mark.slow  # a server process, its examiner, bot processes

ROOT = Path(__file__).resolve().parents[1]
RATED = {"clock": {"initial_s": 60, "increment_s": 1}, "rated": True}


class Site:
    """A ``mnk-server`` with its examiner (``--bots random``), its bots' keys in a file."""

    def __init__(self, tmp: Path, names: tuple[str, ...]) -> None:
        self.tmp, self.keys = tmp, {name: new_key() for name in names}
        keys_file = tmp / "keys.txt"
        keys_file.write_text("".join(f"{n}={k}\n" for n, k in self.keys.items()))
        extra = ("--keys-file", str(keys_file), "--bots", "random", "--bot-capacity", "1")
        self.server = ServerProcess(str(tmp / "arena.db"), extra=extra, bots=True)

    def bot(
        self, name: str, engine: str, *tids: str, extra: tuple[str, ...] = ()
    ) -> subprocess.Popen[bytes]:
        """The bot process ``name`` entering the events ``tids`` (engines in ``tmp`` too)."""
        cmd = [sys.executable, "-m", "bots", "--server", self.server.url, "--engine", engine]
        cmd += ["--name", name, "--log-level", "WARNING", *extra]
        cmd += [f"--tournament={tid}" for tid in tids]
        env = {**os.environ, "MNK_BOT_KEY": self.keys[name]}
        env["PYTHONPATH"] = os.pathsep.join((str(self.tmp), str(ROOT)))
        return subprocess.Popen(cmd, env=env, cwd=self.tmp)

    async def as_bot(self, name: str) -> RawClient:
        """A raw connection with ``name``'s key (its process stopped first)."""
        raw = RawClient(await connect(self.server.url, compression=None))
        await raw.hello(name, "bot", key=self.keys[name], games=["*"])
        return raw

    def row(self, account: str) -> tuple[Any, ...] | None:
        """The store's entry check of ``account``: (passed, failed, runs), or None."""
        with sqlite3.connect(self.server.db) as db:
            return db.execute(
                "SELECT passed, failed, runs FROM entry_checks WHERE account = ?", (account,)
            ).fetchone()


async def organiser(site: Site) -> RawClient:
    """Alice, an account that creates the events."""
    alice = await site.server.client("guest-alice")
    reply = await alice.request(type="register", name="alice", password=PASSWORD)
    assert reply["type"] == "logged_in", reply
    return alice


async def event(alice: RawClient, rated: bool = True) -> str:
    """A new round robin of tic-tac-toe (rated unless told)."""
    reply = await alice.request(
        type="create_tournament", name="Bots", game="tictactoe", format="round_robin",
        **(RATED if rated else {}),
    )  # fmt: skip
    assert reply["type"] == "tournament", reply
    return str(reply["tournament"])


async def entered(alice: RawClient, tid: str, name: str, timeout: float = 60.0) -> None:
    """Wait until ``name`` is an entrant of ``tid``."""
    deadline = time.monotonic() + timeout
    while True:
        reply = await alice.request(type="get_tournament", tournament=tid)
        if name in [e["name"] for e in reply["entrants"]]:
            return
        assert time.monotonic() < deadline, f"{name} did not enter {tid}"
        await asyncio.sleep(0.2)


async def checked(site: Site, account: str, timeout: float = 60.0) -> tuple[Any, ...]:
    """Wait for the store to hold ``account``'s entry check; the row."""
    deadline = time.monotonic() + timeout
    while (row := site.row(account)) is None:
        assert time.monotonic() < deadline, f"no entry check of {account} was stored"
        await asyncio.sleep(0.2)
    return row


async def stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM a bot process and wait for it."""
    proc.terminate()
    await asyncio.to_thread(proc.wait, 15)


async def test_minimax_passes_its_check_once_and_enters_rated_events(tmp_path: Path) -> None:
    site = Site(tmp_path, ("good",))
    await site.server.start()
    bot = None
    try:
        alice = await organiser(site)
        first, second, later = await event(alice), await event(alice), await event(alice)
        start = time.monotonic()
        bot = site.bot("good", "minimax", first, second)  # two joins at its welcome
        for tid in (first, second):
            await entered(alice, tid, "good")
        took = time.monotonic() - start
        assert await checked(site, "good") == (1, "[]", 1)  # one check for the two joins
        await stop(bot)
        bot = None
        site.server.kill()  # -9: what was committed is all there is
        await site.server.start()
        raw = await site.as_bot("good")
        reply = await raw.request(type="join_tournament", tournament=later)
        assert reply["type"] == "tournament", reply  # no check again after the restart
        assert site.row("good") == (1, "[]", 1), f"checked again ({took:.1f} s the first time)"
    finally:
        if bot is not None:
            await stop(bot)
        site.server.kill()


async def test_a_bot_entering_its_pools_events_waits_for_its_check_and_enters(
    tmp_path: Path,
) -> None:
    site = Site(tmp_path, ("finder",))
    await site.server.start()
    bot = None
    try:
        alice = await organiser(site)
        tid = await event(alice)  # rated tic-tac-toe 1+1: the pool of the bot's seek
        seek = ("--seek", "tictactoe 1+1", "--enter-events", "--capacity", "1")
        bot = site.bot("finder", "minimax", extra=seek)  # refused until checked, then again
        await entered(alice, tid, "finder")
        assert await checked(site, "finder") == (1, "[]", 1)
    finally:
        if bot is not None:
            await stop(bot)
        site.server.kill()


async def test_a_bot_illegal_in_gomoku_is_refused_with_the_checks_it_failed(
    tmp_path: Path,
) -> None:
    (tmp_path / "illegal.py").write_text(ILLEGAL)
    site = Site(tmp_path, ("shaky",))
    await site.server.start()
    bot = None
    try:
        alice = await organiser(site)
        rated, unrated = await event(alice), await event(alice, rated=False)
        bot = site.bot("shaky", "illegal:Illegal", rated)
        passed, failed, runs = await checked(site, "shaky")
        assert (passed, runs) == (0, 1)
        assert {"gomoku", "position"} <= set(json.loads(failed)) and "tictactoe" not in failed
        await stop(bot)
        bot = None
        raw = await site.as_bot("shaky")
        refused = await raw.error("entry_check_failed", type="join_tournament", tournament=rated)
        assert "gomoku" in refused["message"], refused
        reply = await raw.request(type="join_tournament", tournament=unrated)
        assert reply["type"] == "tournament", reply
        event_now = await alice.request(type="get_tournament", tournament=rated)
        assert event_now["entrants"] == [], event_now
    finally:
        if bot is not None:
            await stop(bot)
        site.server.kill()


def examiners(port: int) -> list[int]:
    """The pids of the examiner processes of the server on ``port`` (from /proc)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"examine" in argv and f"ws://127.0.0.1:{port}".encode() in argv:
            found.append(int(proc.name))
    return found


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie waiting for its new parent to reap it does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


async def test_a_server_killed_mid_examination_leaves_no_examiner_behind(tmp_path: Path) -> None:
    site = Site(tmp_path, ("mute",))
    await site.server.start()
    try:
        alice = await organiser(site)
        mute = await site.as_bot("mute")  # online, never moves: every check waits on it
        await mute.error(
            "entry_check_running", type="join_tournament", tournament=await event(alice)
        )
        deadline = time.monotonic() + 30
        while not (running := examiners(site.server.port)):
            assert time.monotonic() < deadline, "no examiner was started"
            await asyncio.sleep(0.1)
        site.server.kill()
        deadline = time.monotonic() + 15
        while any(alive(pid) for pid in running):
            assert time.monotonic() < deadline, "the examiner outlived its server"
            await asyncio.sleep(0.1)
    finally:
        site.server.kill()
