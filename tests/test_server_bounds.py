"""Hostile clients against the real server: every per-connection and per-player cost is bounded."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from support.clients import RawClient, closed_with
from support.servers import bot_key
from support.waiting import until
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

FAST = {"human_rate": 10_000.0, "human_burst": 10_000.0}


async def from_address(server: Any, host: str) -> RawClient:
    """A raw client whose connection comes from ``host`` (another loopback address)."""
    ws = await connect(server.url, compression=None, local_addr=(host, 0), open_timeout=10)
    return RawClient(ws)


@pytest.fixture
def limits_override() -> dict[str, float]:
    """Machine-speed clients; each test tightens the bound it is about."""
    return dict(FAST)


async def test_a_huge_games_list_is_refused_and_unknown_games_are_dropped(
    client_factory: Any, server: Any
) -> None:
    c = await client_factory()
    games = [f"game-{i:05d}" for i in range(5400)]  # about 60 KB, under the frame limit
    key = bot_key(server, "fine")
    hello = dict(type="hello", protocol=1, name="fine", kind="bot", key=key)
    await c.send(**hello, games=games, id=1)  # refused even with a valid key, undecoded:
    refused = await c.expect("error")  # so its id is not echoed
    assert refused["code"] == "bad_message" and "id" not in refused
    await c.error("bad_message", **hello, games=["gomoku"] * 33)  # a short list past the bound
    await c.hello("fine", "bot", key=key, games=["gomoku", "x" * 2000, "chess"], capacity=2)
    bots = (await c.request(type="list_bots"))["bots"]
    assert [b["games"] for b in bots] == [["gomoku"]]


async def test_dead_spectators_leave_and_rejoins_are_cheap(
    client_factory: Any, server: Any
) -> None:
    alice, bob = await client_factory("alice"), await client_factory("bob")
    room = (await alice.request(type="create_room", game="gomoku", seat=0))["room"]
    await bob.request(type="join_room", room=room)
    await alice.expect("state", status="playing")
    watchers = [await client_factory(f"w{i}") for i in range(20)]
    for w in watchers:
        await w.request(type="join_room", room=room, spectate=True)
    for w in watchers:
        await w.close()
    live = server.arena.rooms.get(room)
    await until(lambda: not live.spectators)  # on main they stayed for good
    sam = await client_factory("sam")
    for _ in range(10):
        assert (await sam.request(type="join_room", room=room, spectate=True))["seat"] is None
        assert (await sam.expect("state", room=room))["spectators"] == 1
    mark = len(alice.seen)
    await alice.request(type="move", room=room, x=7, y=7)
    await bob.alive()
    seen = [m["type"] for m in alice.seen[mark:] if m["type"] != "audience"]  # a sweep's note
    assert seen == ["moved"]  # no state per re-join (the audience count comes once a sweep)
    assert (await sam.expect("moved"))["x"] == 7


@pytest.mark.parametrize("limits_override", [{**FAST, "max_rooms_per_player": 6}])
async def test_room_churn_is_bounded(client_factory: Any, server: Any) -> None:
    """create -> leave -> spectate in a loop: on main it left a room behind on every turn."""
    c = await client_factory("churner")
    refused = 0
    for _ in range(40):
        reply = await c.request(type="create_room", game="tictactoe")
        if reply["type"] == "error":
            assert reply["code"] == "too_many_rooms"
            refused += 1
            continue
        room = reply["room"]
        await c.request(type="leave_room", room=room)
        again = await c.request(type="join_room", room=room, spectate=True)
        assert again["type"] == "error" and again["code"] == "no_such_room"  # gone at once
    assert refused == 0 and len(server.arena.rooms) == 0
    other = await client_factory("other")
    rooms = [(await other.request(type="create_room", game="tictactoe"))["room"] for _ in range(3)]
    for room in rooms:
        await c.request(type="join_room", room=room, spectate=True)
    for _ in range(3):
        await c.request(type="create_room", game="tictactoe")
    await c.error("too_many_rooms", type="create_room", game="tictactoe")
    extra = (await other.request(type="create_room", game="tictactoe"))["room"]
    await c.error("too_many_rooms", type="join_room", room=extra, spectate=True)
    assert len(server.arena.players[c.player].rooms) == 6


@pytest.mark.parametrize(
    "limits_override", [{"human_rate": 2.0, "human_burst": 10.0, "max_bad_frames": 30}]
)
async def test_undecodable_frames_cost_tokens(client_factory: Any) -> None:
    c = await client_factory("junk")
    for _ in range(18):  # within the 10 refusals answered before the flood is read no more
        await c.ws.send(b"\xc1\xc1 not msgpack")
    codes = [(await c.recv())["code"] for _ in range(18)]
    assert codes.count("bad_frame") <= 11 and codes.count("rate_limited") >= 7


@pytest.mark.parametrize("limits_override", [{**FAST, "max_bad_frames": 5}])
async def test_repeated_garbage_closes_the_connection(
    client_factory: Any, caplog: pytest.LogCaptureFixture
) -> None:
    c = await client_factory("junk")
    other = await client_factory("fine")
    for _ in range(5):
        await c.ws.send(b"\xc1")
    assert await closed_with(c) == 1008
    await other.alive()
    assert any("limit bad_frames" in r.getMessage() for r in caplog.records)  # the operator sees it


@pytest.mark.parametrize("limits_override", [{**FAST, "hello_timeout": 0.3}])
async def test_connections_that_never_say_hello_are_closed(client_factory: Any) -> None:
    silent = await client_factory()
    talker = await client_factory("talker")
    assert await closed_with(silent) == 1008
    await asyncio.sleep(0.5)  # past the deadline: a connection that said hello is kept
    await talker.alive()


@pytest.mark.parametrize("limits_override", [{**FAST, "max_connections_per_address": 3}])
async def test_connections_per_address_are_capped(client_factory: Any, server: Any) -> None:
    attackers = [await from_address(server, "127.0.0.2") for _ in range(3)]
    with pytest.raises(InvalidStatus) as refused:
        await from_address(server, "127.0.0.2")
    assert refused.value.response.status_code == 503
    honest = await client_factory("honest")  # another address is not affected
    await honest.alive()
    await attackers[0].close()
    await until(lambda: server.guard.open["127.0.0.2"] == 2)
    late = await from_address(server, "127.0.0.2")
    await late.hello("late")
    for c in (*attackers[1:], late):
        await c.close()


@pytest.mark.parametrize("limits_override", [{**FAST, "max_connections": 4}])
async def test_connections_in_all_are_capped(client_factory: Any, server: Any) -> None:
    held = [await from_address(server, f"127.0.0.{3 + i}") for i in range(4)]
    with pytest.raises(InvalidStatus):  # a fifth address is refused too: the cap is global
        await from_address(server, "127.0.0.9")
    await held[0].close()
    await until(lambda: server.guard.total == 3)
    again = await from_address(server, "127.0.0.9")
    await again.hello("again")
    for c in (*held[1:], again):
        await c.close()


@pytest.mark.parametrize("limits_override", [{**FAST, "max_lookups_per_connection": 2}])
@pytest.mark.slow
async def test_history_lookups_in_flight_are_bounded(client_factory: Any, server: Any) -> None:
    c = await client_factory("reader")
    for i in range(40):
        await c.send(type="list_games", id=i)
    replies = [await c.recv() for _ in range(40)]
    assert sorted(r["id"] for r in replies) == list(range(40))
    limited = [r for r in replies if r["type"] == "error"]
    assert limited and all(r["code"] == "rate_limited" for r in limited)
    assert sum(r["type"] == "games" for r in replies) >= 2
    for i in range(40):
        await c.send(type="get_game", game_id="g_nope", id=100 + i)
    await c.close()  # the lookups of a connection that left are dropped, not run for nobody
    await until(lambda: server.arena.admission.lookups == 0)


async def walk_pages(client: RawClient, kind: str, key: str, most: int, **ask: Any) -> list:
    """Every entry of a paged listing, following ``next``; no page holds more than ``most``."""
    entries: list[Any] = []
    page = await client.request(type=kind, **ask)
    while True:
        assert len(page[key]) <= most
        entries += page[key]
        if page["next"] is None:
            return entries
        page = await client.request(type=kind, cursor=page["next"], **ask)


@pytest.mark.parametrize("limits_override", [{**FAST, "max_page": 3}])
async def test_rooms_and_bots_come_in_pages(client_factory: Any) -> None:
    owners = [await client_factory(f"o{i}") for i in range(7)]
    made = [(await o.request(type="create_room", game="tictactoe"))["room"] for o in owners]
    reader = await client_factory("reader")
    seen = await walk_pages(reader, "list_rooms", "rooms", 3, limit=50)
    assert [r["room"] for r in seen] == made  # oldest first, each exactly once
    two = await reader.request(type="list_rooms", limit=2)
    assert [r["room"] for r in two["rooms"]] == made[:2] and two["next"] is not None
    await reader.error("bad_message", type="list_rooms", cursor="not-a-cursor")
    bots = [await client_factory(f"bot{i}", "bot", games=["gomoku"]) for i in range(5)]
    names = [b["name"] for b in await walk_pages(reader, "list_bots", "bots", 2, limit=2)]
    assert sorted(names) == [f"bot{i}" for i in range(5)] and len(bots) == 5


@pytest.mark.parametrize(
    "limits_override", [{"human_rate": 0.5, "human_burst": 13.0, "lookup_cost": 4.0}]
)
async def test_a_history_lookup_weighs_more_than_a_ping(client_factory: Any) -> None:
    c = await client_factory("reader")  # hello took 1 of the 13 tokens
    for _ in range(2):  # 5 tokens each
        assert (await c.request(type="list_games"))["type"] == "games"
    await c.error("rate_limited", type="list_games")  # its frame took 1 of 2: 4 more lacking
    await c.alive()  # a ping still fits


async def test_behind_a_trusted_proxy_clients_are_counted_by_forwarded_address() -> None:
    from server.core.arena import Arena
    from server.core.limits import Limits
    from server.shell.server import ArenaServer, ServerConfig

    limits = Limits(max_connections_per_address=2)
    server = ArenaServer(Arena(limits=limits), ServerConfig(port=0, trust_proxy=True))
    await server.start()
    url = f"ws://127.0.0.1:{server.port}"

    async def via_proxy(client: str) -> Any:
        headers = {"X-Forwarded-For": f"198.51.100.9, {client}"}  # the proxy appended the last
        return await connect(url, compression=None, additional_headers=headers)

    try:
        first = [await via_proxy("203.0.113.5") for _ in range(2)]
        with pytest.raises(InvalidStatus):
            await via_proxy("203.0.113.5")
        others = [await via_proxy("203.0.113.6") for _ in range(2)]  # same proxy, other client
        assert server.guard.open == {"203.0.113.5": 2, "203.0.113.6": 2}
        for ws in (*first, *others):
            await ws.close()
    finally:
        await server.stop()
