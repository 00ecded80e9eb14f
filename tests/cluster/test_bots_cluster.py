"""Bots across cluster nodes: one player per bot on every node (a hello elsewhere closes the old
socket with 4000), a directory of every node's bots, rooms seating bots connected to other
nodes, and a bot's capacity never overbooked by two nodes at once.

Every node is a real ``python -m server`` process on a real PostgreSQL and a real Redis; the
bots that play are real ``python -m bots`` processes.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import msgpack
import psycopg
import pytest
import redis
from support.clients import RawClient
from support.cluster import moves_table, running, start_nodes
from support.servers import ServerProcess
from support.services import RedisServer
from support.waiting import wait_for
from websockets.asyncio.client import connect

import server.cluster.bots as cluster_bots
from protocol.wire import MAX_NAME
from server.cluster.bots import ClusterBots
from server.cluster.ops import Op, decode, encode
from server.core.arena import Arena
from server.core.journal.rows import PlayerRow
from server.core.node import Standalone
from server.core.outputs import Resolve
from server.core.players.keys import KeyRing, new_key
from server.core.players.players import Conn, bot_pid, hash_token
from server.shell.botpool import BotPool

pytestmark = pytest.mark.slow  # real node processes on PostgreSQL (and Redis)

#: The bots every node of these tests accepts (``--keys-file``).
BOTS = ("deep", "quick", "solo")


@pytest.fixture
def keys(tmp_path: Path) -> dict[str, str]:
    """A key per bot name, written to the keys file every node reads."""
    made = {name: new_key() for name in BOTS}
    (tmp_path / "keys").write_text("".join(f"{n}={k}\n" for n, k in made.items()))
    return made


@pytest.fixture
async def cluster(
    pg_url: str, redis_server: RedisServer, keys: dict[str, str], tmp_path: Path
) -> AsyncIterator[dict[str, ServerProcess]]:
    """Three started nodes a, b, c accepting the bots' keys; all killed after the test."""
    made = dict(zip("abc", start_nodes(pg_url, redis_server.url(), "abc"), strict=True))
    for node in made.values():
        node.extra += ("--keys-file", str(tmp_path / "keys"))
    async with running(made):
        yield made


async def raw_bot(
    node: ServerProcess, name: str, key: str, session: str | None = None, **extra: Any
) -> RawClient:
    """A bot that has said hello on ``node`` by hand (the protocol as bots/runner.py speaks it)."""
    bot = RawClient(await connect(node.url, compression=None))
    extra = {"games": ["*"], "capacity": 1} | extra
    if session is not None:
        extra["session"] = session
    await bot.hello(name, kind="bot", key=key, **extra)
    return bot


async def test_a_bot_is_one_player_on_every_node_and_a_hello_elsewhere_closes_the_old_socket(
    cluster: dict[str, ServerProcess], keys: dict[str, str]
) -> None:
    a, b, c = cluster["a"], cluster["b"], cluster["c"]
    bot = await raw_bot(a, "deep", keys["deep"])
    alice = await a.client("alice")
    made = await alice.request(type="create_room", game="tictactoe", bot="deep", seat=0)
    room = made["room"]
    assert (await bot.expect("joined", room=room))["seat"] == 1
    await alice.request(type="move", room=room, x=0, y=0, ply=0)
    await bot.expect("moved", room=room, ply=0)
    # b never saw the bot: its id comes from PostgreSQL, and a closes the old socket
    again = await raw_bot(b, "deep", keys["deep"], session=bot.session)
    assert (again.player, again.session) == (bot.player, bot.session)
    await asyncio.wait_for(bot.ws.wait_closed(), 30)
    assert bot.ws.close_code == 4000
    state = await again.expect("state", room=room)  # its game on a goes on through b
    assert state["moves"] == [[0, 0]] and state["seat"] == 1
    reply = await again.request(type="move", room=room, x=1, y=1, ply=1)
    assert (reply["type"], reply["ply"]) == ("moved", 1)
    assert (await alice.expect("moved", room=room, ply=1))["x"] == 1
    # without its session (a new process of the bot) c still knows it by its key's name
    third = await raw_bot(c, "deep", keys["deep"])
    assert third.player == bot.player
    await asyncio.wait_for(again.ws.wait_closed(), 30)
    assert again.ws.close_code == 4000
    assert (await third.expect("state", room=room))["moves"] == [[0, 0], [1, 1]]
    await alice.request(type="move", room=room, x=2, y=2, ply=2)
    assert (await third.expect("moved", room=room, ply=2))["x"] == 2


async def bots_listed(client: RawClient, want: set[str]) -> dict[str, dict[str, Any]]:
    """Ask ``list_bots`` until exactly the bots ``want`` are online; their entries by name."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    while True:
        reply = await client.request(type="list_bots")
        online = {e["name"]: e for e in reply["bots"] if e["online"]}
        if set(online) == want:
            return online
        assert loop.time() < deadline, f"bots listed: {online}"
        await asyncio.sleep(0.1)


async def active(client: RawClient, name: str, games: int) -> None:
    """Wait until ``list_bots`` shows the bot ``name`` online with ``games`` active."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    while (await bots_listed(client, {name}))[name]["active"] != games:
        assert loop.time() < deadline, f"{name} never had {games} games"
        await asyncio.sleep(0.1)


async def test_every_node_lists_every_node_s_bots_and_rebuilds_them_after_redis_restarts(
    cluster: dict[str, ServerProcess], keys: dict[str, str], redis_server: RedisServer
) -> None:
    deep = await raw_bot(cluster["b"], "deep", keys["deep"], capacity=3, games=["gomoku"])
    quick = await raw_bot(cluster["c"], "quick", keys["quick"], level=4)
    watcher = await cluster["a"].client("watcher")
    listed = await bots_listed(watcher, {"deep", "quick"})
    assert listed["deep"] == {
        "name": "deep",
        "player": deep.player,
        "games": ["gomoku"],
        "capacity": 3,
        "active": 0,
        "online": True,
        "level": None,
        "account": True,
    }
    assert (listed["quick"]["player"], listed["quick"]["level"]) == (quick.player, 4)
    redis_server.kill()
    await asyncio.to_thread(redis_server.start)  # empty: every node writes its bots again
    with redis.Redis.from_url(redis_server.url()) as r:
        await wait_for(lambda: r.hexists("mnk:0:bots:b", deep.player))
    assert set(await bots_listed(watcher, {"deep", "quick"})) == {"deep", "quick"}
    await quick.close()  # gone from c: gone from every node's list
    await bots_listed(watcher, {"deep"})


def bot_process(node: ServerProcess, name: str, key_file: Path, *extra: str) -> Any:
    """A real ``python -m bots`` process connected to ``node`` with its key in ``key_file``."""
    cmd = [sys.executable, "-m", "bots", "--server", node.url, "--engine", "minimax:level=2"]
    cmd += ["--name", name, "--key-file", str(key_file), "--log-level", "WARNING", *extra]
    return subprocess.Popen(cmd)


@pytest.fixture
async def bot_processes(
    cluster: dict[str, ServerProcess], keys: dict[str, str], tmp_path: Path
) -> AsyncIterator[list[Any]]:
    """Real bots: deep on node b, quick on node c (stopped after the test)."""
    procs = []
    for node, name in (("b", "deep"), ("c", "quick")):
        (tmp_path / name).write_text(keys[name] + "\n")
        procs.append(bot_process(cluster[node], name, tmp_path / name))
    try:
        yield procs
    finally:
        for proc in procs:
            proc.kill()
            await asyncio.to_thread(proc.wait, 15)


async def test_a_director_on_one_node_seats_two_real_bots_of_two_other_nodes_and_they_play(
    cluster: dict[str, ServerProcess], bot_processes: list[Any], pg_url: str
) -> None:
    director = await cluster["a"].client("director")
    await bots_listed(director, {"deep", "quick"})
    made = await director.request(type="create_room", game="gomoku", bots=["deep", "quick"])
    assert made["type"] == "joined", made
    room = made["room"]
    state = await director.expect("state", room=room, status="playing")
    assert state["players"] == ["deep", "quick"] and state["kinds"] == ["bot", "bot"]
    over = await director.expect("game_over", timeout=60, room=room)
    seen = [(m["x"], m["y"]) for m in director.seen if m["type"] == "moved" and m["room"] == room]
    assert [m["ply"] for m in director.seen if m["type"] == "moved"] == list(range(len(seen)))
    assert moves_table(pg_url, room) == seen and len(seen) >= 9
    assert over["reason"] in ("line", "draw"), over  # played out, nobody timed out or left
    with psycopg.connect(pg_url) as db:
        owner = db.execute("SELECT owner FROM rooms WHERE room = %s", (room,)).fetchone()
    assert owner == ("a",)


async def test_two_nodes_asking_at_once_for_a_bot_of_capacity_one_get_one_room(
    cluster: dict[str, ServerProcess], keys: dict[str, str]
) -> None:
    solo = await raw_bot(cluster["c"], "solo", keys["solo"], capacity=1)
    alice, bob = await cluster["a"].client("alice"), await cluster["b"].client("bob")
    for asker in (alice, bob):
        await bots_listed(asker, {"solo"})
    ask = {"type": "create_room", "game": "tictactoe", "bot": "solo", "seat": 0}
    replies = await asyncio.gather(alice.request(**ask), bob.request(**ask))
    kinds = sorted(r["type"] for r in replies)
    assert kinds == ["error", "joined"], replies
    error = next(r for r in replies if r["type"] == "error")
    assert error["code"] == "no_bot_available"
    winner, loser = (alice, bob) if replies[0]["type"] == "joined" else (bob, alice)
    room = next(r for r in replies if r["type"] == "joined")["room"]
    assert (await solo.expect("joined"))["room"] == room
    await active(loser, "solo", 1)  # its home counts the seat it lent
    await winner.request(type="resign", room=room)
    assert (await solo.expect("game_over", room=room))["reason"] == "resign"
    refused = await loser.request(**ask)  # a rematch may come: the seat is still lent
    assert refused["code"] == "no_bot_available"
    await solo.request(type="leave_room", room=room)  # as bots/runner.py does after a while
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    while (again := await loser.request(**ask))["type"] != "joined":  # the seat came back
        assert again["code"] == "no_bot_available" and loop.time() < deadline, again
        await asyncio.sleep(0.1)
    assert (await solo.expect("joined"))["room"] == again["room"]
    assert [m["room"] for m in solo.seen if m["type"] == "joined"] == [room, again["room"]]


# -- the seat protocol's edges, on real arenas with the bus replaced by a recorder ---------------


class Recorder:
    """What :class:`ClusterBots` uses of a node's forwarder (a ``Link``) and of the server (an
    ``Outbox``): the ops it would put on the bus are recorded as the bus carries them, and what
    it would deliver once committed is kept."""

    prefix, node = "mnk:0:", "a"

    def __init__(self, arena: Arena) -> None:
        self.arena = arena
        self.sent: list[tuple[str, list[Any]]] = []
        self.delivered: list[Any] = []

    def queue(self, node: str, op: Op) -> bool:
        self.sent.append((node, encode(op)))
        return True

    def attach(self, node: str, pid: str, name: str, kind: str) -> list[Any]:
        return self.arena.presence.attach_remote(pid, name, kind)

    def emit(self, out: list[Any]) -> None:
        self.delivered += out


class SeatsNode(Standalone):
    """A node whose bots on other nodes are the ``ClusterBots`` under test (no bus)."""

    standalone = False

    def __init__(self) -> None:
        super().__init__(shared_sessions=False)
        self.bots: ClusterBots | None = None

    def seats_lent(self, pid: str) -> int:
        return 0 if self.bots is None else self.bots.lent_of(pid)

    def other_bots(self) -> dict[str, Any]:
        return {} if self.bots is None else dict(self.bots.listing())

    def bot_elsewhere(self, name: str, game: str, asker: str) -> bool:
        return self.bots is not None and self.bots.elsewhere(name, game, asker)

    def idle_bot_elsewhere(self, game: str, level: int, asker: str) -> str | None:
        return None if self.bots is None else self.bots.idle(game, level, asker)

    def hold(self, player: Any, msg: dict[str, Any], names: list[str], game: str) -> list[Any]:
        assert self.bots is not None
        return self.bots.hold(player, msg, names, game)


def say_hello(arena: Arena, name: str, **extra: Any) -> Conn:
    """A connection of ``name`` that said hello to ``arena``."""
    message = {"type": "hello", "protocol": 1, "name": name, "kind": "human"} | extra
    conn = arena.connect()
    arena.receive(conn, msgpack.packb(message))
    assert conn.pid is not None
    return conn


def node_with(lease_s: float = 10.0) -> tuple[Arena, ClusterBots, Recorder]:
    node = SeatsNode()
    arena = Arena(durable=False, keys=KeyRing(), node=node)
    recorder = Recorder(arena)
    node.bots = bots = ClusterBots(
        arena, recorder, recorder,
        lease_s=lease_s, members=arena.presence, rooms=arena.rooms, lender=arena.bots,
    )  # fmt: skip
    return arena, bots, recorder


async def test_a_home_that_does_not_answer_in_time_is_a_refusal_and_its_late_seat_goes_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cluster_bots, "WAIT", 0.05)
    arena, bots, recorder = node_with()
    entry = {"name": "solo", "player": "p_solo", "games": ["*"], "capacity": 1, "active": 0}
    bots.read({"c": {b"p_solo": json.dumps(entry).encode(), b"~": b"1"}})
    conn = say_hello(arena, "alice")
    alice = conn.pid
    ask = {"type": "create_room", "game": "tictactoe", "bot": "solo", "seat": 0, "id": 3}
    assert arena.receive(conn, msgpack.packb(ask)) == []  # held: c is asked for a seat
    assert recorder.sent == [("c", ["seat", 1, "solo", "tictactoe", alice])]
    await asyncio.sleep(0.2)
    [error] = recorder.delivered
    assert error.to == (alice,) and error.message["code"] == "no_bot_available"
    assert error.message["id"] == 3 and not list(arena.rooms)  # no room was made
    bots.handle("c", decode(["lent", 1, True, "p_solo", "solo", None, 1, ["*"]]))  # too late
    assert recorder.sent[-1] == ("c", ["free", 1])


def test_a_home_lends_a_bot_s_seats_within_its_capacity_and_drops_those_of_a_dead_node() -> None:
    arena, bots, recorder = node_with(lease_s=0.0)
    arena.keys.add("solo", key := new_key())
    solo = say_hello(arena, "solo", kind="bot", key=key, games=["*"], capacity=1).pid
    assert solo is not None
    bots.handle("b", decode(["seat", 7, "solo", "tictactoe", "p_asker"]))
    assert recorder.sent[-1] == ("b", ["lent", 7, True, solo, "solo", None, 1, ["*"]])
    bots.handle("d", decode(["seat", 2, "solo", "tictactoe", "p_other"]))
    assert recorder.sent[-1] == ("d", ["lent", 2, False])  # its one seat is lent
    assert arena.bots.bot_entry(arena.players[solo])["active"] == 1
    bots.handle("b", decode(["free", 7]))
    bots.handle("d", decode(["seat", 3, "solo", "tictactoe", "p_other"]))
    assert recorder.sent[-1][1][:3] == ["lent", 3, True]
    bots.handle("b", decode(["seat", 8, "gomoku", "tictactoe", "p_asker"]))  # no such bot here
    assert recorder.sent[-1] == ("b", ["lent", 8, False])
    bots.read({"b": {b"~": b"1"}})  # d's directory hash expired: d is gone, its seat too
    assert bots.lent_of(solo) == 0 and arena.bots.bot_entry(arena.players[solo])["active"] == 0


def test_each_node_s_built_in_bots_are_players_of_their_own() -> None:
    assert BotPool.name_of(0, "minimax") == "minimax"  # one server: as before
    assert BotPool.name_of(0, "minimax", "a") == "minimax@a"
    assert BotPool.name_of(1, "minimax:level=3", "b") == "minimax-level3-1@b"
    assert len(BotPool.name_of(1, "x" * 40, "n" * 40)) == MAX_NAME


async def test_a_room_against_any_bot_seats_one_of_another_node_when_none_is_free_here(
    cluster: dict[str, ServerProcess], keys: dict[str, str]
) -> None:
    fixed = await raw_bot(cluster["c"], "solo", keys["solo"], capacity=1, level=3)
    anyone = await raw_bot(cluster["b"], "quick", keys["quick"], capacity=2, games=["gomoku"])
    alice = await cluster["a"].client("alice")
    await bots_listed(alice, {"solo", "quick"})
    ask = {"type": "create_room", "game": "tictactoe", "opponent": "bot", "seat": 0}
    made = await alice.request(**ask, level=3)
    assert made["type"] == "joined", made  # quick plays no tic-tac-toe: solo, fixed at 3
    assert (await fixed.expect("joined", room=made["room"]))["level"] == 3
    await alice.error("no_bot_available", **ask, level=5)  # solo plays level 3 only
    gomoku = await alice.request(**ask | {"game": "gomoku"}, level=5)
    assert (await anyone.expect("joined"))["room"] == gomoku["room"]


async def test_one_home_refusing_refuses_the_room_at_once_and_the_other_s_seat_goes_back() -> None:
    arena, bots, recorder = node_with()
    tables = {}
    for node, name in (("c", "deep"), ("d", "quick")):
        entry = {"name": name, "player": f"p_{name}", "games": ["*"], "capacity": 1}
        tables[node] = {f"p_{name}".encode(): json.dumps(entry | {"active": 0}).encode()}
    bots.read(tables)
    conn = say_hello(arena, "director")
    ask = {"type": "create_room", "game": "gomoku", "bots": ["deep", "quick"], "id": 4}
    assert arena.receive(conn, msgpack.packb(ask)) == []
    assert [op[:3] for _node, op in recorder.sent] == [["seat", 1, "deep"], ["seat", 2, "quick"]]
    bots.handle("d", decode(["lent", 2, False]))
    [error] = recorder.delivered  # at once, not after the wait
    assert (error.message["code"], error.message["id"]) == ("no_bot_available", 4)
    bots.handle("c", decode(["lent", 1, True, "p_deep", "deep", None, 1, ["*"]]))
    assert recorder.sent[-1] == ("c", ["free", 1]) and not list(arena.rooms)


def cluster_arena(key: str) -> Arena:
    """A cluster node's arena (shared players table) accepting the bot ``fresh``'s key."""
    arena = Arena(durable=False, keys=KeyRing(), node=Standalone(shared_sessions=True))
    arena.keys.add("fresh", key)
    return arena


def test_a_bot_unknown_to_a_node_is_looked_up_by_name_and_a_new_one_has_the_same_id_anywhere() -> (
    None
):
    key = new_key()
    hello = {"type": "hello", "protocol": 1, "name": "x", "kind": "bot", "key": key}
    made = []
    for _node in "ab":
        arena = cluster_arena(key)
        conn = arena.connect()
        assert arena.receive(conn, msgpack.packb(hello)) == [Resolve("", bot="fresh")]
        [welcome] = [o.message for o in arena.session_resolved(conn, None)]  # nobody saved it
        made.append(welcome["player"])
    assert made == [bot_pid("fresh")] * 2  # two nodes at once: one player
    arena = cluster_arena(key)  # another node saved it: its player, its session kept
    conn = arena.connect()
    arena.receive(conn, msgpack.packb(hello | {"session": "its-session"}))
    row = PlayerRow("p_older", "fresh", "bot", hash_token("its-session"), 1.0)
    [welcome] = [o.message for o in arena.session_resolved(conn, row)]
    assert (welcome["player"], welcome["session"]) == ("p_older", "its-session")
    single = Arena(durable=False, keys=arena.keys)  # not a cluster node: no lookup, as before
    [welcome] = [o.message for o in single.receive(single.connect(), msgpack.packb(hello))]
    assert welcome["type"] == "welcome" and welcome["player"] != bot_pid("fresh")
