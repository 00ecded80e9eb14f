"""The entry check a bot account passes before its first rated event (docs/PROTOCOL.md,
"The entry check").

The tournament desk asks :meth:`EntryCheck.admit` when a bot enters a rated event. A bot never
checked is queued; the shell launches the server's examiner process for it (``mnk-bot examine``,
like the built-in bots: the server imports no bot code) and meanwhile ``join_tournament`` gets
``entry_check_running``. The examiner plays the battery against the bot over the wire and
reports it with ``certified``, which only the examiner's key may send; the result is journaled
(one row per account, so a restart keeps it: the check runs once per bot) and the bot is told
with an ``entry_check`` push, after which it joins again. A failed bot is refused
(``entry_check_failed``, naming the checks) until :data:`RETRY_AFTER` has passed. Without an
examiner (a server with ``--no-bots``, or one whose launch failed) bots enter unchecked, logged.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from typing import Any

from protocol.errors import BadMessage, Busy, EntryCheckFailed, EntryCheckRunning, NotExaminer
from protocol.wire import Message
from server.core.game.members import Send
from server.core.journal.recovery import Journal
from server.core.journal.rows import EntryCheckRow
from server.core.outputs import Out, Reply
from server.core.players.players import Player

log = logging.getLogger("mnk.entry")

#: Examinations run at once (each a process and a few rooms), and bots waiting for one.
MAX_RUNNING = 2
MAX_WAITING = 32
#: Seconds an examination may take before it is given up (the examiner is stopped then too).
RUN_TIMEOUT = 300.0
#: Seconds before a bot that failed (or whose examination came to nothing) is examined again.
RETRY_AFTER = 3600.0
UNFINISHED_RETRY = 600.0
#: A ``certified`` report: checks, and the characters of a check's name and detail.
MAX_CHECKS = 16
MAX_NAME = 32
MAX_DETAIL = 200


class EntryCheck:
    """Every bot account's entry check: results, the queue, the runs under way."""

    def __init__(self, journal: Journal, clock: Callable[[], float]) -> None:
        self.journal, self.clock = journal, clock
        #: The examiner's key name (None: no examiner, bots enter unchecked).
        self.examiner: str | None = None
        #: Each account's latest result (journaled), and unfinished runs' (in memory only).
        self.results: dict[str, EntryCheckRow] = {}
        self._unfinished: dict[str, float] = {}
        self._waiting: deque[str] = deque()
        self._running: dict[str, float] = {}
        #: Accounts let in unchecked because their examiner could not start.
        self._waived: set[str] = set()
        #: Each account's player id, to tell it the outcome; the pushes not yet sent.
        self._pids: dict[str, str] = {}
        self._notices: list[Out] = []
        self._logged: set[str] = set()

    def enable(self, examiner: str | None) -> None:
        """The examiner's key name (the shell made the key), or None: checks are off."""
        self.examiner = examiner

    def restore(self, rows: tuple[EntryCheckRow, ...]) -> None:
        """The results from the store after a restart."""
        for row in rows:
            self.results[row.account] = row

    # -- the desk's port ---------------------------------------------------------------------

    def admit(self, player: Player) -> None:
        """Let the bot ``player`` into a rated event, or raise why not yet (queueing its
        check when it has none)."""
        account = player.account
        if account is None or player.kind != "bot" or account == self.examiner:
            return
        if self.examiner is None or account in self._waived:
            if account not in self._logged:
                self._logged.add(account)
                log.warning(
                    "no entry check available: bot %s enters rated events unchecked", account
                )
            return
        row = self.results.get(account)
        if row is not None and row.passed:
            return
        if account in self._running or account in self._waiting:
            raise EntryCheckRunning("the server is checking this bot: join again once told")
        now = self.clock()
        if row is not None and now - row.at < RETRY_AFTER:
            minutes = (RETRY_AFTER - (now - row.at)) / 60
            raise EntryCheckFailed(
                f"this bot failed its entry check ({', '.join(row.failed)}); checked again "
                f"in {minutes:.0f} min"
            )
        if now - self._unfinished.get(account, -UNFINISHED_RETRY) < UNFINISHED_RETRY:
            raise EntryCheckFailed("this bot's entry check did not finish: try again later")
        if len(self._waiting) >= MAX_WAITING:
            raise Busy("too many bots wait for their entry check: try again later")
        self._waiting.append(account)
        self._pids[account] = player.pid
        log.info("entry check of bot %s queued", account)
        raise EntryCheckRunning(
            "a bot's first rated event: the server checks it first (a few seconds); an "
            "entry_check message tells the outcome, then join again"
        )

    # -- the shell's port ----------------------------------------------------------------------

    def due(self) -> list[str]:
        """The accounts whose examiner to launch now (each is running from here on)."""
        now, started = self.clock(), []
        while self._waiting and len(self._running) < MAX_RUNNING:
            account = self._waiting.popleft()
            self._running[account] = now
            started.append(account)
        return started

    def unavailable(self, account: str, why: str) -> None:
        """The examiner of ``account`` could not start: the bot enters unchecked (logged)."""
        if self._running.pop(account, None) is None:
            return
        log.warning("entry check of bot %s could not start (%s): it enters unchecked", account, why)
        self._waived.add(account)
        self._tell(account, {"status": "unchecked", "failed": [], "checks": []})

    def exited(self, account: str) -> None:
        """The examiner of ``account`` ended: without a report the run came to nothing."""
        if self._running.pop(account, None) is not None:
            self._give_up(account, "the examiner ended without a report")

    def sweep(self, now: float) -> list[Out]:
        """Give up runs past :data:`RUN_TIMEOUT`; the pushes due."""
        for account, since in list(self._running.items()):
            if now - since >= RUN_TIMEOUT:
                del self._running[account]
                self._give_up(account, f"no report in {RUN_TIMEOUT:.0f} s")
        out, self._notices = self._notices, []
        return out

    def running(self) -> list[str]:
        """The accounts being examined now (the shell stops the others' examiners)."""
        return list(self._running)

    # -- the examiner's request ----------------------------------------------------------------

    def handlers(self) -> dict[str, Callable[[Player, Message], list[Out]]]:
        """The requests handled here, by type."""
        return {"certified": self.certified}

    def certified(self, player: Player, msg: Message) -> list[Out]:
        """The examiner's report on one bot: journaled, and the bot told."""
        if self.examiner is None or player.kind != "bot" or player.account != self.examiner:
            raise NotExaminer("only the server's examiner reports entry checks")
        account = msg["examinee"]
        if account not in self._running:
            raise NotExaminer(f"no entry check of {account[:40]!r} is running")
        checks = read_checks(msg["checks"])
        failed = tuple(c["name"] for c in checks if not c["passed"])
        passed = bool(checks) and not failed
        old = self.results.get(account)
        now = self.clock()
        row = EntryCheckRow(account, passed, failed, now, (old.runs if old else 0) + 1)
        del self._running[account]
        self.results[account] = row
        self.journal.record(row)
        log.info("entry check of bot %s: %s", account, "passed" if passed else f"failed {failed}")
        news = {"status": "passed" if passed else "failed", "failed": list(failed)}
        self._tell(account, {**news, "checks": checks})
        return [Reply({"type": "entry_check", "bot": account, **news, "checks": checks})]

    # -- helpers ---------------------------------------------------------------------------------

    def _give_up(self, account: str, why: str) -> None:
        """A run of ``account`` came to nothing: it may start again after 10 minutes."""
        log.warning("entry check of bot %s came to nothing: %s", account, why)
        self._unfinished[account] = self.clock()
        self._tell(account, {"status": "unfinished", "failed": [], "checks": []})

    def _tell(self, account: str, news: dict[str, Any]) -> None:
        """Push ``news`` to the bot that asked for the check (at the next sweep)."""
        pid = self._pids.pop(account, None)
        if pid is not None:
            self._notices.append(Send((pid,), {"type": "entry_check", "bot": account, **news}))


def read_checks(checks: list[Any]) -> list[dict[str, Any]]:
    """A report's checks, each ``{"name", "passed", "detail"}``, bounded (BadMessage)."""
    if len(checks) > MAX_CHECKS:
        raise BadMessage(f"certified: at most {MAX_CHECKS} checks")
    out = []
    for check in checks:
        if not isinstance(check, dict):
            raise BadMessage("certified: each check is a map")
        name, passed, detail = check.get("name"), check.get("passed"), check.get("detail", "")
        if not isinstance(name, str) or not 0 < len(name) <= MAX_NAME:
            raise BadMessage(f"certified: a check's name is 1..{MAX_NAME} characters")
        if not isinstance(passed, bool) or not isinstance(detail, str):
            raise BadMessage("certified: a check's passed is a bool, its detail a string")
        out.append({"name": name, "passed": passed, "detail": detail[:MAX_DETAIL]})
    return out
