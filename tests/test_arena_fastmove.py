"""The fast path for ``move`` in :meth:`Arena.receive` answers exactly as the generic path does.

The same script of requests (good moves, moves out of turn, illegal, stale, malformed, from a
spectator, to unknown rooms, with and without ids, up to a won game) runs through two arenas
whose randomness is fixed: one with the fast path, one with it switched off. Every output, its
kind, its addressees and its message, must be the same, and the fast path must have been taken.
"""

from __future__ import annotations

import itertools
from typing import Any

import msgpack

from protocol import wire
from server.core.arena import Arena
from server.core.lobby.registry import MemoryRegistry


class CountingRegistry(MemoryRegistry):
    """Room codes in order (r0001, r0002, …), so two runs name their rooms alike."""

    def __init__(self) -> None:
        super().__init__()
        self._count = itertools.count(1)

    def new_id(self) -> str:
        """The next code."""
        return f"r{next(self._count):04d}"


def _run(monkeypatch: Any, fast: bool) -> tuple[list[tuple[str, Any]], int]:
    """Every output of the script, as (kind, addressees, message); and validations made."""
    counter = itertools.count()
    monkeypatch.setattr("secrets.token_hex", lambda n=8: f"{next(counter):0{2 * n}x}")
    monkeypatch.setattr("secrets.token_urlsafe", lambda n=24: f"t{next(counter)}")
    monkeypatch.setattr("secrets.randbelow", lambda n: 0)
    if not fast:
        monkeypatch.setattr(wire, "plain_move", lambda message: False)
    validated = 0
    validate = wire.validate

    def counting(message: dict[str, Any]) -> dict[str, Any]:
        nonlocal validated
        validated += 1
        return validate(message)

    monkeypatch.setattr(wire, "validate", counting)
    arena = Arena(registry=CountingRegistry(), clock=lambda: 1_800_000_000.0)
    conns = {name: arena.connect() for name in ("black", "white", "watcher")}
    outputs: list[tuple[str, Any]] = []

    def send(who: str, **message: Any) -> None:
        for out in arena.receive(conns[who], msgpack.packb(message)):
            outputs.append((type(out).__name__, getattr(out, "to", None), out.message))
        outputs.append(("drain", None, [type(r).__name__ for r in arena.drain()]))

    for name in conns:
        send(name, type="hello", protocol=1, name=name, kind="human")
    send("black", type="create_room", game="gomoku", seat=0, id=1)
    send("white", type="join_room", room="r0001")
    send("watcher", type="join_room", room="r0001", spectate=True)
    script: list[tuple[str, dict[str, Any]]] = [
        ("white", {"x": 7, "y": 7}),  # out of turn
        ("black", {"x": 7, "y": 7, "id": 5}),
        ("black", {"x": 8, "y": 8}),  # out of turn again
        ("white", {"x": 7, "y": 7}),  # occupied
        ("white", {"x": 15, "y": 0, "id": 6}),  # off the board
        ("white", {"x": -1, "y": 0}),
        ("white", {"x": "1", "y": 0, "id": 7}),  # bad shapes
        ("white", {"x": True, "y": 0}),
        ("white", {"x": 1.0, "y": 0}),
        ("white", {"x": 1, "y": 0, "ply": None}),
        ("white", {"x": 1, "y": 0, "ply": True}),
        ("white", {"y": 0}),
        ("white", {"room": 5, "x": 1, "y": 0}),
        ("white", {"room": "nope", "x": 1, "y": 0, "id": 8}),  # unknown room
        ("white", {"room": "x" * 200, "x": 1, "y": 0}),
        ("white", {"x": 0, "y": 0, "ply": 0, "id": 9}),  # stale ply
        ("watcher", {"x": 0, "y": 0}),  # not a player
        ("white", {"x": 0, "y": 0, "ply": 1, "extra": [1, 2]}),
    ]
    for i in range(4):  # black wins along row 7 at ply 8; what follows is refused
        script += [("black", {"x": 8 + i, "y": 7, "id": 100 + i}), ("white", {"x": i, "y": 1})]
    script += [("black", {"x": 12, "y": 7}), ("white", {"x": 5, "y": 5, "id": 200})]
    for name, fields in script:
        send(name, **({"type": "move", "room": "r0001"} | fields))
    return outputs, validated


def test_the_fast_path_answers_exactly_as_the_generic_path(monkeypatch) -> None:
    fast, fast_checks = _run(monkeypatch, fast=True)
    monkeypatch.undo()
    slow, slow_checks = _run(monkeypatch, fast=False)
    assert fast == slow
    kinds = [m.get("type") for kind, _, m in fast if kind != "drain"]
    plies = {m["ply"] for kind, _, m in fast if kind != "drain" and m.get("type") == "moved"}
    codes = [m["code"] for kind, _, m in fast if kind != "drain" and m.get("type") == "error"]
    assert plies == set(range(9)) and "game_over" in kinds  # the later moves are refused
    assert {
        "not_your_turn",
        "illegal_move",
        "bad_message",
        "no_such_room",
        "stale_ply",
        "game_over",
        "not_a_player",
    } <= set(codes)
    assert slow_checks - fast_checks >= 15  # the plain moves skipped the generic validation
