"""The one blunder rule: the server marks the moves of a game in its ``analysis`` answers, so the
browser and the pygame client show the same marks and compute none (issue 46.2).

A move's mover stands at a value before it (the best line's ``win`` chance, or a proven value:
a win 100, a draw 50, a loss 0) and after it (100 minus the opponent's value in the next
position, or the game's result when the move ended it). A move is a **blunder** when it plays
a proven win or draw into a proven loss, or when its mover's value falls by more than
:data:`BLUNDER_DROP` points; a **mistake** when it plays a proven win into a proven draw.
"""

from __future__ import annotations

from collections.abc import Callable

from protocol.rules import Move, Termination
from protocol.wire import Message
from server.core.analysis.position import GameLine

#: A blunder loses more than this many points of win chance (on the ``win`` scale, 0-100): a
#: level game played into a 20 % chance, or a 90 % one into a 60 %.
BLUNDER_DROP = 30
#: A proven value on the ``win`` scale.
PROVEN = {"win": 100, "draw": 50, "loss": 0}

#: The cached answer (``lines``, ``values``) of a position by its key, or None.
Lookup = Callable[[bytes], Message | None]


def value(body: Message) -> int | None:
    """The side to move's value in an answer: its best proven value, else its best line's
    ``win`` (None when it has neither)."""
    proven = [PROVEN[v["value"]] for v in body.get("values") or ()]
    if proven:
        return max(proven)
    lines = body.get("lines") or ()
    return lines[0].get("win") if lines else None


def played_value(body: Message, move: Move) -> int | None:
    """The proven value of ``move`` in an answer with ``values`` (None: not solved)."""
    for v in body.get("values") or ():
        if v["move"] == [move.x, move.y]:
            return PROVEN[v["value"]]
    return None


def mark(ply: int, body: Message, move: Move, after: int | None) -> Message | None:
    """The mark of move ``ply`` (``move``, played in the position of ``body``) whose mover
    stands at ``after`` once it is made; None when the answer says nothing to judge by."""
    before, played = value(body), played_value(body, move)
    if before is None:
        return None
    if played is not None:
        after = played
    if after is None:
        return None
    verdict = None
    if played is not None and before >= PROVEN["draw"] and played == PROVEN["loss"]:
        verdict = "blunder"
    elif played is not None and before == PROVEN["win"] and played == PROVEN["draw"]:
        verdict = "mistake"
    elif played is None and before - after > BLUNDER_DROP:
        verdict = "blunder"
    return {"ply": ply, "drop": before - after, "verdict": verdict}


def marks(line: GameLine, ply: int, body: Message, lookup: Lookup) -> list[Message]:
    """The marks an answer for the position after ``ply`` moves of ``line`` can give: the move
    into it (when the position before is known) and the move out of it (when the position
    after is, or the move ended the game)."""
    out: list[Message] = []
    if ply > 0:
        before = lookup(line.key(ply - 1))
        seen = value(body)
        if before is not None:
            after = None if seen is None else 100 - seen
            found = mark(ply - 1, before, line.moves[ply - 1], after)
            out += [found] if found is not None else []
    if ply < len(line.moves):
        after_move: int | None = None
        if ply + 1 == len(line.moves) and line.end is not None:
            after_move = 100 if line.end == Termination.LINE else 50
        else:
            following = lookup(line.key(ply + 1))
            seen = None if following is None else value(following)
            after_move = None if seen is None else 100 - seen
        found = mark(ply, body, line.moves[ply], after_move)
        out += [found] if found is not None else []
    return out
