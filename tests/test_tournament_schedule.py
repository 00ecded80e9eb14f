"""The operator's recurring events on a fake clock: a SPEC and a file's table read and checked
(bad ones a one-line reason), each occurrence opened ahead and started on time from the sweep,
and a restart from the journal's rows that does not open the same occurrence twice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.clock import FakeClock
from support.pairing import Hub, of_type

from server.core.arena import Arena
from server.core.journal.rows import EntrantRow, PairingRow, ResultRow, Snapshot, TournamentRow
from server.core.limits import Limits
from server.core.tournament.schedule import (
    ScheduleError,
    parse_spec,
    schedule_of,
    schedules_of,
)
from server.scheduled import load_schedules

HOUR = 3600.0
#: The fake clock's start is on the hour; the tests begin 100 s past it.
T0 = 1_800_000_000.0 + 100.0
SPEC = "name=Hourly blitz,game=tictactoe,format=arena,clock=1+0,every=1h,duration=10m,opens=10m"


def test_a_spec_reads_into_a_checked_schedule() -> None:
    s = schedule_of(parse_spec(SPEC + ",rated"))
    assert s.name == "Hourly blitz" and s.every == HOUR and s.opens == 600.0 and s.at == 0.0
    assert s.settings.format == "arena" and s.settings.duration_s == 600.0
    assert s.settings.clock is not None and s.settings.clock.initial_s == 60.0
    nightly = schedule_of(
        {"name": "Nightly", "game": "gomoku", "format": "round_robin", "every": "1d",
         "at": "02:30", "clock": {"initial_s": 300, "increment_s": 3}, "games_per_pair": 2}
    )  # fmt: skip
    assert nightly.at == 2.5 * HOUR and nightly.next_start(0.0) == 2.5 * HOUR
    assert nightly.next_start(2.5 * HOUR) == 2.5 * HOUR + 86400.0  # strictly after


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("name=X,game=gomoku,format=arena", "every is required"),
        ("name=X,game=chess,format=arena,every=1h", "game must be one of"),
        ("name=X,game=gomoku,format=knockout,every=1h", "format one of"),
        ("name=X,game=gomoku,format=arena,every=1h,clock=fast", "clock: 'fast'"),
        ("name=X,game=gomoku,format=arena,every=10s", "every must be between"),
        ("name=X,game=gomoku,format=arena,every=1h,colour=red", "unknown key 'colour'"),
        ("name=X,game=gomoku,format=arena,every=1h,rated", "needs a clock"),
        ("name=X,game=gomoku,format=arena,every=1h,duration=9h", "duration_s must be"),
        ("name=X,game=gomoku,format=arena,every=soon", "every: 'soon' is not a duration"),
    ],
)
def test_a_bad_schedule_gets_a_one_line_reason(spec: str, says: str) -> None:
    with pytest.raises(ScheduleError, match=says) as caught:
        schedules_of([parse_spec(spec)])
    assert "\n" not in str(caught.value) and str(caught.value).startswith("event 'X': ")


def test_two_schedules_of_one_name_are_refused() -> None:
    with pytest.raises(ScheduleError, match="two scheduled events have this name"):
        schedules_of([parse_spec(SPEC), parse_spec(SPEC)])


def scheduled(arena: Arena) -> list[Any]:
    """The operator's scheduled events the arena holds, by start."""
    events = arena.tournaments.events.values()
    return sorted((e for e in events if e.settings.schedule), key=lambda e: e.starts_at or 0)


def test_an_occurrence_opens_ahead_and_starts_on_time() -> None:
    hub = Hub(FakeClock(T0))
    hub.arena.tournaments.calendar.plan(schedules_of([parse_spec(SPEC)]))
    hub.tick(0)
    assert scheduled(hub.arena) == [], "the next start is 58 minutes away: not open yet"
    hub.tick(HOUR - 100 - 600 - 1)
    assert scheduled(hub.arena) == []
    hub.tick(1)  # ten minutes before the hour
    [event] = scheduled(hub.arena)
    start = T0 - 100 + HOUR
    assert event.status == "open" and event.starts_at == start and event.creator is None
    assert event.summary()["schedule"] == "Hourly blitz"
    ann, bob = hub.peer("ann"), hub.peer("bob")
    for peer in (ann, bob):
        assert hub.do(peer, type="join_tournament", tournament=event.id)[0]["type"] == "tournament"
    hub.tick(599)
    assert event.status == "open" and len(scheduled(hub.arena)) == 1
    hub.tick(1)  # the hour
    assert event.status == "running" and event.started_at == start
    assert of_type(ann, "joined") and of_type(ann, "joined")[0]["tournament"] == event.id
    hub.tick(HOUR - 600)  # the next hour's occurrence opens; this one ran its ten minutes
    assert [e.starts_at for e in scheduled(hub.arena)] == [start, start + HOUR]
    assert event.status == "finished"


def test_a_restart_does_not_open_the_same_occurrence_twice() -> None:
    clock = FakeClock(T0 + HOUR - 800)  # 100 s before the next occurrence opens
    limits = Limits(full_sweep_interval=0.0)
    plan = schedules_of([parse_spec(SPEC)])
    arena = Arena(limits=limits, clock=clock, durable=True)
    arena.tournaments.calendar.plan(plan)
    clock.advance(100)
    arena.sweep()
    [event] = scheduled(arena)
    rows = [r for r in arena.drain() if isinstance(r, TournamentRow | EntrantRow | PairingRow)]
    for _ in range(2):  # a restart, and a restart of the restarted server
        again = Arena(limits=limits, clock=clock, durable=True)
        again.restore(Snapshot([], [], None, tournaments=tuple(rows)))
        again.tournaments.calendar.plan(plan)
        clock.advance(5)
        again.sweep()
        assert [e.id for e in scheduled(again)] == [event.id], "opened once"
        assert not [r for r in again.drain() if isinstance(r, TournamentRow | ResultRow)]
    clock.advance(600)
    again.sweep()  # nobody came: over, and kept in the store only (not among the 50 listed)
    assert scheduled(again) == []
    finished = [r for r in again.drain() if isinstance(r, TournamentRow)]
    assert [r.status for r in finished] == ["finished"]
    after = Arena(limits=limits, clock=clock, durable=True)
    after.restore(Snapshot([], [], None, tournaments=(*rows, *finished)))
    after.tournaments.calendar.plan(plan)
    after.sweep()
    assert scheduled(after) == [], "not listed after a restart either, nor opened again"
    assert event.starts_at is not None
    clock.advance(event.starts_at + HOUR - 600 - clock() - 1)  # 1 s before the next opens
    again.sweep()
    assert scheduled(again) == [], "the occurrence was not opened again; the next is not due"
    clock.advance(1)
    again.sweep()
    assert [e.starts_at for e in scheduled(again)] == [event.starts_at + HOUR]


def test_an_events_file_in_toml_or_json_and_the_specs_together(tmp_path: Path) -> None:
    toml = tmp_path / "events.toml"
    toml.write_text(
        '[[event]]\nname = "Nightly bots"\ngame = "gomoku"\nformat = "round_robin"\n'
        'clock = { initial_s = 300, increment_s = 3 }\nevery = "1d"\nat = "02:00"\n'
        'opens = "1h"\ngames_per_pair = 2\n'
    )
    js = tmp_path / "events.json"
    js.write_text('[{"name": "Swiss", "game": "renju", "format": "swiss", "every": 3600}]')
    found = load_schedules([toml, js], [SPEC])
    assert [s.name for s in found] == ["Nightly bots", "Swiss", "Hourly blitz"]
    assert found[0].at == 7200.0 and found[0].opens == 3600.0 and found[1].every == HOUR
    bad = tmp_path / "bad.toml"
    bad.write_text("[[event]\n")
    with pytest.raises(SystemExit, match=r"^mnk-server: --events .*bad.toml: ") as caught:
        load_schedules([bad], [])
    assert "\n" not in str(caught.value)
    with pytest.raises(SystemExit, match="event 'Hourly blitz': two scheduled events"):
        load_schedules([], [SPEC, SPEC])
