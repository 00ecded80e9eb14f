"""The operator's recurring events from ``mnk-server --events FILE`` (TOML or JSON) and
``--event SPEC``, read and checked at start: a bad one stops the start with one line."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from server.core.tournament.schedule import Schedule, ScheduleError, parse_spec, schedules_of

#: What ``--help`` says of the two options (the README and docs/TOURNAMENTS.md say more).
SPEC_HELP = (
    "a recurring event, e.g. 'name=Hourly blitz,game=gomoku,format=arena,clock=3+2,"
    "every=1h,duration=30m,rated': keys name, game, format, every (required), clock (M+S or "
    "none), at (offset from midnight UTC, e.g. 02:00), opens (how long before the start it "
    "takes entrants, 10m), duration, rounds, games_per_pair, max_players, rated; repeatable"
)
FILE_HELP = "recurring events from a TOML file ([[event]] tables) or JSON (a list of them)"


def tables_in(path: Path) -> list[Mapping[str, Any]]:
    """The event tables of a TOML (``[[event]]``) or JSON (a list, or ``{"event": [...]}``)
    file (ScheduleError: unreadable, not parsed, or not a list of tables)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScheduleError(exc.strerror or str(exc)) from None
    try:
        found: Any = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise ScheduleError(str(exc).splitlines()[0]) from None
    if isinstance(found, Mapping):
        unknown = [k for k in found if k != "event"]
        if unknown:
            raise ScheduleError(f"unknown key {str(unknown[0])[:40]!r}: events are [[event]]")
        found = found.get("event", [])
    if not isinstance(found, list) or not all(isinstance(t, Mapping) for t in found):
        raise ScheduleError("events are a list of tables ([[event]] in TOML)")
    return found


def load_schedules(files: list[Path], specs: list[str]) -> list[Schedule]:
    """Every schedule of ``--events`` files and ``--event`` specs, checked (SystemExit with a
    one-line reason if one is bad)."""
    tables: list[Mapping[str, Any]] = []
    for path in files:
        try:
            tables += tables_in(path)
        except ScheduleError as exc:
            raise SystemExit(f"mnk-server: --events {path}: {exc}") from None
    try:
        for spec in specs:
            tables.append(parse_spec(spec))
        return schedules_of(tables)
    except ScheduleError as exc:
        raise SystemExit(f"mnk-server: scheduled events: {exc}") from None
