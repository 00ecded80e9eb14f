"""The server's archive of an event's games (``server/shell/archive.py``) on a fake store: built
on a thread of its own, never on the loop; bounded in records (the rest named in
``results.json``); a game not in the history left out and named; a finished event's archive
kept; too many asked for from one address refused."""

from __future__ import annotations

import asyncio
import io
import json
import threading
import zipfile
from http import HTTPStatus
from typing import Any

import pytest

from protocol.errors import NoSuchGame
from server.shell import archive
from server.shell.archive import ARCHIVE_BURST, GameArchives


def event(status: str, games: int) -> dict[str, Any]:
    """An event's results with ``games`` finished games between two entrants."""
    return {
        "type": "tournament", "tournament": "T1", "status": status,
        "entrants": [{"id": "p1", "name": "ann lee"}, {"id": "p2", "name": "bo/b"}],
        "standings": [],
        "games": [
            {"key": f"{n}.1", "players": ["p1", "p2"], "game_id": f"g{n}",
             "result": {"winner": 0, "void": False}}
            for n in range(1, games + 1)
        ] + [{"key": "x.1", "players": ["p2", "p1"], "game_id": "gx", "result": None}],
    }  # fmt: skip


class Store:
    """The history's ``get_game`` (psq), noting the threads it is read on; ``missing`` ids
    are not there."""

    def __init__(self, missing: frozenset[str] = frozenset()) -> None:
        self.missing, self.reads = missing, 0
        self.threads: set[str] = set()

    def get_game(self, game_id: str, fmt: str = "json") -> dict[str, Any]:
        self.threads.add(threading.current_thread().name)
        self.reads += 1
        if game_id in self.missing:
            raise NoSuchGame(f"no game {game_id}")
        return {"type": "game", "psq": f"Piskvorky 3x3, 0:0, 1\n1,1,0\n-1\n{game_id}\n"}


def unzip(body: bytes) -> tuple[list[str], dict[str, Any], zipfile.ZipFile]:
    """The archive's .psq names, its results.json and the archive."""
    made = zipfile.ZipFile(io.BytesIO(body))
    assert made.testzip() is None
    names = [n for n in made.namelist() if n.endswith(".psq")]
    return names, json.loads(made.read("results.json")), made


def test_an_archive_is_built_off_the_loop_bounded_and_names_what_it_left_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(archive, "MAX_GAMES", 3)
    store = Store(missing=frozenset({"g2"}))
    results = event("running", 4)

    async def fetch() -> Any:
        archives = GameArchives(lambda tid: results if tid == "T1" else None, store)
        try:
            return await archives.games("T1", "10.0.0.1"), await archives.games("T2", None)
        finally:
            archives.close()

    made, missing = asyncio.run(fetch())
    assert missing.status == HTTPStatus.NOT_FOUND
    assert made.status == HTTPStatus.OK and made.filename == "tournament-T1-games.zip"
    names, summary, zipped = unzip(made.body)
    assert names == ["1.1_ann_lee_vs_bo_b.psq", "3.1_ann_lee_vs_bo_b.psq"]  # safe names
    assert zipped.read(names[1]).decode().endswith("g3\n")  # as the history gives it
    assert summary["archived"] == 2 and summary["left_out"] == ["4.1", "2.1"]
    assert store.threads == {"mnk-archive_0"}  # never the loop's thread


def test_a_finished_events_archive_is_kept_and_an_address_is_rate_limited() -> None:
    store = Store()
    done, running = event("finished", 2), event("running", 1) | {"tournament": "T2"}

    async def fetch() -> tuple[list[Any], list[Any], Any]:
        found = {"T1": done, "T2": running}
        archives = GameArchives(found.get, store)
        try:
            kept = [await archives.games("T1", "a") for _ in range(int(ARCHIVE_BURST) + 2)]
            built = [await archives.games("T2", "a") for _ in range(int(ARCHIVE_BURST))]
            return kept, built, await archives.games("T2", "b")
        finally:
            archives.close()

    kept, built, other = asyncio.run(fetch())
    assert {r.status for r in kept} == {HTTPStatus.OK} and len({r.body for r in kept}) == 1
    # T1's archive took one of the address's tokens, once; a running event's is built each time
    assert [r.status for r in built] == [HTTPStatus.OK] * (int(ARCHIVE_BURST) - 1) + [
        HTTPStatus.TOO_MANY_REQUESTS
    ]
    assert other.status == HTTPStatus.OK  # another address has tokens of its own
    assert store.reads == 2 + int(ARCHIVE_BURST) - 1 + 1
