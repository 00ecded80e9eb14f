"""Logins under attack, against the real server on loopback with strangers on their own
loopback addresses (127.0.x.y): guessers are slowed, never the owner (issue 45.2), and a
hashing flood from many addresses leaves honest logins through within 2 s (issue 45.3); the
fair queue and the cost by themselves."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
from typing import Any

import pytest
from argon2 import PasswordHasher
from support.clients import RawClient
from websockets.asyncio.client import connect

from server.core.journal.rows import AccountRow
from server.core.outputs import Auth
from server.shell.hasher import HASH_NICE, FairQueue, Hasher

PASSWORD = "correct horse battery"
#: Failures free of delay per (account, address) and per address (server/core/accounts/logins.py).
PAIR_FREE, ADDRESS_FREE = 3, 20


async def from_address(server: Any, host: str, name: str, opened: list[RawClient]) -> RawClient:
    """A client saying hello as ``name`` from the loopback address ``host``."""
    ws = await connect(server.url, compression=None, local_addr=(host, 0), open_timeout=30)
    client = RawClient(ws)
    opened.append(client)
    await client.hello(name)
    return client


@pytest.fixture
async def opened() -> Any:
    """Clients a test opened from other addresses, closed after it."""
    clients: list[RawClient] = []
    yield clients
    for client in clients:
        await client.close()


async def signed_up(server: Any, host: str, name: str, opened: list[RawClient]) -> RawClient:
    """``name`` registered from ``host`` (so that pair is known there), then logged out."""
    c = await from_address(server, host, f"guest-{name}", opened)
    assert (await c.request(type="register", name=name, password=PASSWORD))["type"] == "logged_in"
    await c.request(type="logout")
    return c


@pytest.mark.slow
async def test_guessers_are_slowed_and_the_owner_gets_in_at_once(
    server: Any, opened: list[RawClient]
) -> None:
    await signed_up(server, "127.0.0.1", "henry", opened)
    guessers = [await from_address(server, f"127.0.9.{n}", f"g{n}", opened) for n in range(1, 5)]
    for g in guessers:  # each guesser uses up its free failures, more than the old lock's 10
        for _ in range(PAIR_FREE):
            await g.error("bad_login", type="login", name="henry", password="guessing wrong")
        started = time.monotonic()  # the next guess waits out a delay, then is answered
        await g.error("bad_login", type="login", name="henry", password="guessing wrong")
        assert time.monotonic() - started >= 0.9
    # while the guessers keep at it, the owner's first right password from a clean address
    hammering = [asyncio.create_task(wrong(g, "henry")) for g in guessers]
    owner = await from_address(server, "127.0.7.7", "henry-phone", opened)
    started = time.monotonic()
    reply = await owner.request(type="login", name="henry", password=PASSWORD)
    assert reply["type"] == "logged_in" and time.monotonic() - started < 2.0
    for task in hammering:
        task.cancel()
    await owner.alive()


async def wrong(client: RawClient, name: str) -> None:
    """Guess ``name``'s password wrong for ever (until cancelled)."""
    while True:
        await client.request(type="login", name=name, password="guessing wrong")


@pytest.mark.slow
async def test_a_guesser_behind_a_nat_does_not_lock_its_neighbours_out(
    server: Any, opened: list[RawClient]
) -> None:
    nat = "127.0.8.8"
    await signed_up(server, nat, "ines", opened)  # ines logged in from the NAT before
    await signed_up(server, "127.0.0.1", "jules", opened)  # jules never did
    guesser = await from_address(server, nat, "guesser", opened)
    for n in range(ADDRESS_FREE + 2):  # past the address's free failures, on many names
        await guesser.error("bad_login", type="login", name=f"user{n}", password="wrong wrong")
    neighbour = await from_address(server, nat, "neighbour", opened)
    started = time.monotonic()
    reply = await neighbour.request(type="login", name="ines", password=PASSWORD)
    assert reply["type"] == "logged_in" and time.monotonic() - started < 2.0  # not delayed
    other = await from_address(server, nat, "other", opened)
    reply = await other.request(type="login", name="jules", password=PASSWORD)
    assert reply["type"] == "logged_in"  # slowed (seconds at most), not refused


@pytest.mark.slow
async def test_a_hashing_flood_leaves_honest_logins_through(
    server: Any, opened: list[RawClient]
) -> None:
    await signed_up(server, "127.0.5.1", "kate", opened)  # kate's home address: known there
    await signed_up(server, "127.0.0.1", "liam", opened)
    attackers = [
        await from_address(server, f"127.0.{20 + a}.1", f"a{a}x{i}", opened)
        for a in range(8)
        for i in range(6)
    ]
    stop = asyncio.Event()
    answers: list[str] = []

    async def flood(c: RawClient, n: int) -> None:
        while not stop.is_set():  # as fast as answered, a new name each time
            reply = await c.request(type="login", name=f"victim{n}", password="wrong wrong")
            answers.append(reply.get("code", "?"))
            n += 1000
            if reply.get("code") == "busy":
                await asyncio.sleep(0.02)

    tasks = [asyncio.create_task(flood(c, n)) for n, c in enumerate(attackers)]
    try:
        while len(answers) < 60:  # the flood is under way and fills what it may
            await asyncio.sleep(0.05)
        home = await from_address(server, "127.0.5.1", "kate-again", opened)
        fresh = await from_address(server, "127.0.6.1", "liam-abroad", opened)
        started = time.monotonic()
        replies = await asyncio.gather(
            home.request(type="login", name="kate", password=PASSWORD),
            fresh.request(type="login", name="liam", password=PASSWORD),
        )
        took = time.monotonic() - started
    finally:
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
    assert [r["type"] for r in replies] == ["logged_in", "logged_in"], replies
    assert took < 2.0
    assert "busy" in answers  # the flood was refused its excess, not everyone


async def test_the_hashing_queue_takes_addresses_in_turn_known_pairs_first() -> None:
    loop = asyncio.get_running_loop()

    def job(lane: str, n: int, known: bool = False) -> Any:
        auth = Auth("login", f"{lane}{n}", f"{lane}{n}", "pw", lane=lane, known=known)
        return (auth, loop.create_future())

    queue = FairQueue()
    for n in range(3):  # a flood from one address, queued first
        queue.put(job("10.0.0.1", n))
    queue.put(job("10.0.0.2", 0))
    queue.put(job("10.0.0.3", 0, known=True))
    gone = job("10.0.0.4", 0)
    gone[1].cancel()  # its asker left: skipped
    queue.put(gone)
    order = [queue.take()[0].name for _ in range(5)]  # type: ignore[index]
    assert order == ["10.0.0.30", "10.0.0.10", "10.0.0.20", "10.0.0.11", "10.0.0.12"]
    assert queue.take() is None and len(queue) == 0


def test_a_right_password_under_an_older_cost_is_renewed() -> None:
    old = PasswordHasher()  # argon2-cffi's default: 64 MiB x 3 passes x 4 lanes
    row = AccountRow("olga", "olga", "p_o", "human", old.hash(PASSWORD), 1.0)

    class Store:
        """A store of one account, hashed at argon2-cffi's default cost."""

        def account(self, key: str) -> AccountRow:
            return row

    unused: Any = None  # only job() is used: no arena, no answers, no tasks
    hasher = Hasher(unused, Store(), unused, spawn=unused)  # today's cost, by default
    hasher.close()
    result = hasher.job(Auth("login", "olga", "olga", PASSWORD))
    assert result.verified and result.password_hash is not None
    assert "m=19456,t=2,p=1" in result.password_hash
    assert not hasher.job(Auth("login", "olga", "olga", "wrong one")).verified


@pytest.mark.skipif(sys.platform != "linux", reason="a niceness per thread is Linux's")
async def test_the_hashing_threads_yield_a_busy_core_to_the_loop(
    server: Any, opened: list[RawClient]
) -> None:
    """A login flood's hashes run off the loop but on the machine's cores: its threads run at a
    lower priority than the games' loop (in the hostile bench they used more CPU than it)."""
    await signed_up(server, "127.0.0.1", "nina", opened)  # a hash ran: its thread is up
    loop_nice = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    hashing = [t for t in threading.enumerate() if t.name.startswith("mnk-hash")]
    assert hashing
    for thread in hashing:
        assert thread.native_id is not None
        assert os.getpriority(os.PRIO_PROCESS, thread.native_id) == min(19, loop_nice + HASH_NICE)
