"""Build the renju tactics suite (``bench/renju_tactics.json``) from hand-built positions.

Run ``python bench/make_renju_tactics.py`` (a few minutes). Every position below was built by
hand from the rules; its accepted answers are not written by hand but found by brute force on
the rules alone (``protocol.rules`` + ``protocol.renju``, through the VCF prover of
``tests/support/renju_play.py``), over every legal move within two cells of a stone:

* ``forbidden-win``: white to move wins by fours whose last one can only be stopped on a point
  black may not play; accepted: every move that starts such a win (within three fours).
* ``black-vcf``: black to move wins by fours (a four-three at the end) on allowed points only,
  while a tempting forbidden point (a double four, an overline "five") is there; accepted:
  every move that starts a win.
* ``forbidden-defence``: white threatens an open four and one of black's natural defences is
  forbidden; accepted: every legal black move after which white has no win by fours.

Six more ``forbidden-win`` positions come from engine self-play (``GAMES``): white wins by two or
three fours under renju, by none under freestyle rules (black's overlines and fouls allowed),
and not by a single four (which is all v1's renju layer looked for).

The script fails when a position does not show what its category says (no forbidden point in
play, no win, or every defence holding), so the suite cannot drift from its claims.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.renju_play import DEPTH, Prover, answers, interleave, near_moves

from protocol import renju
from protocol.rules import Game, Move
from protocol.variants import GOMOKU, RENJU

SUITE = Path(__file__).with_name("renju_tactics.json")
FAR = [(0, 14), (14, 0), (0, 12), (2, 14), (14, 2), (12, 0), (0, 10), (10, 0), (0, 8), (8, 0)]

Stones = list[tuple[int, int]]
#: (name, category, black stones, white stones); far white stones even out the counts.
POSITIONS: list[tuple[str, str, Stones, Stones]] = [
    ("white four onto an overline point", "forbidden-win",
     [(3, 7), (4, 7), (5, 7), (7, 7), (8, 7), (6, 12), (14, 14)],
     [(6, 8), (6, 9), (6, 10)]),
    ("white four onto a double-three point", "forbidden-win",
     [(8, 10), (8, 11), (9, 8), (10, 7), (4, 9), (1, 1)],
     [(5, 9), (6, 9), (7, 9)]),
    ("two white fours, the last onto a double-four point", "forbidden-win",
     [(4, 7), (5, 7), (6, 7), (7, 4), (7, 5), (7, 6), (11, 11), (12, 4)],
     [(9, 9), (10, 10), (9, 7), (10, 6), (11, 5)]),
    ("black four-three beside a forbidden double four", "black-vcf",
     [(4, 7), (5, 7), (6, 7), (7, 4), (7, 5), (7, 6), (10, 10), (11, 11), (12, 12), (10, 9),
      (11, 9)],
     [(3, 7), (7, 3), (13, 13)]),
    ("black four-three beside an overline 'five'", "black-vcf",
     [(3, 7), (4, 7), (5, 7), (7, 7), (8, 7), (11, 11), (12, 12), (13, 13), (11, 10), (12, 10)],
     [(14, 14)]),
    ("block the open three where the double three is not", "forbidden-defence",
     [(8, 10), (8, 11), (9, 8), (10, 7), (9, 9)],
     [(5, 9), (6, 9), (7, 9)]),
    ("block the open three where the overline is not", "forbidden-defence",
     [(9, 6), (9, 7), (9, 8), (9, 10), (9, 11), (10, 9)],
     [(6, 9), (7, 9), (8, 9), (9, 5), (9, 12)]),
]  # fmt: skip

#: Move lists from engine self-play (level 10 at 300 nodes, a quarter of the moves random near
#: the centre), white to move, kept by a filter on the rules alone: white wins by two or three
#: fours under renju, not by one, and not at all were black's overlines and fouls allowed.
GAMES: list[list[tuple[int, int]]] = [
    [(7, 7), (8, 6), (9, 7), (8, 7), (8, 8), (6, 6), (10, 6), (7, 9), (11, 5), (12, 4), (7, 6),
     (7, 5), (4, 7), (4, 8), (5, 7), (5, 11), (3, 7), (6, 7), (9, 9), (10, 10), (1, 7), (2, 7),
     (8, 5), (11, 3), (9, 8), (9, 6), (9, 10), (4, 5), (5, 5), (9, 11), (7, 8), (3, 4), (7, 10),
     (6, 8), (6, 9)],
    [(7, 7), (5, 5), (8, 6), (9, 5), (11, 11), (7, 5), (8, 5), (8, 4), (8, 7), (8, 8), (5, 7),
     (6, 7), (3, 6), (10, 6), (11, 7), (7, 3), (6, 2), (9, 7), (7, 9), (9, 4), (9, 6)],
    [(7, 7), (5, 7), (8, 6), (6, 8), (7, 9), (7, 8), (8, 8), (7, 5), (6, 6), (9, 9), (5, 5), (4,
     4), (8, 7), (8, 9), (8, 11), (8, 4), (6, 9), (10, 11), (9, 10), (10, 9), (12, 9), (9, 7),
     (7, 10), (5, 8), (4, 6), (4, 8), (3, 8), (5, 6), (4, 10), (5, 9), (5, 10), (10, 7), (6, 10),
     (3, 10), (10, 8)],
    [(7, 7), (5, 7), (7, 8), (6, 6), (9, 8), (7, 5), (4, 8), (8, 4), (9, 3), (3, 6), (6, 8), (5,
     8), (10, 8), (8, 8), (5, 9), (8, 6), (8, 7), (6, 10), (4, 10), (3, 11), (11, 3), (7, 6), (6,
     4), (3, 4), (5, 6)],
    [(7, 7), (9, 5), (9, 7), (8, 7), (4, 4), (8, 8), (3, 5), (4, 7), (10, 6), (8, 6), (8, 5), (8,
     10), (8, 9), (5, 3), (3, 3), (6, 8), (5, 5), (6, 6), (2, 2), (1, 1), (7, 8), (7, 9), (9, 11)],
    [(7, 7), (7, 9), (10, 8), (6, 8), (5, 7), (8, 7), (6, 7), (4, 7), (8, 8), (9, 9), (8, 9), (3,
     10), (7, 8), (5, 6), (9, 8), (11, 8), (9, 10), (10, 11), (10, 7), (7, 10), (11, 6), (12, 5),
     (10, 6), (10, 5), (6, 11), (10, 10), (9, 6), (8, 6), (12, 6), (13, 6), (11, 5), (6, 5), (7,
     4), (3, 8), (2, 9), (8, 5), (7, 5), (7, 6), (10, 3)],
]  # fmt: skip


def moves_of(category: str, black: Stones, white: Stones) -> list[Move]:
    """The move list of a position: black to move (equal counts) or white (one more black)."""
    want = len(black) - (0 if category in ("black-vcf", "forbidden-defence") else 1)
    pad = [xy for xy in FAR if xy not in black and xy not in white]
    return interleave(black, white + pad[: want - len(white)])


def check_game(moves: list[Move]) -> None:
    """Fail loudly when a self-play position is not a multi-four win that needs renju's rules."""
    assert Prover(RENJU, moves).wins(1, 1) is None, "won by one four"
    assert Prover(GOMOKU, moves).wins(1, DEPTH) is None, "won without renju's rules"


def check(name: str, category: str, moves: list[Move], accepted: list[Move]) -> None:
    """Fail loudly when the position does not show what its category claims."""
    game = Game.from_moves(RENJU, moves)
    assert accepted, f"{name}: no answer"
    fouls = list(renju.fouls(game.board.cells, 15, 15))
    if category == "forbidden-win":
        assert game.ply & 1 == 1, name
    else:
        assert game.ply & 1 == 0 and fouls, f"{name}: black to move with a forbidden point"
    if category == "forbidden-defence":
        assert len(accepted) < len(near_moves(game)), f"{name}: every move holds"


def main() -> None:
    """Write the suite and print each position's answers."""
    suite = []
    for name, category, black, white in POSITIONS:
        moves = moves_of(category, black, white)
        accepted = answers(category, moves)
        check(name, category, moves, accepted)
        print(f"{category:<18} {name}: {[(m.x, m.y) for m in accepted]}")
        suite.append(
            {
                "name": name,
                "category": category,
                "moves": [[m.x, m.y] for m in moves],
                "accepted": [[m.x, m.y] for m in accepted],
            }
        )
    for i, stones in enumerate(GAMES, 1):
        moves = [Move(x, y) for x, y in stones]
        check_game(moves)
        accepted = answers("forbidden-win", moves)
        check(f"self-play {i}", "forbidden-win", moves, accepted)
        print(f"{'forbidden-win':<18} self-play {i}: {[(m.x, m.y) for m in accepted]}")
        suite.append(
            {
                "name": f"self-play forbidden-point win {i}",
                "category": "forbidden-win",
                "moves": stones,
                "accepted": [[m.x, m.y] for m in accepted],
            }
        )
    SUITE.write_text("[\n" + ",\n".join(json.dumps(e) for e in suite) + "\n]\n")  # a line each
    print(f"wrote {len(suite)} positions to {SUITE}")


if __name__ == "__main__":
    main()
