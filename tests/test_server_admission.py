"""An attacker cannot make the real server work for honest players' time: admission and floods."""

from __future__ import annotations

import asyncio
from typing import Any

import msgpack
import pytest
from support.clients import RawClient
from support.waiting import until
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidMessage, InvalidStatus
from websockets.protocol import CLIENT, OPEN, Protocol


async def replies_until_quiet(client: RawClient, quiet: float = 1.5) -> list[dict[str, Any]]:
    """Every message the server sends until it has sent none for ``quiet`` seconds."""
    got = []
    while True:
        try:
            got.append(await client.recv(quiet))
        except TimeoutError:
            return got


@pytest.mark.parametrize("limits_override", [{"human_rate": 0.01, "human_burst": 5.0}])
async def test_a_flood_past_the_rate_gets_a_burst_of_refusals_then_is_not_read(
    client_factory: Any,
) -> None:
    c = await client_factory("flooder")  # hello took 1 of the 5 tokens
    for i in range(60):
        await c.send(type="ping", id=i)
    got = await replies_until_quiet(c)
    assert [r["type"] for r in got] == ["pong"] * 4 + ["error"] * 5  # then nothing is read
    assert [r["id"] for r in got] == list(range(9))
    other = await client_factory("other")
    await other.alive()
    c.ws.transport.abort()  # its close frame would wait behind the unread pings


@pytest.mark.parametrize("limits_override", [{"human_rate": 20.0, "human_burst": 4.0}])
async def test_a_throttled_connection_is_answered_again_in_order(
    server: Any, client_factory: Any
) -> None:
    c = await client_factory("eager")
    for i in range(40):
        await c.send(type="ping", id=i)
    got = [await c.recv() for _ in range(40)]
    assert [r["id"] for r in got] == list(range(40))  # nothing lost, nothing reordered
    assert sum(r["type"] == "pong" for r in got) > 3 + 4  # read again once it had tokens
    (ws,) = server._connections()
    await c.send(type="ping", id=40)  # once read again, it is back on the direct path
    assert (await c.recv())["id"] == 40
    await until(lambda: not ws.held)


async def from_address(server: Any, host: str) -> RawClient:
    """A raw client whose connection comes from ``host`` (another loopback address)."""
    ws = await connect(server.url, compression=None, local_addr=(host, 0), open_timeout=10)
    return RawClient(ws)


@pytest.mark.parametrize("limits_override", [{"max_pending_per_address": 3}])
async def test_connections_that_have_not_said_hello_are_capped_per_address(
    client_factory: Any, server: Any
) -> None:
    silent = [await from_address(server, "127.0.0.2") for _ in range(3)]
    with pytest.raises(InvalidStatus) as refused:
        await from_address(server, "127.0.0.2")
    assert refused.value.response.status_code == 503
    assert b"not said hello" in refused.value.response.body
    await silent[0].hello("now-talking")  # no longer pending: room for one more
    late = await from_address(server, "127.0.0.2")
    await late.hello("late")
    assert server.guard.pending["127.0.0.2"] == 2 and server.guard.open["127.0.0.2"] == 4
    for c in (*silent, late):
        await c.close()
    await until(lambda: not server.guard.open and not server.guard.pending)


@pytest.mark.parametrize(
    "limits_override", [{"max_connections_per_address": 1, "refusal_rate": 0.05}]
)
async def test_refusals_past_their_rate_are_dropped_before_the_handshake(
    client_factory: Any, server: Any
) -> None:
    held = await from_address(server, "127.0.0.2")
    with pytest.raises(InvalidStatus):  # the first refusal is told why, with a 503
        await from_address(server, "127.0.0.2")
    handshakes = len(server.server.connections)
    with pytest.raises((InvalidMessage, OSError)):  # the next is dropped without an answer
        await from_address(server, "127.0.0.2")
    assert server.guard.dropped == 1 and len(server.server.connections) == handshakes
    honest = await client_factory("honest")  # other addresses are not affected
    await honest.alive()
    await held.close()


@pytest.mark.parametrize("limits_override", [{"hello_rate": 0.5, "hello_burst": 3.0}])
@pytest.mark.slow
async def test_new_connections_per_address_are_capped_per_second(
    client_factory: Any, server: Any
) -> None:
    first = [await from_address(server, "127.0.0.2") for _ in range(3)]  # the burst
    await first[0].hello("quick")
    await first[0].close()  # closing frees no new-connection token: the rate is per second
    with pytest.raises(InvalidStatus) as refused:
        await from_address(server, "127.0.0.2")
    assert refused.value.response.status_code == 503
    assert b"too many new connections" in refused.value.response.body
    other = await from_address(server, "127.0.0.3")  # another address has its own bucket
    await other.hello("elsewhere")
    later: list[RawClient] = []

    async def admitted() -> bool:
        try:
            later.append(await from_address(server, "127.0.0.2"))
        except (InvalidStatus, InvalidMessage, OSError):  # a 503, or dropped past their rate
            return False
        return True

    deadline = asyncio.get_running_loop().time() + 20
    while not await admitted():  # the bucket fills again at half a connection a second
        assert asyncio.get_running_loop().time() < deadline
        await asyncio.sleep(0.3)
    await later[0].hello("patient")
    for c in (*first[1:], other, *later):
        await c.close()


@pytest.mark.parametrize("limits_override", [{"human_rate": 1.0, "human_burst": 10_000.0}])
async def test_a_long_read_is_parsed_in_slices_between_other_sockets(
    client_factory: Any, server: Any
) -> None:
    flooder, other = await client_factory("flooder"), await client_factory("other")
    (conn,) = [ws for ws in server._connections() if ws.remote_address[1] == _port(flooder)]
    writer = Protocol(CLIENT, state=OPEN)  # 3,000 pings as one read, as a single send makes them
    for i in range(3000):
        writer.send_binary(msgpack.packb({"type": "ping", "id": i}))
    burst = b"".join(writer.data_to_send())
    conn.data_received(burst)  # what the transport hands over after one large read
    assert 0 < len(conn.unparsed) < len(burst) and not conn.transport.is_reading()
    await other.alive()  # answered between two slices: on main only after all 3,000 pings
    assert conn.unparsed
    got = [await flooder.recv() for _ in range(3000)]
    assert [r["id"] for r in got] == list(range(3000))  # none lost, none reordered
    assert {r["type"] for r in got} == {"pong"}
    await until(lambda: not conn.unparsed and conn.transport.is_reading())
    await flooder.alive()


def _port(client: RawClient) -> int:
    """The local port of a client's connection (the server sees it as the peer's)."""
    return client.ws.local_address[1]


@pytest.mark.parametrize("limits_override", [{"max_guest_games_per_hour": 1}])
async def test_a_second_game_in_the_hour_is_refused_over_the_wire(client_factory: Any) -> None:
    alice = await client_factory("alice")
    assert (await alice.request(type="create_room", game="tictactoe"))["type"] == "joined"
    await alice.error("too_many_games", type="create_room", game="tictactoe")


async def test_two_sockets_of_one_address_share_a_real_servers_bot(client_factory: Any) -> None:
    await client_factory("robo", "bot", games=["*"], capacity=2)
    first, second = await client_factory("first"), await client_factory("second")
    joined = await first.request(type="create_room", game="tictactoe", opponent="bot")
    assert joined["type"] == "joined"
    await second.error("no_bot_available", type="create_room", game="tictactoe", opponent="bot")
    await first.request(type="leave_room", room=joined["room"])  # resigns: the seat is free
    again = await second.request(type="create_room", game="tictactoe", opponent="bot")
    assert again["type"] == "joined"
