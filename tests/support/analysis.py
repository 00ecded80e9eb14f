"""Analysis helpers: a raw bot that answers ``analyse_job``s by hand, and a finished game."""

from __future__ import annotations

import random
from typing import Any

from protocol.rules import Game, Move, Variant
from support.clients import RawClient

#: The line a test bot answers by default (its cell is empty in the tests' positions).
LINE = {"move": [2, 2], "score": 12, "pv": [[2, 2], [2, 1]], "depth": 3}
#: ``LINE`` as the server passes it on: with the side to move's win chance in percent.
SAID = {**LINE, "win": 50}


async def analyser(client_factory: Any, name: str = "oracle", slots: int = 1) -> RawClient:
    """A raw bot client that offers ``slots`` analyses at once (it answers nothing by itself)."""
    return await client_factory(name, kind="bot", games=["*"], capacity=1, analyses=slots)


async def answer(bot: RawClient, **body: Any) -> dict[str, Any]:
    """Take the next ``analyse_job`` and answer it with ``body`` (default: one line); the job."""
    job = await bot.expect("analyse_job")
    await bot.send(type="analysed", job=job["job"], **(body or {"lines": [LINE]}))
    return job


async def finished_tictactoe(client_factory: Any) -> tuple[RawClient, RawClient, str, str]:
    """Alice and Bob's tic-tac-toe won by Alice on the diagonal: the players, room, game id."""
    alice = await client_factory("alice")
    bob = await client_factory("bob")
    room = (await alice.request(type="create_room", game="tictactoe", seat=0))["room"]
    await bob.request(type="join_room", room=room)
    moves = [(0, 0), (1, 0), (1, 1), (2, 0), (2, 2)]
    for ply, (x, y) in enumerate(moves):
        reply = await (alice, bob)[ply % 2].request(type="move", room=room, x=x, y=y, ply=ply)
        assert reply["type"] == "moved", reply
    over = await alice.expect("game_over")
    return alice, bob, room, over["game_id"]


def random_positions(variant: Variant, count: int, seed: int, least: int = 0) -> list[list[Move]]:
    """``count`` random legal positions of ``variant`` that are not over (at least ``least``
    stones), each reached by random moves from the empty board."""
    rng = random.Random(seed)
    found: list[list[Move]] = []
    while len(found) < count:
        game = Game(variant)
        target = rng.randrange(least, variant.cells - 1)
        while game.ply < target and not game.over:
            game.push(rng.choice(game.legal_moves()))
        if not game.over:
            found.append(list(game.moves))
    return found
