"""Every scheduled game accounted for exactly once, without a cluster: the referee watches a
room again after its link drops, reads a game that ended meanwhile from the history, replays
only a game without a result, and the director never records a game twice.

The referee runs against a real server on loopback; its bots are raw protocol clients whose
moves the test makes, so each test knows exactly which game was played.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from support.clients import RawClient
from support.waiting import until

from bots.tournament.accounting import GameLost, over_result, record_result
from bots.tournament.director import Director, Plan
from bots.tournament.link import CLOSED
from bots.tournament.referee import LocalReferee, Played, ServerReferee
from bots.tournament.report import PlainReporter
from bots.tournament.results import GameResult, read_journal
from bots.tournament.schedule import GameSpec
from protocol.connection import LinkClosed, ServerError
from protocol.variants import TICTACTOE

SPEC = GameSpec("r1/x~y", 1, ("x", "y"), 0, ())
#: x (seat 0) wins on the top row; y answers on the middle one.
LINE = [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)]


@pytest.fixture
def limits_override() -> dict[str, float]:
    """A short grace: a game whose two bots are gone ends (abandoned) within a second."""
    return {"reconnect_grace": 0.5}


def record(status: str = "over", **extra: Any) -> dict[str, Any]:
    """A ``get_game`` record of SPEC's game, as the server sends it."""
    moves = [{"x": x, "y": y, "at": 0.0, "ms": 0, "clocks": None} for x, y in LINE]
    base = {"game_id": "g1", "room": "ABC", "players": ["x", "y"], "status": status}
    return {**base, "winner": 0, "reason": "line", "fault": None, "moves": moves, **extra}


def test_a_finished_record_is_the_game_s_result_and_a_running_one_is_none() -> None:
    result = record_result(SPEC, record())
    assert result == GameResult(
        key=SPEC.key, round=1, players=("x", "y"), opening=[], moves=[list(m) for m in LINE],
        winner=0, reason="line", fault=None, game_id="g1", room="ABC",
    )  # fmt: skip
    assert record_result(SPEC, record("playing")) is None
    timeout = record_result(SPEC, record(reason="timeout", winner=1))
    assert timeout is not None and timeout.fault == "timeout" and timeout.at_fault == "x"


def test_no_result_and_another_pairing_s_record_are_lost_games() -> None:
    with pytest.raises(GameLost):
        record_result(SPEC, record(reason="abandoned", winner=None))
    with pytest.raises(GameLost):
        over_result(SPEC, "ABC", {"reason": "abandoned", "winner": None}, [], "g1")
    with pytest.raises(GameLost):
        record_result(SPEC, record(players=["y", "x"]))


# -- the director ---------------------------------------------------------------------------


class LosesFirst(LocalReferee):
    """A referee whose first play of every game ends without a result (then plays it)."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.lost: list[str] = []

    async def play(self, spec: GameSpec) -> Played:
        if spec.key not in self.lost:
            self.lost.append(spec.key)
            raise GameLost(f"{spec.key}: abandoned")
        return await super().play(spec)


def quiet() -> PlainReporter:
    return PlainReporter(open("/dev/null", "w"))


def random_bots() -> dict[str, Any]:
    from bots.sdk import RandomBot

    return {"x": RandomBot, "y": RandomBot}


async def test_a_lost_game_is_played_again_and_recorded_once(tmp_path: Path) -> None:
    plan = Plan(["x", "y"], repeats=2)
    referee = LosesFirst(variant=TICTACTOE, bots=random_bots())
    summary = await Director(plan, referee, tmp_path, TICTACTOE, quiet(), concurrency=2).run()
    keys = [g["key"] for g in summary["games"]]
    assert len(keys) == len(set(keys)) == 4 and sorted(referee.lost) == sorted(keys)
    lines = (tmp_path / "journal.jsonl").read_text().splitlines()
    assert len(lines) == 4 and summary["complete"] and not summary["unplayed"]


async def test_a_game_ending_twice_is_recorded_once(tmp_path: Path) -> None:
    director = Director(Plan(["x", "y"]), LocalReferee(TICTACTOE, random_bots()), tmp_path,
                        TICTACTOE, quiet())  # fmt: skip
    director.games_dir.mkdir(parents=True)
    first = record_result(SPEC, record())
    second = record_result(SPEC, record(game_id="g2", winner=1, reason="resign"))
    assert first is not None and second is not None
    director._record(Played(first))
    director._record(Played(second))
    assert read_journal(tmp_path / "journal.jsonl") == {SPEC.key: first}
    assert len((tmp_path / "journal.jsonl").read_text().splitlines()) == 1


# -- the referee on a real server -----------------------------------------------------------


async def bots(make: Any) -> tuple[RawClient, RawClient]:
    """Bots x and y online (tic-tac-toe, one game each)."""
    x = await make("x", kind="bot", games=["tictactoe"], capacity=1)
    y = await make("y", kind="bot", games=["tictactoe"], capacity=1)
    return x, y


async def play_line(x: RawClient, y: RawClient, room: str, start: int = 0) -> None:
    """The bots play LINE from ply ``start`` in ``room``."""
    for ply in range(start, len(LINE)):
        mover = (x, y)[ply % 2]
        reply = await mover.request(type="move", room=room, x=LINE[ply][0], y=LINE[ply][1], ply=ply)
        assert reply["type"] == "moved", reply


async def seated(x: RawClient) -> str:
    """The room bot x was just seated in."""
    return (await x.expect("joined"))["room"]


async def test_a_dropped_link_watches_its_room_again_and_sees_every_move(
    server: Any, client_factory: Any
) -> None:
    x, y = await bots(client_factory)
    referee = ServerReferee(server.url, "tictactoe", rate=500.0)
    playing = asyncio.create_task(referee.play(SPEC))
    room = await seated(x)
    await x.request(type="move", room=room, x=0, y=0, ply=0)
    assert referee.link is not None and referee.link.player is not None
    session = referee.link.state.session
    server.fanout.sockets[referee.link.player].transport.abort()  # the director's link drops
    await play_line(x, y, room, 1)  # the game goes on (and may end) while it is away
    played = await asyncio.wait_for(playing, 30)
    assert played.result == record_result(SPEC, record(game_id=played.result.game_id, room=room))
    assert played.psq and referee.link.state.session == session  # the same director resumed
    await referee.close()


async def test_a_room_the_link_is_not_in_is_joined_again_and_watched_to_its_end(
    server: Any, client_factory: Any
) -> None:
    """As after a node's death: the room lives on, but its adopter did not keep the director
    as a spectator, so nothing about it comes until the referee joins it again."""
    x, y = await bots(client_factory)
    first = ServerReferee(server.url, "tictactoe", rate=500.0)
    _, room, _ = await first._create(first.create_message(SPEC))
    await first.close()  # it leaves nothing behind: a spectator who is gone
    other = ServerReferee(server.url, "tictactoe", rate=500.0)
    fresh = await other.connect()
    fresh.feed(room).put_nowait(CLOSED)  # what the old link's feed got when it dropped
    following = asyncio.create_task(other._follow(fresh, room, SPEC))
    await until(lambda: any(server.arena.rooms.get(room).spectators))  # it joined again
    await play_line(x, y, room)
    played = await asyncio.wait_for(following, 30)
    assert played.result.moves == [list(m) for m in LINE] and played.result.winner == 0
    assert played.result.room == room and played.psq
    await other.close()


async def test_a_game_that_ended_while_away_is_read_from_the_history(
    server: Any, client_factory: Any
) -> None:
    x, y = await bots(client_factory)
    first = ServerReferee(server.url, "tictactoe", rate=500.0)
    _, room, _ = await first._create(first.create_message(SPEC))
    await first.close()
    await play_line(x, y, room)
    for bot in (x, y):
        await bot.request(type="leave_room", room=room)
    await until(lambda: server.arena.rooms.get(room) is None)  # the room is gone
    other = ServerReferee(server.url, "tictactoe", rate=500.0)
    _, played = await other._rewatch(room, SPEC, {})
    assert played is not None and played.result.room == room
    assert played.result == record_result(SPEC, record(game_id=played.result.game_id, room=room))
    assert played.psq and played.psq.startswith("Piskvorky 3x3")
    await other.close()


async def test_a_game_without_a_result_is_lost_not_recorded(
    server: Any, client_factory: Any
) -> None:
    x, y = await bots(client_factory)
    referee = ServerReferee(server.url, "tictactoe", rate=500.0, rewatch_s=1.0, ask_s=1.0)
    playing = asyncio.create_task(referee.play(SPEC))
    room = await seated(x)
    await x.request(type="move", room=room, x=0, y=0, ply=0)
    for bot in (x, y):  # both bots gone at once, past the grace: abandoned
        server.fanout.sockets[bot.player].transport.abort()
    with pytest.raises(GameLost):
        await asyncio.wait_for(playing, 30)
    with pytest.raises(GameLost):  # and a room found nowhere is lost once looked for long enough
        await referee._rewatch("NOSUCH", SPEC, {})
    await referee.close()


def lose_create_answers(link: Any, leave: bool = False, late: asyncio.Event | None = None) -> None:
    """The link's creates reach the server, but their answers are lost on the way back (and
    with ``leave`` the room forgets its spectator, as a dead node's adopter does); with
    ``late`` the loss is only noticed once that event is set."""
    real = link.request

    async def lossy(message: dict[str, Any], timeout: float = 30.0) -> dict[str, Any]:
        reply = await real(message, timeout)
        if message["type"] == "create_room":
            if leave:
                await real({"type": "leave_room", "room": reply["room"]}, timeout)
            if late is not None:
                await late.wait()
            raise LinkClosed("the answer was lost")
        return reply

    link.request = lossy


async def test_a_create_whose_answer_was_lost_watches_its_room_instead_of_making_another(
    server: Any, client_factory: Any
) -> None:
    x, y = await bots(client_factory)
    referee = ServerReferee(server.url, "tictactoe", rate=500.0)
    lose_create_answers(await referee.connect())
    playing = asyncio.create_task(referee.play(SPEC))
    room = await seated(x)
    await until(lambda: room in referee.orphans.known)  # found: it is being watched
    await play_line(x, y, room)
    played = await asyncio.wait_for(playing, 30)
    assert played.result.room == room and played.result.moves == [list(m) for m in LINE]
    assert [m["type"] for m in x.seen].count("joined") == 1  # one room, one game
    await referee.close()


async def test_a_lost_create_s_game_that_already_ended_is_read_from_the_history(
    server: Any, client_factory: Any
) -> None:
    x, y = await bots(client_factory)
    twin = GameSpec("r1/x~y/2", 1, ("x", "y"), 0, ())  # same bots, seats and rules
    other = ServerReferee(server.url, "tictactoe", rate=500.0)
    _, done, _ = await other._create(other.create_message(twin))
    assert await seated(x) == done
    referee = ServerReferee(server.url, "tictactoe", rate=500.0)
    await play_line(x, y, done)  # an earlier game of these bots, in a room it does not know
    await other.close()
    for bot in (x, y):
        await bot.request(type="leave_room", room=done)
    await until(lambda: server.arena.rooms.get(done) is None)
    noticed = asyncio.Event()
    lose_create_answers(await referee.connect(), leave=True, late=noticed)
    playing = asyncio.create_task(referee.play(SPEC))
    room = await seated(x)
    await play_line(x, y, room)  # it ends before anyone looks for it, and goes
    for bot in (x, y):
        await bot.request(type="leave_room", room=room)
    await until(lambda: server.arena.rooms.get(room) is None)
    noticed.set()
    played = await asyncio.wait_for(playing, 30)
    assert played.result.room == room != done and played.result.winner == 0
    assert played.psq
    await referee.close()


async def test_a_room_of_other_rules_is_not_taken_for_a_lost_create_s(
    server: Any, client_factory: Any
) -> None:
    await bots(client_factory)
    other = ServerReferee(server.url, "tictactoe", rate=500.0)
    opened = GameSpec("r1/x~y/o", 1, ("x", "y"), 1, ((1, 1),))
    _, theirs, _ = await other._create(other.create_message(opened))
    referee = ServerReferee(server.url, "tictactoe", rate=500.0, rewatch_s=4.0)
    found = await referee.orphans.find(referee.connect, referee.create_message(SPEC))
    assert found is None and theirs in referee.orphans.known  # looked at, left
    assert referee.link is not None and theirs not in referee.link._rooms
    await referee.close()
    await other.close()


async def test_an_ended_game_s_record_is_read_though_the_rate_refuses_the_first_look(
    server: Any, client_factory: Any
) -> None:
    x, y = await bots(client_factory)
    referee = ServerReferee(server.url, "tictactoe", rate=500.0)
    link = await referee.connect()
    real, refused = link.request, []

    async def spent(message: dict[str, Any], timeout: float = 30.0) -> dict[str, Any]:
        if message["type"] == "get_game" and not refused:  # the rate is spent just before
            flood = [real({"type": "list_rooms", "limit": 1}, timeout) for _ in range(60)]
            answers = await asyncio.gather(*flood, return_exceptions=True)
            refused.extend(a for a in answers if isinstance(a, ServerError))
        return await real(message, timeout)

    link.request = spent
    playing = asyncio.create_task(referee.play(SPEC))
    room = await seated(x)
    await play_line(x, y, room)
    played = await asyncio.wait_for(playing, 30)
    assert refused and {e.code for e in refused} == {"rate_limited"}
    assert played.result.room == room and played.psq and played.psq.count("\n") > len(LINE)
    await referee.close()


async def test_a_lost_create_s_room_that_goes_while_it_is_looked_at_is_read_from_the_history(
    server: Any, client_factory: Any
) -> None:
    x, y = await bots(client_factory)
    referee = ServerReferee(server.url, "tictactoe", rate=500.0, rewatch_s=8.0)
    noticed = asyncio.Event()
    link = await referee.connect()
    lose_create_answers(link, leave=True, late=noticed)
    real, joins = link.request, []

    async def gone_first(message: dict[str, Any], timeout: float = 30.0) -> dict[str, Any]:
        if message["type"] == "join_room" and not joins:  # listed, then gone before the join
            joins.append(message["room"])
            for bot in (x, y):
                await bot.request(type="leave_room", room=message["room"])
            await until(lambda: server.arena.rooms.get(message["room"]) is None)
        return await real(message, timeout)

    link.request = gone_first
    playing = asyncio.create_task(referee.play(SPEC))
    room = await seated(x)
    await play_line(x, y, room)
    noticed.set()
    played = await asyncio.wait_for(playing, 30)
    assert joins == [room] and played.result.room == room and played.result.winner == 0
    assert played.psq
    await referee.close()
