"""The tournament formats as pure functions (server/core/tournament/): round robin, swiss and
arena pairings checked as properties over random fields and results, and the tie-breaks and
arena scores against hand-worked examples."""

from __future__ import annotations

import itertools
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from server.core.tournament.arena_format import arena_pairs, ranking, sheet
from server.core.tournament.gauntlet import gauntlet, gauntlet_rounds
from server.core.tournament.match import match
from server.core.tournament.match_format import (
    decided,
    match_round,
    match_rounds,
    record,
    sprt_state,
)
from server.core.tournament.roundrobin import round_robin, total_rounds
from server.core.tournament.standings import standings
from server.core.tournament.swiss import default_rounds, follow_ups, swiss_round
from server.core.tournament.values import Bye, Finished, Game, colour_balance, met

NAMES = [f"p{i}" for i in range(12)]


def finish(game: Game, rng: random.Random) -> Finished:
    """``game`` with a random result."""
    return Finished(game, rng.choice([0, 1, None]))


# -- round robin -----------------------------------------------------------------------------


@given(st.integers(2, 9), st.integers(1, 4), st.integers(0, 3))
def test_round_robin_every_pair_meets_n_times_once_a_round(
    size: int, n: int, openings: int
) -> None:
    players = NAMES[:size]
    rounds = round_robin(players, n, openings)
    assert len(rounds) == total_rounds(size, n)
    games = [g for r in rounds for g in r.games]
    meetings = Counter(frozenset(g.players) for g in games)
    assert set(meetings) == {frozenset(p) for p in itertools.combinations(players, 2)}
    assert set(meetings.values()) == {n}
    for r in rounds:
        seen = [p for g in r.games for p in g.players] + [b.player for b in r.byes]
        assert sorted(seen) == sorted(players), "each player once a round, playing or out"
    assert len({g.key for g in games}) == len(games)


@given(st.integers(2, 9), st.integers(1, 4), st.integers(1, 3))
def test_round_robin_colours_balanced_and_an_openings_colours_to_one_pair(
    size: int, n: int, openings: int
) -> None:
    rounds = round_robin(NAMES[:size], n, openings)
    games = [g for r in rounds for g in r.games]
    balance = colour_balance(games)
    assert all(abs(d) <= (0 if n % 2 == 0 else 1) for d in balance.values())
    by_pair_opening: dict[tuple[frozenset[str], int | None], list[Game]] = {}
    for g in games:
        by_pair_opening.setdefault((frozenset(g.players), g.opening), []).append(g)
    for same in by_pair_opening.values():
        firsts = Counter(g.first for g in same)
        assert max(firsts.values()) - min(firsts.get(p, 0) for p in same[0].players) <= 1
        if len(same) % 2 == 0:
            assert set(firsts.values()) == {len(same) // 2}, "each colour of an opening to each"


@given(st.integers(3, 9).filter(lambda s: s % 2), st.integers(1, 3))
def test_round_robin_bye_rotates_in_an_odd_field(size: int, n: int) -> None:
    rounds = round_robin(NAMES[:size], n)
    byes = Counter(b.player for r in rounds for b in r.byes)
    assert byes == Counter({p: n for p in NAMES[:size]})


# -- gauntlet --------------------------------------------------------------------------------


@given(st.integers(2, 10), st.integers(1, 4), st.integers(1, 4), st.integers(0, 3))
def test_gauntlet_seeds_meet_every_other_n_times_and_nobody_else_meets(
    size: int, seeds: int, n: int, openings: int
) -> None:
    players = NAMES[:size]
    rounds = gauntlet(players, seeds, n, openings)
    assert len(rounds) == gauntlet_rounds(size, seeds, n)
    cut = max(1, min(seeds, size - 1))
    top, rest = players[:cut], players[cut:]
    games = [g for r in rounds for g in r.games]
    meetings = Counter(frozenset(g.players) for g in games)
    assert set(meetings) == {frozenset((a, b)) for a in top for b in rest}
    assert set(meetings.values()) == {n}
    for r in rounds:
        seen = [p for g in r.games for p in g.players]
        assert len(seen) == len(set(seen)), "each player at most once a round"
        assert len(r.games) == min(len(top), len(rest)) and not r.byes
    assert len({g.key for g in games}) == len(games)


@given(st.integers(2, 10), st.integers(1, 4), st.integers(1, 4), st.integers(1, 3))
def test_gauntlet_colours_balanced_and_an_openings_colours_to_one_pair(
    size: int, seeds: int, n: int, openings: int
) -> None:
    games = [g for r in gauntlet(NAMES[:size], seeds, n, openings) for g in r.games]
    assert all(abs(d) <= (0 if n % 2 == 0 else 1) for d in colour_balance(games).values())
    by_pair_opening: dict[tuple[frozenset[str], int | None], list[Game]] = {}
    for g in games:
        by_pair_opening.setdefault((frozenset(g.players), g.opening), []).append(g)
    for same in by_pair_opening.values():
        firsts = Counter(g.first for g in same)
        if len(same) % 2 == 0:
            assert set(firsts.values()) == {len(same) // 2}, "each colour of an opening to each"
    for g in games:
        assert g.opening == ((g.round - 1) // gauntlet_rounds(size, seeds, 1) // 2) % openings


# -- match -----------------------------------------------------------------------------------


@given(st.integers(1, 60), st.integers(0, 4), st.integers(1, 7))
def test_a_match_plays_colour_swapped_pairs_cycling_the_openings(
    games: int, openings: int, at_once: int
) -> None:
    total = match_rounds(games, at_once)
    rounds = [match_round(["a", "b"], openings, n, at_once, games) for n in range(1, total + 1)]
    played = [g for r in rounds for g in r.games]
    assert all(1 <= len(r.games) <= at_once and not r.byes for r in rounds)
    assert all(len(r.games) == at_once for r in rounds[:-1])
    assert len(played) == games and len({g.key for g in played}) == games
    for pair in range(games // 2):
        one, two = played[2 * pair], played[2 * pair + 1]
        assert one.players == ("a", "b") and two.players == ("b", "a")
        assert one.opening == two.opening == (pair % openings if openings else None)
    assert all(abs(d) <= 1 for d in colour_balance(played).values())


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from([0, 1, None, "void"]), min_size=1, max_size=80), st.integers(1, 5))
def test_a_matchs_sprt_decides_only_after_whole_pairs_on_the_first_entrants_record(
    outcomes: list, at_once: int
) -> None:
    from protocol.sprt import Sprt

    test = Sprt(0, 150)
    results: list[Finished] = []
    for n in range(1, match_rounds(len(outcomes), at_once) + 1):
        if decided(test, ["a", "b"], results, n, at_once):
            assert len(results) % 2 == 0, "whole pairs"
            assert test.verdict(test.llr(*record("a", results))) is not None
            return
        for game in match_round(["a", "b"], 0, n, at_once, len(outcomes)).games:
            outcome = outcomes[len(results)]
            void = outcome == "void"
            results.append(Finished(game, None if void else outcome, void))
    w, d, l = record("a", results)  # noqa: E741
    assert w + d + l == sum(o != "void" for o in outcomes)
    assert sprt_state(test, ["a", "b"], results)["wins"] == w


def test_a_match_won_every_game_stops_on_h1_at_the_first_whole_pair_past_the_bound() -> None:
    from protocol.sprt import Sprt

    test = Sprt(0, 200)
    results: list[Finished] = []
    n = 1
    while not decided(test, ["a", "b"], results, n):
        (game,) = match_round(["a", "b"], 0, n).games
        results.append(Finished(game, game.players.index("a")))  # a wins every game
        n += 1
    first_h1 = next(k for k in range(1, 100) if test.verdict(test.llr(k, 0, 0)) == "H1")
    assert len(results) == first_h1 + first_h1 % 2  # judged after whole pairs only
    assert sprt_state(test, ["a", "b"], results)["verdict"] == "H1"


# -- swiss -----------------------------------------------------------------------------------


def run_swiss(size: int, seed: int, rounds: int) -> list[tuple[list[Finished], list[Bye], object]]:
    """A whole swiss with random results: before each round, the history and the round."""
    rng = random.Random(seed)
    players = NAMES[:size]
    history: list[Finished] = []
    byes: list[Bye] = []
    trace = []
    for number in range(1, rounds + 1):
        order = [s.player for s in standings(players, history, byes)]
        made = swiss_round(order, history, byes, number)
        trace.append((list(history), list(byes), made))
        history += [finish(g, rng) for g in made.games]
        byes += list(made.byes)
    return trace


def repeat_free_round_exists(players: list[str], history: list[Finished], out: list) -> bool:
    """Brute force: whether some player could sit out (``out``) with the rest paired afresh."""
    pairs = met(f.game for f in history)
    for bye in out:
        line = [p for p in players if p != bye]
        if match(line, lambda a, b: frozenset((a, b)) not in pairs) is not None:
            return True
    return False


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 10), st.integers(0, 10**6), st.integers(1, 9))
def test_swiss_no_repeat_while_possible_and_byes_rotate(size: int, seed: int, rounds: int) -> None:
    players = NAMES[:size]
    for history, byes, made in run_swiss(size, seed, min(rounds, size - 1 + size % 2)):
        counts = Counter(b.player for b in byes)
        fewest = min(counts.get(p, 0) for p in players)
        candidates = [p for p in players if counts.get(p, 0) == fewest] if size % 2 else [None]
        for bye in made.byes:
            assert counts.get(bye.player, 0) == fewest, "the bye goes to one with the fewest"
        played = met(f.game for f in history)
        repeats = [g for g in made.games if frozenset(g.players) in played]
        if repeats:
            assert not repeat_free_round_exists(players, history, candidates)
        seen = [p for g in made.games for p in g.players] + [b.player for b in made.byes]
        assert sorted(seen) == sorted(players)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 12), st.integers(0, 10**6))
def test_swiss_colour_balance_stays_within_two(size: int, seed: int) -> None:
    trace = run_swiss(size, seed, default_rounds(size))
    history, _, last = trace[-1]
    games = [f.game for f in history] + list(last.games)
    assert all(abs(d) <= 2 for d in colour_balance(games).values())


def run_swiss_pairs(
    size: int, seed: int, rounds: int, per_pair: int, openings: int
) -> list[tuple[list[Finished], list[Bye], list[Game]]]:
    """A whole swiss of ``per_pair`` games a pairing with random results, each pairing's
    games made one at a time by ``follow_ups`` as its last ends: (history, byes, round's
    games) before each round."""
    rng = random.Random(seed)
    players = NAMES[:size]
    history: list[Finished] = []
    byes: list[Bye] = []
    trace = []
    for number in range(1, rounds + 1):
        order = [s.player for s in standings(players, history, byes, per_pair)]
        made = swiss_round(order, history, byes, number, per_pair, openings)
        opened = list(made.games)
        trace.append((list(history), list(byes), opened))
        games, done = list(made.games), set()
        while games:
            game = games.pop(rng.randrange(len(games)))  # a round's games end in any order
            history.append(finish(game, rng))
            done.add(game.key)
            playing = {p for g in games for p in g.players}
            more = follow_ups(opened, done, per_pair, openings)
            assert all(playing.isdisjoint(g.players) for g in more), "one game at a time"
            opened += more
            games += more
        byes += list(made.byes)
    return trace


@settings(max_examples=60, deadline=None)
@given(
    st.integers(2, 9), st.integers(0, 10**6), st.integers(1, 6), st.integers(1, 5),
    st.integers(0, 3),
)  # fmt: skip
def test_swiss_pairings_play_k_games_colours_of_an_opening_to_the_pair(
    size: int, seed: int, rounds: int, per_pair: int, openings: int
) -> None:
    rounds = min(rounds, size - 1 + size % 2)
    trace = run_swiss_pairs(size, seed, rounds, per_pair, openings)
    players = NAMES[:size]
    for number, (history, byes_before, games) in enumerate(trace, start=1):
        counts = Counter(b.player for b in byes_before)
        fewest = min(counts.get(p, 0) for p in players)
        # the bye goes to one with the fewest: only they may sit out for a repeat-free round
        candidates = [p for p in players if counts.get(p, 0) == fewest] if size % 2 else [None]
        by_pair: dict[frozenset[str], list[Game]] = {}
        for game in games:
            assert game.round == number
            by_pair.setdefault(frozenset(game.players), []).append(game)
        assert all(len(g) == per_pair for g in by_pair.values()), "k games a pairing"
        assert len(set(by_pair)) * 2 + size % 2 == size
        earlier = met(f.game for f in history)
        if any(pair in earlier for pair in by_pair):
            assert not repeat_free_round_exists(players, history, candidates)
        for pair_games in by_pair.values():
            pair_games.sort(key=lambda g: int(g.key.rsplit(".", 1)[-1]) if per_pair > 1 else 0)
            for a, b in zip(pair_games[::2], pair_games[1::2], strict=False):
                assert (a.first, a.second) == (b.second, b.first), "colours swapped in a pair"
                assert a.opening == b.opening
            assert all((g.opening is None) == (openings == 0) for g in pair_games)
            if openings and per_pair >= 2 * openings:
                assert {g.opening for g in pair_games} == set(range(openings))
    keys = [g.key for _, _, games in trace for g in games]
    assert len(keys) == len(set(keys)), "a key names one game"
    history, byes, last = trace[-1]
    everything = history + [Finished(g, 0) for g in last]
    if per_pair % 2 == 0:
        assert all(d == 0 for d in colour_balance(f.game for f in everything).values())
    table = standings(players, everything, byes, per_pair)
    played = Counter(p for f in everything for p in f.game.players)
    byes_of = Counter(b.player for b in byes)
    last_byes = {p for p in players if p not in {q for g in last for q in g.players}}
    for line in table:  # every round is worth k: k games played or k points of a bye
        p = line.player
        rounds_in = played[p] // per_pair + byes_of[p] + (p in last_byes)
        assert rounds_in == rounds and played[p] % per_pair == 0
        assert line.wins + line.draws + line.losses == played[p]


# -- tie-breaks ------------------------------------------------------------------------------


def test_buchholz_and_sonneborn_berger_on_a_hand_worked_example() -> None:
    # R1: A beats B, C-D drawn. R2: A-C drawn, B beats D. R3: A beats D, B-C drawn.
    # Points: A 2.5, B 1.5, C 1.5, D 0.5.
    # Buchholz: A = B+C+D = 3.5; B = A+D+C = 4.5; C = D+A+B = 4.5; D = C+B+A = 5.5.
    # Sonneborn-Berger: A = 1.5 + 1.5/2 + 0.5 = 2.75; B = 0.5 + 1.5/2 = 1.25;
    #                   C = (0.5 + 2.5 + 1.5)/2 = 2.25; D = 1.5/2 = 0.75.
    # B and C tie on points and Buchholz; C is ahead on Sonneborn-Berger.
    games = [
        Finished(Game("1.1", 1, "A", "B"), 0),
        Finished(Game("1.2", 1, "C", "D"), None),
        Finished(Game("2.1", 2, "C", "A"), None),
        Finished(Game("2.2", 2, "D", "B"), 1),
        Finished(Game("3.1", 3, "D", "A"), 1),
        Finished(Game("3.2", 3, "B", "C"), None),
    ]
    table = standings(["A", "B", "C", "D"], games)
    assert [(s.player, s.points, s.buchholz, s.sonneborn_berger) for s in table] == [
        ("A", 2.5, 3.5, 2.75),
        ("C", 1.5, 4.5, 2.25),
        ("B", 1.5, 4.5, 1.25),
        ("D", 0.5, 5.5, 0.75),
    ]
    assert [(s.wins, s.draws, s.losses) for s in table] == [
        (2, 1, 0),
        (0, 3, 0),
        (1, 1, 1),
        (0, 1, 2),
    ]


def test_a_bye_scores_a_point_and_adds_to_no_tie_break() -> None:
    games = [Finished(Game("1.1", 1, "A", "B"), 0)]
    table = standings(["A", "B", "C"], games, [Bye(1, "C")])
    assert [(s.player, s.points, s.buchholz, s.byes) for s in table] == [
        ("A", 1.0, 0.0, 0),
        ("C", 1.0, 0.0, 1),
        ("B", 0.0, 1.0, 0),
    ]
    assert standings(["A", "B", "C"], games, [Bye(1, "C")], bye_points=0.0)[1].player == "B"


def test_a_bye_in_a_swiss_of_two_games_a_pairing_scores_both() -> None:
    games = [Finished(Game("1.1.1", 1, "A", "B"), 0), Finished(Game("1.1.2", 1, "B", "A"), 0)]
    table = standings(["A", "B", "C"], games, [Bye(1, "C")], bye_points=2.0)
    assert [(s.player, s.points, s.byes) for s in table] == [
        ("C", 2.0, 1),
        ("A", 1.0, 0),
        ("B", 1.0, 0),
    ]


# -- arena -----------------------------------------------------------------------------------


def test_arena_scores_double_on_a_streak_of_two_wins() -> None:
    results = "WWDWWWLWW"  # A's results against B, in order
    finished = [
        Finished(Game(f"a{i}", i, "A", "B"), {"W": 0, "L": 1, "D": None}[r])
        for i, r in enumerate(results, start=1)
    ]
    # lichess's example: two wins then a draw are 2 + 2 + 2; a third win in a row is 4.
    assert sheet("A", finished) == (2, 2, 2, 2, 2, 4, 0, 2, 2)
    assert sheet("B", finished) == (0, 0, 1, 0, 0, 0, 2, 0, 0)
    table = ranking(["B", "A"], finished, {"A": 1500.0, "B": 1600.0})
    assert [(line.player, line.points, line.streak) for line in table] == [
        ("A", 18, True),
        ("B", 3, False),
    ]


def test_arena_ranks_players_without_games_by_rating() -> None:
    table = ranking(["a", "b", "c"], [], {"a": 1400.0, "b": 1700.0, "c": 1500.0})
    assert [line.player for line in table] == ["b", "c", "a"]


def rematch_free_exists(free: list[str], last: dict[str, str]) -> bool:
    """Brute force: some pairing of ``free`` (one waiting if odd) with no last-opponent rematch."""
    outs = free if len(free) % 2 else [None]
    for out in outs:
        line = [p for p in free if p != out]
        for perm in itertools.permutations(line):
            pairs = list(zip(perm[::2], perm[1::2], strict=True))
            if all(last.get(a) != b and last.get(b) != a for a, b in pairs):
                return True
    return False


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 7), st.integers(0, 10**6))
def test_arena_pairs_neighbours_and_no_rematch_while_another_is_free(size: int, seed: int) -> None:
    rng = random.Random(seed)
    free = NAMES[:size]
    rng.shuffle(free)
    last: dict[str, str] = {}
    for a, b in zip(free[::2], free[1::2], strict=False):
        if rng.random() < 0.7:
            last[a], last[b] = b, a
    games = arena_pairs(free, last, [], 1)
    paired = [p for g in games for p in g.players]
    assert len(paired) == len(set(paired)) == size - size % 2
    if any(last.get(g.first) == g.second or last.get(g.second) == g.first for g in games):
        assert not rematch_free_exists(free, last)
    if not last:
        line = [p for p in free if p in paired]
        assert [sorted(g.players) for g in games] == [
            sorted(line[i : i + 2]) for i in range(0, len(line), 2)
        ], "with no rematch to avoid, neighbours in the ranking meet"


def test_the_biggest_events_message_stays_well_under_the_frame_limit() -> None:
    from protocol.wire import MAX_FRAME, encode
    from server.core.tournament.event import (
        GAMES_PAGE,
        MAX_ENTRANTS,
        Entrant,
        Event,
        Slot,
        read_settings,
    )

    settings = read_settings(
        {"name": "x" * 64, "game": "gomoku", "format": "round_robin", "games_per_pair": 2}
    )
    event = Event("t" * 8, settings, "a" * 32, 1.0)
    players = [f"p_{i:030}" for i in range(MAX_ENTRANTS)]
    for seq, pid in enumerate(players, start=1):
        event.enter(Entrant(pid, "n" * 32, "bot", seq, 1500.0 + seq))  # Elo too
    for made in round_robin(players, 2):
        for game in made.games:
            event.paired(Slot(game, "r" * 12, "g_" + "0" * 30, float(made.number)))
            event.record(game.key, 0, False)
    size = len(encode(event.message()))
    assert len(event.slots) == MAX_ENTRANTS * (MAX_ENTRANTS - 1)
    assert event.message()["pages"] == -(-len(event.slots) // GAMES_PAGE)
    assert all(line["elo"] for line in event.message()["standings"])  # a bot event: the biggest
    assert size < MAX_FRAME * 0.6, size  # 37 KB: 64 entrants with their Elo, 100 games of 4032
