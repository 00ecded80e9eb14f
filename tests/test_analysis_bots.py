"""``analyse`` end to end with real ``mnk-bot`` processes: exact values on tic-tac-toe, the
engine's lines on gomoku, and a training game's hints and takebacks against the built-in bot."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from support.analysis import random_positions
from support.bots import OUR_BRAIN, bot_running, executable

from bots.engine.solver import Solver
from protocol.rules import Move
from protocol.variants import make_variant

pytestmark = pytest.mark.slow


@pytest.fixture
def limits_override() -> dict[str, float]:
    """Room in the rate for a series of analyses."""
    return {"human_rate": 200.0, "human_burst": 400.0}


@pytest.fixture
async def minimax(server: Any) -> AsyncIterator[None]:
    """The minimax bot (2 games at once, analyses on) connected to ``server``; stopped after."""
    async with bot_running(server, "minimax", "minimax", "--capacity", "2"):
        yield


async def test_values_over_the_wire_agree_with_the_solver_on_random_positions(
    client_factory: Any, minimax: None
) -> None:
    alice = await client_factory("alice")
    for w, h, k in ((3, 3, 3), (4, 4, 3), (4, 4, 4)):
        variant = make_variant("mnk", {"width": w, "height": h, "k": k})
        solver = Solver(w, h, k)
        for moves in random_positions(variant, 3, seed=w + k, least=5):
            ask = {"game": "mnk", "options": {"width": w, "height": h, "k": k}, "time": 3}
            wire = [[m.x, m.y] for m in moves]
            reply = await alice.request(type="analyse", moves=wire, **ask)
            assert reply["type"] == "analysis" and "values" in reply, reply
            assert len(reply["values"]) == w * h - len(moves)
            me, opp = bits(variant, moves)
            for value in reply["values"]:
                x, y = value["move"]
                mine = me | 1 << (y * w + x)
                won = any(line & mine == line for line in solver.lines)
                proven = 1 if won else -solver.value(opp, mine)
                assert value["value"] == {1: "win", 0: "draw", -1: "loss"}[proven]


def bits(variant: Any, moves: list[Move]) -> tuple[int, int]:
    """The side to move's stones and the other side's, as the solver's bitboards."""
    sides = [0, 0]
    for i, m in enumerate(moves):
        sides[i & 1] |= 1 << (m.y * variant.width + m.x)
    return sides[len(moves) & 1], sides[1 - (len(moves) & 1)]


async def test_tictactoe_gets_every_cells_exact_value_from_the_bot(
    client_factory: Any, minimax: None
) -> None:
    alice = await client_factory("alice")
    moves = [[1, 1], [0, 1]]
    reply = await alice.request(type="analyse", game="tictactoe", moves=moves, lines=3)
    assert reply["type"] == "analysis", reply
    values = {tuple(v["move"]): (v["value"], v["plies"]) for v in reply["values"]}
    assert len(values) == 7 and values[(0, 0)] == ("win", 5) and values[(2, 1)][0] == "draw"
    solver = Solver(3, 3, 3)
    me, opp = 1 << 4, 1 << 3  # X in the centre, O on the left edge; X to move
    for (x, y), (value, _plies) in values.items():
        proven = -solver.value(opp, me | 1 << (y * 3 + x))
        assert value == {1: "win", 0: "draw", -1: "loss"}[proven]
    best = reply["lines"][0]
    assert best["mate"] == 5 and best["pv"][0] == best["move"] and len(best["pv"]) == 5
    assert len(reply["lines"]) == 3 and reply["to_move"] == 0


async def test_gomoku_gets_the_engines_best_lines(client_factory: Any, minimax: None) -> None:
    alice = await client_factory("alice")
    moves = [[7, 7], [8, 8], [7, 8]]
    ask = {"type": "analyse", "game": "gomoku", "moves": moves, "lines": 3, "time": 1}
    reply = await alice.request(**ask)
    assert reply["type"] == "analysis", reply
    assert "values" not in reply and len(reply["lines"]) == 3
    cells = {tuple(line["move"]) for line in reply["lines"]}
    assert len(cells) == 3 and not cells & {(7, 7), (8, 8), (7, 8)}
    for line in reply["lines"]:
        assert line["depth"] >= 1 and line["pv"][0] == line["move"]
        assert ("score" in line) != ("mate" in line)
    variant = make_variant("gomoku")
    assert all(0 <= x < variant.width and 0 <= y < variant.height for x, y in cells)


async def test_a_training_game_gives_hints_and_grants_takebacks_at_level_10(
    client_factory: Any, minimax: None
) -> None:
    human = await client_factory("human")
    create = {"game": "tictactoe", "opponent": "bot", "level": 10, "seat": 0}
    room = (await human.request(type="create_room", **create, options={"hints": True}))["room"]
    await human.request(type="move", room=room, x=0, y=1, ply=0)  # an edge: still a draw
    await human.expect("moved", ply=1)
    hint = await human.request(type="analyse", room=room)
    assert hint["type"] == "analysis" and hint["room"] == room and hint["ply"] == 2
    assert hint["values"] and hint["lines"][0]["move"] in [v["move"] for v in hint["values"]]
    await human.request(type="move", room=room, x=2, y=2, ply=2)
    await human.expect("moved", ply=3)
    taken = await human.request(type="takeback_offer", room=room)  # no offer: granted
    assert taken["type"] == "taken_back" and taken["ply"] == 2 and taken["by"] == 0
    state = await human.expect("state")
    assert state["ply"] == 2 and state["to_move"] == 0
    taken_cells = [tuple(m) for m in state["moves"]]
    x, y = next((x, y) for y in range(3) for x in range(3) if (x, y) not in taken_cells)
    again = await human.request(type="move", room=room, x=x, y=y, ply=2)
    assert again["type"] == "moved"
    await human.expect("moved", ply=3)  # the bot thinks again and answers


async def test_a_piskvork_brain_answers_one_line(
    client_factory: Any, server: Any, tmp_path: Path
) -> None:
    path = executable(tmp_path / "pbrain-ours", OUR_BRAIN)
    async with bot_running(server, f"piskvork:{path}", "brainy"):
        alice = await client_factory("alice")
        moves = [[7, 7], [8, 8], [7, 8]]
        ask = {"type": "analyse", "game": "gomoku", "moves": moves, "lines": 3, "time": 1}
        reply = await alice.request(**ask)
        assert reply["type"] == "analysis", reply
        (line,) = reply["lines"]
        assert line["pv"] == [line["move"]] and line["move"] not in moves
