"""The engine uses the time it is given: the budget rules, the stop at the deadline (mid-iteration,
keeping what was searched), and what it reports while it thinks (Piskvork ``MESSAGE`` lines)."""

from __future__ import annotations

import io
import re
import time
from types import SimpleNamespace
from typing import Any

import pytest

from bots import pbrain
from bots.engine import Limit, SearchResult, timing
from bots.engine.fast import FastSearch, core_for, fast_search, load_core
from bots.engine.info import message_line, square, wire_info
from bots.engine.limits import WIN
from bots.engine.timing import Budget, plan_time, stretched
from bots.sdk import MinimaxBot
from protocol import GOMOKU, Game, Move, wire

#: A quiet middle game: no forced win for either side, so a search uses its time.
MIDDLE = [Move(7, 7), Move(8, 8), Move(8, 7), Move(6, 7), Move(7, 8), Move(7, 6), Move(9, 9),
          Move(6, 6)]  # fmt: skip
MESSAGE = re.compile(
    r"MESSAGE depth (\d+)-(\d+) ev (-?M?\d+) n (\d+[kM]?) n/s (\d+[kM]?) tm (\d+)"
    r" pv((?: [a-y]\d{1,2})*)"
)


# -- the budget --------------------------------------------------------------------------------


def test_a_per_move_limit_alone_is_used_whole() -> None:
    """At 1 s a move and a roomy (or no) match clock, plan 0.85-0.95 s and stop there."""
    for left in (None, 1000.0):
        budget = plan_time(1.0, left)
        assert budget.planned == budget.maximum
        assert 0.85 <= budget.maximum <= 0.95
    short = plan_time(0.25, None)
    assert short.planned == short.maximum and 0.15 <= short.maximum < 0.25


def test_the_match_clock_plans_a_share_and_allows_more_on_critical_moves() -> None:
    """Gomocup freestyle (30 s a move, 180 s a game): plan about a 20th, never past the turn."""
    budget = plan_time(30.0, 180.0)
    assert 8.0 < budget.planned < 9.5
    assert budget.planned < budget.maximum < 30.0
    assert stretched(budget, critical=False) == budget.planned
    assert budget.planned < stretched(budget, critical=True) <= budget.maximum


def test_an_increment_is_mostly_spent_and_the_clock_never_overdrawn() -> None:
    budget = plan_time(None, 10.0, increment_s=2.0)
    assert budget.planned == pytest.approx((10.0 - timing.overhead(10.0)) / 20 + 1.6)
    assert budget.maximum < 10.0
    low = plan_time(None, 0.3, increment_s=5.0)  # nearly flagged: a big increment is no excuse
    assert low.maximum < 0.3 and low.planned <= low.maximum


@pytest.mark.parametrize("turn", [None, 0.05, 0.25, 1.0, 5.0, 30.0])
@pytest.mark.parametrize("left", [None, 0.02, 0.5, 3.0, 60.0, 900.0])
@pytest.mark.parametrize("inc", [0.0, 1.0])
def test_every_budget_stays_inside_its_limits(turn: float | None, left: float | None,
                                              inc: float) -> None:  # fmt: skip
    if turn is None and left is None:
        with pytest.raises(ValueError):
            plan_time(turn, left, inc)
        return
    budget = plan_time(turn, left, inc)
    assert 0 < budget.planned <= budget.maximum
    assert stretched(budget, True) <= budget.maximum
    if turn is not None:
        assert budget.maximum <= max(timing.MIN_S, turn - timing.overhead(turn))
    if left is not None:
        assert budget.maximum <= max(timing.MIN_S, left - timing.overhead(left))


def test_iterations_go_on_to_the_deadline_or_stop_early_to_save_the_clock() -> None:
    """Injected clock: a per-move limit starts iterations until the aim; a clock plan stops
    after NEXT_SHARE of it, later on a critical move."""
    now = [0.0]
    turn = FastSearch(GOMOKU, Limit(time_s=1.0), None, 0.0, lambda: now[0])
    assert turn.plan is not None and turn.plan.planned == turn.plan.maximum
    for t, more in ((0.5, True), (0.95, True), (0.97, False), (2.0, False)):
        now[0] = t
        assert turn.another_iteration(critical=False) is more, t
    saving = FastSearch(GOMOKU, Limit(time_s=4.0, soft_s=1.0), None, 0.0, lambda: now[0])
    assert saving.target(False) == 1.0 and saving.target(True) == 2.0
    for t, plain, critical in ((0.5, True, True), (0.7, False, True), (1.3, False, False)):
        now[0] = t
        assert saving.another_iteration(False) is plain, t
        assert saving.another_iteration(True) is critical, t


# -- stopping ----------------------------------------------------------------------------------


class ScriptedCore:
    """A core whose root searches answer from a script: (score, best cell, stopped)."""

    nodes = seldepth = 0

    def __init__(self, answers: list[tuple[int, int, bool]]) -> None:
        self.answers = answers
        self.deadlines: list[float] = []

    def root(self, depth: int, moves: list[int], lo: int, hi: int) -> tuple[int, int, bool]:
        return self.answers.pop(0)

    def set_deadline(self, deadline: float) -> None:
        self.deadlines.append(deadline)

    def play(self, cell: int) -> bool:
        return False

    def undo(self) -> int:
        return 0

    def probe(self) -> int:
        return -1

    def at(self, cell: int) -> int:
        return 0


@pytest.mark.parametrize(
    ("partial", "expected"),
    [
        ((40, 20, True), 20),  # a new best move searched out before the stop: it counts
        ((-(WIN + 1), 10, True), 10),  # stopped inside the first move: the last iteration's
        ((-90, 10, True), 10),  # the first move failed low, nothing beat the floor: kept
    ],
)
def test_an_aborted_iteration_keeps_what_it_searched_out(
    partial: tuple[int, int, bool], expected: int
) -> None:
    core = ScriptedCore([(5, 10, False), (7, 10, False), partial])
    reports: list[SearchResult] = []
    search = FastSearch(GOMOKU, Limit(depth=8, report=reports.append), core, 0.0, lambda: 0.0)
    result = search._deepen([10, 20, 30])
    assert result.move == Move(expected % 15, expected // 15)
    assert reports[-1].move == result.move
    assert [r.depth for r in reports][:2] == [1, 2]


def test_a_changed_mind_stretches_the_next_iteration_to_the_critical_aim() -> None:
    """With clock to save (plan 1 s of 4 s), the iteration after a new best move may run to
    twice the plan; the one after a steady iteration is back to the plan."""
    answers = [(5, 10, False), (7, 10, False), (9, 10, False), (12, 20, False), (14, 20, False)]
    core = ScriptedCore([*answers, (14, 20, True)])
    search = FastSearch(GOMOKU, Limit(time_s=4.0, soft_s=1.0), core, 0.0, lambda: 0.0)
    result = search._deepen([10, 20, 30])
    assert result.move == Move(20 % 15, 20 // 15) and result.depth == 5
    assert core.deadlines == [1.0, 1.0, 1.0, 1.0, 2.0, 1.0]


@pytest.mark.pins_core
@pytest.mark.parametrize("pure", [False, True], ids=["compiled", "pure"])
def test_the_search_stops_at_its_deadline_having_used_its_time(
    pure: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A quiet position at 0.4 s: the answer comes after most of it and never long after.

    The search's clock (the core's, which checks it every 64 nodes, and the search's own) is
    this process's CPU time: the seconds it searched, which a loaded machine does not stretch
    (on the wall clock, a search waiting for a CPU ran 1.05 s of a 0.4 s budget)."""
    module = load_core(pure)
    monkeypatch.setattr(module, "time", SimpleNamespace(perf_counter=time.process_time))
    reports: list[SearchResult] = []
    start = time.process_time()  # setting up the core is part of the budget, as in fast_search
    core = core_for(GOMOKU, MIDDLE, module, keep=False)
    limit = Limit(time_s=0.4, report=reports.append)
    result = FastSearch(GOMOKU, limit, core, start, time.process_time).run()
    used = time.process_time() - start
    assert 0.3 <= used < 0.4 + 0.1, used  # the abort at the deadline, the answer built
    assert result.source == "search" and reports and reports[-1].move == result.move
    depths = [r.depth for r in reports]
    assert depths == sorted(depths) and result.seldepth >= result.depth


@pytest.mark.pins_core
@pytest.mark.parametrize("pure", [False, True], ids=["compiled", "pure"])
def test_a_search_stopped_mid_iteration_counts_all_its_nodes(pure: bool) -> None:
    """The answer's nodes are the whole search's, the aborted iteration's included, when it
    keeps the iteration before's move (what a user and the speed bench see)."""
    limit = Limit(nodes=35_000, threats=False)  # depth 7 ends at 30,297; 8 stops in its first
    result = fast_search(GOMOKU, MIDDLE, limit, load_core(pure), keep=False)
    assert (result.nodes, result.depth) == (35_000, 7)


# -- reporting ---------------------------------------------------------------------------------


def test_message_line_and_wire_info_say_the_same() -> None:
    result = SearchResult(Move(7, 7), 35, 9, 412_345, [Move(7, 7), Move(8, 8)], 0.93,
                          seldepth=14)  # fmt: skip
    assert message_line(result) == "MESSAGE depth 9-14 ev 35 n 412k n/s 443k tm 930 pv h8 i9"
    info = wire_info(result)
    assert info == {"depth": 9, "seldepth": 14, "score": 35, "nodes": 412_345, "nps": 443_381,
                    "time_ms": 930, "pv": [[7, 7], [8, 8]]}  # fmt: skip
    wire.check_info(info)
    mate = SearchResult(Move(0, 14), WIN - 5, 3, 10, [Move(0, 14)] * 40, 0.0)
    assert message_line(mate).startswith("MESSAGE depth 3-3 ev M5 n 10 n/s 0 tm 0 pv a15 ")
    assert wire_info(mate)["mate"] == 5 and "score" not in wire_info(mate)
    wire.check_info(wire_info(mate))  # the pv is cut to what the server takes
    assert square(Move(14, 0)) == "o1"


def _session(clock: Any = time.perf_counter) -> tuple[pbrain.BrainSession, io.StringIO]:
    out = io.StringIO()
    session = pbrain.BrainSession(MinimaxBot(10), out, clock)
    for line in ("START 15", "INFO timeout_turn 400", "INFO timeout_match 0", "INFO rule 0"):
        session.handle(line)
    return session, out


def test_piskvork_messages_come_before_the_move_and_parse() -> None:
    session, out = _session()
    start = time.perf_counter()
    for line in ("BOARD", *(f"{m.x},{m.y},{1 + i % 2}" for i, m in enumerate(MIDDLE)), "DONE"):
        session.handle(line)
    elapsed = time.perf_counter() - start
    lines = out.getvalue().splitlines()[1:]  # after START's OK
    *messages, answer = lines
    x, y = (int(p) for p in answer.split(","))
    assert messages, lines
    parsed = [MESSAGE.fullmatch(line) for line in messages]
    assert all(parsed), messages
    last = parsed[-1]
    assert last is not None and last.group(7).split()[0] == square(Move(x, y))
    assert int(last.group(1)) <= int(last.group(2))
    assert elapsed < 0.4 + 0.5, elapsed


def test_the_brain_counts_its_time_from_the_command() -> None:
    """What went by since the command arrived is off the budget (injected clock)."""
    now = [100.0]
    session, _ = _session(lambda: now[0])
    session.handle("INFO time_left 1000000")
    budget = session.budget()
    assert budget == plan_time(0.4, None, fixed_s=pbrain.MARGIN_S)
    now[0] += 0.1
    limit = session.limit()
    assert limit.time_s == pytest.approx(budget.maximum - 0.1)
    assert limit.soft_s == pytest.approx(budget.planned - 0.1)
    session.handle("INFO timeout_match 180000")
    session.handle("INFO time_left 6000")
    assert session.budget() == plan_time(0.4, 6.0, fixed_s=pbrain.MARGIN_S)
    assert isinstance(session.budget(), Budget)


def test_the_bot_runner_sends_the_search_with_the_move() -> None:
    """A worker's answer is ``[x, y, info]``: an ``info`` the server takes, pv from the move."""
    from bots.seats import think

    moves = [[m.x, m.y] for m in MIDDLE]
    x, y, info = think("minimax", 10, GOMOKU.describe(), moves, 0.3, None, 0.2)
    wire.check_info(info)
    assert info["pv"][0] == [x, y] and 0 < info["time_ms"] <= 300 and info["depth"] >= 1


@pytest.mark.slow
def test_our_brain_uses_its_turn_and_never_overruns_it_measured_from_outside() -> None:
    """A real ``mnk-bot --piskvork`` at 300 ms a turn: every answer inside the turn (the hard
    rule), MESSAGE lines before each searched one, and most of the turn used when not forced."""
    import random
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "bots", "--piskvork", "--engine", "minimax:level=10"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
    )  # fmt: skip
    stdin, stdout = proc.stdin, proc.stdout
    assert stdin is not None and stdout is not None

    def send(line: str) -> None:
        stdin.write(line + "\r\n")
        stdin.flush()

    def answer(start: float) -> tuple[float, list[str], str]:
        messages = []
        while (line := stdout.readline().strip()).startswith("MESSAGE"):
            messages.append(line)
        return time.perf_counter() - start, messages, line

    try:
        for line in ("START 15", "INFO timeout_turn 300", "INFO timeout_match 0", "INFO rule 0"):
            send(line)
        assert stdout.readline().strip() == "OK"
        game, rng = Game.from_moves(GOMOKU, MIDDLE), random.Random(3)
        send("BOARD")
        for i, m in enumerate(MIDDLE):
            send(f"{m.x},{m.y},{1 if i % 2 == len(MIDDLE) % 2 else 2}")
        start = time.perf_counter()
        send("DONE")
        used = []
        for _ in range(6):
            took, messages, line = answer(start)
            assert took < 0.3, took
            assert messages and all(MESSAGE.fullmatch(m) for m in messages), messages
            x, y = (int(p) for p in line.split(","))
            game.push(Move(x, y))
            used.append(took)
            if game.outcome is not None:
                break
            theirs = rng.choice([m for m in game.legal_moves() if m.y < 3])  # far away: quiet
            game.push(theirs)
            start = time.perf_counter()
            send(f"TURN {theirs.x},{theirs.y}")
        assert max(used) >= 0.15, used  # not forced (the first at least): most of the turn
        send("END")
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()


def test_a_server_seat_plans_from_its_clock_and_keeps_the_network_margin() -> None:
    from bots.seats import NETWORK_MARGIN_S, UNTIMED_BUDGET_S, Seat

    capped = Seat("r", 0, GOMOKU, clock={"initial_s": 3600, "move_s": 0.3}, clocks=[3600, 3600])
    assert capped.plan() == plan_time(0.3, 3600, 0.0, NETWORK_MARGIN_S)
    assert capped.plan().planned == capped.budget() < 0.3 - NETWORK_MARGIN_S
    fischer = Seat("r", 1, GOMOKU, clock={"initial_s": 60, "increment_s": 1}, clocks=[60, 20])
    plan = fischer.plan()
    assert plan == plan_time(None, 20, 1.0, NETWORK_MARGIN_S) and plan.planned < plan.maximum
    assert Seat("r", 0, GOMOKU).plan() == Budget(UNTIMED_BUDGET_S, UNTIMED_BUDGET_S)
