"""The director: plays the schedule through a :class:`GamePlayer`, C games at once, and keeps
the journal, the ``.psq`` records and results.json up to date after every game."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from bots.tournament.accounting import GameLost
from bots.tournament.openings import Opening
from bots.tournament.referee import GamePlayer, Played, ProtocolError
from bots.tournament.results import (
    GameResult,
    Standing,
    append_journal,
    crosstable,
    head_to_head,
    neighbour_los,
    read_journal,
    standings,
    write_json_atomic,
)
from bots.tournament.schedule import (
    GameSpec,
    default_swiss_rounds,
    fixed_schedule,
    pair_games,
    sprt_games,
    swiss_pairs,
)
from bots.tournament.stats import Sprt
from protocol.records import PsqRecord, write_psq
from protocol.rules import Move, Variant

log = logging.getLogger("mnk.tournament")

JOURNAL = "journal.jsonl"
RESULTS = "results.json"
#: Errors that mean the tournament itself is misconfigured: stop instead of retrying.
FATAL_CODES = {"bad_options", "bad_message", "unknown_type"}


@dataclass(frozen=True)
class Plan:
    """What to play: the bots, the format and everything that fixes the schedule."""

    names: list[str]
    fmt: str = "round-robin"
    openings: list[Opening] = field(default_factory=lambda: [()])
    repeats: int = 1
    rounds: int | None = None
    seed: int = 0
    sprt: Sprt | None = None
    sprt_max_pairs: int = 500

    @property
    def swiss_rounds(self) -> int:
        """Rounds of a swiss tournament."""
        return self.rounds or default_swiss_rounds(len(self.names))

    def total_games(self) -> int:
        """How many games a complete run plays (the SPRT cap for an SPRT match)."""
        if self.sprt is not None:
            return 2 * self.sprt_max_pairs
        per_pairing = 2 * self.repeats * len(self.openings)
        if self.fmt == "swiss":
            return self.swiss_rounds * (len(self.names) // 2) * per_pairing
        rounds = self.rounds or 1
        return len(fixed_schedule(self.fmt, self.names, self.openings, self.repeats, rounds))


class Reporter(Protocol):
    """Live progress: told when the run starts and after every game."""

    def start(self, total: int, done: int, table: list[Standing]) -> None:
        """The run starts with ``done`` of ``total`` games already finished (a resumed run's
        standings so far in ``table``)."""

    def game(self, played: Played, table: list[Standing], done: int, extra: str) -> None:
        """A game finished."""

    def finish(self) -> None:
        """The run is over (or interrupted)."""


class Director:
    """Plays a :class:`Plan`; resumable from the journal in ``out``."""

    def __init__(
        self,
        plan: Plan,
        player: GamePlayer,
        out: Path,
        variant: Variant,
        reporter: Reporter,
        concurrency: int = 1,
        config: dict[str, Any] | None = None,
        attempts: int = 3,
    ) -> None:
        self.plan, self.player, self.out, self.variant = plan, player, out, variant
        self.reporter, self.concurrency, self.attempts = reporter, max(1, concurrency), attempts
        self.config = config or {}
        self.journal = out / JOURNAL
        self.games_dir = out / "games"
        self.done: dict[str, GameResult] = read_journal(self.journal)
        self.order: dict[str, int] = {}
        self.unplayed: list[str] = []
        self.sprt_stop: str | None = None
        #: Set by the CLI: how many times each bot process was restarted.
        self.restarts: dict[str, int] = {}

    # -- the run ---------------------------------------------------------------------------

    async def run(self) -> dict[str, Any]:
        """Play every remaining game; returns the results.json document."""
        self.games_dir.mkdir(parents=True, exist_ok=True)
        self.reporter.start(self.plan.total_games(), len(self.done), self.table())
        try:
            for batch in self._batches():
                await self._run_batch(batch)
        finally:
            self.reporter.finish()
        summary = self.summary()
        write_json_atomic(self.out / RESULTS, summary)
        return summary

    def _batches(self) -> Iterator[Iterable[GameSpec]]:
        plan = self.plan
        if plan.sprt is not None:
            yield self._numbered(sprt_games(plan.names, plan.openings, plan.sprt_max_pairs))
        elif plan.fmt == "swiss":
            byes: set[str] = set()
            for r in range(1, plan.swiss_rounds + 1):
                before = [g for g in self.done.values() if g.round < r]
                scores = {s.name: s.score for s in standings(plan.names, before)}
                played = {frozenset(g.players) for g in before}
                rng = random.Random(f"swiss:{plan.seed}:{r}")
                pairs, bye = swiss_pairs(plan.names, scores, played, byes, rng)
                if bye is not None:
                    byes.add(bye)
                yield self._numbered(pair_games(pairs, plan.openings, plan.repeats, r))
        else:
            rounds = plan.rounds or 1
            yield self._numbered(
                fixed_schedule(plan.fmt, plan.names, plan.openings, plan.repeats, rounds)
            )

    def _numbered(self, specs: Iterable[GameSpec]) -> Iterator[GameSpec]:
        for spec in specs:
            self.order.setdefault(spec.key, len(self.order))
            yield spec

    async def _run_batch(self, specs: Iterable[GameSpec]) -> None:
        """Play the batch's unfinished games, ``concurrency`` at a time."""
        todo = (s for s in specs if s.key not in self.done)
        if self.plan.sprt is not None and self._sprt_verdict() is not None:
            return

        async def worker() -> None:
            while self.sprt_stop is None:
                spec = next(todo, None)
                if spec is None:
                    return
                await self._play(spec)

        workers = [asyncio.create_task(worker()) for _ in range(self.concurrency)]
        try:
            await asyncio.gather(*workers)
        finally:
            for w in workers:
                w.cancel()

    async def _play(self, spec: GameSpec) -> None:
        for attempt in range(1, self.attempts + 1):
            try:
                played = await self.player.play(spec)
                break
            except ProtocolError as exc:
                if exc.code in FATAL_CODES:
                    raise
                log.warning("game %s failed (%s), attempt %d", spec.key, exc, attempt)
            except (ConnectionError, TimeoutError, OSError) as exc:
                log.warning("game %s failed (%s), attempt %d", spec.key, exc, attempt)
            except GameLost as exc:  # it has no result and never will: play it again
                log.warning("game %s lost (%s), attempt %d", spec.key, exc, attempt)
            await asyncio.sleep(0.5 * attempt)
        else:
            self.unplayed.append(spec.key)
            return
        self._record(played)

    def _record(self, played: Played) -> None:
        """Journal the game (fsync), write its .psq and refresh results.json; a game already
        recorded is never recorded again (each scheduled game counts once)."""
        result = played.result
        if result.key in self.done:
            log.warning("game %s ended twice (room %s): the first result stands", result.key,
                        result.room)  # fmt: skip
            return
        append_journal(self.journal, result)
        self.done[result.key] = result
        psq = played.psq or self._psq(result)
        name = result.key.replace("/", "_").replace("~", "-vs-")
        (self.games_dir / f"{name}.psq").write_text(psq, encoding="utf-8")
        extra = ""
        if self.plan.sprt is not None:
            llr = self._llr()
            extra = f"LLR {llr:+.2f} [{self.plan.sprt.lower:+.2f}, {self.plan.sprt.upper:+.2f}]"
            self.sprt_stop = self.sprt_stop or self.plan.sprt.verdict(llr)
        write_json_atomic(self.out / RESULTS, self.summary())
        self.reporter.game(played, self.table(), len(self.done), extra)

    def _psq(self, result: GameResult) -> str:
        record = PsqRecord(
            width=self.variant.width,
            height=self.variant.height,
            moves=tuple(Move(x, y) for x, y in result.moves),
            players=result.players,
            winner=result.winner,
            rule=self.variant.rule,
        )
        return write_psq(record)

    # -- views -------------------------------------------------------------------------------

    def games(self) -> list[GameResult]:
        """Finished games in schedule order."""
        return sorted(self.done.values(), key=lambda g: (self.order.get(g.key, 1 << 30), g.key))

    def table(self) -> list[Standing]:
        """The standings now."""
        return standings(self.plan.names, self.done.values())

    def _llr(self) -> float:
        assert self.plan.sprt is not None
        a, b = self.plan.names
        return self.plan.sprt.llr(*head_to_head(self.done.values(), a, b))

    def _sprt_verdict(self) -> str | None:
        assert self.plan.sprt is not None
        return self.plan.sprt.verdict(self._llr())

    def summary(self) -> dict[str, Any]:
        """The results.json document."""
        games = self.games()
        table = self.table()
        doc: dict[str, Any] = {
            "tournament": self.config,
            "complete": not self.unplayed and self._complete(),
            "standings": [s.to_json() for s in table],
            "los": [
                {"above": a.name, "below": b.name, "los": None if v is None else round(v, 4)}
                for a, b, v in zip(table, table[1:], neighbour_los(table, games), strict=False)
            ],
            "crosstable": crosstable(self.plan.names, games),
            "restarts": dict(self.restarts),
            "unplayed": list(self.unplayed),
            "games": [g.to_json() for g in games],
        }
        if self.plan.sprt is not None:
            test = self.plan.sprt
            llr = self._llr()
            a, b = self.plan.names
            w, d, l = head_to_head(games, a, b)  # noqa: E741
            doc["sprt"] = test.state(w, d, l)  # protocol/sprt.py: the server's figures too
            doc["sprt"]["verdict"] = test.verdict(llr) or self.sprt_stop or "inconclusive"
        return doc

    def _complete(self) -> bool:
        if self.plan.sprt is not None:
            return self._sprt_verdict() is not None or len(self.done) >= self.plan.total_games()
        return len(self.done) >= self.plan.total_games()
