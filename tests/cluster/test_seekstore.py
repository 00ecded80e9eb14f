"""The cluster's pool of seeks on a real ``redis-server``: every node lists every node's seeks,
one node at a time wins the wave lock, and a claim takes seeks at most once, also when nodes
race for them; a dead node's seeks expire, a claimed seek never comes back."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator, Callable

import pytest
import redis.asyncio as aioredis
from redis.exceptions import RedisError
from support.services import RedisServer
from support.waiting import until

from server.cluster.seekstore import SeekStore

pytestmark = pytest.mark.slow  # a real redis-server


@pytest.fixture
async def stores(redis_server: RedisServer) -> AsyncIterator[Callable[..., SeekStore]]:
    """Stores of nodes made on demand (``make("a")``), each on its own connection."""
    made: list[aioredis.Redis] = []

    def make(node: str, expire_s: float = 10.0) -> SeekStore:
        r = aioredis.Redis.from_url(redis_server.url(), socket_timeout=2.0)
        made.append(r)
        return SeekStore(r, "mnk:0:", node, expire_s=expire_s)

    yield make
    for r in made:
        await r.aclose()


def record(player: str) -> str:
    return json.dumps({"player": player})


async def test_every_node_lists_every_node_s_seeks(stores: Callable[..., SeekStore]) -> None:
    a, b = stores("a"), stores("b")
    assert await a.put({"s1": record("p1"), "s2": record("p2")}) == 2
    pool = await b.sync({"s3": record("p3")}, [])
    assert pool.seeks == {
        "a": {"s1": record("p1"), "s2": record("p2")},
        "b": {"s3": record("p3")},
    }
    assert pool.own == {"s3"} and not pool.lost
    pool = await a.sync({}, ["s2"])  # taken out without a claim (its player is gone)
    assert pool.seeks == {"a": {"s1": record("p1")}, "b": {"s3": record("p3")}}
    assert pool.own == {"s1"}


async def test_a_claim_takes_every_seek_named_or_none(stores: Callable[..., SeekStore]) -> None:
    a, b = stores("a"), stores("b")
    await a.put({"s1": record("p1")})
    await b.put({"s2": record("p2")})
    assert await a.claim([("a", "s1"), ("b", "s9")]) is False  # s9 is not there: nothing taken
    assert (await a.sync({}, [])).seeks == {"a": {"s1": record("p1")}, "b": {"s2": record("p2")}}
    assert await b.claim([("a", "s1"), ("b", "s2")]) is True
    assert await a.claim([("a", "s1")]) is False  # taken already
    pool = await a.sync({}, [])
    assert pool.seeks == {} and pool.own == set()
    # a write of a claimed seek sent again (its answer lost) does not put it back
    assert await a.put({"s1": record("p1")}) == 0
    assert (await b.sync({"s2": record("p2")}, [])).seeks == {}
    # the same seek put back in its pool (after an abort: a new record) goes in
    assert await a.put({"s1": record("p1 again")}) == 1
    assert (await b.sync({}, [])).seeks == {"a": {"s1": record("p1 again")}}


async def test_racing_claims_from_three_nodes_take_each_seek_at_most_once(
    stores: Callable[..., SeekStore],
) -> None:
    nodes = [stores(n) for n in "abc"]
    seeks = {f"s{i}": "abc"[i % 3] for i in range(40)}
    for store in nodes:
        await store.put({s: record(s) for s, n in seeks.items() if n == store.node})
    rng = random.Random(29)
    tries: list[tuple[SeekStore, list[tuple[str, str]]]] = []
    for store in nodes:  # every node pairs the whole pool its own way, and accepts some
        order = list(seeks)
        rng.shuffle(order)
        for one, two in zip(order[::2], order[1::2], strict=True):
            tries.append((store, [(seeks[one], one), (seeks[two], two)]))
        tries += [(store, [(seeks[s], s)]) for s in rng.sample(order, 8)]
    rng.shuffle(tries)
    won = await asyncio.gather(*(store.claim(named) for store, named in tries))
    taken = [s for (_, named), ok in zip(tries, won, strict=True) if ok for _, s in named]
    assert len(taken) == len(set(taken))  # nobody twice
    assert len(taken) >= 20  # and most were taken
    left = (await nodes[0].sync({}, [])).seeks
    assert set(taken) | {s for t in left.values() for s in t} == set(seeks)
    assert not set(taken) & {s for t in left.values() for s in t}


async def test_one_node_at_a_time_runs_the_wave(stores: Callable[..., SeekStore]) -> None:
    nodes = [stores(n) for n in "abc"]
    won = await asyncio.gather(*(store.lead(0.3) for store in nodes))
    assert sorted(won) == [False, False, True]
    assert not any(await asyncio.gather(*(store.lead(0.3) for store in nodes)))
    loop = asyncio.get_running_loop()
    start = loop.time()
    winners: list[bool] = []

    async def next_wave() -> bool:  # the lock lapses by itself: a dead leader holds nobody up
        winners[:] = await asyncio.gather(*(store.lead(0.3) for store in nodes))
        return any(winners)

    while not await next_wave():
        await asyncio.sleep(0.02)
    assert sorted(winners) == [False, False, True]
    assert loop.time() - start < 5.0


async def test_a_node_that_stops_renewing_its_seeks_leaves_the_pool(
    stores: Callable[..., SeekStore],
) -> None:
    a, b = stores("a", expire_s=1.0), stores("b")
    await a.sync({"s1": record("p1")}, [])
    seen = await b.sync({}, [])
    assert seen.seeks == {"a": {"s1": record("p1")}}
    gone = False

    async def check() -> None:
        nonlocal gone
        gone = (await b.sync({}, [])).seeks == {}

    while not gone:  # a died: nothing renews its hash
        await check()
        await asyncio.sleep(0.1)
    assert (await a.sync({}, [])).lost  # back too late: it hears its seeks are gone


async def test_redis_restarted_empty_is_told_to_each_node(
    stores: Callable[..., SeekStore], redis_server: RedisServer
) -> None:
    a = stores("a")
    assert not (await a.sync({"s1": record("p1")}, [])).lost
    assert not (await a.sync({}, [])).lost
    redis_server.kill()
    redis_server.start()  # same port, nothing kept
    await until(redis_server.answers)
    pool = None
    for _ in range(50):  # the connection comes back on the first command after the restart
        try:
            pool = await a.sync({}, [])
            break
        except (RedisError, OSError):
            await asyncio.sleep(0.1)
    assert pool is not None and pool.lost and pool.seeks == {}
