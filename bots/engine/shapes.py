"""Gomoku shape tables for the core (k = 5): line shapes, a cell's combined code, the weights.

The core keeps, per empty cell, side and direction, the line through the cell (the 4 cells each
side of it, and where that side's fives are exact — exact-five boards, renju's black — whether
the 5th cell each side is the side's own) as a small integer; :func:`line_table` maps that
integer to the *shape* the side makes by playing there (five, open four, four, open three,
three, open two, two, open one, one, none), and
:func:`combo_table` maps a cell's four shapes to one *combined code* (double four, four-three,
three-three, ... as classical engines do). The evaluation is linear in the counts of both
(fitted weights: ``weights/shapes-v2.json``, fitted to a deeper search's scores by
``bench/teach_eval.py`` from ``weights/shapes-v1.json``, fitted to results by
``bench/train_eval.py``); the move order uses the codes too. Tables are built once per process
in plain Python (cached).
"""

from __future__ import annotations

import json
from array import array
from functools import lru_cache
from pathlib import Path

from protocol.rules import DIRECTIONS

#: Line shapes, weakest first: what playing the cell makes on one line.
NONE, B1, F1, B2, F2, B3, F3, B4, F4, FIVE = range(10)
SHAPE_NAMES = ("none", "one", "open one", "two", "open two", "three", "open three",
               "four", "open four", "five")  # fmt: skip
#: Combined codes of a cell's four lines, weakest first.
(C_NONE, C_TWO, C_B3, C_TWO_TWO, C_B3_PLUS, C_THREE, C_THREE_PLUS, C_THREE_THREE, C_FOUR,
 C_FOUR_PLUS, C_FOUR_THREE, C_FLEX4, C_FIVE) = range(13)  # fmt: skip
COMBO_NAMES = ("none", "open two", "three", "two open twos", "three plus", "open three",
               "open three plus", "three-three", "four", "four plus", "four-three",
               "open or double four", "five")  # fmt: skip
#: Features the evaluation counts per side: the 10 line shapes, then the 13 combined codes.
NFEAT = 23
#: Offsets along a line that the index covers, and the base-3 place of each.
OFFSETS = (-4, -3, -2, -1, 1, 2, 3, 4)
#: Index place of "own stone at -5" / "at +5" (exact-five mode only).
BIT_M5, BIT_P5 = 3**8, 2 * 3**8
EMPTY, OWN, BLOCKED = 0, 1, 2
#: The evaluation's weights, fitted to a deeper search's scores (``bench/teach_eval.py``).
WEIGHTS = Path(__file__).with_name("weights") / "shapes-v2.json"
#: The weights fitted to self-play results: the teacher's evaluation, and the fit's start.
RESULT_WEIGHTS = WEIGHTS.with_name("shapes-v1.json")


def place(offset: int, exact: bool) -> int:
    """The index weight of a cell at ``offset`` (±1..±5) from the classified cell."""
    if offset in (-5, 5):
        return (BIT_M5 if offset < 0 else BIT_P5) if exact else 0
    return 3 ** OFFSETS.index(offset)


def _five(line: str, exact: bool) -> bool:
    """Whether ``line`` (11 cells as digits, centre 5 own) has five own in a row through the
    centre (exactly five in exact mode)."""
    for a in range(1, 6):
        if line[a : a + 5] == "11111" and (
            not exact or (line[a - 1] != "1" and line[a + 5] != "1")
        ):
            return True
    return False


_PROMOTE = {F4: F3, B4: B3, F3: F2, B3: B2, F2: F1, B2: B1}


def _level(line: str, exact: bool, memo: dict[str, int]) -> int:
    """The shape of ``line`` (centre already own): five; four by its number of five cells;
    else one below the best shape one more own stone (on cells 1..9) would make."""
    got = memo.get(line)
    if got is not None:
        return got
    if _five(line, exact):
        memo[line] = FIVE
        return FIVE
    empties = [i for i in range(1, 10) if line[i] == "0"]
    fives = sum(1 for i in empties if _five(line[:i] + "1" + line[i + 1 :], exact))
    if fives:
        out = F4 if fives >= 2 else B4
    else:
        out = NONE
        for i in empties:
            out = max(out, _PROMOTE.get(_level(line[:i] + "1" + line[i + 1 :], exact, memo), 0))
    memo[line] = out
    return out


def classify(line: tuple[int, ...], exact: bool) -> int:
    """The shape playing the centre of an 11-cell ``line`` makes (centre empty; cells 0 and 10
    only matter in exact mode). This is the definition; :func:`line_table` tabulates it."""
    text = "".join(str(v) for v in line)
    return _level(text[:5] + "1" + text[6:], exact, {})


@lru_cache(maxsize=2)
def line_table(exact: bool) -> array:
    """Shape per line index (see :func:`place`): 3**8 entries, 4 times that in exact mode."""
    memo: dict[str, int] = {}
    size = 3**8 * (4 if exact else 1)
    out = array("b", bytes(size))
    for idx in range(size):
        digits, rest = [], idx % 3**8
        for _ in range(8):
            digits.append(rest % 3)
            rest //= 3
        bits = idx // 3**8
        m5 = "1" if exact and bits & 1 else "0"
        p5 = "1" if exact and bits & 2 else "0"
        d = "".join(map(str, digits))
        out[idx] = _level(m5 + d[:4] + "1" + d[4:] + p5, exact, memo)
    return out


def combine(shapes: list[int] | tuple[int, ...]) -> int:
    """A cell's combined code from its four line shapes."""
    n = [0] * 10
    for s in shapes:
        n[s] += 1
    if n[FIVE]:
        return C_FIVE
    if n[F4] or n[B4] >= 2:
        return C_FLEX4
    if n[B4]:
        return C_FOUR_THREE if n[F3] else C_FOUR_PLUS if n[B3] or n[F2] else C_FOUR
    if n[F3] >= 2:
        return C_THREE_THREE
    if n[F3]:
        return C_THREE_PLUS if n[B3] or n[F2] else C_THREE
    if n[B3] >= 2 or (n[B3] and n[F2]):
        return C_B3_PLUS
    if n[F2] >= 2:
        return C_TWO_TWO
    if n[B3]:
        return C_B3
    return C_TWO if n[F2] else C_NONE


@lru_cache(maxsize=1)
def combo_table() -> array:
    """Combined code per ((s0 * 10 + s1) * 10 + s2) * 10 + s3 of a cell's four shapes."""
    return array(
        "b",
        [combine((i // 1000, i // 100 % 10, i // 10 % 10, i % 10)) for i in range(10_000)],
    )


@lru_cache(maxsize=8)
def rays(width: int, height: int) -> array:
    """ray[(c * 4 + d) * 11 + j + 5]: the cell ``j`` steps (-5..5) from c along direction d,
    or -1 off the board."""
    out = array("i", [-1]) * (width * height * 44)
    for c in range(width * height):
        x, y = c % width, c // width
        for d, (dx, dy) in enumerate(DIRECTIONS):
            for j in range(-5, 6):
                xx, yy = x + j * dx, y + j * dy
                if 0 <= xx < width and 0 <= yy < height:
                    out[(c * 4 + d) * 11 + j + 5] = yy * width + xx
    return out


#: Hand-set move-order keys (the fit's start, ``bench/fit_order.py``): own combined code, the
#: opponent's (a block), and per line shape; the core adds history below these.
ORDER_OWN = (0, 6, 5, 10, 12, 30, 40, 400, 120, 150, 3000, 5000, 100_000)
ORDER_OPP = (0, 4, 3, 6, 8, 20, 26, 300, 60, 80, 1500, 2500, 50_000)
ORDER_LINE = (0, 1, 2, 2, 4, 4, 8, 8, 10, 10)
#: The keys the core uses, one integer per feature (``order_table``'s layout).
ORDER_FILE = Path(__file__).with_name("weights") / "order-v1.json"
#: Where each part of the order table starts: own codes, the other side's codes, own line
#: shapes, the other side's (``Core._shape_key`` reads these offsets); its length.
OWN_CODE_AT, OPP_CODE_AT, OWN_LINE_AT, OPP_LINE_AT, NORDER = 0, 13, 26, 36, 46


def hand_order() -> list[int]:
    """The hand-set keys in ``order_table``'s layout (both sides' lines alike)."""
    return [*ORDER_OWN, *ORDER_OPP, *ORDER_LINE, *ORDER_LINE]


def order_table(path: Path | None = None) -> array:
    """The ordering keys as one array: own codes, the other side's codes, own line shapes,
    the other side's line shapes (from ``ORDER_FILE``)."""
    keys = json.loads((path or ORDER_FILE).read_text())["keys"]
    if len(keys) != NORDER or not all(isinstance(v, int) for v in keys):
        raise ValueError(f"the order keys are {NORDER} integers")
    return array("i", keys)


def load_weights(path: Path | None = None) -> tuple[list[int], list[int]]:
    """(for the side to move, for the other side): integer weight per feature, from the file."""
    data = json.loads((path or WEIGHTS).read_text())
    return _check(data["me"]), _check(data["opp"])


def _check(ws: list[int]) -> list[int]:
    if len(ws) != NFEAT or not all(isinstance(w, int) for w in ws):
        raise ValueError(f"a weights vector has {NFEAT} integers")
    return ws


#: Hand-set starting weights of the training (its round 0), per feature, for the side to move
#: and for the other side (the other side's threats count against us: they are negative).
START_ME = [0, 1, 2, 3, 8, 10, 40, 60, 400, 1000, 0, 10, 10, 20, 30, 60, 80, 150, 100, 150,
            1000, 1000, 1000]  # fmt: skip
START_OPP = [-w for w in START_ME]


@lru_cache(maxsize=4)
def tables(width: int, height: int, exact: tuple[bool, bool],
           weights: tuple[tuple[int, ...], tuple[int, ...]] | None = None) -> tuple:  # fmt: skip
    """Everything a core in shape mode needs: (ray, line tables, each side's offset into them,
    combo table, places per side, order keys, weights for the side to move, for the other side).
    ``exact`` says per side (black, white) whether only an exact five wins (renju: black);
    ``weights`` are the shipped file's unless given."""
    me, opp = weights or load_weights()
    black, white = line_table(exact[0]), line_table(exact[1])
    places = array("i", [0 if j == 0 else place(j, e) for e in exact for j in range(-5, 6)])
    return (
        rays(width, height),
        black + white,
        array("i", [0, len(black)]),
        combo_table(),
        places,
        order_table(),
        array("i", me),
        array("i", opp),
    )
