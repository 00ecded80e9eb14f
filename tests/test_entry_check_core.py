"""The entry check's bookkeeping in the core, on an injected clock: what a bot's join meets
at each stage, the bounds a stranger's bots meet (runs at once, the queue, the back-off after
a failure or a run that came to nothing), the pushes that tell the bot, and the examiner's
time budget (a bot that stalls every check still gets its report)."""

from __future__ import annotations

import asyncio
import time

import pytest

from bots.examine import within
from protocol.errors import Busy, EntryCheckFailed, EntryCheckRunning, NotExaminer
from server.core.game.members import Send
from server.core.journal.recovery import Journal
from server.core.journal.rows import EntryCheckRow
from server.core.players.players import Player
from server.core.tournament import entry
from server.core.tournament.entry import EntryCheck


class Clock:
    """Seconds the test sets."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def bot(name: str) -> Player:
    """A bot account's player."""
    return Player(f"p_{name}", name, "bot", "h", account=name)


def checks(*failed: str) -> list[dict[str, object]]:
    """A report's checks, ``failed`` among them."""
    return [{"name": n, "passed": n not in failed} for n in ("connects", "gomoku", *failed)]


def made() -> tuple[EntryCheck, Clock, Player]:
    """An entry check with its examiner, its clock and the examiner's player."""
    clock = Clock()
    check = EntryCheck(Journal(enabled=True), clock)
    check.enable("examiner")
    return check, clock, bot("examiner")


def test_no_examiner_lets_every_bot_in_and_humans_never_wait() -> None:
    check = EntryCheck(Journal(), Clock())
    check.admit(bot("b"))  # no examiner: unchecked
    check.enable("examiner")
    check.admit(Player("p_h", "h", "human", "h", account="h"))
    assert check.due() == []


def test_a_failed_bot_waits_an_hour_then_is_checked_again() -> None:
    check, clock, examiner = made()
    with pytest.raises(EntryCheckRunning):
        check.admit(bot("b"))
    assert check.due() == ["b"]
    check.certified(examiner, {"examinee": "b", "checks": checks("clock")})
    [told] = check.sweep(clock.now)
    assert isinstance(told, Send) and told.to == ("p_b",) and told.message["failed"] == ["clock"]
    clock.now += entry.RETRY_AFTER - 1
    with pytest.raises(EntryCheckFailed, match="clock"):
        check.admit(bot("b"))
    clock.now += 1
    with pytest.raises(EntryCheckRunning):
        check.admit(bot("b"))
    assert check.due() == ["b"]
    check.certified(examiner, {"examinee": "b", "checks": checks()})
    check.admit(bot("b"))
    assert check.results["b"] == EntryCheckRow("b", True, (), clock.now, 2)
    assert [type(r) for r in check.journal.drain()] == [EntryCheckRow, EntryCheckRow]


def test_runs_at_once_and_the_queue_are_bounded() -> None:
    check, _, _ = made()
    for i in range(entry.MAX_WAITING):
        with pytest.raises(EntryCheckRunning):
            check.admit(bot(f"b{i}"))
    with pytest.raises(Busy):
        check.admit(bot("late"))
    assert len(check.due()) == entry.MAX_RUNNING and check.due() == []


def test_a_run_that_comes_to_nothing_is_given_up_and_may_start_again_later() -> None:
    check, clock, examiner = made()
    with pytest.raises(EntryCheckRunning):
        check.admit(bot("b"))
    check.due()
    clock.now += entry.RUN_TIMEOUT
    [told] = check.sweep(clock.now)
    assert isinstance(told, Send) and told.message["status"] == "unfinished"
    with pytest.raises(NotExaminer):  # a late report of a run given up is not taken
        check.certified(examiner, {"examinee": "b", "checks": checks()})
    with pytest.raises(EntryCheckFailed):
        check.admit(bot("b"))
    clock.now += entry.UNFINISHED_RETRY
    with pytest.raises(EntryCheckRunning):
        check.admit(bot("b"))


def test_an_examiner_that_cannot_start_lets_the_bot_in_unchecked() -> None:
    check, clock, _ = made()
    with pytest.raises(EntryCheckRunning):
        check.admit(bot("b"))
    [account] = check.due()
    check.unavailable(account, "no such file")
    [told] = check.sweep(clock.now)
    assert isinstance(told, Send) and told.message["status"] == "unchecked"
    check.admit(bot("b"))
    assert "b" not in check.results  # nothing stored: checked at the next start that can


def test_only_the_examiner_reports_and_a_report_is_bounded() -> None:
    check, _, examiner = made()
    with pytest.raises(EntryCheckRunning):
        check.admit(bot("b"))
    check.due()
    with pytest.raises(NotExaminer):
        check.certified(bot("b"), {"examinee": "b", "checks": checks()})
    too_many = [{"name": f"c{i}", "passed": True} for i in range(entry.MAX_CHECKS + 1)]
    with pytest.raises(Exception, match="at most"):
        check.certified(examiner, {"examinee": "b", "checks": too_many})
    with pytest.raises(Exception, match="name"):
        check.certified(examiner, {"examinee": "b", "checks": [{"name": "", "passed": True}]})


async def test_the_examiner_reports_every_check_even_when_a_bot_stalls_them_all() -> None:
    async def stalled() -> str:
        await asyncio.Event().wait()  # a check that never ends
        return "never"

    checks = [(name, stalled) for name in ("gomoku", "clock", "position")]
    outcomes = await within(checks, 0.2, time.monotonic() + 0.3)
    assert [(o.name, o.passed) for o in outcomes] == [
        ("gomoku", False), ("clock", False), ("position", False)
    ]  # fmt: skip
    assert "unfinished after 0.2 s" in outcomes[0].detail
    assert "time ran out" in outcomes[2].detail
