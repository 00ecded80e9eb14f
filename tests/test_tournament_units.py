"""The tournament's pure parts: statistics, schedules, openings, results and resume."""

from __future__ import annotations

import json
import math
import random
import re
import time
from pathlib import Path

import pytest

from bots.sdk import Bot, MinimaxBot, RandomBot
from bots.tournament.director import Director, Plan
from bots.tournament.openings import (
    has_immediate_win,
    is_quiet,
    openings_from_arg,
    parse_openings,
    random_openings,
)
from bots.tournament.referee import Link, LocalReferee
from bots.tournament.report import PlainReporter
from bots.tournament.results import (
    GameResult,
    append_journal,
    crosstable,
    fault_of,
    neighbour_los,
    read_journal,
    standings,
)
from bots.tournament.schedule import (
    fixed_schedule,
    gauntlet_pairs,
    round_robin_pairs,
    sprt_games,
    swiss_pairs,
)
from bots.tournament.stats import (
    EloEstimate,
    Sprt,
    elo_estimate,
    elo_from_score,
    los,
    los_from_ratings,
    sprt_llr,
)
from protocol.rules import Game, Move
from protocol.variants import GOMOKU, TICTACTOE, make_variant

# -- statistics ----------------------------------------------------------------------------------


def test_elo_from_score_known_values() -> None:
    assert elo_from_score(0.75) == pytest.approx(190.85, abs=0.01)
    assert elo_from_score(0.5) == 0.0
    assert elo_from_score(0.25) == pytest.approx(-190.85, abs=0.01)
    assert elo_from_score(0.9090909) == pytest.approx(400.0, abs=0.01)  # 10:1 odds
    assert math.isfinite(elo_from_score(1.0)) and math.isfinite(elo_from_score(0.0))


def test_elo_estimate_matches_cutechess() -> None:
    even = elo_estimate(5, 0, 5, prior=0)
    assert even.elo == 0.0
    # cutechess-cli prints 0.0 +/- 251.8 for +5 -5 =0 (1.96 sigma of the per-game variance)
    assert even.error == pytest.approx(251.8, abs=0.2)
    three_to_one = elo_estimate(30, 0, 10, prior=0)
    assert three_to_one.elo == pytest.approx(190.85, abs=0.01)
    assert 100 < three_to_one.error < 160
    assert elo_estimate(0, 10, 0, prior=0) == EloEstimate(0.0, 0.0)
    assert elo_estimate(0, 0, 0) == EloEstimate(0.0, 0.0)


def test_the_prior_keeps_perfect_and_drawn_records_uncertain() -> None:
    sweep = elo_estimate(4, 0, 0)  # scored as 5 wins and 1 loss: p = 5/6
    assert sweep.elo == pytest.approx(-400 * math.log10(1 / (5 / 6) - 1), abs=0.01)  # +279.6
    assert sweep.elo < 1000 and sweep.error > 300  # not the clamp, and far from certain
    assert elo_estimate(0, 0, 4).elo == pytest.approx(-sweep.elo)
    drawn = elo_estimate(0, 10, 0)  # 1 win, 10 draws, 1 loss: p = 1/2, sigma^2 = 0.5/12/12
    assert drawn.elo == 0.0 and drawn.error > 30
    assert elo_estimate(30, 0, 10).elo == pytest.approx(elo_from_score(31 / 42))


def test_los() -> None:
    assert los(10, 10) == 0.5
    assert los(0, 0) == 0.5
    assert los(15, 5) == pytest.approx(0.9873, abs=1e-4)
    assert los(5, 15) == pytest.approx(1 - 0.9873, abs=1e-4)
    assert los_from_ratings(EloEstimate(100, 50), EloEstimate(0, 50)) > 0.99
    assert los_from_ratings(EloEstimate(0, 0), EloEstimate(0, 0)) == 0.5


def test_sprt_bounds_and_verdicts() -> None:
    test = Sprt.parse("0,10")
    assert test.lower == pytest.approx(math.log(0.05 / 0.95))
    assert test.upper == pytest.approx(math.log(0.95 / 0.05))
    assert sprt_llr(0, 0, 0, 0, 10) == 0.0
    wins = next(n for n in range(1, 1000) if test.verdict(test.llr(n, 0, 0)))
    assert test.verdict(test.llr(wins, 0, 0)) == "H1"
    losses = next(n for n in range(1, 1000) if test.verdict(test.llr(0, 0, n)))
    assert test.verdict(test.llr(0, 0, losses)) == "H0"
    # an even, drawish record leans to H0 (elo 0) rather than H1 (elo 10)
    assert test.llr(100, 300, 100) < 0 < test.llr(150, 300, 50)
    assert Sprt.parse("0,5,0.1,0.2") == Sprt(0, 5, 0.1, 0.2)
    with pytest.raises(ValueError):
        Sprt.parse("5,0")


def test_sprt_llr_agrees_with_the_normal_approximation() -> None:
    # for a large, mixed sample the GSPRT is close to N (s1-s0)(2 mu - s0 - s1) / (2 var)
    w, d, l = 1200, 1600, 1000  # noqa: E741
    n = w + d + l
    mu = (w + d / 2) / n
    var = (w * (1 - mu) ** 2 + d * (0.5 - mu) ** 2 + l * mu**2) / n
    s0, s1 = 0.5, 1 / (1 + 10 ** (-10 / 400))
    approx = n * (s1 - s0) * (2 * mu - s0 - s1) / (2 * var)
    assert sprt_llr(w, d, l, 0, 10) == pytest.approx(approx, rel=0.02)


# -- pairings ------------------------------------------------------------------------------------


def test_round_robin_covers_every_pair_once_per_colour_per_opening() -> None:
    names = ["a", "b", "c", "d"]
    openings = [(), ((7, 7),)]
    games = fixed_schedule("round-robin", names, openings, repeats=1)
    assert len(games) == 6 * 2 * 2
    seen = {(g.players, g.opening_index) for g in games}
    assert len(seen) == len(games)
    for a, b in round_robin_pairs(names):
        for oi in range(2):
            assert ((a, b), oi) in seen and ((b, a), oi) in seen
    assert len({g.key for g in games}) == len(games)
    twice = fixed_schedule("round-robin", names, openings, repeats=2, rounds=2)
    assert len(twice) == 4 * len(games)


def test_gauntlet_pairs_the_first_bot_with_each_other() -> None:
    assert gauntlet_pairs(["hero", "x", "y"]) == [("hero", "x"), ("hero", "y")]
    games = fixed_schedule("gauntlet", ["hero", "x", "y"], [()], repeats=3)
    assert len(games) == 2 * 3 * 2
    assert all("hero" in g.players for g in games)


def test_swiss_avoids_repeats_and_pairs_by_score() -> None:
    names = [f"b{i}" for i in range(6)]
    played: set[frozenset[str]] = set()
    scores = dict.fromkeys(names, 0.0)
    for r in range(5):
        pairs, bye = swiss_pairs(names, scores, played, set(), random.Random(r))
        assert bye is None and len(pairs) == 3
        assert sorted(n for p in pairs for n in p) == sorted(names)
        for a, b in pairs:
            assert frozenset((a, b)) not in played  # 6 players, 5 rounds: always possible
            played.add(frozenset((a, b)))
            scores[a] += 1  # the first of each pair "wins"
    assert len(played) == 15  # a full round robin after n - 1 rounds


def test_swiss_odd_field_gives_each_bye_once() -> None:
    names = ["a", "b", "c"]
    byes: set[str] = set()
    for r in range(3):
        _, bye = swiss_pairs(names, {}, set(), byes, random.Random(r))
        assert bye not in byes
        byes.add(bye)
    assert byes == set(names)


def test_swiss_top_scores_meet() -> None:
    scores = {"a": 3.0, "b": 0.0, "c": 2.0, "d": 1.0}
    pairs, _ = swiss_pairs(list(scores), scores, set(), set(), random.Random(0))
    assert pairs == [("a", "c"), ("d", "b")]


def test_sprt_schedule_alternates_colours_and_cycles_openings() -> None:
    games = list(sprt_games(["x", "y"], [(), ((1, 1),)], max_pairs=3))
    assert [g.players for g in games] == [("x", "y"), ("y", "x")] * 3
    assert [g.opening_index for g in games] == [0, 0, 1, 1, 0, 0]


# -- openings ------------------------------------------------------------------------------------


def test_gomocup_offset_format() -> None:
    text = ["# comment", "", "0, 0, 1, 0, -1, 1", "0,0, 1,1  # trailing comment"]
    assert parse_openings(text, GOMOKU) == [((7, 7), (8, 7), (6, 8)), ((7, 7), (8, 8))]


def test_plain_move_list_format() -> None:
    assert parse_openings(["7,7 8,7 6,8", "0,0"], GOMOKU) == [((7, 7), (8, 7), (6, 8)), ((0, 0),)]


@pytest.mark.parametrize("line", ["7,7 7,7", "20,20", "1, 2, 3", "a,b", "0, 0, 0, 0", "8, 8"])
def test_bad_openings_are_refused(line: str) -> None:
    with pytest.raises(ValueError):
        parse_openings([line], GOMOKU if "20" not in line else TICTACTOE)


def test_opening_that_already_wins_is_refused() -> None:
    with pytest.raises(ValueError, match="ends the game"):
        parse_openings(["0,0 0,1 1,0 1,1 2,0"], TICTACTOE)


def test_openings_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "openings.txt"
    path.write_text("0, 0, 1, 1\n7,6 8,8\n")
    assert openings_from_arg(str(path), GOMOKU, 1) == [((7, 7), (8, 8)), ((7, 6), (8, 8))]
    assert openings_from_arg(None, GOMOKU, 1) == [()]
    (tmp_path / "empty.txt").write_text("# nothing\n")
    with pytest.raises(ValueError):
        openings_from_arg(str(tmp_path / "empty.txt"), GOMOKU, 1)


@pytest.mark.parametrize(("variant", "stones"), [(GOMOKU, 6), (TICTACTOE, 2), (TICTACTOE, 4)])
def test_random_openings_are_legal_quiet_and_reproducible(variant, stones: int) -> None:
    openings = random_openings(variant, stones, 5, seed=7)
    assert openings == random_openings(variant, stones, 5, seed=7)
    assert openings != random_openings(variant, stones, 5, seed=8)
    for opening in openings:
        assert len(opening) == stones
        game = Game.from_moves(variant, [Move(x, y) for x, y in opening])
        assert not game.over and not has_immediate_win(game.board)
        cx, cy = variant.width // 2, variant.height // 2
        assert all(abs(x - cx) <= 2 and abs(y - cy) <= 2 for x, y in opening)
    assert len(set(openings)) == len(openings)


def test_quiet_check_sees_either_side_threat() -> None:
    four = ((5, 7), (5, 9), (6, 7), (6, 9), (7, 7), (7, 9), (8, 7), (0, 0))  # black has 4
    assert not is_quiet(four, GOMOKU)
    assert is_quiet(four[:6], GOMOKU)
    mnk = make_variant("mnk", {"width": 4, "height": 4, "k": 3})
    assert random_openings(mnk, 2, 3, seed=1)
    assert openings_from_arg("random:2:3", GOMOKU, 5) == random_openings(GOMOKU, 2, 3, 5)


# -- results, journal, resume -----------------------------------------------------------------


def result(key: str, a: str, b: str, winner: int | None, reason: str = "line", fault=None):
    """A finished game for the bookkeeping tests."""
    return GameResult(key, 1, (a, b), [], [], winner, reason, fault_of(reason, fault))


def test_standings_crosstable_and_faults() -> None:
    games = [
        result("1", "a", "b", 0),
        result("2", "b", "a", None, "draw"),
        result("3", "a", "c", 1, "forfeit", "crash"),
        result("4", "c", "b", 0, "timeout"),
        result("5", "b", "c", 1, "disconnect"),
    ]
    table = standings(["a", "b", "c"], games)
    assert [s.name for s in table] == ["c", "a", "b"]
    c, a, b = table
    assert (c.wins, c.draws, c.losses, c.score) == (3, 0, 0, 3.0)
    assert (a.wins, a.draws, a.losses) == (1, 1, 1)
    assert a.faults["crash"] == 1
    assert b.faults["timeout"] == 1 and b.faults["disconnect"] == 1
    assert c.to_json()["elo"] > 0 and table[2].to_json()["elo"] < 0
    cross = crosstable(["a", "b", "c"], games)
    assert cross["a"]["b"] == {"wins": 1, "draws": 1, "losses": 0}
    assert cross["b"]["a"] == {"wins": 0, "draws": 1, "losses": 1}
    assert len(neighbour_los(table, games)) == 2


def test_fault_of() -> None:
    assert fault_of("forfeit", "hang") == "hang"
    assert fault_of("forfeit", "weird") == "error"
    assert fault_of("timeout", None) == "timeout"
    assert fault_of("line", None) is None


def test_journal_survives_a_torn_last_line(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    append_journal(path, result("x", "a", "b", 0))
    append_journal(path, result("y", "a", "b", None, "adjudicated"))
    with open(path, "a") as f:
        f.write('{"key": "z", "players": ["a"')  # killed mid-write
    done = read_journal(path)
    assert set(done) == {"x", "y"}
    assert done["y"].winner is None and done["y"].reason == "adjudicated"
    assert done["x"] == result("x", "a", "b", 0)
    append_journal(path, result("z", "b", "a", 1))  # the resumed run's first game
    append_journal(path, result("w", "a", "b", 0))
    done = read_journal(path)
    assert set(done) == {"x", "y", "z", "w"} and done["z"] == result("z", "b", "a", 1)
    with open(path, "a") as f:
        f.write('{"key": "v"')  # killed again, then resumed again
    append_journal(path, result("v", "a", "b", None, "draw"))
    assert set(read_journal(path)) == {"x", "y", "z", "w", "v"}


class Killed(Exception):
    """Stands for the director being killed mid-run."""


class FailAfter(LocalReferee):
    """A referee that stops the run (like a killed director) after ``n`` games."""

    def __init__(self, n: int, **kw) -> None:
        super().__init__(**kw)
        self.left = n

    async def play(self, spec):
        if self.left == 0:
            raise Killed
        self.left -= 1
        return await super().play(spec)


def local(**kw):
    """LocalReferee arguments: three in-process bots on tic-tac-toe."""
    bots = {
        "perfect": lambda: MinimaxBot(10),
        "rnd": lambda: RandomBot(),
        "weak": lambda: MinimaxBot(1),
    }
    return dict(variant=TICTACTOE, bots=bots, **kw)


async def test_director_resumes_to_the_same_schedule(tmp_path: Path) -> None:
    plan = Plan(["perfect", "weak", "rnd"], "round-robin", [(), ((1, 1),)], repeats=1, seed=3)
    out = tmp_path / "run"
    quiet = PlainReporter(open("/dev/null", "w"))  # noqa: SIM115
    first = Director(plan, FailAfter(5, **local()), out, TICTACTOE, quiet, concurrency=1)
    with pytest.raises(Killed):
        await first.run()
    assert len(read_journal(out / "journal.jsonl")) == 5
    second = Director(plan, LocalReferee(**local()), out, TICTACTOE, quiet, concurrency=3)
    summary = await second.run()
    expected = fixed_schedule("round-robin", plan.names, plan.openings, 1)
    assert [g["key"] for g in summary["games"]] == [g.key for g in expected]
    assert [tuple(g["players"]) for g in summary["games"]] == [g.players for g in expected]
    assert summary["complete"] and sum(s["games"] for s in summary["standings"]) == 2 * 12
    doc = json.loads((out / "results.json").read_text())
    assert doc["standings"] == summary["standings"]
    assert len(list((out / "games").glob("*.psq"))) == 12
    third = await Director(plan, FailAfter(0, **local()), out, TICTACTOE, quiet).run()
    assert third["games"] == summary["games"]  # nothing left to play


async def test_director_swiss_and_sprt(tmp_path: Path) -> None:
    quiet = PlainReporter(open("/dev/null", "w"))  # noqa: SIM115
    swiss = Plan(["perfect", "weak", "rnd"], "swiss", [()], repeats=1, rounds=3, seed=1)
    summary = await Director(swiss, LocalReferee(**local()), tmp_path / "s", TICTACTOE, quiet).run()
    assert len(summary["games"]) == swiss.total_games() == 3 * 1 * 2
    assert len({frozenset(g["players"]) for g in summary["games"]}) == 3  # no repeat pairing
    sprt = Plan(["perfect", "rnd"], sprt=Sprt(0, 200), sprt_max_pairs=100)
    director = Director(sprt, LocalReferee(**local()), tmp_path / "p", TICTACTOE, quiet, 2)
    summary = await director.run()
    assert summary["sprt"]["verdict"] == "H1"
    assert summary["sprt"]["llr"] >= summary["sprt"]["upper"]
    assert len(summary["games"]) < 200


def test_elo_chart_is_a_png(tmp_path: Path) -> None:
    from bots.tournament.chart import draw_elo_chart

    rows = [
        {"name": "a", "elo": 190.8, "elo_error": 80.0},
        {"name": "b", "elo": -190.8, "elo_error": 80.0},
    ]
    draw_elo_chart(rows, tmp_path / "elo.png")
    assert (tmp_path / "elo.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# -- the referees --------------------------------------------------------------------------------


async def test_link_keeps_feeds_only_for_rooms_being_watched() -> None:
    link = Link("ws://unused")
    for n in range(40):  # what ServerReferee.play sees for every game, in the server's order
        room = f"r{n}"
        link._on({"type": "joined", "room": room, "seat": None, "id": 2 * n + 1})  # our create
        link._on({"type": "state", "room": room, "status": "playing", "moves": []})
        feed = link.feed(room)
        assert feed.get_nowait()["type"] == "joined"
        assert feed.get_nowait()["type"] == "state"
        link._on({"type": "game_over", "room": room, "winner": 0, "reason": "line"})
        assert feed.get_nowait()["type"] == "game_over"
        link.forget(room)
        link._on({"type": "chat", "room": room, "text": "gg"})  # late news about a forgotten room
        link._on({"type": "left", "room": room, "id": 2 * n + 2})
        link._on({"type": "state", "room": "someone-elses", "status": "playing"})  # never joined
        link._on({"type": "joined", "room": "theirs", "seat": 1})  # a push, not our request
    assert link._rooms == {}


def test_a_link_tells_its_watchers_once_per_drop() -> None:
    link = Link(["ws://a", "ws://b"])
    link._on({"type": "joined", "room": "r", "seat": None, "id": 1})
    for status in ("connecting", "offline", "connecting", "online"):  # a first connect fails
        link._on_status(status, "")
    for status in ("offline", "connecting", "offline", "connecting", "offline", "online"):
        link._on_status(status, "")  # dropped, then two failed connects before it is back
    feed = link.feed("r")
    assert [feed.get_nowait()["type"] for _ in range(feed.qsize())] == ["joined", "_closed"]


class IllegalBot(Bot):
    def choose(self, variant, moves, limit):
        return moves[0] if moves else Move(0, 0)  # the first stone's cell, again


class TimeoutBot(Bot):
    def choose(self, variant, moves, limit):
        raise TimeoutError("search did not return")


class SlowBot(Bot):
    def choose(self, variant, moves, limit):
        time.sleep(limit.time_s + 0.2)
        return RandomBot().choose(variant, moves, limit)


class BrokenBot(Bot):
    def choose(self, variant, moves, limit):
        raise RuntimeError("boom")


@pytest.mark.parametrize(
    ("bot", "fault"),
    [(IllegalBot, "illegal_move"), (TimeoutBot, "hang"), (SlowBot, "hang"), (BrokenBot, "crash")],
)
async def test_local_referee_names_faults_like_the_runner(bot, fault: str) -> None:
    from bots.tournament.schedule import GameSpec

    bots = {"bad": bot, "rnd": lambda: RandomBot()}
    referee = LocalReferee(TICTACTOE, bots, time_s=0.05, hang_slack_s=0.1)
    spec = GameSpec("k", 1, ("rnd", "bad"), 0, ())
    played = await referee.play(spec)
    result = played.result
    assert (result.reason, result.fault, result.winner) == ("forfeit", fault, 0)
    assert result.at_fault == "bad"
    assert standings(["rnd", "bad"], [result])[1].faults[fault] == 1


def test_a_resume_with_another_max_moves_is_refused(tmp_path: Path) -> None:
    from bots.tournament.cli import CONFIG, build_parser, settings

    out = tmp_path / "run"
    out.mkdir()
    base = ["--game", "tictactoe", "--bot", "a=random", "--bot", "b=random", "--out", str(out)]
    config, *_ = settings(build_parser().parse_args([*base, "--max-moves", "7"]))
    (out / CONFIG).write_text(json.dumps(config))
    settings(build_parser().parse_args([*base, "--max-moves", "7", "--concurrency", "3"]))
    for other in (["--max-moves", "8"], []):
        with pytest.raises(ValueError, match="max_moves"):
            settings(build_parser().parse_args([*base, *other]))


def test_the_documented_sprt_example_is_what_the_director_computes(tmp_path: Path) -> None:
    doc = (Path(__file__).parent.parent / "docs" / "TOURNAMENTS.md").read_text()
    match = re.search(r'"sprt": (\{[^}]*\})', doc)
    assert match is not None
    shown = json.loads(match.group(1))
    w, d, l = shown["wins"], shown["draws"], shown["losses"]  # noqa: E741
    plan = Plan(["new", "old"], sprt=Sprt(shown["elo0"], shown["elo1"]))
    quiet = PlainReporter(open("/dev/null", "w"))  # noqa: SIM115
    director = Director(plan, LocalReferee(**local()), tmp_path, TICTACTOE, quiet)
    outcomes = [0] * w + [None] * d + [1] * l  # from "new"'s side
    for i, won in enumerate(outcomes):
        players = ("new", "old") if i % 2 == 0 else ("old", "new")
        winner = None if won is None else players.index(("new", "old")[won])
        director.done[f"g{i}"] = result(
            f"g{i}", *players, winner, "line" if won is not None else "draw"
        )
    computed = director.summary()["sprt"]
    assert computed == shown
    assert abs(computed["llr"] - 0.369) < 0.001 and computed["verdict"] == "inconclusive"


def test_keys_for_bots_on_a_given_server(tmp_path: Path) -> None:
    from bots.tournament.cli import build_parser, given_keys

    bots = [("a", "random"), ("b", "minimax"), ("far", "remote")]
    keyfile = tmp_path / "keys"
    keyfile.write_text("# keys\nb=KEY-B\n")
    argv = ["--game", "tictactoe", "--bot", "x=random", "--out", "o", "--server", "ws://h:1"]
    args = build_parser().parse_args([*argv, "--key", "a=KEY-A", "--key-file", str(keyfile)])
    assert given_keys(args, bots) == {"a": "KEY-A", "b": "KEY-B"}  # a remote bot needs none
    args.key, args.key_file = ["a=KEY-A"], None
    with pytest.raises(ValueError, match="none for \\['b'\\]"):
        given_keys(args, bots)
    args.key = ["a:KEY-A"]
    with pytest.raises(ValueError, match="NAME=KEY"):
        given_keys(args, bots)


def test_servers_spread_the_bots_and_each_gets_the_whole_list() -> None:
    from bots.tournament.cli import build_parser, server_urls, spread

    argv = ["--game", "tictactoe", "--bot", "x=random", "--out", "o"]
    args = build_parser().parse_args([*argv, "--servers", "ws://a:1, ws://b:2,ws://c:3"])
    urls = server_urls(args)
    assert urls == ["ws://a:1", "ws://b:2", "ws://c:3"]
    assert [spread(urls, i)[0] for i in range(5)] == [*urls, *urls[:2]]  # bot i on node i mod 3
    assert spread(urls, 4) == ["ws://b:2", "ws://c:3", "ws://a:1"]  # then the others, in turn
    assert server_urls(build_parser().parse_args([*argv, "--server", "ws://h:1"])) == ["ws://h:1"]
    assert server_urls(build_parser().parse_args(argv)) is None  # an embedded server
    both = build_parser().parse_args([*argv, "--server", "ws://h:1", "--servers", "ws://a:1"])
    with pytest.raises(ValueError, match="not both"):
        server_urls(both)
    with pytest.raises(ValueError):
        server_urls(build_parser().parse_args([*argv, "--servers", ","]))


def test_servers_run_the_servers_event_given_a_director_key(tmp_path: Path) -> None:
    from bots.tournament.cli import build_parser, path_reason, settings

    argv = ["--game", "tictactoe", "--bot", "x=random", "--bot", "y=random"]
    args = build_parser().parse_args([*argv, "--out", str(tmp_path), "--servers", "ws://a:1"])
    config = settings(args)[0]
    assert path_reason(args, config, {"x": "k", "y": "k", "director": "k"}) is None
    assert "first of --servers" in str(path_reason(args, config, {"x": "k", "y": "k"}))


def test_no_bot_may_take_the_directors_name() -> None:
    from bots.tournament.cli import parse_bots

    with pytest.raises(ValueError, match="director"):
        parse_bots(["a=random", "Director=random"])


def test_the_embedded_servers_keys_file_is_private(tmp_path: Path) -> None:
    from bots.tournament.processes import KEYS_FILE, make_keys

    keys = make_keys(tmp_path, ["a", "b"])
    path = tmp_path / KEYS_FILE
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.read_text().splitlines() == [f"a={keys['a']}", f"b={keys['b']}"]
    assert len(set(keys.values())) == 2 and all(len(k) >= 40 for k in keys.values())


def _hosted_config(**changes: object) -> dict:
    config = {
        "game": "gomoku",
        "options": {},
        "bots": [["a", "random"], ["b", "random"], ["c", "random"]],
        "format": "round-robin",
        "games": 1,
        "rounds": None,
        "openings": None,
        "opening_list": [[]],
        "sprt": None,
        "clock": {"initial_s": 20.0, "increment_s": 0.2},
        "max_moves": 40,
    }
    return {**config, **changes}


def test_what_the_servers_event_plays_and_what_stays_on_the_directors_schedule() -> None:
    from bots.tournament.hosted import event_request, hosted_reason

    assert hosted_reason(_hosted_config(), own_schedule=False) is None
    assert hosted_reason(_hosted_config(format="swiss"), False) is None
    assert hosted_reason(_hosted_config(format="gauntlet"), False) is None
    two = [["a", "random"], ["b", "random"]]
    assert hosted_reason(_hosted_config(bots=[["a", "remote"], *two]), False) is None
    assert hosted_reason(_hosted_config(sprt="0,10", bots=two), False) is None
    match = event_request(
        _hosted_config(sprt="0,10,0.1,0.2", bots=two, sprt_max_games=51), "x", False
    )
    assert (match["format"], match["max_players"], match["max_games"]) == ("match", 2, 50)
    assert match["games_at_once"] == 1
    fast = _hosted_config(sprt="0,10", bots=two, concurrency=4)
    assert event_request(fast, "x", False)["games_at_once"] == 4
    assert match["sprt"] == {"elo0": 0, "elo1": 10, "alpha": 0.1, "beta": 0.2}
    assert "openings" not in match and "games_per_pair" not in match
    pairs = [[[7, 7]], [[7, 7], [8, 8]]]  # each opening once: pair n plays opening n mod 2
    assert (
        event_request(_hosted_config(sprt="0,10", opening_list=pairs), "x", False)["openings"]
        == pairs
    )
    assert hosted_reason(_hosted_config(openings="random:2:3"), False) is None
    stays = [
        hosted_reason(_hosted_config(), own_schedule=True),
        hosted_reason(_hosted_config(sprt="0,10", sprt_max_games=2002), False),
        hosted_reason(_hosted_config(format="swiss", rounds=21), False),
        hosted_reason(_hosted_config(game="mnk", options={"width": 5, "height": 5}), False),
        hosted_reason(_hosted_config(format="swiss", games=101), False),
        hosted_reason(_hosted_config(games=101), False),  # 202 games a pairing
        hosted_reason(_hosted_config(games=6, bots=[["a", "random"]] * 64), False),
        hosted_reason(_hosted_config(opening_list=[[[7, 7]]] * 65), False),
    ]
    assert all(stays), stays
    # the server's bounds: 200 games a pair, 20,160 games in all (10 a pair of 64 bots)
    assert hosted_reason(_hosted_config(games=10, opening_list=[[[7, 7]]] * 10), False) is None
    assert hosted_reason(_hosted_config(games=5, bots=[["a", "random"]] * 64), False) is None
    big_swiss = _hosted_config(format="swiss", rounds=7, bots=[["a", "random"]] * 64)
    assert hosted_reason({**big_swiss, "games": 45}, False) is None  # 90 x 7 x 32: 20,160
    assert hosted_reason({**big_swiss, "games": 46}, False) is not None
    # --games 2 over two openings: the list once; the server cycles it (each twice)
    two = [[[7, 7]], [[7, 7], [8, 8]]]
    msg = event_request(_hosted_config(games=2, opening_list=two, openings="F"), "x", False)
    assert msg["format"] == "round_robin" and msg["games_per_pair"] == 8
    assert msg["openings"] == two
    assert msg["options"] == {"max_moves": 40} and msg["clock"]["initial_s"] == 20.0
    swiss = event_request(_hosted_config(format="swiss", rounds=3), "x", True)
    assert swiss["rounds"] == 3 and swiss["rated"] and swiss["games_per_pair"] == 2
    # a swiss pairing plays both colours of each opening --games times in its round
    pairs = _hosted_config(format="swiss", rounds=3, games=2, opening_list=two)
    assert hosted_reason(pairs, False) is None
    msg = event_request(pairs, "x", False)
    assert (msg["rounds"], msg["games_per_pair"], msg["openings"]) == (3, 8, two)


def test_the_balanced_openings_are_quiet_distinct_five_stone_gomoku_openings() -> None:
    from bots.tournament.openings import is_quiet, openings_from_arg
    from protocol.openings import BALANCED_FILE, balanced_openings
    from protocol.variants import make_variant

    header = BALANCED_FILE.read_text().splitlines()[0]
    assert header.startswith("# 40 balanced 5-stone gomoku openings: bench/balanced_openings.py")
    openings = balanced_openings()
    assert len(openings) == len(set(openings)) == 40
    for game in ("gomoku", "gomoku-standard", "renju"):
        variant = make_variant(game, {})
        assert all(len(o) == 5 and is_quiet(o, variant) for o in openings), game
    assert openings_from_arg("balanced:3", make_variant("gomoku", {}), 1) == list(openings[:3])
    assert len(openings_from_arg("balanced", make_variant("gomoku", {}), 1)) == 40
    for bad, game in (
        ("balanced:0", "gomoku"),
        ("balanced:41", "gomoku"),
        ("balanced:2", "tictactoe"),
    ):
        with pytest.raises(ValueError):
            openings_from_arg(bad, make_variant(game, {}), 1)
    msg = event_request_of(openings="balanced:2", opening_list=[list(o) for o in openings[:2]])
    assert msg["openings"] == 2 and msg["games_per_pair"] == 4  # the server's own list
    twice = event_request_of(
        openings="balanced:1", games=2, opening_list=[[list(m) for m in openings[0]]]
    )
    assert twice["openings"] == 1 and twice["games_per_pair"] == 4


def event_request_of(**changes: object) -> dict:
    from bots.tournament.hosted import event_request

    return event_request(_hosted_config(**changes), "x", False)
