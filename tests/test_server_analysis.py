"""``analyse`` on a real server with a raw bot answering its jobs by hand: the protocol's path
(request → ``analyse_job`` → ``analysed`` → ``analysis``), the cache, the bounds, fair play and
every refusal (each an error and nothing else: the room plays on, no bot is tied up)."""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from typing import Any

import pytest
from support.analysis import LINE, SAID, analyser, answer, finished_tictactoe
from support.clients import RawClient, seated_pair
from support.waiting import until
from websockets.asyncio.client import connect

TTT_BOARD = {"type": "analyse", "game": "tictactoe", "moves": [[1, 1], [0, 1]]}


@pytest.fixture
def limits_override() -> dict[str, float]:
    """Room for the many refusals one test sends (each weighs as a history lookup)."""
    return {"human_rate": 200.0, "human_burst": 400.0}


async def test_an_analysis_board_goes_to_the_bot_and_comes_back(
    client_factory: Any, server: Any
) -> None:
    bot = await analyser(client_factory)
    alice = await client_factory("alice")
    await alice.send(id=5, lines=2, time=0.5, **TTT_BOARD)
    job = await bot.expect("analyse_job")
    assert job["game"]["name"] == "tictactoe" and job["moves"] == [[1, 1], [0, 1]]
    assert job["lines"] == 2 and job["time"] == 0.5
    values = [{"move": [0, 0], "value": "win", "plies": 5}]
    await bot.send(type="analysed", job=job["job"], lines=[LINE], values=values)
    reply = await alice.expect("analysis")
    assert reply["id"] == 5 and reply["lines"] == [SAID] and reply["values"] == values
    assert reply["ply"] == 2 and reply["to_move"] == 0


async def test_ten_spectators_of_one_replay_cost_one_search(
    client_factory: Any, server: Any
) -> None:
    bot = await analyser(client_factory)
    _alice, _bob, room, game_id = await finished_tictactoe(client_factory)
    watchers = [await client_factory(f"w{i}") for i in range(10)]
    sent = server.arena.analysis.sent
    for w in watchers[:5]:  # five at once: one job, five answers
        await w.send(type="analyse", id=1, room=room, ply=2)
    job = await answer(bot)
    assert job["moves"] == [[0, 0], [1, 0]]
    for w in watchers[:5]:
        assert (await w.expect("analysis", id=1))["lines"] == [SAID]
    for w in watchers[5:]:  # later: from the cache, the bot never hears of them
        reply = await w.request(type="analyse", room=room, ply=2)
        assert reply["type"] == "analysis" and reply["room"] == room and reply["ply"] == 2
    by_game = await watchers[0].request(type="analyse", game_id=game_id, ply=2)
    assert by_game["type"] == "analysis" and by_game["game_id"] == game_id  # same position
    assert server.arena.analysis.sent == sent + 1
    await bot.alive()
    assert not [m for m in bot.pending if m["type"] == "analyse_job"]


async def test_a_finished_game_from_the_history_by_ply_and_by_default(
    client_factory: Any, server: Any
) -> None:
    bot = await analyser(client_factory)
    _alice, _bob, _room, game_id = await finished_tictactoe(client_factory)
    stranger = await client_factory("carol")
    await stranger.send(type="analyse", id=3, game_id=game_id)
    job = await answer(bot)  # the default: the position before the winning move
    assert job["moves"] == [[0, 0], [1, 0], [1, 1], [2, 0]]
    reply = await stranger.expect("analysis", id=3)
    assert reply["game_id"] == game_id and reply["ply"] == 4
    await stranger.error("bad_position", type="analyse", game_id=game_id, ply=5)  # won there
    await stranger.error("bad_position", type="analyse", game_id=game_id, ply=9)
    await stranger.error("no_such_game", type="analyse", game_id="g_nope")


async def test_bad_positions_and_options_are_refused_and_tie_no_bot(
    client_factory: Any, server: Any
) -> None:
    bot = await analyser(client_factory)
    alice = await client_factory("alice")
    moves = {"type": "analyse", "game": "tictactoe"}
    await alice.error("bad_position", **moves, moves=[[1, 1], [1, 1]])  # occupied
    await alice.error("bad_position", **moves, moves=[[3, 0]])  # off the board
    await alice.error("bad_position", **moves, moves=[[0, 0], [1, 0], [1, 1], [2, 0], [2, 2]])
    await alice.error("bad_position", **moves, moves=[[0, 0]] * 10)  # past the board
    await alice.error("bad_position", **moves, moves=[[0, "a"]])
    await alice.error("bad_options", type="analyse", game="chess", moves=[])
    await alice.error("bad_options", type="analyse", game="mnk", options={"width": 99}, moves=[])
    await alice.error("bad_options", **moves, options={"colour": 1}, moves=[])
    await alice.error("bad_message", **moves, moves=[], lines=6)
    await alice.error("bad_message", **moves, moves=[], time=5.5)
    await alice.error("bad_message", **moves, moves=[], time=0)
    await alice.error("bad_message", type="analyse", moves=[])  # no game
    await alice.error("bad_message", type="analyse", room="x", game_id="g_1")  # two sources
    await alice.error("no_such_room", type="analyse", room="nowhere")
    await alice.error("bad_message", type="analysed", job="j_1", lines=[LINE])  # not a bot
    black = {"black": [[0, 0], [1, 0]], "white": [], "to_move": 1}  # not alternate moves
    await alice.error("bad_position", **moves, options={"position": black}, moves=[])
    assert server.arena.analysis.jobs == {}
    await bot.alive()
    assert not [m for m in bot.pending if m["type"] == "analyse_job"]
    setup = {"black": [[0, 0], [2, 2]], "white": [[1, 1]], "to_move": 1}
    await alice.send(id=9, **moves, options={"position": setup}, moves=[[2, 0]])
    job = await answer(bot, lines=[{"move": [0, 1], "pv": [], "depth": 9}])
    assert job["moves"] == [[0, 0], [1, 1], [2, 2], [2, 0]]
    assert (await alice.expect("analysis", id=9))["ply"] == 1


async def test_fair_play_refuses_live_games_that_are_not_training(
    client_factory: Any, server: Any
) -> None:
    await analyser(client_factory)
    alice, bob, room = await seated_pair(client_factory, "gomoku")
    await alice.request(type="move", room=room, x=7, y=7, ply=0)
    watcher = await client_factory("watcher")
    await watcher.request(type="join_room", room=room, spectate=True)
    for who in (alice, bob, watcher, await client_factory("stranger")):
        await who.error("analysis_refused", type="analyse", room=room)
    # copying the live position onto an analysis board is no way round it
    board = {"type": "analyse", "game": "gomoku", "moves": [[7, 7]]}
    await alice.error("analysis_refused", **board)
    await watcher.error("analysis_refused", **board)
    reply = await bob.request(type="move", room=room, x=8, y=8, ply=1)  # the game plays on
    assert reply["type"] == "moved"
    assert server.arena.analysis.jobs == {}


@pytest.mark.parametrize("limits_override", [{"max_analyses": 2, "human_burst": 400.0}])
async def test_one_in_flight_per_connection_and_a_bound_in_all(
    client_factory: Any, server: Any
) -> None:
    bot = await analyser(client_factory, slots=8)
    alice, bob = await client_factory("alice"), await client_factory("bob")
    carol = await client_factory("carol")
    await alice.send(type="analyse", id=1, game="tictactoe", moves=[])
    first = await bot.expect("analyse_job")
    await alice.error("rate_limited", type="analyse", game="tictactoe", moves=[[1, 1]])
    await bob.send(type="analyse", id=1, game="tictactoe", moves=[[1, 1]])
    second = await bot.expect("analyse_job")
    await carol.error("busy", type="analyse", game="tictactoe", moves=[[0, 0]])
    await carol.send(type="analyse", id=2, game="tictactoe", moves=[])  # joins alice's job
    await until(lambda: len(server.arena.analysis.jobs[first["job"]].askers) == 2)
    for job in (first, second):
        await bot.send(type="analysed", job=job["job"], lines=[LINE])
    for who, rid in ((alice, 1), (bob, 1), (carol, 2)):
        assert (await who.expect("analysis", id=rid))["lines"] == [SAID]
    assert server.arena.analysis.jobs == {}


@pytest.mark.parametrize("limits_override", [{"human_rate": 0.01, "human_burst": 12.0}])
async def test_a_flood_of_analyses_is_rate_limited_as_history_lookups(
    client_factory: Any, server: Any
) -> None:
    alice = await client_factory("alice")  # 12 tokens: each analyse takes 1 + 4
    for _ in range(2):
        await alice.error("no_bot_available", type="analyse", game="tictactoe", moves=[])
    await alice.error("rate_limited", type="analyse", game="tictactoe", moves=[])


async def test_no_analyser_and_a_failing_or_silent_bot(client_factory: Any, server: Any) -> None:
    alice = await client_factory("alice")
    await alice.error("no_bot_available", type="analyse", game="tictactoe", moves=[])
    bot = await analyser(client_factory)
    await alice.send(type="analyse", id=2, game="tictactoe", moves=[])
    job = await bot.expect("analyse_job")
    await bot.send(type="analysed", job=job["job"], error="engine crashed")
    failed = await alice.expect("error", id=2)
    assert failed["code"] == "analysis_failed"
    await alice.send(type="analyse", id=3, game="tictactoe", moves=[])
    job = await bot.expect("analyse_job")
    await bot.send(type="analysed", job=job["job"], lines=[{"move": [5, 5]}])  # off the board
    await alice.expect("error", id=3, code="analysis_failed")
    await alice.send(type="analyse", id=4, game="tictactoe", moves=[], time=0.1)
    await bot.expect("analyse_job")  # and never answered: the deadline fails it
    await alice.expect("error", id=4, code="analysis_failed", timeout=15)
    assert server.arena.analysis.jobs == {}


async def test_a_training_game_shows_hints_and_its_player_and_spectators_may_analyse(
    client_factory: Any, server: Any
) -> None:
    analyst = await analyser(client_factory, "oracle")
    player = await client_factory("minimax", kind="bot", games=["*"], capacity=4)
    alice = await client_factory("alice")
    create = {"game": "gomoku", "opponent": "bot", "level": 3, "seat": 0}
    room = (await alice.request(type="create_room", **create, options={"hints": True}))["room"]
    state = await alice.expect("state")
    assert state["options"]["hints"] is True
    await alice.request(type="move", room=room, x=7, y=7, ply=0)
    await alice.send(type="analyse", id=7, room=room)
    job = await answer(analyst, lines=[{"move": [8, 8], "score": 1, "pv": [], "depth": 1}])
    assert job["moves"] == [[7, 7]]
    assert (await alice.expect("analysis", id=7))["to_move"] == 1
    watcher = await client_factory("watcher")
    await watcher.request(type="join_room", room=room, spectate=True)
    reply = await watcher.request(type="analyse", room=room)  # the same position: cached
    assert reply["type"] == "analysis" and reply["lines"][0]["move"] == [8, 8]
    await player.alive()


@pytest.mark.parametrize(
    "create",
    [
        {"game": "gomoku", "options": {"hints": True}},  # against a human
        {"game": "gomoku", "opponent": "bot", "options": {"hints": "yes"}},
        {"game": "gomoku", "opponent": "bot", "rated": True, "options": {"hints": True}},
    ],
)
async def test_hints_are_for_casual_games_against_a_bot(
    client_factory: Any, server: Any, create: dict[str, Any]
) -> None:
    alice = await client_factory("alice")
    clock = {"initial_s": 60, "increment_s": 0}
    await alice.error("bad_options", type="create_room", clock=clock, **create)


async def test_a_casual_game_against_a_bot_without_hints_is_refused_to_its_player(
    client_factory: Any, server: Any
) -> None:
    await analyser(client_factory, "oracle")
    player = await client_factory("minimax", kind="bot", games=["*"], capacity=4)
    alice = await client_factory("alice")
    create = {"game": "gomoku", "opponent": "bot", "level": 3, "seat": 0}
    room = (await alice.request(type="create_room", **create))["room"]
    assert "hints" not in (await alice.expect("state"))["options"]
    await alice.error("analysis_refused", type="analyse", room=room)
    await alice.error("too_early", type="takeback_offer", room=room)  # the usual rules
    await player.alive()


def test_a_live_rated_game_is_refused_and_a_finished_one_is_not() -> None:
    from protocol.errors import AnalysisRefused
    from protocol.rules import Termination
    from protocol.variants import make_variant
    from server.core.analysis.position import may_analyse
    from server.core.game.room import Room

    rated = Room("r1", make_variant("gomoku"), {"opponent": "human", "rated": True})
    with pytest.raises(AnalysisRefused):
        may_analyse(rated)
    training = Room("r2", make_variant("gomoku"), {"opponent": "bot", "hints": True})
    may_analyse(training)
    rated.game.end(Termination.RESIGN, 0)
    may_analyse(rated)  # over: anyone may look


async def test_a_request_waits_for_a_busy_bots_slot_then_goes_to_it(
    client_factory: Any, server: Any
) -> None:
    bot = await analyser(client_factory, slots=1)
    alice, bob = await client_factory("alice"), await client_factory("bob")
    await alice.send(type="analyse", id=1, game="tictactoe", moves=[])
    first = await bot.expect("analyse_job")
    await bob.send(type="analyse", id=2, game="tictactoe", moves=[[1, 1]])
    await until(lambda: len(server.arena.analysis.jobs) == 2)
    assert server.arena.analysis.sent == 1  # the second waits: the bot has one slot
    await bot.send(type="analysed", job=first["job"], lines=[LINE])
    assert (await alice.expect("analysis", id=1))["lines"] == [SAID]
    second = await answer(bot)
    assert second["moves"] == [[1, 1]]
    assert (await bob.expect("analysis", id=2))["ply"] == 1


async def test_a_live_game_by_its_game_id_is_refused_unless_training(
    client_factory: Any, server: Any
) -> None:
    bot = await analyser(client_factory)
    alice, bob, room = await seated_pair(client_factory, "gomoku")
    await alice.request(type="move", room=room, x=7, y=7, ply=0)
    game_id = server.arena.rooms.get(room).game_id
    await bob.error("analysis_refused", type="analyse", game_id=game_id)
    player = await client_factory("minimax", kind="bot", games=["*"], capacity=4)
    carol = await client_factory("carol")
    create = {"game": "gomoku", "opponent": "bot", "seat": 0, "options": {"hints": True}}
    training = (await carol.request(type="create_room", **create))["room"]
    await carol.request(type="move", room=training, x=7, y=7, ply=0)
    live_id = server.arena.rooms.get(training).game_id
    await carol.send(type="analyse", id=4, game_id=live_id)
    job = await answer(bot)
    assert job["moves"] == [[7, 7]]
    assert (await carol.expect("analysis", id=4))["game_id"] == live_id
    await player.alive()


async def test_an_answer_from_another_bot_or_too_late_is_dropped(
    client_factory: Any, server: Any
) -> None:
    first = await analyser(client_factory, "first")
    second = await analyser(client_factory, "second")
    alice = await client_factory("alice")
    await alice.send(type="analyse", id=1, game="tictactoe", moves=[])
    jobs = server.arena.analysis.jobs
    await until(lambda: len(jobs) == 1 and next(iter(jobs.values())).bot != "")
    job = next(iter(jobs.values()))
    mine, other = (first, second) if job.bot == first.player else (second, first)
    await other.send(type="analysed", job=job.id, lines=[LINE])  # not its job: ignored
    await other.alive()
    assert job.id in jobs
    await mine.send(type="analysed", job=job.id, lines=[LINE])
    assert (await alice.expect("analysis", id=1))["lines"] == [SAID]
    await mine.send(type="analysed", job=job.id, lines=[LINE])  # again, too late: dropped
    await mine.alive()
    await alice.alive()
    assert not [m for m in alice.pending if m["type"] == "analysis"]


def gomoku_position(n: int) -> list[list[int]]:
    """A two-stone gomoku position of its own for each ``n`` (no cache hit, no shared job)."""
    first, second = n % 225, (n // 225) % 225
    if second == first:
        second = (second + 1) % 225
    return [[first % 15, first // 15], [second % 15, second // 15]]


async def answer_every_job(bot: Any, search_s: float) -> None:
    """Answer each ``analyse_job`` after ``search_s`` (a bot's search), several at once."""
    answering: set[asyncio.Task[None]] = set()

    async def later(job: dict[str, Any]) -> None:
        await asyncio.sleep(search_s)  # the bot's search time, not a wait for a condition
        taken = {tuple(m) for m in job["moves"]}
        x, y = next((x, y) for y in range(15) for x in range(15) if (x, y) not in taken)
        line = {"move": [x, y], "score": 0, "pv": [[x, y]], "depth": 1}
        await bot.send(type="analysed", job=job["job"], lines=[line])

    while True:
        job = await bot.expect("analyse_job", timeout=60)
        task = asyncio.create_task(later(job))
        answering.add(task)
        task.add_done_callback(answering.discard)


async def keep_asking(client: Any, first: int, stop: asyncio.Event) -> Counter[str]:
    """Ask for analyses of new positions one after another until ``stop``; the replies' kinds."""
    seen: Counter[str] = Counter()
    n = first
    while not stop.is_set():
        n += 1
        reply = await client.request(type="analyse", game="gomoku", moves=gomoku_position(n))
        kind = reply["type"] if reply["type"] != "error" else reply["code"]
        seen[kind] += 1
        if kind == "rate_limited":  # a flooder at its rate: it asks again when it may
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 0.25)
    return seen


@pytest.mark.slow  # 16 flooding sockets for a few seconds
async def test_a_flood_of_analyses_from_four_addresses_leaves_another_its_share(
    client_factory: Any, server: Any
) -> None:
    bot = await analyser(client_factory, slots=8)
    answering = asyncio.create_task(answer_every_job(bot, 0.2))
    flooders = []  # 16 sockets from 4 addresses, each asking again the moment it is answered
    for a in range(2, 6):
        for i in range(4):
            ws = await connect(server.url, compression=None, local_addr=(f"127.0.0.{a}", 0))
            c = RawClient(ws)
            await c.hello(f"flood{a}x{i}")
            flooders.append(c)
    stop = asyncio.Event()
    floods = [asyncio.create_task(keep_asking(c, 1000 * k, stop)) for k, c in enumerate(flooders)]
    try:
        await until(lambda: len(server.arena.analysis.jobs) >= 8)  # every slot taken
        ws = await connect(server.url, compression=None, local_addr=("127.0.0.6", 0))
        honest = RawClient(ws)
        await honest.hello("honest")
        replies = []
        for n in range(10):
            moves = gomoku_position(40_000 + n)
            reply = await honest.request(type="analyse", game="gomoku", moves=moves)
            replies.append(reply["type"] if reply["type"] != "error" else reply["code"])
        assert replies == ["analysis"] * 10, replies
    finally:
        stop.set()
        seen = sum((await asyncio.gather(*floods)), Counter())
        answering.cancel()
    assert seen["analysis"] > 0 and seen["busy"] > 0, seen  # the flood was served its share
    for c in [*flooders, honest]:
        await c.close()


async def test_each_line_says_the_side_to_move_s_win_chance(client_factory: Any) -> None:
    """People read a win chance, not the engine's units (issue 44.17): the server says it."""
    bot = await analyser(client_factory)
    alice = await client_factory("alice")
    raw = [
        {"move": [0, 0], "score": 199, "pv": [], "depth": 4},
        {"move": [0, 2], "score": -22, "pv": [], "depth": 4},
        {"move": [2, 0], "score": 2000, "pv": [], "depth": 4},
        {"move": [2, 2], "score": 999_999, "pv": [], "depth": 4},
        {"move": [1, 0], "mate": -4, "pv": [], "depth": 4},
    ]
    await alice.send(id=3, lines=5, **TTT_BOARD)
    job = await bot.expect("analyse_job")
    await bot.send(type="analysed", job=job["job"], lines=raw)
    reply = await alice.expect("analysis", id=3)
    assert [line["win"] for line in reply["lines"]] == [55, 49, 88, 100, 0]
    assert [line.get("score") for line in reply["lines"]][:2] == [199, -22]  # kept as well
