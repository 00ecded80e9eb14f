"""Piskvork both ways: `mnk-bot --piskvork` under a Gomocup-style manager; brains as engines."""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from support.bots import HANGER, OUR_BRAIN, Manager, alive, executable
from support.servers import bot_env

from bots.piskvork import BrainError, PiskvorkBrain, SpareBrains
from protocol import GOMOKU, GOMOKU_STANDARD, Game, Move

BRAIN = [sys.executable, "-m", "bots", "--piskvork", "--engine", "minimax:level=6"]


@pytest.mark.slow
def test_our_brain_plays_a_full_gomoku_game_under_a_manager() -> None:
    """The manager plays random legal moves; our brain must win, every answer legal."""
    rng = random.Random(7)
    brain = Manager(BRAIN)
    brain.send("ABOUT")
    assert 'name="mnk-arena"' in brain.answer()
    brain.send("START 15")
    assert brain.answer() == "OK"
    brain.send("INFO timeout_turn 500")
    brain.send("INFO timeout_match 100000")
    brain.send("INFO rule 0")
    game = Game(GOMOKU)
    brain.send("BEGIN")  # the brain is black
    while game.outcome is None:
        mine = brain.move()
        assert game.is_legal(mine), mine
        game.push(mine)
        if game.outcome is not None:
            break
        theirs = rng.choice(game.legal_moves())
        game.push(theirs)
        brain.send(f"TURN {theirs.x},{theirs.y}")
    assert game.outcome.winner == 0 and game.outcome.termination == "line"
    assert brain.close() == 0


@pytest.mark.slow
def test_board_takeback_restart_and_exact_five() -> None:
    brain = Manager(BRAIN)
    brain.send("START 15")
    assert brain.answer() == "OK"
    brain.send("INFO rule 1")  # exactly five
    # white (the brain, field 1) has four in a row with both ends open; playing it wins
    brain.send("BOARD")
    for x, y, field in [(7, 7, 2), (3, 3, 1), (8, 7, 2), (4, 3, 1), (9, 7, 2), (5, 3, 1)]:
        brain.send(f"{x},{y},{field}")
    brain.send("6,3,1")
    brain.send("14,14,2")
    brain.send("DONE")
    # black threatens 10,7 / 6,7 (open four after 7..9 + one more); we hold four: 2,3 or 7,3 wins
    assert brain.move() in (Move(2, 3), Move(7, 3))
    brain.send("TAKEBACK 7,3")
    assert brain.answer() == "OK"
    brain.send("RESTART")
    assert brain.answer() == "OK"
    brain.send("RECTSTART 20,10")
    assert brain.answer() == "OK"
    brain.send("BEGIN")
    first = brain.move()
    assert 0 <= first.x < 20 and 0 <= first.y < 10
    brain.send("START 40")
    assert brain.answer().startswith("ERROR")
    brain.send("YODEL")
    assert brain.answer().startswith("UNKNOWN")
    assert brain.close() == 0


CRASHER = """
import sys
for line in sys.stdin:
    if line.startswith(("START", "RECTSTART")):
        print("OK", flush=True)
    elif line.startswith(("BEGIN", "TURN", "BOARD")):
        sys.exit(3)
"""

GARBAGE = """
import sys
for line in sys.stdin:
    if line.startswith(("START", "RECTSTART")):
        print("OK", flush=True)
    elif line.startswith(("BEGIN", "TURN", "DONE")):
        print("MESSAGE thinking hard", flush=True)
        print("the answer is 42", flush=True)
"""


OCCUPIER = """
import sys
for line in sys.stdin:
    if line.startswith(("START", "RECTSTART")):
        print("OK", flush=True)
    elif line.startswith(("BEGIN", "TURN", "DONE")):
        print("7,7", flush=True)
"""


@pytest.mark.slow
async def test_external_brain_drives_our_rules(tmp_path: Path) -> None:
    """piskvork:PATH engine: a real brain process plays legal moves through BEGIN/TURN/BOARD."""
    brain = PiskvorkBrain(executable(tmp_path / "pbrain-ours", OUR_BRAIN), GOMOKU_STANDARD, 0)
    try:
        game = Game(GOMOKU_STANDARD)
        for ply in range(6):
            if ply % 2 == 0:
                move = await brain.choose(list(game.moves), 2.0, 100.0)
            else:
                move = next(m for m in (Move(2 * i, 0) for i in range(8)) if game.is_legal(m))
            game.push(move)
        brain2 = PiskvorkBrain(brain.path, GOMOKU_STANDARD, 1)  # resumes mid-game: BOARD
        try:
            reply = await brain2.choose([*game.moves, Move(14, 14)], 2.0, None)
            assert reply not in game.moves and reply != Move(14, 14)
        finally:
            await brain2.close()
    finally:
        await brain.close()


@pytest.mark.parametrize(
    ("script", "fault"),
    [(CRASHER, "crash"), (GARBAGE, "error"), (HANGER, "hang"), (OCCUPIER, "illegal_move")],
)
@pytest.mark.slow
async def test_faulty_brains_raise_with_the_right_fault(
    tmp_path: Path, script: str, fault: str
) -> None:
    brain = PiskvorkBrain(executable(tmp_path / "pbrain-bad", script), GOMOKU, 1)
    try:
        with pytest.raises(BrainError) as caught:
            await asyncio.wait_for(brain.choose([Move(7, 7)], 0.3, None), 30)
        assert caught.value.fault == fault
    finally:
        await brain.close()
    assert brain.proc is None


TALKER = """
import sys
turns = 0
for line in sys.stdin:
    if line.startswith(("START", "RECTSTART")):
        print("OK", flush=True)
    elif line.startswith(("BEGIN", "TURN")):
        turns += 1
        if turns == 1:
            print("MESSAGE depth 1-1 ev 3 n 10 n/s 0 tm 0 pv a1", flush=True)
            print("DEBUG not kept", flush=True)
            print("MESSAGE depth 2-4 ev M3 n 99 n/s 0 tm 1 pv b2 " + "c3 " * 200, flush=True)
        print(f"{turns},0", flush=True)
"""


async def test_a_brain_s_last_message_of_each_move_is_kept(tmp_path: Path) -> None:
    """What the brain last said while it thought (a bench reads its depth and evaluation)."""
    brain = PiskvorkBrain(executable(tmp_path / "pbrain-talks", TALKER), GOMOKU, 0)
    try:
        assert await asyncio.wait_for(brain.choose([], 5.0, None), 30) == Move(1, 0)
        said = brain.last_message
        assert said is not None and said.startswith("depth 2-4 ev M3 n 99 n/s 0 tm 1 pv b2 c3")
        assert len(said) == 200  # a brain's chatter is cut, not kept whole
        moves = [Move(1, 0), Move(7, 7)]
        assert await asyncio.wait_for(brain.choose(moves, 5.0, None), 30) == Move(2, 0)
        assert brain.last_message is None  # it said nothing on this move
    finally:
        await brain.close()


async def test_missing_brain_is_a_crash(tmp_path: Path) -> None:
    brain = PiskvorkBrain(str(tmp_path / "nope"), GOMOKU, 0)
    with pytest.raises(BrainError) as caught:
        await brain.choose([], 1.0, None)
    assert caught.value.fault == "crash"


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs a POSIX process model")
@pytest.mark.slow
async def test_bot_with_piskvork_engine_plays_on_the_server(
    client_factory: object, server: object, tmp_path: Path
) -> None:
    """mnk-bot --engine piskvork:PATH is seated by the server and plays a legal game."""
    path = executable(tmp_path / "pbrain-ours", OUR_BRAIN)
    cmd = [sys.executable, "-m", "bots", "--server", server.url, "--engine", f"piskvork:{path}"]
    env = bot_env(server, "brainy")
    proc = subprocess.Popen([*cmd, "--name", "brainy", "--log-level", "WARNING"], env=env)
    try:
        human = await client_factory("human")  # type: ignore[operator]
        for _ in range(100):
            reply = await human.request(type="create_room", game="gomoku", bot="brainy", seat=0)
            if reply["type"] == "joined":
                break
            await asyncio.sleep(0.1)
        room = reply["room"]
        game = Game(GOMOKU)
        for _ in range(3):
            mine = next(m for m in (Move(x, 0) for x in range(15)) if game.is_legal(m))
            await human.request(type="move", room=room, x=mine.x, y=mine.y)
            game.push(mine)
            answer = await human.expect("moved", seat=1, timeout=30)
            game.push(Move(answer["x"], answer["y"]))
        assert game.ply == 6 and game.outcome is None
    finally:
        proc.terminate()
        await asyncio.to_thread(proc.wait, 15)


def test_gomocup_info_and_about_conventions() -> None:
    """ABOUT names name/version/author/country; max_memory sizes the TT; budgets fit the clock."""
    import io
    import re

    from bots import pbrain
    from bots.engine import fast
    from bots.sdk import MinimaxBot

    out = io.StringIO()
    session = pbrain.BrainSession(MinimaxBot(10), out)
    for line in ("ABOUT", "START 15", "INFO thread_num 4", "INFO max_memory 83886080"):
        session.handle(line)
    about = out.getvalue().splitlines()[0]
    assert re.fullmatch(r'name="[^"]+", version="[^"]+", author="[^"]+", country="[^"]+"', about)
    try:
        assert 24 << fast._tt_bits <= 83886080 // 3 < 24 << (fast._tt_bits + 1)
        session.handle("INFO timeout_turn 2000")
        session.handle("INFO time_left 6000")
        tight = session.budget()  # the match clock binds: plan a share, cap a critical move
        assert tight.planned < tight.maximum < 6.0 / 3
        session.handle("INFO time_left 100000")
        roomy = session.budget()  # only the turn binds: all of it, less the overhead
        assert roomy.planned == roomy.maximum and 1.8 < roomy.maximum < 2.0 - pbrain.MARGIN_S
        session.handle("INFO rule 1")
        assert session.variant().rule.value == "exact"
    finally:
        fast.set_memory(0)


def test_our_brain_builds_its_shape_tables_on_start_not_on_a_move_clock() -> None:
    """START (off every move's clock in Gomocup) builds the tables of all three rules, so the
    first move does not spend about 0.2 s of its turn on them."""
    import io

    from bots import pbrain
    from bots.engine import shapes
    from bots.sdk import MinimaxBot

    shapes.tables.cache_clear()
    session = pbrain.BrainSession(MinimaxBot(10), io.StringIO())
    session.handle("START 15")
    built = shapes.tables.cache_info()
    assert (built.currsize, built.misses) == (3, 3)  # freestyle, exact five, renju
    session.handle("INFO rule 4")
    session.handle("INFO timeout_turn 100")
    session.handle("BOARD")
    for line in ("7,7,2", "8,8,1", "DONE"):
        session.handle(line)
    assert shapes.tables.cache_info().misses == 3  # the move found renju's tables built


#: A brain whose start-up (imports, tables) lasts until the test opens its gate (a file); it
#: says where it runs and the turn times it is given, answers ABOUT as every Gomocup brain does,
#: takes RESTART (a new game: its board empty again), and plays the first empty cell of the top
#: row (holding its answer while a second file, the hold, is there).
SLOW_STARTER = """
import os, sys, time
with open(sys.argv[0] + ".waiting", "a") as f:
    f.write(f"{os.getpid()}\\n")
while not os.path.exists(sys.argv[0] + ".gate"):
    time.sleep(0.01)
taken = set()
for line in sys.stdin:
    word = line.strip()
    if word.startswith(("START", "RECTSTART")):
        with open(sys.argv[0] + ".started", "a") as f:
            f.write(f"{os.getpid()}\\n")
        print("OK", flush=True)
    elif word.startswith("ABOUT"):
        print('name="slow starter", version="1"', flush=True)
    elif word.startswith("RESTART"):
        taken.clear()
        print("OK", flush=True)
    elif word.startswith("INFO timeout_turn"):
        with open(sys.argv[0] + ".turns", "a") as f:
            f.write(word.split()[2] + "\\n")
    elif "," in word and word[0].isdigit():
        taken.add(tuple(int(v) for v in word.split(",")[:2]))
    elif word.startswith(("TURN", "BEGIN", "DONE")):
        if word.startswith("TURN"):
            taken.add(tuple(int(v) for v in word.split()[1].split(",")))
        if os.path.exists(sys.argv[0] + ".hold"):
            with open(sys.argv[0] + ".holding", "a") as f:
                f.write(f"{os.getpid()}\\n")
        while os.path.exists(sys.argv[0] + ".hold"):
            time.sleep(0.01)
        x = next(x for x in range(15) if (x, 0) not in taken)
        taken.add((x, 0))
        print(f"{x},0", flush=True)
"""


def _numbers(path: str, suffix: str) -> list[int]:
    """The numbers the slow starter's processes wrote to ``path + suffix``, in order."""
    marker = Path(path + suffix)
    return [int(p) for p in marker.read_text().split()] if marker.exists() else []


def _started(path: str) -> list[int]:
    """The PIDs of the slow starter's processes that have answered START."""
    return _numbers(path, ".started")


def _turns(path: str) -> list[int]:
    """Every ``timeout_turn`` (ms) the slow starter's processes were told, in order."""
    return _numbers(path, ".turns")


def _gate(path: str, open_: bool) -> None:
    """Let the slow starter's processes finish their start-up (or hold the next ones in it)."""
    gate = Path(path + ".gate")
    if open_:
        gate.touch()
    else:
        gate.unlink(missing_ok=True)


@asynccontextmanager
async def ready_spares(tmp_path: Path) -> AsyncIterator[tuple[str, SpareBrains]]:
    """The slow starter's spare brains for 15x15, its start-up let through and one brain
    ready; closed after."""
    from support.waiting import until

    path = executable(tmp_path / "pbrain-slow", SLOW_STARTER)
    _gate(path, True)
    spares = SpareBrains(path)
    try:
        spares.prepare(GOMOKU)
        await until(lambda: spares.ready(GOMOKU), timeout=30.0)
        yield path, spares
    finally:
        await spares.close()


async def test_a_brain_started_inside_a_move_is_told_the_turn_less_its_start_up(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """No spare: the brain's start-up is on the move's clock (the move waits for it), and the
    brain is told the turn's time less it, never less than Piskvork's least (1 ms); a move
    that took longer than its budget is logged with its start-up (a game lost on time)."""
    from support.waiting import until

    path = executable(tmp_path / "pbrain-slow", SLOW_STARTER)
    now = [100.0]
    for budget, start_up, told in ((10.0, 1.5, 8500), (0.25, 1.5, 1)):
        caplog.clear()
        _gate(path, False)
        brain = PiskvorkBrain(path, GOMOKU, 1, clock=lambda: now[0])
        try:
            move = asyncio.ensure_future(brain.choose([Move(7, 7)], budget, None))
            waiting = len(_numbers(path, ".waiting")) + 1
            await until(lambda n=waiting: len(_numbers(path, ".waiting")) == n, timeout=30.0)
            assert not move.done()  # held in its start-up, the move cannot come
            now[0] += start_up
            _gate(path, True)
            assert await move == Move(0, 0)
            assert _turns(path)[-1] == told
            late = [r.getMessage() for r in caplog.records if r.name == "mnk.bot"]
            if start_up < budget:
                assert late == []
            else:
                assert late == [
                    f"brain {path} answered move 2 in 1.500 s, over its 0.250 s "
                    "(1.500 s of it starting)"
                ]
        finally:
            await brain.close()


async def test_a_spare_brain_is_started_before_the_game_and_plays_its_first_move(
    tmp_path: Path,
) -> None:
    """The spare's start-up falls before the game: the move is played by that process; ended
    (not given back), a new spare starts behind it, and every spare stops with them."""
    from support.waiting import until

    from bots.piskvork import SpareBrains

    path = executable(tmp_path / "pbrain-slow", SLOW_STARTER)
    spares = SpareBrains(path)
    try:
        spares.prepare(GOMOKU)
        await until(lambda: len(_numbers(path, ".waiting")) == 1, timeout=30.0)
        _gate(path, True)
        await until(lambda: spares.ready(GOMOKU), timeout=30.0)
        warm = PiskvorkBrain(path, GOMOKU, 1, spares=spares)
        try:
            assert await warm.choose([Move(7, 7)], 0.25, None) == Move(0, 0)
            # the process that had started before the move was asked for played it
            assert warm.proc is not None and warm.proc.pid == _started(path)[0]
        finally:
            await warm.close()
        await until(lambda: len(_started(path)) == 2, timeout=30.0)  # a new spare, behind it
    finally:
        await spares.close()
    assert not any(alive(pid) for pid in _started(path))  # every spare stopped with them


async def test_a_dead_spare_is_replaced_by_a_fresh_brain(tmp_path: Path) -> None:
    from support.waiting import until

    async with ready_spares(tmp_path) as (path, spares):
        os.kill(_started(path)[0], 9)
        await until(lambda: not spares.ready(GOMOKU))  # the loop has seen it die
        proc = await spares.take(GOMOKU)  # the dead spare is not handed out
        assert proc.returncode is None and proc.pid != _started(path)[0]
        proc.kill()
        await proc.wait()


async def test_two_games_begun_together_both_play_on_brains_started_before_them(
    tmp_path: Path,
) -> None:
    """With two spares per board size, two games taking one each at once both get a process
    whose start-up was over before they asked (one spare would leave the second game to
    wait for a start-up on its first move's clock); none starts behind them while both are
    lent (two games at once: two brains), and each one lost is replaced."""
    from support.waiting import until

    from bots.piskvork import SpareBrains

    path = executable(tmp_path / "pbrain-slow", SLOW_STARTER)
    spares = SpareBrains(path, per_size=2)
    try:
        spares.prepare(GOMOKU)
        await until(lambda: len(_numbers(path, ".waiting")) == 2, timeout=30.0)
        _gate(path, True)
        await until(lambda: len(_started(path)) == 2, timeout=30.0)
        first, second = await spares.take(GOMOKU), await spares.take(GOMOKU)
        assert {first.pid, second.pid} == set(_started(path)[:2])  # started before the games
        assert spares.idle(GOMOKU) == 0  # both lent: no third brain
        for proc in (first, second):
            proc.kill()
            await proc.wait()
            spares.lost(GOMOKU)
        await until(lambda: len(_started(path)) == 4, timeout=30.0)  # two new, behind them
    finally:
        await spares.close()
    assert not any(alive(pid) for pid in _started(path))


async def test_a_brain_given_back_after_its_game_plays_the_next_one(tmp_path: Path) -> None:
    """A game over gives its idle brain back: told RESTART (its board empty again), the same
    process plays the next game, whose first move so never waits for a start-up."""
    from support.waiting import until

    async with ready_spares(tmp_path) as (path, spares):
        for _game in range(3):
            brain = PiskvorkBrain(path, GOMOKU, 0, spares=spares)
            assert await brain.choose([], 0.25, None) == Move(0, 0)  # an empty board each game
            assert brain.proc is not None and brain.proc.pid == _started(path)[0]
            assert await brain.choose([Move(0, 0), Move(9, 9)], 0.25, None) == Move(1, 0)
            await brain.close(reuse=True)
            assert spares.idle(GOMOKU) == 1  # given back, its RESTART under way or answered
            await until(lambda: spares.ready(GOMOKU), timeout=30.0)
        assert len(_numbers(path, ".waiting")) == 1  # one start-up for three games
    assert not any(alive(pid) for pid in _started(path))


async def _given_back_thinking(path: str, spares: SpareBrains) -> None:
    """A game of the slow starter that ends while its brain holds its answer (lost on time,
    or its brain called hung at the flag), and the brain given back so."""
    from support.waiting import until

    thinking = PiskvorkBrain(path, GOMOKU, 0, spares=spares)
    holding = len(_numbers(path, ".holding")) + 1
    Path(path + ".hold").touch()
    move = asyncio.ensure_future(thinking.choose([], 10.0, None))
    await until(lambda: len(_numbers(path, ".holding")) == holding, timeout=30.0)
    move.cancel()
    with pytest.raises(asyncio.CancelledError):
        await move
    await thinking.close(reuse=True)


async def test_a_brain_late_when_its_game_ended_plays_the_next_once_it_answered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A brain still thinking when its game ended (on time, on a loaded machine) is kept: its
    late answer read, then RESTART, it plays the next game (no start-up of seconds there); one
    that does not answer within ``DRAIN_S`` is ended and replaced."""
    from support.waiting import until

    from bots import piskvork

    monkeypatch.setattr(piskvork, "DRAIN_S", 1.0)
    async with ready_spares(tmp_path) as (path, spares):
        try:
            await _given_back_thinking(path, spares)
            assert spares.idle(GOMOKU) == 1 and not spares.ready(GOMOKU)  # waiting for the answer
            Path(path + ".hold").unlink()  # the late answer comes
            await until(lambda: spares.ready(GOMOKU), timeout=30.0)
            nxt = PiskvorkBrain(path, GOMOKU, 0, spares=spares)
            assert await nxt.choose([], 0.25, None) == Move(0, 0)  # RESTART emptied its board
            assert nxt.proc is not None and [nxt.proc.pid] == _started(path)
            await nxt.close(reuse=True)
            await until(lambda: spares.ready(GOMOKU), timeout=30.0)
            await _given_back_thinking(path, spares)  # and this time no answer comes
            await until(lambda: len(_started(path)) == 2, timeout=30.0)  # ended, and replaced
            assert not alive(_started(path)[0])
        finally:
            Path(path + ".hold").unlink(missing_ok=True)
    assert not any(alive(pid) for pid in _started(path))


async def test_a_start_up_its_game_stopped_waiting_for_serves_the_next_game(
    tmp_path: Path,
) -> None:
    """A game whose first move waited for a start-up and ended meanwhile (lost on time) does
    not throw that start-up away: it finishes and plays the next game (thrown away, the next
    game waited for a new one in turn, and lost on time so, every game of a match)."""
    from support.waiting import until

    from bots.piskvork import SpareBrains

    path = executable(tmp_path / "pbrain-slow", SLOW_STARTER)
    _gate(path, False)
    spares = SpareBrains(path)
    try:
        spares.prepare(GOMOKU)
        await until(lambda: len(_numbers(path, ".waiting")) == 1, timeout=30.0)
        late = PiskvorkBrain(path, GOMOKU, 1, spares=spares)
        move = asyncio.ensure_future(late.choose([Move(7, 7)], 0.25, None))
        await until(lambda: spares.idle(GOMOKU) == 0)  # it took the spare and waits for it
        move.cancel()  # the game is over
        with pytest.raises(asyncio.CancelledError):
            await move
        assert spares.idle(GOMOKU) == 1  # the start-up goes on, for the next game
        _gate(path, True)
        await until(lambda: spares.ready(GOMOKU), timeout=30.0)
        nxt = PiskvorkBrain(path, GOMOKU, 1, spares=spares)
        try:
            assert await nxt.choose([Move(7, 7)], 0.25, None) == Move(0, 0)
            assert nxt.proc is not None and [nxt.proc.pid] == _numbers(path, ".waiting")
        finally:
            await nxt.close()
    finally:
        await spares.close()
    assert not any(alive(pid) for pid in _started(path))
