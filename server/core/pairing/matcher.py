"""One pool's wave: which waiting seeks are paired, by rating closeness (sans-I/O, pure).

Lichess's pool scores a pair by its rating gap minus a bonus for the waves each side has
missed, and never pairs past the gaps the two sides accept. Here, on the rating line:

* the seeks are sorted by rating, and each is scored only against the next ``WINDOW`` seeks in
  that order (an opponent further along has ``WINDOW`` seeks in between whose ratings are
  closer, so a closer pair almost always exists): O(n log n) work, n·WINDOW candidate pairs;
* a pair is allowed when the gap is within both seeks' accepted gaps (each widens a wave,
  never past 500), each rating is inside the other's ``range``, the players differ, and they
  are not blocked from each other (their last paired game was aborted);
* pairs are taken best score first (gap - bonus per missed wave, a seek put back with priority
  first of all), each seek once. This greedy takes the closest pair on the line first, which is
  the optimum for gaps alone whenever the two are each other's nearest; a seek left out waits
  a wave and its gap widens.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from server.core.pairing.seeks import GAP_MAX, GAP_STEP, Seek

#: Opponents looked at per seek, along the sorted rating line.
WINDOW = 8
#: A missed wave's bonus (the score is gap - bonus * waves of both), and a priority seek's.
WAVE_BONUS = GAP_STEP
PRIORITY_BONUS = 1e6


def allowed(a: Seek, b: Seek, blocked: Callable[[str, str], bool]) -> bool:
    """Whether ``a`` and ``b`` may be paired: gaps, ranges, two players, not blocked."""
    gap = abs(a.level - b.level)
    return (
        gap <= a.gap
        and gap <= b.gap
        and gap <= GAP_MAX
        and a.admits(b.level)
        and b.admits(a.level)
        and a.pid != b.pid
        and not blocked(a.pid, b.pid)
    )


def score(a: Seek, b: Seek) -> float:
    """A pair's score, lowest best: the gap, less a bonus for each wave either side missed."""
    bonus = WAVE_BONUS * (a.waves + b.waves) + PRIORITY_BONUS * (a.priority + b.priority)
    return abs(a.level - b.level) - bonus


def wave(
    seeks: Sequence[Seek], blocked: Callable[[str, str], bool], window: int = WINDOW
) -> list[tuple[Seek, Seek]]:
    """The pairs one wave makes of ``seeks`` (one pool's), each seek in at most one pair
    (what :func:`allowed` and :func:`score` say, read once per seek into plain lists)."""
    order = sorted(seeks, key=lambda s: (s.level, s.serial))
    levels = [s.level for s in order]
    gaps = [s.gap for s in order]
    spans = [s.range for s in order]
    pids = [s.pid for s in order]
    bonus = [WAVE_BONUS * s.waves + PRIORITY_BONUS * s.priority for s in order]
    edges: list[tuple[float, int, int]] = []
    count = len(order)
    for i in range(count):
        level, gap, span, pid = levels[i], gaps[i], spans[i], pids[i]
        for j in range(i + 1, min(i + 1 + window, count)):
            apart = levels[j] - level  # sorted: never negative
            if apart > GAP_MAX:
                break
            if apart > gap or apart > gaps[j] or pids[j] == pid:
                continue
            other = spans[j]
            if span is not None and not span[0] <= levels[j] <= span[1]:
                continue
            if other is not None and not other[0] <= level <= other[1]:
                continue
            if not blocked(pid, pids[j]):
                edges.append((apart - bonus[i] - bonus[j], i, j))
    edges.sort()
    taken = [False] * count
    pairs: list[tuple[Seek, Seek]] = []
    for _score, i, j in edges:
        if not taken[i] and not taken[j]:
            taken[i] = taken[j] = True
            pairs.append((order[i], order[j]))
    return pairs
