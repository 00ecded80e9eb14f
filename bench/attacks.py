"""The attacks of issue 9's table and of the later hostile rounds (round four: issue 45), each
bounded in count and time, from loopback addresses.

Run by ``bench/hostile.py`` in a process of its own (so the attackers' CPU does not slow the
honest clients' event loop): ``python bench/attacks.py URL SECONDS SCALE`` prints one JSON map
of counters per attack class (``MNK_ATTACKS=a,b`` runs only those). Every attacker comes from
a loopback address of its own class (127.0.0.2 …; the crowd's 127.0.1.x, its newcomers'
127.0.2.x; round four's 127.0.3.x, the pinging holders' 127.0.5.x and their newcomers'
127.0.6.x, the analysis flood's 127.0.7.x), never 127.0.0.1 nor the honest 127.0.4.x.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

import msgpack
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus, WebSocketException

Stats = Counter[str]


def pack(**message: Any) -> bytes:
    """One request frame."""
    return msgpack.packb(message, use_bin_type=True)


async def open_from(url: str, host: str, stats: Stats) -> ClientConnection | None:
    """A connection from ``host``; None (counted) when the server refuses it."""
    try:
        return await connect(
            url, compression=None, local_addr=(host, 0), open_timeout=10, max_size=None
        )
    except InvalidStatus:
        stats["refused_503"] += 1
    except (OSError, TimeoutError, WebSocketException):
        stats["dropped"] += 1  # refused without an answer (closed at accept)
    return None


#: Seconds an attacker keeps knocking for a connection it cannot do without: a server that the
#: crowd filled refuses newcomers until it has closed an idle connection for them.
MUST_OPEN_S = 10.0


async def must_open(url: str, host: str, stats: Stats, name: str | None = None) -> ClientConnection:
    """A connection from ``host`` the attack cannot do without (saying hello as ``name``), asked
    for again for ``MUST_OPEN_S`` while the server refuses it."""
    deadline = time.monotonic() + MUST_OPEN_S
    while (ws := await open_from(url, host, stats)) is None:
        if time.monotonic() > deadline:
            raise RuntimeError(f"the server refused the attacker's connection from {host}")
        await asyncio.sleep(0.2)
    if name is not None:
        await hello(ws, name)
    return ws


async def read(ws: ClientConnection, timeout: float = 10.0) -> dict[str, Any]:
    """The next message."""
    return msgpack.unpackb(await asyncio.wait_for(ws.recv(), timeout), raw=False)


async def hello(ws: ClientConnection, name: str, kind: str = "human", **extra: Any) -> dict:
    """Say hello; the server's answer (``welcome`` or ``error``)."""
    await ws.send(pack(type="hello", protocol=1, name=name, kind=kind, **extra))
    return await read(ws)


def tally(stats: Stats, reply: dict[str, Any]) -> None:
    """Count a reply by its type, or its error code."""
    stats[reply["code"] if reply["type"] == "error" else reply["type"]] += 1


async def games_flood(url: str, until: float, scale: float) -> Stats:
    """600 bot hellos with a 60 KB ``games`` list each, then one ``list_bots``."""
    stats: Stats = Counter()
    games = [f"game-{i:05d}" for i in range(5400)]
    for i in range(int(600 * scale)):
        if i and time.monotonic() > until:  # the first always goes (a starved attacker, too)
            break
        ws = await open_from(url, f"127.0.0.{2 + i % 8}", stats)
        if ws is None:
            continue
        with contextlib.suppress(ConnectionClosed, TimeoutError):
            tally(stats, await hello(ws, f"hog{i}", "bot", games=games, key="no-such-key"))
        await ws.close()
    ws = await open_from(url, "127.0.0.2", stats)
    if ws is not None:
        await hello(ws, "lister")
        started = time.monotonic()
        await ws.send(pack(type="list_bots", id=1))
        frame = await asyncio.wait_for(ws.recv(), 30)
        stats["list_bots_ms"] = round(1000 * (time.monotonic() - started))
        stats["list_bots_bytes"] = len(frame)
        await ws.close()
    return stats


async def spectators(url: str, until: float, scale: float) -> Stats:
    """1,000 spectators join one room and drop; then one client re-joins as fast as it can."""
    stats: Stats = Counter()
    owner = await must_open(url, "127.0.0.10", stats, "owner")
    await owner.send(pack(type="create_room", game="gomoku", id=1))
    room = (await read(owner))["room"]
    half = time.monotonic() + (until - time.monotonic()) / 2  # then the re-joins
    for wave in range(max(1, int(1000 * scale) // 50)):
        sockets = []
        for i in range(50):
            ws = await open_from(url, f"127.0.0.{11 + wave % 10}", stats)
            if ws is None:
                continue
            with contextlib.suppress(ConnectionClosed, TimeoutError):
                await hello(ws, f"watcher{wave}-{i}")
                await ws.send(pack(type="join_room", room=room, spectate=True, id=1))
                stats["spectators_joined"] += 1
                sockets.append(ws)
        await asyncio.gather(*(ws.close() for ws in sockets))
        if time.monotonic() > half:
            break
    rejoiner = await must_open(url, "127.0.0.21", stats, "rejoiner")
    started, joins = time.monotonic(), 0
    while time.monotonic() < until and joins < int(20_000 * scale):
        await rejoiner.send(pack(type="join_room", room=room, spectate=True, id=joins))
        while (await read(rejoiner)).get("id") != joins:
            pass
        joins += 1
    stats["rejoins_per_s"] = round(joins / max(1e-3, time.monotonic() - started))
    await rejoiner.close()
    await owner.close()
    return stats


async def fake_bot(url: str, until: float, scale: float) -> Stats:
    """An ordinary client says it is a bot (no key), then sends 3,000 pings."""
    stats: Stats = Counter()
    ws = await must_open(url, "127.0.0.22", stats)
    tally(stats, await hello(ws, "notabot", "bot", games=["*"]))
    n = int(3000 * scale)
    for i in range(n):
        await ws.send(pack(type="ping", id=i))
    with contextlib.suppress(ConnectionClosed, TimeoutError):
        for _ in range(n):
            tally(stats, await read(ws))
    await ws.close()
    return stats


async def impersonate(url: str, until: float, scale: float) -> Stats:
    """A client calls itself the built-in bot ``minimax`` and offers to play everything."""
    stats: Stats = Counter()
    ws = await must_open(url, "127.0.0.23", stats)
    tally(stats, await hello(ws, "minimax", "bot", games=["*"], capacity=64))
    await ws.close()
    return stats


async def room_churn(url: str, until: float, scale: float) -> Stats:
    """One connection looping create_room -> leave_room -> join_room spectate."""
    stats: Stats = Counter()
    ws = await must_open(url, "127.0.0.24", stats, "churner")
    rid = 0

    async def ask(**message: Any) -> dict[str, Any]:
        nonlocal rid
        rid += 1
        await ws.send(pack(id=rid, **message))
        while True:
            reply = await read(ws)
            if reply.get("id") == rid:
                tally(stats, reply)
                return reply

    for _ in range(int(12_000 * scale)):
        if time.monotonic() > until:
            break
        made = await ask(type="create_room", game="tictactoe")
        if made["type"] == "error":
            await asyncio.sleep(0.05)
            continue
        await ask(type="leave_room", room=made["room"])
        await ask(type="join_room", room=made["room"], spectate=True)
    await ws.close()
    return stats


async def garbage(url: str, until: float, scale: float) -> Stats:
    """1,000 undecodable frames, reconnecting whenever the server closes the connection."""
    stats: Stats = Counter()
    sent = 0
    while sent < int(1000 * scale) and (not sent or time.monotonic() < until):
        ws = await open_from(url, "127.0.0.25", stats)
        if ws is None:
            await asyncio.sleep(0.1)
            continue
        try:
            for _ in range(50):
                await ws.send(b"\xc1\xc1 garbage")
                sent += 1
            while True:
                tally(stats, await read(ws, 5))
        except ConnectionClosed:
            stats[f"closed_{ws.close_code}"] += 1
        except TimeoutError:
            await ws.close()
    stats["frames_sent"] = sent
    return stats


async def no_hello(url: str, until: float, scale: float) -> Stats:
    """2,000 connections that never say hello, from ten addresses."""
    stats: Stats = Counter()
    sockets = []
    for i in range(int(2000 * scale)):
        if time.monotonic() > until:
            break
        ws = await open_from(url, f"127.0.0.{30 + i % 10}", stats)
        if ws is not None:
            sockets.append(ws)
    stats["opened"] = len(sockets)

    async def wait_closed(ws: ClientConnection) -> None:
        with contextlib.suppress(ConnectionClosed, TimeoutError):
            await asyncio.wait_for(ws.wait_closed(), max(0.1, until - time.monotonic()))
        if ws.close_code is not None:
            stats[f"closed_{ws.close_code}"] += 1
        await ws.close()

    await asyncio.gather(*(wait_closed(ws) for ws in sockets))
    return stats


async def lookups(url: str, until: float, scale: float) -> Stats:
    """10,800 list_games / get_game from one connection, 100 in flight at a time, for as long
    as the attack lasts: the server answers a bounded number (a lookup costs several messages
    of the rate), so what is still unanswered 2 s after the end is counted, not waited for."""
    stats: Stats = Counter()
    ws = await must_open(url, "127.0.0.26", stats, "reader")
    n, window = int(10_800 * scale), 100
    sent = received = 0
    try:
        while received < sent or (sent < n and (not sent or time.monotonic() < until)):
            while sent < n and sent - received < window and (not sent or time.monotonic() < until):
                query = {"type": "list_games", "limit": 100} if sent % 2 else {"type": "get_game"}
                await ws.send(pack(id=sent, game_id="g_none", **query))
                sent += 1
            tally(stats, await read(ws, max(0.05, until + 2.0 - time.monotonic())))
            received += 1
    except TimeoutError:
        stats["unanswered"] = sent - received
    except ConnectionClosed as exc:
        stats[f"closed_{exc.rcvd.code if exc.rcvd else 'abnormally'}"] += 1
    stats["sent"] = sent
    ws.transport.abort()  # its frames may wait unread: no closing handshake to wait for
    return stats


def ping_frame() -> bytes:
    """A client's masked WebSocket ping with a 125-byte payload (the most a ping may carry)."""
    mask = os.urandom(4)
    payload = bytes(b ^ mask[i % 4] for i, b in enumerate(b"p" * 125))
    return bytes((0x89, 0x80 | 125)) + mask + payload


async def ping_flood(url: str, until: float, scale: float) -> Stats:
    """20,000 WebSocket pings from a raw socket that never reads its pongs (round three, 1)."""
    stats: Stats = Counter()
    host, port = url.removeprefix("ws://").rsplit(":", 1)
    reader, writer = await asyncio.open_connection(
        host, int(port), local_addr=("127.0.0.27", 0), limit=1024
    )
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        f"GET / HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    stats["status_" + head.split()[1].decode()] += 1
    batch, sent = ping_frame() * 100, 0
    try:
        while sent < int(20_000 * scale) and (not sent or time.monotonic() < until):
            writer.write(batch)
            await asyncio.wait_for(writer.drain(), 2.0)
            sent += 100
    except TimeoutError:
        stats["not_read"] += 1  # the server stopped reading the socket
    except ConnectionError:
        stats["closed_by_server"] += 1
    stats["pings_sent"] = sent
    writer.transport.abort()
    return stats


async def crowd(url: str, until: float, scale: float) -> Stats:
    """64 addresses x 64 idle connections fill the server; half the time left later, 20
    newcomers from fresh addresses try to get in (round three, 6); the crowd counts its closes."""
    stats: Stats = Counter()
    per = max(1, int(64 * scale))

    async def fill(address: int) -> list[ClientConnection]:
        held = []
        for i in range(per):
            if time.monotonic() > until:
                break
            ws = await open_from(url, f"127.0.1.{address + 1}", stats)
            if ws is None:
                break
            with contextlib.suppress(ConnectionClosed, TimeoutError):
                await hello(ws, f"crowd{address}x{i}")
            held.append(ws)
        return held

    sockets = [ws for held in await asyncio.gather(*(fill(a) for a in range(64))) for ws in held]
    stats["opened"] = len(sockets)
    await asyncio.sleep(max(0.0, (until - time.monotonic()) / 2))  # the crowd sits idle
    refused: Stats = Counter()
    newcomers = []
    for n in range(20):  # honest newcomers, each from an address of its own, staying
        ws = await open_from(url, f"127.0.2.{n + 1}", refused)
        if ws is not None:
            newcomers.append(ws)
    stats["newcomer_in"], stats["newcomer_refused"] = len(newcomers), sum(refused.values())

    async def wait_closed(ws: ClientConnection) -> None:
        with contextlib.suppress(ConnectionClosed, TimeoutError):
            await asyncio.wait_for(ws.wait_closed(), max(0.1, until - time.monotonic()))
        if ws.close_code is not None:
            stats[f"closed_{ws.close_code}"] += 1
        await ws.close()

    await asyncio.gather(*(wait_closed(ws) for ws in sockets))
    for ws in newcomers:
        await ws.close()
    return stats


async def junk_options(url: str, until: float, scale: float) -> Stats:
    """300 create_room whose ``options.position`` carries junk: 5,000-stone lists, unknown keys,
    a 10 KB string (round three, 2); each must be refused, and nothing of it kept."""
    stats: Stats = Counter()
    ws = await must_open(url, "127.0.0.28", stats, "junker")
    junk = [
        {"position": {"black": [[0, 0]] * 5000, "white": []}},
        {"position": {"black": [[7, 7]], "white": [[8, 8]], "junk": "x" * 10_000}},
        {"position": {"black": [["a", None]], "white": [[1e300, -1]]}},
    ]
    for i in range(int(300 * scale)):
        if time.monotonic() > until:
            break
        await ws.send(pack(type="create_room", game="gomoku", options=junk[i % 3], id=i))
        tally(stats, await read(ws))
    await ws.close()
    return stats


async def bot_hog(url: str, until: float, scale: float) -> Stats:
    """Two sockets of one address ask for bot games until refused and never move (round three,
    4): the address may hold only its share of the bot's seats; the rest stay for others."""
    stats: Stats = Counter()
    hogs = [await must_open(url, "127.0.0.29", stats, f"hog{i}") for i in range(2)]
    for i in range(int(40 * scale)):
        if time.monotonic() > until:
            break
        ws = hogs[i % 2]
        await ws.send(pack(type="create_room", game="tictactoe", opponent="bot", id=i))
        while True:
            reply = await read(ws)
            if reply.get("id") == i:
                tally(stats, reply)
                break
    with contextlib.suppress(TimeoutError):
        await asyncio.sleep(max(0.0, until - time.monotonic()))  # hold the seats, idle
    for ws in hogs:
        await ws.close()
    return stats


async def renju_load(url: str, until: float, scale: float) -> Stats:
    """Renju on a 25x25 board (refused: round three, 7), then two sockets play 15x15 renju
    as fast as the server answers, black crowding the centre where forbidden points are
    dearest to find."""
    stats: Stats = Counter()
    a = await must_open(url, "127.0.0.30", stats, "renjua")
    b = await must_open(url, "127.0.0.30", stats, "renjub")
    big = {"width": 25, "height": 25, "k": 5, "rule": "renju"}
    for i in range(int(20 * scale)):
        await a.send(pack(type="create_room", game="mnk", options=big, id=i))
        tally(stats, await read(a))
    cells = sorted(((x, y) for x in range(15) for y in range(15)),
                   key=lambda c: abs(c[0] - 7) + abs(c[1] - 7))  # fmt: skip
    games = 0
    while time.monotonic() < until and games < int(50 * scale):
        await a.send(pack(type="create_room", game="mnk", options=big | {"width": 15,
                          "height": 15}, seat=0, id=-1))  # fmt: skip
        made = await read(a)
        while made.get("id") != -1:
            made = await read(a)
        if made["type"] == "error":  # rate_limited after the refused ones: wait a little
            tally(stats, made)
            await asyncio.sleep(0.5)
            continue
        room = made["room"]
        await b.send(pack(type="join_room", room=room, id=-2))
        over, ply, left = False, 0, list(cells)
        while left and not over and time.monotonic() < until:
            x, y = left[0]
            mover = (a, b)[ply % 2]
            await mover.send(pack(type="move", room=room, x=x, y=y, ply=ply, id=ply))
            while (reply := await read(mover)).get("id") != ply:
                over = over or (reply["type"] == "game_over" and reply["room"] == room)
            tally(stats, reply)
            if reply["type"] == "error" and reply["code"] == "rate_limited":
                await asyncio.sleep(0.2)  # then the same cell again
                continue
            left.pop(0)  # played, or refused (a forbidden point: black tries the next one)
            ply += reply["type"] == "moved"
        games += 1
        for ws in (a, b):
            await ws.send(pack(type="leave_room", room=room))
    stats["games"] = games
    for ws in (a, b):
        await ws.close()
    return stats


# -- round four (issue 45): seats, accounts and pairing under attack ---------------------------

#: The honest account ``bench/hostile.py`` registers before the attack, and logs in to during
#: it: ``owner_lockout`` guesses its password.
OWNER = "owner1"


async def asker(ws: ClientConnection, stats: Stats) -> Callable[..., Awaitable[dict[str, Any]]]:
    """A request function on ``ws``: sends with a fresh id, returns (and tallies) its reply,
    skipping pushes in between."""
    rid = 0

    async def ask(**message: Any) -> dict[str, Any]:
        nonlocal rid
        rid += 1
        await ws.send(pack(id=rid, **message))
        while True:
            reply = await read(ws, 30)
            if reply.get("id") == rid:
                tally(stats, reply)
                return reply

    return ask


async def hold_until(until: float, sockets: list[ClientConnection]) -> None:
    """Keep ``sockets`` open (unread) until ``until``, then close them."""
    await asyncio.sleep(max(0.0, until - time.monotonic()))
    for ws in sockets:
        ws.transport.abort()  # what they were pushed waits unread: no closing handshake


async def seek_pools(url: str, until: float, scale: float) -> Stats:
    """1,920 seeks with odd clocks (a pool each) from 640 players of 10 addresses, and 6
    sockets asking ``list_seeks`` (3 of them subscribed) as fast as they are answered while
    the pool fills: what a reply weighs and takes, what subscribers are pushed (issue 45, 1)."""
    stats: Stats = Counter()
    players = max(1, int(640 * scale))
    sockets: list[ClientConnection] = []

    async def place(n: int) -> None:
        ws = await open_from(url, f"127.0.3.{1 + n % 10}", stats)
        if ws is None:
            return
        sockets.append(ws)
        with contextlib.suppress(ConnectionClosed, TimeoutError):
            await hello(ws, f"seeker{n}")
            ask = await asker(ws, stats)
            for k in range(3):  # odd clocks: every seek a pool of its own
                clock = {"initial_s": 61 + 3 * n + k, "increment_s": 0}
                await ask(type="seek", game="gomoku", clock=clock)

    async def place_all() -> None:
        for first in range(0, players, 64):  # 64 at a time: each address's hello burst
            if time.monotonic() > until:
                break
            await asyncio.gather(*(place(n) for n in range(first, min(players, first + 64))))
        stats["players"] = len(sockets)

    times: list[float] = []
    biggest = pushed = 0

    async def lister(n: int) -> None:
        nonlocal biggest, pushed
        ws = await open_from(url, f"127.0.3.{1 + n}", stats)
        if ws is None:
            return
        sockets.append(ws)
        rid = 0
        with contextlib.suppress(ConnectionClosed, TimeoutError):
            await hello(ws, f"lister{n}")
            while time.monotonic() < until and rid < int(20_000 * scale) + 1:
                rid += 1
                started = time.monotonic()
                await ws.send(pack(type="list_seeks", subscribe=n < 3, id=rid))
                while True:
                    frame = await asyncio.wait_for(ws.recv(), max(0.1, until - time.monotonic()))
                    message = msgpack.unpackb(frame, raw=False)
                    if message.get("id") == rid:
                        break
                    pushed += len(frame)  # a push of the subscription
                times.append(time.monotonic() - started)
                biggest = max(biggest, len(frame))
                tally(stats, message)

    # the listers ask while the pool fills: each reply lists what is there by then
    await asyncio.gather(place_all(), *(lister(n) for n in range(6)))
    if times:
        times.sort()
        stats["list_p50_ms"] = round(1000 * times[len(times) // 2])
        stats["list_max_ms"] = round(1000 * times[-1])
    stats["list_max_kib"] = round(biggest / 1024)
    stats["pushed_kib"] = round(pushed / 1024)
    await hold_until(until, sockets)
    return stats


async def login_flood(url: str, until: float, scale: float) -> Stats:
    """8 addresses sending ~9 logins a second each with wrong passwords (each a password check
    of the server's CPU), to keep its hashing queue full (issue 45, 3)."""
    stats: Stats = Counter()
    budget = int(3000 * scale)

    async def flood(n: int) -> None:
        nonlocal budget
        ws = await open_from(url, f"127.0.3.{11 + n % 8}", stats)
        if ws is None:
            return
        with contextlib.suppress(ConnectionClosed, TimeoutError):
            await hello(ws, f"guesser{n}")
            ask = await asker(ws, stats)
            while time.monotonic() < until and budget > 0:
                budget -= 1
                due = time.monotonic() + 4 / 9  # 4 sockets an address: ~9 a second
                await ask(type="login", name=f"nobody{n}x{budget}", password="wrong guess")
                await asyncio.sleep(max(0.0, min(due, until) - time.monotonic()))
        ws.transport.abort()

    await asyncio.gather(*(flood(n) for n in range(32)))
    return stats


async def owner_lockout(url: str, until: float, scale: float) -> Stats:
    """Wrong guesses at the honest account's password from three addresses: ten at once from
    each, then one every 2 s (issue 45, 2). Its owner must still log in (bench/hostile.py)."""
    stats: Stats = Counter()

    async def guess(n: int) -> None:
        ws = await must_open(url, f"127.0.3.{19 + n}", stats, f"thief{n}")
        ask = await asker(ws, stats)
        tries = 0
        with contextlib.suppress(ConnectionClosed, TimeoutError):
            while time.monotonic() < until and tries < max(10, int(200 * scale)):
                await ask(type="login", name=OWNER, password=f"guess number {tries}")
                tries += 1
                if tries >= 10:
                    await asyncio.sleep(min(2.0, max(0.0, until - time.monotonic())))
        ws.transport.abort()

    await asyncio.gather(*(guess(n) for n in range(3)))
    return stats


async def play_one_move(ws: ClientConnection, stats: Stats, until: float) -> None:
    """Read ``ws`` until ``until``: in each game it is seated in (a bot's), make one move (the
    first free cell) when it is first to move, then never another."""
    games: dict[str, tuple[int, set[tuple[int, int]]]] = {}  # room: our seat, its stones
    moved: set[str] = set()
    with contextlib.suppress(ConnectionClosed, TimeoutError):
        while time.monotonic() < until:
            message = await read(ws, max(0.05, until - time.monotonic()))
            kind, room = message["type"], message.get("room")
            if kind == "joined":
                stats["bot_seated"] += 1
            elif kind == "game_over":
                stats[f"game_over_{message.get('reason', '?')}"] += 1
                games.pop(room, None)
            elif kind == "state" and message.get("status") == "playing":
                games[room] = (message["seat"], {(x, y) for x, y in message["moves"]})
                ours = message.get("to_move") == message["seat"]
            elif kind == "moved" and room in games:
                games[room][1].add((message["x"], message["y"]))
                ours = message["seat"] != games[room][0]
            else:
                continue
            if room not in games or room in moved or not ours:
                continue
            taken = games[room][1]
            x, y = next((x, y) for y in range(3) for x in range(3) if (x, y) not in taken)
            await ws.send(pack(type="move", room=room, x=x, y=y, ply=len(taken)))
            moved.add(room)
            stats["moved_once"] += 1


async def bot_fallback_hog(url: str, until: float, scale: float) -> Stats:
    """One address with 8 seeks (a pool each: 24 h clocks), ``bot_after_s`` 5, one move each in
    the bot games the fallback gives them, then idle: does it hold every seat of the bot
    (issue 45, 7)? The honest probe of bench/hostile.py asks for that bot meanwhile."""
    stats: Stats = Counter()
    hogs = [
        await must_open(url, "127.0.3.22", stats, f"fallback{i}")
        for i in range(int(8 * scale) or 1)
    ]
    for i, ws in enumerate(hogs):
        ask = await asker(ws, stats)
        clock = {"initial_s": 86_400 - i, "increment_s": 0}
        await ask(type="seek", game="tictactoe", clock=clock, bot_after_s=5)
    await asyncio.gather(*(play_one_move(ws, stats, until) for ws in hogs))
    for ws in hogs:
        ws.transport.abort()
    return stats


async def pinging_holders(url: str, until: float, scale: float) -> Stats:
    """16 addresses x 64 sockets that ping every 2 s (half of them watching a room) hold their
    places; halfway, 20 newcomers from fresh addresses try to get in (issue 45, 8)."""
    stats: Stats = Counter()
    per = max(1, int(64 * scale))
    owner = await must_open(url, "127.0.5.1", stats, "holder-owner")
    room = (await (await asker(owner, stats))(type="create_room", game="tictactoe"))["room"]

    async def fill(address: int) -> list[ClientConnection]:
        held = []
        for i in range(per):
            ws = await open_from(url, f"127.0.5.{address + 1}", stats)
            if ws is None:
                break
            with contextlib.suppress(ConnectionClosed, TimeoutError):
                await hello(ws, f"holder{address}x{i}")
                if i % 2:
                    await ws.send(pack(type="join_room", room=room, spectate=True))
            held.append(ws)
        return held

    holders = [ws for held in await asyncio.gather(*(fill(a) for a in range(16))) for ws in held]
    stats["opened"] = len(holders)

    async def ping(ws: ClientConnection) -> None:
        with contextlib.suppress(ConnectionClosed, TimeoutError):
            while time.monotonic() < until:
                await ws.send(pack(type="ping"))
                await asyncio.sleep(min(2.0, max(0.0, until - time.monotonic())))
        if ws.close_code is not None:
            stats[f"closed_{ws.close_code}"] += 1

    pinging = [asyncio.create_task(ping(ws)) for ws in holders]
    await asyncio.sleep(max(0.0, (until - time.monotonic()) / 2))
    refused: Stats = Counter()
    newcomers = []
    for n in range(20):
        ws = await open_from(url, f"127.0.6.{n + 1}", refused)
        if ws is None:
            continue
        try:
            welcome = await hello(ws, f"arrival{n}")
        except (ConnectionClosed, TimeoutError) as exc:
            refused[f"hello_{type(exc).__name__}"] += 1
            continue
        if welcome["type"] == "welcome":
            newcomers.append(ws)
        else:
            refused[f"hello_{welcome.get('code')}"] += 1
    stats["newcomer_in"], stats["newcomer_refused"] = len(newcomers), 20 - len(newcomers)
    stats.update({f"newcomer_{why}": count for why, count in refused.items()})
    await asyncio.gather(*pinging)
    for ws in [*holders, *newcomers, owner]:
        ws.transport.abort()
    return stats


async def analysis_flood(url: str, until: float, scale: float) -> Stats:
    """16 sockets of 4 addresses asking for analyses of new gomoku positions, each again the
    moment it is answered (issue 45, 9); the honest probe of bench/hostile.py asks meanwhile."""
    stats: Stats = Counter()
    budget = min(50_000, int(20_000 * scale))
    asked = 0

    async def flood(n: int) -> None:
        nonlocal budget, asked
        ws = await must_open(url, f"127.0.7.{1 + n % 4}", stats, f"analyst{n}")
        ask = await asker(ws, stats)
        with contextlib.suppress(ConnectionClosed, TimeoutError):
            while time.monotonic() < until and budget > 0:
                budget -= 1
                asked += 1  # a position of its own each time: no cached answer, no shared job
                cell = asked % 225
                other = (cell + 1 + (asked // 225) % 224) % 225
                moves = [[cell % 15, cell // 15], [other % 15, other // 15]]
                reply = await ask(type="analyse", game="gomoku", moves=moves)
                if reply.get("code") == "rate_limited":
                    await asyncio.sleep(0.25)
        ws.transport.abort()

    await asyncio.gather(*(flood(n) for n in range(16)))
    return stats


ATTACKS: dict[str, Callable[[str, float, float], Awaitable[Stats]]] = {
    "games_flood": games_flood,
    "spectators": spectators,
    "fake_bot": fake_bot,
    "impersonate": impersonate,
    "room_churn": room_churn,
    "garbage": garbage,
    "no_hello": no_hello,
    "lookups": lookups,
    "ping_flood": ping_flood,
    "crowd": crowd,
    "junk_options": junk_options,
    "bot_hog": bot_hog,
    "renju_load": renju_load,
    "seek_pools": seek_pools,
    "login_flood": login_flood,
    "owner_lockout": owner_lockout,
    "bot_fallback_hog": bot_fallback_hog,
    "pinging_holders": pinging_holders,
    "analysis_flood": analysis_flood,
}


async def run_all(url: str, seconds: float, scale: float) -> dict[str, Any]:
    """Every attack at once; each one's counters (or the error that stopped it)."""
    until = time.monotonic() + seconds

    async def one(name: str) -> tuple[str, Any]:
        try:
            return name, dict(await ATTACKS[name](url, until, scale))
        except Exception as exc:  # an attacker that failed is reported, not fatal
            return name, {"attacker_error": f"{type(exc).__name__}: {exc}"[:200]}

    chosen = os.environ.get("MNK_ATTACKS", ",".join(ATTACKS)).split(",")
    return dict(await asyncio.gather(*(one(n) for n in chosen)))


if __name__ == "__main__":
    result = asyncio.run(run_all(sys.argv[1], float(sys.argv[2]), float(sys.argv[3])))
    print(json.dumps(result))
