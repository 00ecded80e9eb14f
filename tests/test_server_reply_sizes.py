"""Property: no request an honest client can make gets a reply over the frame limit.

The lobby, the bots and the history are filled with worst cases (longest names in 4-byte
characters, the biggest board nearly full with clocks, hundreds of rooms and bots, pages of
the longest history rows), then hypothesis asks every listing and lookup there is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol import wire
from protocol.rules import MAX_SIDE
from server.core.arena import Arena
from server.core.game.members import Send
from server.core.journal.rows import GameRow, MoveRow
from server.core.limits import GAME_NAMES, Limits
from server.core.outputs import Lookup, Reply
from server.core.players.keys import new_key
from server.core.players.players import Conn
from server.storage.sqlite import Store

WIDE = "\U0001d54f" * wire.MAX_NAME  # 32 characters of 4 bytes each
BIG = {"width": MAX_SIDE, "height": MAX_SIDE, "k": MAX_SIDE, "rule": "exact"}
CLOCK = {"initial_s": 86_399.123456, "increment_s": 59.987654, "move_s": 3599.5}
#: Row-major filling of a 25 x 25 board alternates colours; the first diagonal line of 25
#: completes at move 601, so 599 moves leave the game running.
FILLED = [(i % MAX_SIDE, i // MAX_SIDE) for i in range(599)]


class Lobby:
    """An arena and a store filled with the worst cases an honest server meets."""

    def __init__(self, path: Path) -> None:
        self.arena = Arena(limits=Limits(human_rate=1e9, human_burst=1e9))
        self.store = Store(path)
        self.conns: list[Conn] = []
        self.rooms: list[str] = []
        for i in range(60):
            conn = self.hello(f"{i:02d}{WIDE}"[: wire.MAX_NAME])
            for _ in range(5):  # the most rooms one player keeps waiting
                self.rooms.append(self.ask(conn, type="create_room", game="mnk", options=BIG)[0])
        for i in range(150):
            self.hello(f"b{i:03d}{WIDE}"[: wire.MAX_NAME], kind="bot", games=sorted(GAME_NAMES))
        black, white = self.hello("x" + WIDE[1:]), self.hello("o" + WIDE[1:])
        opening = {**BIG, "opening": [[x, y] for x, y in FILLED[:300]]}
        room = self.ask(black, type="create_room", game="mnk", options=opening, seat=0)[0]
        self.ask(white, type="join_room", room=room)
        for ply, (x, y) in enumerate(FILLED[300:], start=300):
            self.ask((black, white)[ply % 2], type="move", room=room, x=x, y=y)
        self.big_room = room
        self.history()

    def hello(self, name: str, kind: str = "human", **extra: Any) -> Conn:
        """A new connection that said hello."""
        conn = self.arena.connect()
        if kind == "bot":  # a bot proves itself with a key the operator made for its name
            extra["key"] = new_key()
            self.arena.keys.add(name, extra["key"])
        self.send(conn, type="hello", protocol=1, name=name, kind=kind, **extra)
        self.conns.append(conn)
        return conn

    def send(self, conn: Conn, **message: Any) -> list[Any]:
        """Every output of one request (the store commits its records first)."""
        out = self.arena.receive(conn, wire.encode(message))
        self.store.write(self.arena.drain())
        return out

    def ask(self, conn: Conn, **message: Any) -> list[Any]:
        """A request that must succeed; the room it names."""
        out = self.send(conn, **message)
        replies = [o.message for o in out if isinstance(o, Reply | Send)]
        assert all(m["type"] != "error" for m in replies), replies
        return [m.get("room") for m in replies]

    def history(self) -> None:
        """150 finished games with the longest rows, one of them the biggest board, clocked."""
        game = {"name": "mnk", **BIG}
        for i in range(150):
            row = GameRow(
                f"g_{i:016x}", "r" * 6, 1, game, {"opening": [list(c) for c in FILLED[:9]]},
                CLOCK, (f"p_{i:012x}", f"p_{i + 1:012x}"), (WIDE, WIDE), ("human", "bot"),
                "over", 1, "timeout", tuple(FILLED[:MAX_SIDE]), 1.7e9 + i, 1.7e9 + i,
                1.7e9 + i + 0.123456789, "illegal_move",
            )  # fmt: skip
            self.store.write([row])
        moves = [
            MoveRow(
                "g_0000000000000000", ply, x, y, 1.7e9 + ply * 0.987654321, (86_000.1, 86_000.2)
            )
            for ply, (x, y) in enumerate(FILLED)
        ]
        self.store.write(moves)


def frames(lobby: Lobby, out: list[Any]) -> list[int]:
    """The size of every frame the request makes the server send (lookups run on the store)."""
    sizes = []
    for item in out:
        if isinstance(item, Lookup):
            reply = getattr(lobby.store, item.query)(**item.params)
            lobby.arena.admission.done(lobby.conns[0])
            sizes.append(len(wire.encode(reply)))
        elif isinstance(item, Reply | Send):
            sizes.append(len(wire.encode(item.message)))
    return sizes


_LOBBY: dict[str, Lobby] = {}


def lobby_in(tmp: Path) -> Lobby:
    """One lobby for all examples (building it takes a moment)."""
    if "lobby" not in _LOBBY:
        _LOBBY["lobby"] = Lobby(tmp / "sizes.sqlite3")
    return _LOBBY["lobby"]


limits = st.one_of(st.none(), st.integers(min_value=-5, max_value=10_000))
requests = st.one_of(
    st.builds(
        lambda n, c: {"type": "list_rooms", "limit": n, "cursor": c},
        limits,
        st.sampled_from([None, "0", "5", "250"]),
    ),
    st.builds(lambda n: {"type": "list_bots", "limit": n}, limits),
    st.builds(lambda n: {"type": "list_games", "limit": n}, limits),
    st.builds(
        lambda f: {"type": "get_game", "game_id": "g_0000000000000000", "format": f},
        st.sampled_from(["json", "psq"]),
    ),
    st.just({"type": "join_room", "spectate": True}),
    st.builds(lambda t: {"type": "chat", "text": t}, st.text(min_size=1, max_size=3000)),
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(request=requests)
def test_no_honest_request_gets_a_reply_over_the_frame_limit(
    tmp_path_factory: Any, request: dict[str, Any]
) -> None:
    lobby = lobby_in(tmp_path_factory.getbasetemp())
    conn = lobby.conns[0]
    message = {k: v for k, v in request.items() if v is not None}
    if message["type"] in ("join_room", "chat"):
        message["room"] = lobby.big_room
        if message["type"] == "chat":
            lobby.send(conn, type="join_room", room=lobby.big_room, spectate=True)
    out = lobby.send(conn, **message)
    sizes = frames(lobby, out)
    assert sizes and max(sizes) <= wire.MAX_FRAME, (message["type"], max(sizes))
