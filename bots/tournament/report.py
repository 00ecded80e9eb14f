"""What the director prints: a live progress bar with standings (rich) or one line per game,
and the final tables (standings with Elo, LOS, crosstable, faults, SPRT)."""

from __future__ import annotations

import sys
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    Task,
    TextColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from bots.tournament.referee import Played
from bots.tournament.results import FAULTS, Standing


def standings_table(rows: list[dict[str, Any]], title: str = "Standings") -> Table:
    """Rank, name, games, W/D/L, score, Elo ± error, from results.json ``standings`` rows."""
    table = Table(title=title)
    for col in ("#", "name", "games", "W", "D", "L", "score", "score %", "Elo", "± 95%"):
        table.add_column(col, justify="left" if col == "name" else "right")
    for rank, s in enumerate(rows, 1):
        played = s["games"] + s.get("byes", 0)  # a swiss bye on the server's event: 1 point
        pct = f"{100 * s['score'] / played:.1f}" if played else "-"
        table.add_row(
            str(rank),
            s["name"],
            str(s["games"]),
            str(s["wins"]),
            str(s["draws"]),
            str(s["losses"]),
            f"{s['score']:g}",
            pct,
            f"{s['elo']:+.1f}",
            f"{s['elo_error']:.1f}",
        )
    return table


def los_table(rows: list[dict[str, Any]]) -> Table:
    """Likelihood of superiority of each bot over the next one down."""
    table = Table(title="Likelihood of superiority (neighbours)")
    for col in ("bot", "over", "LOS"):
        table.add_column(col, justify="right" if col == "LOS" else "left")
    for r in rows:
        table.add_row(r["above"], r["below"], "-" if r["los"] is None else f"{100 * r['los']:.1f}%")
    return table


def cross_table(names: list[str], cross: dict[str, dict[str, Any]]) -> Table:
    """Each row bot's wins-draws-losses against each column bot."""
    table = Table(title="Crosstable (row's W-D-L against column)")
    table.add_column("")
    for n in names:
        table.add_column(n, justify="center")
    for a in names:
        cells = []
        for b in names:
            r = cross.get(a, {}).get(b)
            cells.append("·" if a == b or r is None else f"{r['wins']}-{r['draws']}-{r['losses']}")
        table.add_row(a, *cells)
    return table


def fault_table(rows: list[dict[str, Any]], restarts: dict[str, int]) -> Table:
    """Games lost by each fault kind, and process restarts."""
    table = Table(title="Faults (games lost)")
    table.add_column("bot")
    for col in (*FAULTS, "restarts"):
        table.add_column(col, justify="right")
    for s in rows:
        counts = [str(s["faults"].get(f, 0)) for f in FAULTS]
        table.add_row(s["name"], *counts, str(restarts.get(s["name"], 0)))
    return table


def sprt_line(sprt: dict[str, Any]) -> str:
    """The SPRT's state in one line."""
    return (
        f"SPRT elo0={sprt['elo0']:g} elo1={sprt['elo1']:g} alpha={sprt['alpha']:g} "
        f"beta={sprt['beta']:g}: W-D-L {sprt['wins']}-{sprt['draws']}-{sprt['losses']}, "
        f"LLR {sprt['llr']:+.3f} [{sprt['lower']:+.3f}, {sprt['upper']:+.3f}] -> {sprt['verdict']}"
    )


def print_final(summary: dict[str, Any], console: Console | None = None) -> None:
    """Every final table."""
    console = console or Console(width=None if sys.stdout.isatty() else 120)
    rows = summary["standings"]
    names = [s["name"] for s in rows]
    console.print(standings_table(rows))
    if summary["los"]:
        console.print(los_table(summary["los"]))
    console.print(cross_table(names, summary["crosstable"]))
    console.print(fault_table(rows, summary.get("restarts", {})))
    if "sprt" in summary:
        console.print(sprt_line(summary["sprt"]))
    if summary.get("unplayed"):
        console.print(f"unplayed (resume to retry): {', '.join(summary['unplayed'])}")


def describe(played: Played) -> str:
    """One finished game as a line."""
    g = played.result
    result = {0: "1-0", 1: "0-1", None: "½-½"}[g.winner]
    fault = f" ({g.fault})" if g.fault else ""
    return f"{g.players[0]} - {g.players[1]} {result} {g.reason}{fault} [{g.key}]"


class PlainReporter:
    """One line per finished game, for logs and pipes."""

    def __init__(self, stream: Any = None) -> None:
        self.stream = stream or sys.stdout
        self.total = 0

    def start(self, total: int, done: int, table: list[Standing]) -> None:
        """Say what is left."""
        print(f"tournament: {done}/{total} games already played", file=self.stream, flush=True)
        self.total = total

    def game(self, played: Played, table: list[Standing], done: int, extra: str) -> None:
        """One line: progress, the game, the leader."""
        lead = table[0]
        line = f"[{done}/{self.total}] {describe(played)}; leader {lead.name} {lead.score:g}"
        print(f"{line} {extra}".rstrip(), file=self.stream, flush=True)

    def finish(self) -> None:
        """Nothing to tidy."""


class Remaining(TimeRemainingColumn):
    """Time left, or "after a game" until this run has finished one to time (a resumed run's
    earlier games say nothing of this machine's speed now)."""

    def render(self, task: Task) -> Text:
        """The time left, once there is a speed to work it out from."""
        if task.time_remaining is None and not task.finished:
            return Text("after a game", style="progress.remaining")
        return super().render(task)


class RichReporter:
    """A progress bar with ETA and the live standings, redrawn in place."""

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console()
        self.progress = Progress(
            TextColumn("[bold]games"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("ETA"),
            Remaining(),
            console=self.console,
        )
        self.task = self.progress.add_task("games", total=1)
        self.live: Live | None = None
        self.last = ""

    def start(self, total: int, done: int, table: list[Standing]) -> None:
        """Show the bar and, when resuming, the standings so far (not an empty table)."""
        self.progress.update(self.task, total=total, completed=done)
        self.live = Live(self._view(table), console=self.console, refresh_per_second=4)
        self.live.start()

    def game(self, played: Played, table: list[Standing], done: int, extra: str) -> None:
        """Advance the bar and redraw the standings."""
        self.progress.update(self.task, completed=done)
        self.last = f"{describe(played)} {extra}".rstrip()
        if self.live is not None:
            self.live.update(self._view(table))

    def finish(self) -> None:
        """Leave the last frame on screen."""
        if self.live is not None:
            self.live.stop()

    def _view(self, table: list[Standing]) -> Group:
        rows = [s.to_json() for s in table]
        return Group(self.progress, standings_table(rows, "Live standings"), self.last)


def make_reporter(force_plain: bool = False) -> PlainReporter | RichReporter:
    """rich when stdout is a terminal, plain lines otherwise."""
    if force_plain or not sys.stdout.isatty():
        return PlainReporter()
    return RichReporter()
