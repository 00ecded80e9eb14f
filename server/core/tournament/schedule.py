"""The operator's recurring events (``mnk-server --event SPEC`` and ``--events FILE``): each
schedule names an event (its ``create_tournament`` fields) and when it recurs; the desk opens
each occurrence ``opens`` seconds before its start, from its sweep, once per (schedule, start).

A schedule's starts are ``at + k * every`` seconds after the Unix epoch (UTC): ``every=1h``
starts on each hour, ``every=1d,at=2h`` at 02:00 UTC every night. Pure: no clock, no files
(the command line reads the file and hands its tables here).
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from protocol.errors import ArenaError
from server.core.tournament.event import Settings, read_settings

#: Bounds of a schedule: its period, and how long before a start its event opens.
MIN_EVERY_S, MAX_EVERY_S = 60.0, 7 * 86400.0
DEFAULT_OPENS_S = 600.0
#: Schedules one server takes.
MAX_SCHEDULES = 32
#: The keys of a schedule (a SPEC's ``key=value`` or a file's table); ``rated`` may be bare.
KEYS = (
    "name", "game", "format", "clock", "every", "at", "opens", "duration", "rounds",
    "games_per_pair", "max_players", "rated", "seeds", "max_games",
)  # fmt: skip
_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_SPAN = re.compile(r"(\d+(?:\.\d+)?)([smhd])")


class ScheduleError(ValueError):
    """A schedule the server cannot run (its one-line reason)."""


@dataclass(frozen=True, slots=True)
class Schedule:
    """A recurring event: its settings (checked), its period, offset and how early it opens."""

    settings: Settings
    every: float
    at: float = 0.0
    opens: float = DEFAULT_OPENS_S

    @property
    def name(self) -> str:
        """The schedule's name: its events' name, and half of each occurrence's key."""
        return self.settings.name

    def next_start(self, now: float) -> float:
        """The first start strictly after ``now``."""
        k = math.floor((now - self.at) / self.every) + 1
        return self.at + k * self.every


def span(value: Any, key: str) -> float:
    """Seconds from ``90``, ``"90s"``, ``"30m"``, ``"1h30m"``, ``"1d"`` (ScheduleError if not)."""
    if isinstance(value, bool):
        raise ScheduleError(f"{key}: {value!r} is not a duration")
    if isinstance(value, int | float):
        return float(value)
    text = str(value).strip().lower()
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return float(text)
    if re.fullmatch(r"(\d{1,2}):(\d{2})", text):  # at=02:30: a time of day (UTC)
        hours, minutes = text.split(":")
        return int(hours) * 3600.0 + int(minutes) * 60.0
    if not text or _SPAN.sub("", text):
        raise ScheduleError(f"{key}: {value!r} is not a duration (e.g. 90s, 30m, 1h30m, 1d)")
    return sum(float(n) * _UNITS[u] for n, u in _SPAN.findall(text))


def clock_of(value: Any) -> dict[str, float] | None:
    """A clock from ``"3+2"`` (3 minutes a side, 2 s a move), a table with ``initial_s`` and
    ``increment_s``, or ``"none"`` (untimed)."""
    if value is None or str(value).strip().lower() in ("none", "untimed", ""):
        return None
    if isinstance(value, Mapping):
        return dict(value)
    found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*\+\s*(\d+(?:\.\d+)?)\s*", str(value))
    if found is None:
        raise ScheduleError(f"clock: {value!r} is not minutes+seconds (e.g. 3+2) nor none")
    return {"initial_s": float(found[1]) * 60.0, "increment_s": float(found[2])}


def parse_spec(text: str) -> dict[str, Any]:
    """A SPEC ``name=Hourly blitz,game=gomoku,format=arena,every=1h,rated`` as a table."""
    table: dict[str, Any] = {}
    for part in text.split(","):
        key, sep, value = part.partition("=")
        key = key.strip().replace("-", "_")
        if not key:
            continue
        if key in table:
            raise ScheduleError(f"{key} given twice")
        table[key] = value.strip() if sep else True
    return table


def _whole(value: Any, key: str) -> int | None:
    if value is None:
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ScheduleError(f"{key}: {value!r} is not a whole number") from None
    return number


def _flag(value: Any) -> bool:
    if isinstance(value, str):
        if value.lower() not in ("true", "yes", "1", "false", "no", "0"):
            raise ScheduleError(f"rated: {value!r} is not true or false")
        return value.lower() in ("true", "yes", "1")
    return bool(value)


def schedule_of(table: Mapping[str, Any]) -> Schedule:
    """A schedule from a SPEC's or a file's table, checked as ``create_tournament`` checks an
    event (ScheduleError with a one-line reason)."""
    unknown = [k for k in table if k not in KEYS]
    if unknown:
        raise ScheduleError(f"unknown key {str(unknown[0])[:40]!r}; keys: {', '.join(KEYS)}")
    for key in ("name", "game", "format", "every"):
        if key not in table:
            raise ScheduleError(f"{key} is required")
    every = span(table["every"], "every")
    if not MIN_EVERY_S <= every <= MAX_EVERY_S:
        raise ScheduleError("every must be between 1m and 7d")
    at = span(table.get("at", 0), "at")
    opens = span(table.get("opens", DEFAULT_OPENS_S), "opens")
    if not 0 <= opens <= every:
        raise ScheduleError("opens must be between 0 and every")
    msg: dict[str, Any] = {
        "name": str(table["name"]),
        "game": str(table["game"]),
        "format": str(table["format"]),
        "clock": clock_of(table.get("clock")),
        "rated": _flag(table.get("rated", False)),
    }
    if "duration" in table:
        msg["duration_s"] = span(table["duration"], "duration")
    for key in ("rounds", "games_per_pair", "max_players", "seeds", "max_games"):
        if key in table:
            msg[key] = _whole(table[key], key)
    try:
        settings = read_settings(msg)
    except ArenaError as exc:
        raise ScheduleError(exc.message) from None
    return Schedule(settings, every, at % every, opens)


def schedules_of(tables: list[Mapping[str, Any]]) -> list[Schedule]:
    """Checked schedules, each name once (ScheduleError names the one at fault)."""
    if len(tables) > MAX_SCHEDULES:
        raise ScheduleError(f"at most {MAX_SCHEDULES} scheduled events")
    found: list[Schedule] = []
    for n, table in enumerate(tables, 1):
        label = str(table.get("name", f"#{n}"))[:40]
        try:
            schedule = schedule_of(table)
        except ScheduleError as exc:
            raise ScheduleError(f"event {label!r}: {exc}") from None
        if any(s.name == schedule.name for s in found):
            raise ScheduleError(f"event {label!r}: two scheduled events have this name")
        found.append(schedule)
    return found


class Calendar:
    """The schedules a server runs and the occurrences opened (each (name, start) once)."""

    def __init__(self) -> None:
        self.schedules: list[Schedule] = []
        self._opened: set[tuple[str, float]] = set()

    def plan(self, schedules: Iterable[Schedule]) -> None:
        """Run these schedules."""
        self.schedules = list(schedules)

    def seen(self, name: str | None, start: float | None) -> None:
        """An occurrence that exists already (a restored event's schedule and start)."""
        if name is not None and start is not None:
            self._opened.add((name, start))

    def due(self, now: float) -> list[tuple[Settings, float]]:
        """The occurrences to open now (within their ``opens`` of their start, not opened
        yet): each one's settings (naming its schedule) and start; each counted as opened."""
        found = []
        for schedule in self.schedules:
            start = schedule.next_start(now)
            key = (schedule.name, start)
            if start - now > schedule.opens or key in self._opened:
                continue
            self._opened.add(key)
            found.append((dataclasses.replace(schedule.settings, schedule=schedule.name), start))
        return found
