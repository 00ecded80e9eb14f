"""Bots under renju and swap openings: black's legal moves, white's forbidden-point win, our
Piskvork brain's INFO rule 4 and SWAP2BOARD, driven brains, and mnk-bot in a swap2 room."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from support.bots import OUR_BRAIN, Manager, bot_running, executable
from support.renju_play import interleave

from bots.engine import search
from bots.engine.limits import Limit
from bots.piskvork import PiskvorkBrain
from bots.sdk import MinimaxBot, RandomBot
from protocol.rules import Game, Move
from protocol.variants import GOMOKU, RENJU

# Black's open threes across and down meet at (7,7); white's stones are scattered far away.
DOUBLE_THREE = [(5, 7), (0, 0), (6, 7), (0, 14), (7, 5), (14, 0), (7, 6), (14, 14)]


def test_engine_takes_the_double_three_in_gomoku_but_never_in_renju() -> None:
    moves = [Move(*m) for m in DOUBLE_THREE]
    assert MinimaxBot(5).play(GOMOKU, moves, Limit(time_s=2)) == Move(7, 7)
    assert MinimaxBot(5).play(RENJU, moves, Limit(time_s=2)) != Move(7, 7)


def test_random_bot_never_plays_a_forbidden_point() -> None:
    moves = [Move(*m) for m in DOUBLE_THREE]
    bot = RandomBot(seed=3)
    assert all(bot.play(RENJU, moves) != Move(7, 7) for _ in range(200))


def test_white_wins_with_a_four_whose_only_defence_is_forbidden() -> None:
    # Black: XXX.XX on row 7 (the gap (6,7) would be six for black) and a stone at (6,12).
    # White: three down column 6 below the gap; (6,11) or (6,6) makes a four whose only five
    # point is the gap, which black may not fill; (6,7) makes an open four. The search (not a
    # layer around it) must see that the first two win as surely as the third.
    black = [(x, 7) for x in (3, 4, 5, 7, 8)] + [(6, 12), (14, 12)]
    white = [(6, y) for y in (8, 9, 10)] + [(0, 0), (14, 14), (0, 14)]
    moves = interleave(black, white)
    result = search(RENJU, moves, Limit(time_s=2))
    assert result.move in (Move(6, 11), Move(6, 6), Move(6, 7)) and result.source == "vcf"
    for trap in (Move(6, 11), Move(6, 6)):
        game = Game.from_moves(RENJU, [*moves, trap])
        fives = []
        for m in game.legal_moves():
            probe = game.board.copy()
            probe.cells[probe.index(m.x, m.y)] = 2
            if probe.wins_at(probe.index(m.x, m.y)):
                fives.append(m)
        assert fives == [Move(6, 7)]
        assert RENJU.forbidden(game.board, Move(6, 7), 0) == "overline"
        # black to move after the trap: every answer loses (the search knows it is mated)
        after = search(RENJU, game.moves, Limit(time_s=2))
        assert after.score < 0 and after.solved


def test_white_blocks_when_black_threatens_five() -> None:
    """No trap first when black has a four: white blocks its five point."""
    black = [(x, 7) for x in (3, 4, 5, 7, 8)] + [(6, 12)] + [(x, 2) for x in range(4)]
    white = [(6, y) for y in (8, 9, 10)] + [(0, 0), (14, 14), (0, 14), (12, 14), (14, 10)]
    white.append((10, 14))
    move = MinimaxBot(10).play(RENJU, interleave(black, white), Limit(time_s=2))
    assert move == Move(4, 2)


def test_engine_chooses_the_colour_the_search_favours() -> None:
    bot = MinimaxBot(5)
    black_wins = [(7, 7), (0, 0), (8, 7), (0, 2), (9, 7), (0, 4), (10, 7)]
    assert bot.choose_colour(
        GOMOKU, [Move(*m) for m in black_wins], ["black", "white"], Limit(1)
    ) == ("black")
    # white, to move, has an open three in the centre and black only corner stones: won for white
    white_wins = [(0, 0), (7, 6), (14, 14), (7, 7), (0, 14), (7, 8), (14, 0)]
    assert bot.choose_colour(
        GOMOKU, [Move(*m) for m in white_wins], ["black", "white"], Limit(1)
    ) == ("white")


@pytest.mark.slow
def test_our_brain_speaks_rule_4_and_swap2board() -> None:
    brain = Manager([sys.executable, "-m", "bots", "--piskvork", "--engine", "minimax:level=3"])
    brain.send("START 15")
    assert brain.answer() == "OK"
    brain.send("INFO rule 4")
    brain.send("INFO timeout_turn 1000")
    brain.send("BOARD")
    for i, (x, y) in enumerate(DOUBLE_THREE):
        brain.send(f"{x},{y},{1 if i % 2 == 0 else 2}")  # the brain is black (field 1)
    brain.send("DONE")
    assert brain.move() != Move(7, 7)  # renju: black's double three is forbidden
    brain.send("SWAP2BOARD")
    brain.send("DONE")
    stones = [Move(*map(int, t.split(","))) for t in brain.answer().split()]
    assert len(stones) == 3 and len(set(stones)) == 3
    Game.from_moves(RENJU, stones)
    brain.send("SWAP2BOARD")
    for i, m in enumerate(stones):
        brain.send(f"{m.x},{m.y},{1 + i % 2}")
    brain.send("DONE")
    answer = brain.answer()
    assert answer == "SWAP" or Game.from_moves(RENJU, stones).is_legal(
        Move(*map(int, answer.split(",")))
    )
    brain.send("SWAP2BOARD")
    brain.send("1,1,1")
    brain.send("DONE")
    assert brain.answer().startswith("ERROR")  # one stone is no swap2 position
    assert brain.close() == 0


def fake_brain(answers: dict[str, str]) -> str:
    """A brain script that says OK to START and answers each listed command word with a line."""
    return f"""
import sys
answers = {answers!r}
for line in sys.stdin:
    word = line.split()[0].upper() if line.split() else ""
    if word in ("START", "RECTSTART"):
        print("OK", flush=True)
    elif word in answers:
        print(answers[word], flush=True)
"""


#: Says UNKNOWN to SWAP2BOARD and plays 7,7 whatever happens.
UNAWARE = fake_brain({"SWAP2BOARD": "UNKNOWN SWAP2BOARD", "BEGIN": "7,7", "TURN": "7,7"})
#: Answers the opening with a cell taken twice.
CHEATER = fake_brain({"DONE": "7,7 7,7 8,8"})


@pytest.mark.slow
async def test_driven_brains_swap2_answers_are_validated(tmp_path: Path) -> None:
    ours = PiskvorkBrain(executable(tmp_path / "pbrain-ours", OUR_BRAIN), RENJU, 0)
    try:
        kind, stones = await ours.swap2([], 2.0)
        assert kind == "stones" and len(stones) == 3
        kind, more = await ours.swap2(stones, 2.0)
        assert kind in ("black", "white", "place")
        assert len(more) == {"black": 0, "white": 1, "place": 2}[kind]
        assert (await ours.choose([*stones, Move(0, 0)], 1.0, None)) not in stones
    finally:
        await ours.close()
    for script in (UNAWARE, CHEATER):
        brain = PiskvorkBrain(executable(tmp_path / "pbrain-x", script), RENJU, 0)
        try:
            assert await brain.swap2([], 1.0) is None
        finally:
            await brain.close()


@pytest.mark.slow
async def test_mnk_bot_handles_swap2_against_a_human(client_factory: Any, server: Any) -> None:
    """The human opens (seat 0); the bot chooses; then the bot opens and the human chooses."""
    async with bot_running(server, "minimax:level=3", "swapper", "--capacity", "2"):
        human = await client_factory("human")
        created = await human.request(
            type="create_room", game="renju", bot="swapper", seat=0,
            options={"opening_rule": "swap2"},
        )  # fmt: skip
        room = created["room"]
        for x, y in ((7, 7), (8, 7), (7, 9)):
            await human.request(type="move", room=room, x=x, y=y)
        chosen = await human.expect("chosen", timeout=30)
        assert chosen["seat"] == 1 and chosen["choice"] in ("black", "white")
        state = await human.expect("state", room=room)
        while state["colours"] is None:
            state = await human.expect("state", room=room)
        bot_colour = state["colours"][1]
        if bot_colour == 1:  # white moves next: the bot
            await human.expect("moved", seat=1, timeout=30)
        assert (await human.request(type="resign", room=room))["type"] == "game_over"
        await human.request(type="leave_room", room=room)

        created = await human.request(
            type="create_room", game="renju", bot="swapper", seat=1,
            options={"opening_rule": "swap2"},
        )  # fmt: skip
        room = created["room"]
        state = await human.expect("state", room=room)
        while state["opening"]["phase"] != "choose":
            state = await human.expect("state", room=room, timeout=30)
        assert state["ply"] == 3 and state["to_move"] == 1
        assert state["opening"]["choices"] == ["black", "white", "place"]
        await human.request(type="choose", room=room, choice="place")
        await human.request(type="move", room=room, x=0, y=0)
        await human.request(type="move", room=room, x=14, y=14)
        chosen = await human.expect("chosen", seat=0, timeout=30)
        assert chosen["choice"] in ("black", "white")
        if chosen["choice"] == "white":
            await human.expect("moved", seat=0, timeout=30)  # the bot (white) moves
        else:
            await human.request(type="move", room=room, x=0, y=14)  # the human is white
            await human.expect("moved", seat=0, timeout=30)
        await human.request(type="resign", room=room)


@pytest.mark.slow
async def test_unaware_brain_gets_the_default_choice(
    client_factory: Any, server: Any, tmp_path: Path
) -> None:
    """A brain without SWAP2BOARD opens with the fixed stones and takes white; no forfeit."""
    path = executable(tmp_path / "pbrain-unaware", UNAWARE)
    async with bot_running(server, f"piskvork:{path}", "unaware"):
        human = await client_factory("human")
        room = (
            await human.request(
                type="create_room", game="gomoku", bot="unaware", seat=1,
                options={"opening_rule": "swap1"},
            )
        )["room"]  # fmt: skip
        state = await human.expect("state", room=room)
        while state["opening"]["phase"] != "choose":
            state = await human.expect("state", room=room, timeout=30)
        assert state["moves"] == [[7, 7], [8, 6], [8, 8]]
        await human.request(type="choose", room=room, choice="white")
        state = await human.expect("state", room=room)
        assert state["colours"] == [0, 1] and state["to_move"] == 1 and state["status"] == "playing"
        over = await human.request(type="resign", room=room)
        assert over["type"] == "game_over" and over["reason"] == "resign"


RULE_ECHO = """
import sys
rule = "9"
for line in sys.stdin:
    words = line.split()
    if words[:1] == ["START"]:
        print("OK", flush=True)
    elif words[:2] == ["INFO", "rule"]:
        rule = words[2]
    elif words[:1] == ["BEGIN"]:
        print(rule + ",0", flush=True)
"""


@pytest.mark.slow
async def test_driven_brains_are_told_rule_4_for_renju(tmp_path: Path) -> None:
    for variant, bits in ((RENJU, 4), (GOMOKU, 0)):
        brain = PiskvorkBrain(executable(tmp_path / "pbrain-echo", RULE_ECHO), variant, 0)
        try:
            assert await brain.choose([], 1.0, None) == Move(bits, 0)
        finally:
            await brain.close()
