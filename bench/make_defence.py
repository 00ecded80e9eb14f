"""Build the white-defence suite (``bench/defence.json``) from self-play of the shipped engine.

Run ``python bench/make_defence.py [--positions 80] [--seed 1] [--jobs 2]`` (the shipped file:
those arguments, 33 min on a shared 2-core machine at a load of 4-9; the file is rewritten after
every batch of games, and ``--positions N`` gives the first N of a longer run). Games (gomoku
freestyle 15x15) start from a balanced opening (``protocol/balanced_openings.txt``) or from 2-4
random stones in the centre; black is the engine at 20k-40k nodes a move (about 0.05-0.1 s;
nodes rather than time, so a seed gives the same games on any machine), white the engine at
5k-20k nodes with a third of its moves a random one of its six best-ordered candidates, so
that white gets into trouble early. Every position with white to move and 7-19 stones is
classified by threat search at a budget well beyond the engine's in-play one:

* black, were white to pass, has a forced win by threats (VCF, else VCT). The pass is a white
  stone on the empty cell farthest from every stone: an extra white stone never helps black
  in freestyle, so a win found with it is a win after a pass;
* white has no VCF or VCT of its own (else it is not defence), black no four (a single block
  is no puzzle);
* every candidate at the root (the core's ``root_moves()``, the moves the engine chooses from)
  is decided: **refuted** when black then has a VCF or VCT; **accepted** when black has
  neither (both searches complete within budget) and the engine's own search (1M nodes a
  move, following forced replies such as a four's block) finds no forced win for black
  either. A budget that runs out, or an answer the engine search finds lost beyond the threat
  search's reach, drops the position: nothing is guessed;
* answers are the minority: 1 to ``MAX_ANSWERS`` accepted, and at least ``MIN_REFUTED`` of the
  ``TOP`` best-ordered candidates refuted.

Budgets: VCF 25 plies, VCT 15 plies, 200,000 threat-search nodes each (the engine plays with
VCF 15 / VCT 9 plies and 4,000 / 1,000 nodes in its candidate check). The VCT is the core's:
the defender's replies are the cells of every window feeding a double-threat point plus its
own fours, so "no VCT" means none within that model. Positions are deduplicated under the
board's eight symmetries; at most two come from one game. ``category`` says what white is up
against (``defend-vcf``: black's pass-win is a VCF; ``defend-vct``: it needs threes).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bots.engine.fast import core_for, fast_search, load_core, set_memory
from bots.engine.limits import MATE_BOUND, Limit
from protocol import GOMOKU, Game, Move
from protocol.openings import balanced_openings

SUITE = Path(__file__).with_name("defence.json")
VCF_PLIES, VCT_PLIES, NODES = 25, 15, 200_000
#: The engine's search after an accepted answer (a second opinion on "holds"), and how many
#: forced replies (a four's block, a single safe move) it follows.
DEEP_NODES, DEEP_REPLIES = 1_000_000, 8
FOREVER = 1e18
SIZE = 15
MAX_ANSWERS, MIN_REFUTED, TOP = 6, 3, 8
MIN_STONES, MAX_STONES = 7, 19
PER_GAME = 2


def threat(core: object, threes: bool) -> int:
    """The side to move's threat win at the suite's budget (-1 none, -2 unknown)."""
    plies = VCT_PLIES if threes else VCF_PLIES
    return core.threat_win(plies, threes, NODES, FOREVER)  # type: ignore[attr-defined]


def threat_kind(core: object) -> tuple[str, int] | None:
    """("vcf"|"vct"|"none", cell) for the side to move; None when a budget ran out."""
    for threes, kind in ((False, "vcf"), (True, "vct")):
        found = threat(core, threes)
        if found == -2:
            return None
        if found >= 0:
            return kind, found
    return "none", -1


def pass_cell(moves: list[Move]) -> Move:
    """The empty cell farthest (Chebyshev) from every stone, lowest index first: a white pass."""
    taken = {(m.x, m.y) for m in moves}
    best, far = Move(0, 0), -1
    for y in range(SIZE):
        for x in range(SIZE):
            if (x, y) in taken:
                continue
            d = min(max(abs(x - m.x), abs(y - m.y)) for m in moves)
            if d > far:
                best, far = Move(x, y), d
    return best


def black_after_pass(moves: list[Move]) -> tuple[str, int] | None:
    """Black's threat win (kind, cell) were white to pass now, or None if none or unknown."""
    core = core_for(GOMOKU, [*moves, pass_cell(moves)], load_core(), keep=False)
    got = threat_kind(core)
    return got if got is not None and got[0] != "none" else None


def deep_lost(moves: list[Move], cell: int) -> bool:
    """Whether the engine's search (``DEEP_NODES``) finds black winning after white's ``cell``,
    following forced replies: a four answered by its block is no threat to the threat search,
    and a win may begin there (white's four, black's block that is no threat, then a VCT)."""
    line = [*moves, Move(cell % SIZE, cell // SIZE)]
    for _ in range(DEEP_REPLIES):
        result = fast_search(GOMOKU, line, Limit(nodes=DEEP_NODES), keep=False)
        if abs(result.score) >= MATE_BOUND:
            return (result.score > 0) == (len(line) % 2 == 0)  # black to move and winning
        if result.source != "forced":
            return False
        line.append(result.move)
    return False


def judge(moves: list[Move]) -> tuple[list[int], int] | None:
    """(accepted cells, refuted count) over every root candidate, or None when not a puzzle."""
    core = core_for(GOMOKU, moves, load_core(), keep=False)
    roots = core.root_moves()
    accepted, refuted, refuted_top = [], 0, 0
    for i, cell in enumerate(roots):
        core.play(cell)
        try:
            got = threat_kind(core)
        finally:
            core.undo()
        if got is None:
            return None  # a budget ran out: undecided, so no puzzle
        if got[0] != "none":
            refuted += 1
            refuted_top += i < TOP
            continue
        accepted.append(cell)
        if len(accepted) > MAX_ANSWERS or (i + 1 >= TOP and refuted < MIN_REFUTED):
            return None  # too many answers: not a puzzle (no need to look further)
    if not accepted or len(accepted) >= refuted or refuted_top < MIN_REFUTED:
        return None
    if any(deep_lost(moves, c) for c in accepted):
        return None  # lost beyond the threat search: the labels would be wrong
    return accepted, refuted


def classify(moves: list[Move]) -> dict[str, object] | None:
    """The suite entry for this position (white to move), or None when it is none."""
    if not MIN_STONES <= len(moves) <= MAX_STONES or len(moves) % 2 == 0:
        return None
    core = core_for(GOMOKU, moves, load_core(), keep=False)
    if core.over() or core.win_cells(0) or core.win_cells(1):
        return None  # a five, white's win now, or black's four (a single forced block)
    black = black_after_pass(moves)
    if black is None:
        return None  # white need not defend (or it is unknown whether it must)
    own = threat_kind(core)
    if own is None or own[0] != "none":
        return None  # white's own forced win (or unknown): not a defence puzzle
    judged = judge(moves)
    if judged is None:
        return None
    accepted, refuted = judged
    return {
        "category": f"defend-{black[0]}",
        "moves": [[m.x, m.y] for m in moves],
        "accepted": sorted([c % SIZE, c // SIZE] for c in accepted),
        "refuted": refuted,
        "threat": [black[1] % SIZE, black[1] // SIZE],
    }


def opening(rng: random.Random, game_no: int) -> Game:
    """Even games: a balanced opening (in turn); odd: 2-4 random stones in the centre."""
    game = Game(GOMOKU)
    if game_no % 2 == 0:
        book = balanced_openings()
        for x, y in book[(game_no // 2) % len(book)]:
            game.push(Move(x, y))
        return game
    while game.ply < rng.randint(2, 4):
        move = Move(rng.randint(5, 9), rng.randint(5, 9))
        if game.is_legal(move):
            game.push(move)
    return game


def self_play(seed: int, game_no: int) -> list[dict[str, object]]:
    """One game's puzzles (at most ``PER_GAME``): black the engine, white the engine with noise."""
    set_memory(3 * (24 << 14))  # small tables: a core per search and per check
    rng = random.Random(f"defence-{seed}-{game_no}")
    game = opening(rng, game_no)
    source = (
        f"balanced {(game_no // 2) % len(balanced_openings())}" if game_no % 2 == 0 else "centre"
    )
    found: list[dict[str, object]] = []
    while not game.over and game.ply <= MAX_STONES and len(found) < PER_GAME:
        moves = list(game.moves)
        if game.ply % 2 == 1:  # white to move
            entry = classify(moves)
            if entry is not None:
                entry["source"] = f"{source}, seed {seed} game {game_no}"
                found.append(entry)
        if game.ply % 2 == 1 and rng.random() < 1 / 3:
            core = core_for(GOMOKU, moves, load_core(), keep=False)
            cell = rng.choice(core.root_moves()[:6])
            move = Move(cell % SIZE, cell // SIZE)
        else:
            nodes = rng.randint(5_000, 20_000) if game.ply % 2 else rng.randint(20_000, 40_000)
            move = fast_search(GOMOKU, moves, Limit(nodes=nodes), keep=False).move
        game.push(move)
    return found


def canonical(moves: list[list[int]]) -> tuple[tuple[int, ...], ...]:
    """The position (stones per colour) under the board's eight symmetries, smallest first."""
    n = SIZE - 1
    maps = [
        lambda x, y: (x, y), lambda x, y: (n - x, y), lambda x, y: (x, n - y),
        lambda x, y: (n - x, n - y), lambda x, y: (y, x), lambda x, y: (n - y, x),
        lambda x, y: (y, n - x), lambda x, y: (n - y, n - x),
    ]  # fmt: skip
    keys = []
    for f in maps:
        cells = [f(x, y) for x, y in moves]
        black = tuple(sorted(y * SIZE + x for x, y in cells[0::2]))
        white = tuple(sorted(y * SIZE + x for x, y in cells[1::2]))
        keys.append((black, white))
    return min(keys)


def main() -> None:
    """Play games (in parallel, in a fixed order) until ``--positions`` puzzles; write them."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--positions", type=int, default=80)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--max-games", type=int, default=2000)
    args = p.parse_args()
    suite: list[dict[str, object]] = []
    seen: set[tuple[tuple[int, ...], ...]] = set()
    started = time.perf_counter()
    batch = 8 * args.jobs
    with ProcessPoolExecutor(args.jobs) as pool:
        for first in range(0, args.max_games, batch):
            games = range(first, min(first + batch, args.max_games))
            for found in pool.map(self_play, [args.seed] * len(games), games):
                for entry in found:
                    key = canonical(entry["moves"])  # type: ignore[arg-type]
                    if key not in seen and len(suite) < args.positions:
                        seen.add(key)
                        suite.append(entry)
            counts = {
                c: sum(e["category"] == c for e in suite) for c in ("defend-vcf", "defend-vct")
            }
            print(
                f"{len(suite)} puzzles {counts} after {games.stop} games, "
                f"{time.perf_counter() - started:.0f} s",
                flush=True,
            )
            SUITE.write_text(json.dumps(suite, indent=None) + "\n")  # (usable if stopped)
            if len(suite) >= args.positions:
                break
    print(f"wrote {SUITE}: {len(suite)} positions in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
