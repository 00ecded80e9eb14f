"""Build the renju tactics suite (``bench/renju_tactics.json``) from hand-built positions.

Run ``python bench/make_renju_tactics.py`` (about a minute). Every position below was built by
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

The script fails when a position does not show what its category says (no forbidden point in
play, no win, or every defence holding), so the suite cannot drift from its claims.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.renju_play import answers, interleave, near_moves

from protocol import renju
from protocol.rules import Game, Move
from protocol.variants import RENJU

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


def moves_of(category: str, black: Stones, white: Stones) -> list[Move]:
    """The move list of a position: black to move (equal counts) or white (one more black)."""
    want = len(black) - (0 if category in ("black-vcf", "forbidden-defence") else 1)
    pad = [xy for xy in FAR if xy not in black and xy not in white]
    return interleave(black, white + pad[: want - len(white)])


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
    SUITE.write_text(json.dumps(suite, indent=1) + "\n")
    print(f"wrote {len(suite)} positions to {SUITE}")


if __name__ == "__main__":
    main()
