"""The operator's recurring events on a real server process: ``--event`` opens the next
occurrence ahead, a kill -9 and a restart keep that one occurrence (not a second), it starts on
its minute with the players who entered; a bad ``--events`` file stops the start in one line."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from support.clients import RawClient
from support.servers import ServerProcess, second_server
from support.waiting import TIMEOUT, until_answered

NAME = "Every minute"
SPEC = f"name={NAME},game=tictactoe,format=arena,clock=none,every=1m,opens=1m,duration=30s"


@pytest.fixture
async def scheduled(db: str) -> AsyncIterator[ServerProcess]:
    """A server process that runs the every-minute arena (killed after the test)."""
    server = ServerProcess(db, extra=("--event", SPEC))
    yield server
    if server.proc is not None and server.proc.poll() is None:
        server.kill()


async def occurrences(client: RawClient) -> list[dict[str, Any]]:
    """The server's events of the schedule, by start, once there is one (the first sweep
    after the start opens it)."""
    found: list[dict[str, Any]] = []

    async def listed() -> bool:
        reply = await client.request(type="list_tournaments", limit=100)
        mine = [t for t in reply["tournaments"] if t["schedule"] == NAME]
        found[:] = sorted(mine, key=lambda t: t["starts_at"])
        return bool(found)

    await until_answered(listed)
    return found


@pytest.mark.slow
async def test_an_occurrence_opens_ahead_survives_a_kill_once_and_starts_on_time(
    scheduled: ServerProcess,
) -> None:
    await scheduled.start()
    ann = await scheduled.client("ann")
    [first] = await occurrences(ann)  # opened by the first sweep: the minute is within opens
    assert first["status"] == "open" and first["creator"] is None
    assert first["starts_at"] % 60 == 0 and first["name"] == NAME
    await ann.request(type="join_tournament", tournament=first["tournament"])  # listed for good
    scheduled.kill()
    await scheduled.start()
    ann, bob = await scheduled.client("ann"), await scheduled.client("bob")
    found = await occurrences(ann)
    assert [t["tournament"] for t in found if t["starts_at"] == first["starts_at"]] == [
        first["tournament"]
    ], "the restart did not open the occurrence again"
    assert len({t["starts_at"] for t in found}) == len(found)
    event = found[-1]  # the minute may have turned during the restart: the newest is open
    assert event["status"] == "open"
    for client in (ann, bob):
        await client.request(type="join_tournament", tournament=event["tournament"])
    joined = await ann.expect("joined", timeout=60 + TIMEOUT, tournament=event["tournament"])
    assert joined["tournament"] == event["tournament"]
    started = await ann.request(type="get_tournament", tournament=event["tournament"])
    assert started["status"] == "running"
    assert 0 <= started["started_at"] - event["starts_at"] < 2.5, "started on its minute"


def test_a_bad_events_file_stops_the_start_with_one_line(db: str, tmp_path: Path) -> None:
    path = tmp_path / "events.toml"
    path.write_text('[[event]]\nname = "Nightly"\ngame = "gomoku"\nformat = "cup"\nevery = "1d"\n')
    done = second_server(db, "--events", str(path))
    assert done.returncode != 0
    assert done.stderr.strip().splitlines() == [
        "mnk-server: scheduled events: event 'Nightly': game must be one of tictactoe, gomoku, "
        "gomoku-standard, renju; format one of "
        "('round_robin', 'swiss', 'arena', 'gauntlet', 'match')"
    ]
